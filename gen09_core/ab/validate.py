"""Downstream validation of one candidate: its files written into a fresh copy of the task's
repository, then the task's FAIL_TO_PASS and PASS_TO_PASS tests run — through the bundle's own
verifier (``tests/test.sh``) or, for SWE-bench tasks, pytest on the listed ids."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from attrs import frozen

from gen09_core.ab.tasks import Task
from gen09_core.errors import EnvironmentFailure


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
        passed = passed_tests(logs / "junit.xml", wanted)
    return Verdict(wanted <= passed, set(task.pass_to_pass) <= passed, time.perf_counter() - start)


def _run_bundle(bundle: Path, app: Path, logs: Path, python: str, timeout: float) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEN09_", "PYTEST_"))}
    env.pop("PYTHONPATH", None)
    env.update(GEN09_APP_DIR=str(app), GEN09_TESTS_DIR=str(bundle / "tests"),
               GEN09_LOG_DIR=str(logs), GEN09_PYTHON=python, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    _run(["bash", str(bundle / "tests" / "test.sh")], app, env, timeout)


def _run_pytest(task: Task, app: Path, logs: Path, python: str, timeout: float) -> None:
    if task.test_patch:
        done = subprocess.run(["git", "apply", "-"], input=task.test_patch, text=True, cwd=app,
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise EnvironmentFailure(f"{task.id}: test_patch does not apply: {done.stderr.strip()[:300]}")
    ids = sorted(set(task.fail_to_pass) | set(task.pass_to_pass))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={logs / 'junit.xml'}",
          *ids], app, env, timeout)


def _run(cmd, cwd, env, timeout) -> None:
    try:
        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pass  # the tests that did not finish are simply not passed
    except OSError as exc:
        raise EnvironmentFailure(f"could not run {cmd[0]}: {exc}") from None


def passed_tests(junit: Path, wanted) -> set[str]:
    """Which of the node ids ``wanted`` a pytest JUnit XML report shows as passed; an absent
    or broken report passes nothing. A node id ``a/test_x.py::Cls::test[p]`` appears in the
    report as classname ``a.test_x.Cls`` and name ``test[p]``."""
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return set()
    ok = set()
    for case in root.iter("testcase"):
        if not any(child.tag in ("failure", "error", "skipped") for child in case):
            ok.add((case.get("classname", ""), case.get("name", "")))
    return {node for node in wanted if _junit_key(node) in ok}


def _junit_key(node: str) -> tuple[str, str]:
    path, *rest = node.split("::")
    module = path.removesuffix(".py").replace("/", ".")
    return ".".join([module, *rest[:-1]]), rest[-1] if rest else ""
