"""The built-in command-recipe profiles: ``node``, ``cargo``, ``go``, ``ruby``, ``cmake``, ``make``,
``maven``, ``gradle`` (detected from the repository's files, see :mod:`gen09_core.testrun.ecosystems`)
and ``command`` (the whole recipe given in the configuration: ``[profiles.NAME] base =
"command"`` with ``setup``, ``test``, ``report`` and ``image``).

With the default profile (``python-pytest``) and a repository with none of Python's
project files (``pyproject.toml``, ``setup.py``, ``setup.cfg``), the detected ecosystem's
profile is used: no configuration is needed for the common layouts."""

from __future__ import annotations

from gen09_core import hookimpl
from gen09_core.mutate.profiles import Profile

ECOSYSTEM_PROFILES = (Profile("node", language="javascript", ecosystem="node"),
                      Profile("cargo", language="rust", ecosystem="cargo"),
                      Profile("go", language="go", ecosystem="go"),
                      Profile("ruby", language="ruby", ecosystem="ruby"),
                      Profile("cmake", language="c", ecosystem="cmake"),
                      Profile("maven", language="java", ecosystem="maven"),
                      Profile("gradle", language="java", ecosystem="gradle"),
                      Profile("make", language="c", ecosystem="make"),
                      Profile("command", language="", ecosystem="command"))


@hookimpl
def gen09_repo_profiles():
    """The command-recipe profiles."""
    return list(ECOSYSTEM_PROFILES)
