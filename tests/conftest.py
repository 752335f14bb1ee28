"""Shared fixtures. Tests never load plugins installed on the machine: only this
distribution's own entry points are allowed (set for the whole session, then restored).
Shared helpers live in ``tests/helpers.py``."""

import shutil

import pytest

from gen09_core.plugins import BUILTIN_PLUGINS, ENV_GENERATOR, ENV_PLUGINS
from tests.helpers import EXAMPLES

collect_ignore = ["fixtures"]  # the fixture repositories' own suites are gen09's input, not its tests


@pytest.fixture(scope="session", autouse=True)
def only_builtin_plugins():
    """Limit plugin loading to the built-in packs, with no generator forced by the environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_PLUGINS, ",".join(BUILTIN_PLUGINS))
        patch.delenv(ENV_GENERATOR, raising=False)
        yield


@pytest.fixture
def registry():
    """A registry of the built-in plugins only."""
    from gen09_core.plugins import make_registry

    return make_registry()


@pytest.fixture
def calc_repo(tmp_path):
    """A private copy of the example repository."""
    repo = tmp_path / "calc"
    shutil.copytree(EXAMPLES / "calc", repo)
    return repo


@pytest.fixture(scope="session")
def runner_env(tmp_path_factory):
    """How to run pytest jobs with this interpreter and gen09's plugin."""
    import sys

    from gen09_core.testrun.jobs import TestEnv, install_plugin

    work = tmp_path_factory.mktemp("env")
    return TestEnv(sys.executable, str(install_plugin(work / "plugins")))
