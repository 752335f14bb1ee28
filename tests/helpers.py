"""Helpers shared by the test modules (fixtures live in ``conftest.py``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MUTATE_FIXTURE = ROOT / "tests" / "fixtures" / "mutate_repo"


def run_gen09(*args, cwd=None, stdin=None):
    """Run the real ``gen09`` console entry in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "gen09_core", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, input=stdin, env=os.environ.copy(),
    )


def mutate_fixture_copy(tmp_path: Path, repo: Path, max_mutants: int):
    """Run ``gen09 mutate --json`` (seed 3, fresh runner) on ``repo``, a changed copy of the
    mutate fixture; returns the run folder and the finished process."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"source": {"repo": str(repo)}, "seeds": {"mutate": 3},
                                  "limits": {"max_mutants": max_mutants, "runner": "fresh"}}))
    out = tmp_path / "run"
    return out, run_gen09("mutate", "--config", config, "--out", out, "--json")


def without_runner(per_task: dict) -> dict:
    """``gen09 ab``'s per-task results without how each validation ran: whether a candidate
    is carried warm depends on which one started the warm worker (the threads' order) and on
    the executor (Ray runs fresh), never its outcome."""
    return {arm: [{**row, "forwarded": [{k: v for k, v in f.items() if k != "runner"} for f in row["forwarded"]]}
                  for row in rows] for arm, rows in per_task.items()}


def tree_bytes(root: Path) -> dict:
    """Every file under ``root`` with its bytes, to prove nothing changed."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class RecordingExecutor:
    """A second executor (as a distributed engine would be): runs jobs in reverse order and
    records them."""

    def __init__(self):
        self.jobs = []

    def run(self, fn, jobs):
        """Run ``fn`` over ``jobs``, last first."""
        jobs = list(jobs)
        self.jobs.extend(jobs)
        for job in reversed(jobs):
            yield fn(job)


def repo_with_tests(tmp_path: Path, body: str) -> Path:
    """A repository under ``tmp_path`` whose only file is ``tests/test_it.py`` with ``body``."""
    import textwrap

    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_it.py").write_text(textwrap.dedent(body))
    return repo


def warm_project(tmp_path: Path, lib: str, tests: str):
    """A repository of ``lib.py`` and ``tests/test_it.py``, and the environment it runs in
    (this interpreter, gen09's plugins with the warm runner's)."""
    from gen09_core.testrun.jobs import TestEnv, install_plugin

    repo = repo_with_tests(tmp_path, tests)
    (repo / "lib.py").write_text(lib)
    return repo, TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))


def compiles(text: str) -> bool:
    """Whether CPython compiles ``text`` as a whole module (warnings silenced)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "m.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True
