"""Repository profiles: the built-in ``python-pytest`` profile and profiles given in the
configuration file under ``[profiles.NAME]`` (fields over a base profile).

A profile field left as None is detected from the repository (see
:mod:`gen09_core.testrun.detect`); a value given in the configuration overrides detection.
"""

from __future__ import annotations

from attrs import evolve, field, frozen

from gen09_core import hookimpl


@frozen
class Profile:
    """A repository profile. ``install``: shell commands run in the work copy with the
    venv first on ``PATH`` instead of the detected install (None: detected);
    ``pythonpath``: folders of the work copy put on ``PYTHONPATH`` (None: detected);
    ``plugins``: pytest plugins loaded by name (None: every plugin the venv has, minus
    those that would change gen09's measurement); ``venv`` False runs the tests with
    gen09's own interpreter (no isolation: for tests and prepared environments only);
    ``base_image``/``image_install``: the bundle's base image and RUN steps (None: the
    validating Python's official image, installing exactly the lock). ``ecosystem`` names
    a command recipe (:mod:`gen09_core.testrun.ecosystems`: ``node``, ``cargo``, ``cmake``,
    or ``command`` for one given whole in the configuration) instead of pytest; ``setup``,
    ``test``, ``report`` and ``image`` override the detected recipe's."""

    name: str
    language: str = "python"
    venv: bool = True
    install: tuple[str, ...] | None = None
    test_paths: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] | None = None
    plugins: tuple[str, ...] | None = None
    env: dict = field(factory=dict)
    base_image: str | None = None
    image_install: tuple[str, ...] | None = None
    ecosystem: str | None = None
    setup: tuple[str, ...] | None = None
    test: str | None = None
    report: str | None = None
    image: str | None = None

    def with_spec(self, name: str, spec) -> Profile:
        """This profile with the fields a ``config.ProfileSpec`` sets."""
        changes = {k: getattr(spec, k) for k in ("install", "test_paths", "pytest_args", "pythonpath", "env",
                                                  "venv", "base_image", "image_install", "plugins",
                                                  "setup", "test", "report", "image")
                   if getattr(spec, k) is not None}
        return evolve(self, name=name, **changes)


PYTHON_PYTEST = Profile("python-pytest")


@hookimpl
def gen09_repo_profiles():
    """The built-in Python/pytest profile."""
    return [PYTHON_PYTEST]


def known_profiles(registry) -> dict:
    """Registered profiles by name."""
    return registry.repo_profiles()


def resolve_profile(registry, config) -> Profile:
    """The profile the configuration names: a config-file profile over its base, or a
    registered one."""
    known = known_profiles(registry)
    spec = config.profiles.get(config.profile)
    if spec is not None:
        return known[spec.base].with_spec(config.profile, spec)
    return known[config.profile]
