"""mutate.profiles: a profile from the configuration overrides the built-in one."""

from gen09_core.mutate.config import ProfileSpec
from gen09_core.mutate.profiles import Profile


def test_profile_from_config_overrides_fields():
    spec = ProfileSpec(install=("echo hi",), pythonpath=("src",))
    profile = Profile("python-pytest").with_spec("mine", spec)
    assert profile.name == "mine" and profile.install == ("echo hi",) and profile.pythonpath == ("src",)
    assert profile.plugins is None and profile.base_image is None  # left to detection
