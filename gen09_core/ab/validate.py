"""Downstream validation of one candidate: its files written into a fresh copy of the task's
repository, then the task's FAIL_TO_PASS and PASS_TO_PASS tests run, and their outcomes read
by gen09's one outcome reader.

Where the tests run (a :class:`Runner`, prepared once per task):

- a ``gen09 mutate`` bundle: its own verifier (``tests/test.sh``), in a venv rebuilt from
  the bundle's lock exactly as ``gen09 verify`` does (or ``--python``);
- a SWE-bench instance: pytest on the listed ids, through gen09's plugin, over a prepared
  copy of the checkout with ``test_patch`` applied (and a second copy with the gold
  ``patch`` too, for the self-check). The interpreter is ``--python``, else the record's
  ``gen09_python``, else a venv built from the checkout's detected recipe; the checkout's
  import roots come first on ``PYTHONPATH``, so a ``src/`` layout works and an editable
  install of the original checkout never shadows the copy under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attrs import field, frozen

from gen09_core.ab.tasks import Task
from gen09_core.errors import BadInput
from gen09_core.testrun import outcomes
from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job


@frozen
class Verdict:
    """Whether a candidate resolves the task, whether it keeps the regression tests
    (PASS_TO_PASS) green — the only signal selection may use — and, when the runner could
    not measure (a timeout, a crash, a collection error, ids that were never reported),
    why: ``problem``. ``not_passed`` lists the expected ids that did not pass."""

    resolved: bool
    regression_ok: bool
    seconds: float
    problem: str = ""
    not_passed: tuple[str, ...] = ()
    tail: str = ""
    runner: str = "fresh"  # "warm", "fresh" or "fresh: <why the warm worker handed it back>"


@frozen
class Runner:
    """How one task's tests run: the interpreter and where it came from; for SWE-bench
    tasks the pytest environment and the prepared base (checkout + test_patch) and gold
    (base + patch) folders."""

    python: str
    source: str
    test_env: TestEnv | None = None
    base: Path | None = None
    gold: Path | None = None
    notes: tuple[str, ...] = field(factory=tuple)
    lock: str | None = None  # SWE-bench: the rendered lock of the venv built here (a Ray worker rebuilds it)
    setup: object = None  # a command-recipe bundle's install steps, replayed in each app folder


def prepare_runner(task: Task, python: str | None, work: Path) -> Runner:
    """The runner of ``task``; ``BadInput`` when a patch does not apply,
    ``EnvironmentFailure`` when its environment cannot be built."""
    if task.bundle is not None:
        from gen09_core.mutate.verify import bundle_python
        from gen09_core.mutate.verify_command import bundle_toolchain, is_command_bundle

        if is_command_bundle(task.bundle):  # another ecosystem: its local toolchain
            toolchain, source, setup = bundle_toolchain(task.bundle)
            return Runner(sys.executable, f"{source} ({toolchain})", setup=setup)
        found, source = bundle_python(task.bundle, python)
        return Runner(found, source)
    folder = Path(work).resolve() / _safe(task.id)
    shutil.rmtree(folder, ignore_errors=True)
    base, gold = folder / "base", folder / "gold"
    shutil.copytree(task.repo, base, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    _apply(base, task.test_patch, f"{task.id}: test_patch")
    shutil.copytree(base, gold, symlinks=True)
    _apply(gold, task.gold_patch, f"{task.id}: patch")
    return _pytest_runner(task, python, folder, base, gold)


def _pytest_runner(task: Task, python: str | None, folder: Path, base: Path, gold: Path) -> Runner:
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import READY, build_from_recipe, cache_root, capture

    recipe = detect(base)
    built, notes = False, ()
    if python or task.python:
        chosen = python or task.python
        interpreter = str(Path(chosen).absolute()) if "/" in chosen else shutil.which(chosen)
        if not interpreter or not Path(interpreter).exists():
            raise BadInput(f"{task.id}: no such interpreter {chosen}")
        lock = capture(interpreter, recipe, require=("pytest",))
        source, venv = ("--python" if python else "gen09_python"), None
    else:
        key = hashlib.sha256(f"{task.id}\0{sorted(recipe.provenance)}".encode()).hexdigest()[:16]
        venv = cache_root() / "ab-envs" / key
        project = folder / "install"
        shutil.copytree(base, project, symlinks=True)
        said = venv / "gen09-notes.json"  # what the first build changed, said again on reuse
        if (venv / READY).exists():
            lock = capture(str(venv / "bin" / "python"), recipe, require=("pytest",))
            notes = tuple(json.loads(said.read_text(encoding="utf-8"))) if said.exists() else ()
        else:
            lock, notes = build_from_recipe(recipe, venv, project)
            said.write_text(json.dumps(notes) + "\n", encoding="utf-8")
            (venv / READY).write_text("ok\n")
        built = True
        interpreter, source = str(venv / "bin" / "python"), f"detected ({recipe.summary()})"
    plugins = install_plugin(folder / "plugins", warm=True)
    test_env = TestEnv(interpreter, str(plugins), str(venv) if venv else None, recipe.pythonpath,
                       lock.plugins, (), recipe.addopts)
    return Runner(interpreter, source, test_env, base, gold, (*recipe.notes, *notes),
                  lock.render() if built else None)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:120]


def _apply(folder: Path, patch: str | None, what: str) -> None:
    if not patch:
        return
    # the folder is not a repository of its own: without a ceiling, git would find an enclosing
    # one (the --out folder may sit inside the user's repository), apply paths relative to its
    # root and silently skip every file
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(Path(folder).parent)}
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], input=patch, text=True, cwd=folder,
                          capture_output=True, check=False, env=env)
    if done.returncode != 0:
        raise BadInput(f"{what} does not apply: {done.stderr.strip()[:300]}")


def validate(task: Task, runner: Runner, files, timeout: float = 900.0, gold: bool = False,
             warm=None) -> Verdict:
    """Run the task's tests with ``files`` (``ChangedFile``s) written — or, with ``gold``,
    with the reference fix — and judge them by the outcome reader. ``warm`` (a
    ``WarmRunner`` over the task's base folder) runs a SWE-bench task's job when it can; for a
    bundle task it is the warm service (``verify_warm.WarmVerify``) of its test.sh's pytest run."""
    start = time.perf_counter()
    expected = set(task.fail_to_pass) | set(task.pass_to_pass)
    with tempfile.TemporaryDirectory(prefix="gen09-ab-") as tmp:
        if task.bundle is not None:
            found, status, first_error, output, used = _run_bundle(task, runner, files, Path(tmp), timeout,
                                                                   gold, warm)
        else:
            found, status, first_error, output, used = _run_pytest(task, runner, files, Path(tmp), timeout,
                                                                   gold, warm)
    passed = {t for t, outcome in found.items() if outcome == outcomes.PASSED}
    not_passed = tuple(sorted(expected - passed))
    missing = sorted(t for t in not_passed if t not in found)
    problem = ""
    if status != "ok":
        problem = f"{status}: {output[-300:]}"
    elif first_error:
        problem = f"collection error: {first_error}"
    elif missing:
        problem = f"{len(missing)} expected test id(s) never reported, e.g. {missing[0]}"
    return Verdict(expected <= passed, set(task.pass_to_pass) <= passed, time.perf_counter() - start,
                   problem, not_passed, output if (not_passed or problem) else "", used)


def _run_bundle(task, runner, files, tmp: Path, timeout, gold, warm=None):
    from gen09_core.mutate.verify import run_trial

    trial = run_trial(task.bundle, tmp, runner.python, gold, timeout, files, setup=runner.setup, warm=warm)
    return trial.record.outcomes(), trial.status, trial.record.first_problem(), trial.output, trial.runner


def _run_pytest(task, runner, files, tmp: Path, timeout, gold, warm=None):
    changed = {f.path: f.new_bytes().decode("utf-8") for f in files}
    ids = tuple(sorted(set(task.fail_to_pass) | set(task.pass_to_pass)))
    job = TestJob(f"run-{tmp.name}", str(runner.gold if gold else runner.base), str(tmp), changed, ids, False,
                  timeout, file_order=test_patch_files(task.test_patch or ""))
    run = warm(job) if warm is not None and not gold and changed else run_job(runner.test_env, job)
    return run.outcomes, run.status, run.problem, run.detail, run.runner


def test_patch_files(test_patch: str) -> tuple[str, ...]:
    """The files a SWE-bench test patch writes, in its order: the order the benchmark's harness
    gives them to pytest (its test directives), so a test that reads what an earlier file's
    test left runs after it, as there."""
    return tuple(dict.fromkeys(re.findall(r"^\+\+\+ b/(\S+)", test_patch, re.M)))


@frozen
class ValidationJob:
    """One validation for an executor: its key (task id, candidate digest), the task, its
    runner, the candidate's files and whether the reference fix is applied instead."""

    key: tuple
    task: Task
    runner: Runner
    files: tuple = ()
    gold: bool = False


def run_validation(job: ValidationJob, timeout: float = 900.0) -> tuple[tuple, Verdict]:
    """``(job.key, verdict)``: the job runner ``gen09 ab`` hands its executor."""
    return job.key, validate(job.task, job.runner, job.files, timeout, gold=job.gold)


def passed_tests(logs: Path) -> set[str]:
    """The ids that passed, read from gen09's outcome record by the one outcome reader."""
    return outcomes.read(logs / "outcomes.jsonl").passed()
