"""Shared fixtures. Tests never load plugins installed on the machine: only this
distribution's own entry points are allowed."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gen09_core.plugins import BUILTIN_PLUGINS, ENV_GENERATOR, ENV_PLUGINS

os.environ[ENV_PLUGINS] = ",".join(BUILTIN_PLUGINS)
os.environ.pop(ENV_GENERATOR, None)

collect_ignore = ["fixtures"]  # the fixture repositories' own suites are gen09's input, not its tests

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


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


def run_gen09(*args, cwd=None, stdin=None):
    """Run the real ``gen09`` console entry in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "gen09_core", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, input=stdin, env=os.environ.copy(),
    )


def tree_bytes(root: Path) -> dict:
    """Every file under ``root`` with its bytes, to prove nothing changed."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
