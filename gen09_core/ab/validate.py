"""Downstream validation of one candidate: its files written into a fresh copy of the task's
repository, then the task's FAIL_TO_PASS and PASS_TO_PASS tests run — through the bundle's own
verifier (``tests/test.sh``) or, for SWE-bench tasks, pytest on the listed ids."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from attrs import frozen

from gen09_core.ab.tasks import Task
from gen09_core.errors import EnvironmentFailure
from gen09_core.testrun import outcomes
from gen09_core.testrun.jobs import install_plugin
from gen09_core.testrun.process import clean_env, run_limited


@frozen
class Verdict:
    """Whether a candidate resolves the task, and whether it keeps the regression tests
    (PASS_TO_PASS) green — the only signal selection may use."""

    resolved: bool
    regression_ok: bool
    seconds: float


def validate(task: Task, files, python: str, timeout: float = 900.0) -> Verdict:
    """Run the task's tests against the repository with ``files`` (``ChangedFile``s) written."""
    import time

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gen09-ab-") as tmp:
        app, logs = Path(tmp, "app"), Path(tmp, "logs")
        shutil.copytree(task.repo, app, symlinks=True)
        logs.mkdir()
        for changed in files:
            target = app / changed.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(changed.new_bytes())
        if task.bundle is not None:
            _run_bundle(task.bundle, app, logs, python, timeout)
        else:
            _run_pytest(task, app, logs, python, timeout)
        wanted = set(task.fail_to_pass) | set(task.pass_to_pass)
        passed = passed_tests(logs)
    return Verdict(wanted <= passed, set(task.pass_to_pass) <= passed, time.perf_counter() - start)


def _run_bundle(bundle: Path, app: Path, logs: Path, python: str, timeout: float) -> None:
    env = clean_env(GEN09_APP_DIR=str(app), GEN09_TESTS_DIR=str(bundle / "tests"), GEN09_LOG_DIR=str(logs),
                    GEN09_PYTHON=python)
    _run(["bash", str(bundle / "tests" / "test.sh")], app, env, timeout, logs)


def _run_pytest(task: Task, app: Path, logs: Path, python: str, timeout: float) -> None:
    if task.test_patch:
        done = subprocess.run(["git", "apply", "-"], input=task.test_patch, text=True, cwd=app,
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise EnvironmentFailure(f"{task.id}: test_patch does not apply: {done.stderr.strip()[:300]}")
    ids = sorted(set(task.fail_to_pass) | set(task.pass_to_pass))
    runner = install_plugin(logs / "runner")
    select = logs / "tests.txt"
    select.write_text("".join(t + "\n" for t in ids), encoding="utf-8")
    files = logs / "files.txt"
    files.write_text("".join(f + "\n" for f in sorted({t.split("::", 1)[0] for t in ids})), encoding="utf-8")
    env = clean_env(PYTHONPATH=f"{app}:{runner}", GEN09_OUTCOMES=str(logs / "outcomes.jsonl"),
                    GEN09_SELECT=str(select))
    _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "gen09_pytest",
          "--continue-on-collection-errors", f"--rootdir={app}", f"@{files}"], app, env, timeout, logs)


def _run(cmd, cwd, env, timeout, logs) -> None:
    done = run_limited(cmd, cwd, env, timeout, logs / "runner-output.txt")
    if done.status == "error":
        raise EnvironmentFailure(done.output)


def passed_tests(logs: Path) -> set[str]:
    """The ids that passed, read from gen09's outcome record by the one outcome reader."""
    return outcomes.read(logs / "outcomes.jsonl").passed()
