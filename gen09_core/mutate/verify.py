"""``gen09 verify``: run a bundle's own verifier against its snapshot, locally, no Docker.

For each bundle: (nop) a fresh copy of ``environment/repo`` as the app folder, then
``tests/test.sh`` — the reward must be 0; (oracle) another fresh copy, ``solution/solve.sh``,
then ``tests/test.sh`` — the reward must be 1. The scripts' paths are redirected through
``GEN09_APP_DIR``, ``GEN09_TESTS_DIR``, ``GEN09_LOG_DIR`` and ``GEN09_PYTHON``. The bundle
itself is never modified (its tests folder is read, not written).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from attrs import frozen

from gen09_core.errors import EnvironmentFailure
from gen09_core.mutate.bundle import check_task_hash
from gen09_core.testrun import outcomes
from gen09_core.testrun.process import clean_env, run_limited, tail
from gen09_core.testrun.venv import LOCK_NAME, Lock, cached_env


@frozen
class Contrast:
    """One bundle's verification: the nop and oracle rewards and whether they contrast,
    the interpreter used and where it came from."""

    bundle: str
    nop: float | None
    oracle: float | None
    hash_ok: bool
    seconds: float
    detail: str = ""
    python: str = ""
    environment: str = ""
    runners: str = ""  # how each trial's pytest run ran: ``nop warm; oracle fresh: <why>``; '' without pytest

    @property
    def ok(self) -> bool:
        """Accepted: the hash matches, nop scores 0 and the oracle scores 1."""
        return self.hash_ok and self.nop == 0 and self.oracle == 1

    @property
    def warm_runs(self) -> int:
        """How many of the two trials' pytest runs were served warm."""
        return sum(part in ("nop warm", "oracle warm") for part in self.runners.split("; "))

    @property
    def pytest_runs(self) -> int:
        """How many of the two trials ran pytest (none for another ecosystem's bundle)."""
        return 2 if self.runners else 0

    @property
    def failure_class(self) -> str | None:
        """``infrastructure`` when the executor lost the run, ``oracle`` when the reference
        solution does not score 1, ``verifier`` when the untouched snapshot does not score 0
        or the bundle's hash is off, else None."""
        if self.detail.startswith("infrastructure:"):
            return "infrastructure"
        if self.oracle != 1:
            return "oracle"
        if self.nop != 0 or not self.hash_ok:
            return "verifier"
        return None

    def as_dict(self) -> dict:
        """JSON form."""
        return {"bundle": self.bundle, "nop": self.nop, "oracle": self.oracle,
                "hash_ok": self.hash_ok, "ok": self.ok, "failure_class": self.failure_class,
                "seconds": round(self.seconds, 3), "detail": self.detail, "python": self.python,
                "environment": self.environment, "runners": self.runners}


def is_bundle(path: Path) -> bool:
    """A folder with the files a bundle needs."""
    return all((Path(path) / p).exists() for p in ("task.toml", "tests/test.sh", "environment/repo"))


def bundle_python(bundle: Path, python: str | None = None) -> tuple[str, str]:
    """``(interpreter, where it came from)``: ``python`` when given (a path, resolved, or a
    name on PATH), else a venv rebuilt from the bundle's own lock (cached by the lock's
    digest). ``BadInput`` when neither exists; ``EnvironmentFailure`` when the lock
    cannot be installed."""
    from gen09_core.errors import BadInput

    if python is not None:
        # absolute, not resolved: a venv interpreter is a symlink to the base one
        found = os.path.abspath(python) if "/" in python else shutil.which(python)
        if not found or not Path(found).exists():
            raise BadInput(f"--python {python}: no such interpreter")
        return found, "--python"
    lock_file = Path(bundle) / "environment" / LOCK_NAME
    if not lock_file.is_file():
        raise BadInput(f"{bundle}: the bundle ships no environment lock ({LOCK_NAME}); pass --python")
    try:
        lock = Lock.parse(lock_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BadInput(f"{lock_file}: {exc}") from None
    return cached_env(lock, Path(bundle) / "environment" / "repo"), f"lock {lock.digest()}"


def verify_bundle(bundle: Path, python: str | None = None, timeout_sec: float = 900.0, warm=None) -> Contrast:
    """Run oracle and nop for one bundle in its shipped environment (or ``python``); with
    ``warm`` (a ``verify_warm.WarmVerify``) their pytest runs go to its warm workers."""
    bundle = Path(bundle).resolve()
    from gen09_core.mutate.verify_command import bundle_toolchain, is_command_bundle

    start = time.perf_counter()
    hash_ok = check_task_hash(bundle)
    setup = None
    if is_command_bundle(bundle):  # another ecosystem: the local toolchain, its install replayed per trial
        interpreter, source, setup = bundle_toolchain(bundle, timeout_sec)
        python = sys.executable
    else:
        try:
            python, source = bundle_python(bundle, python)
        except EnvironmentFailure as exc:  # which bundle's tree could not install (pyhcl 0.4.5)
            raise EnvironmentFailure(f"{bundle.name}: {exc}") from None
        interpreter = python
    with tempfile.TemporaryDirectory(prefix="gen09-verify-") as tmp:
        # the oracle first: a warm worker started by it has collected the pristine repository
        oracle, why_oracle, ran_oracle = _trial(bundle, Path(tmp) / "oracle", python, True, timeout_sec,
                                                setup, warm)
        nop, why_nop, ran_nop = _trial(bundle, Path(tmp) / "nop", python, False, timeout_sec, setup, warm)
    detail = "; ".join(d for d in (why_nop if nop != 0 else "", why_oracle if oracle != 1 else "") if d)
    if not hash_ok:
        detail = "task hash does not match the bundle's files" + (f"; {detail}" if detail else "")
    runners = "" if setup is not None else f"nop {ran_nop}; oracle {ran_oracle}"
    return Contrast(str(bundle), nop, oracle, hash_ok, time.perf_counter() - start, detail, interpreter,
                    source, runners)


@frozen
class Trial:
    """One run of a bundle's verifier: the reward (None when none was written), the
    outcome record, how the run ended (``ok``, ``timeout``, ``crash``: the test session did
    not finish, ``solve_failed``), the tail of the test output and how its pytest run ran
    (``fresh``, ``warm``, ``fresh: <why the warm service handed it back>``)."""

    reward: float | None
    record: outcomes.Record
    status: str
    output: str
    runner: str = "fresh"


def run_trial(bundle: Path, root: Path, python: str, oracle: bool, timeout_sec: float, files=(),
              setup=None, warm=None) -> Trial:
    """Copy the bundle's snapshot to ``root/app``, write ``files`` (``ChangedFile``s) over it,
    run ``solution/solve.sh`` when ``oracle``, then ``setup(app)`` when given (what the image
    build does), then ``tests/test.sh`` with its paths redirected into ``root`` — its
    interpreter ``warm``'s launcher when given (a Python bundle's pytest run is then served
    warm when it can be)."""
    bundle = Path(bundle)
    app, logs = root / "app", root / "logs"
    shutil.copytree(bundle / "environment" / "repo", app, symlinks=True)
    logs.mkdir(parents=True)
    for changed in files:
        target = app / changed.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(changed.new_bytes())
    (root / "tmp").mkdir()
    # the interpreter's folder first on PATH, as in the validation's venv (and the image): the
    # repository's console scripts are found; the test process gets a temp folder of its own
    warm = warm if setup is None else None  # another ecosystem's bundle: no pytest to serve
    env = clean_env(GEN09_APP_DIR=str(app), GEN09_TESTS_DIR=str(bundle / "tests"), GEN09_LOG_DIR=str(logs),
                    GEN09_PYTHON=warm.launcher(python) if warm else python, TMPDIR=str(root / "tmp"),
                    **(warm.environment() if warm else {}))
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    if oracle:
        done = run_limited(["bash", str(bundle / "solution" / "solve.sh")], root, env, timeout_sec,
                           root / "solve-output.txt")
        if done.status != "ok" or done.returncode != 0:
            return Trial(None, outcomes.Record(), "solve_failed",
                         f"solve.sh {done.status} (exit {done.returncode}): {done.output[-300:]}")
    if setup is not None:
        setup(app)
    done = run_limited(["bash", str(bundle / "tests" / "test.sh")], root, env, timeout_sec,
                       root / "test-sh-output.txt")
    if done.status == "error":
        raise EnvironmentFailure(done.output)
    log = logs / "test-output.txt"
    output = tail(log.read_text(encoding="utf-8", errors="replace"), 8, 800) if log.exists() else done.output
    record = outcomes.read(logs / "outcomes.jsonl")
    status = "timeout" if done.status == "timeout" else ("ok" if record.finished else "crash")
    reward = None
    if done.status == "ok" and (logs / "reward.txt").exists():
        with contextlib.suppress(ValueError):
            reward = float((logs / "reward.txt").read_text().strip())
    return Trial(reward, record, status, output,
                 warm.runner_of(logs / "outcomes.jsonl") if warm else "fresh")


def _trial(bundle: Path, root: Path, python: str, oracle: bool, timeout_sec: float, setup=None, warm=None):
    """One trial: ``(reward or None, what went wrong with the tail of the test output, how
    its pytest run ran)``."""
    kind = "oracle" if oracle else "nop"
    trial = run_trial(bundle, root, python, oracle, timeout_sec, setup=setup, warm=warm)
    if trial.status == "timeout":
        return None, f"{kind}: timed out after {timeout_sec:g}s; {trial.output}", trial.runner
    if trial.reward is None:
        return None, f"{kind}: {trial.status}, no reward; {trial.output}", trial.runner
    return trial.reward, f"{kind}: reward {trial.reward:g}; test output: {trial.output}", trial.runner


def find_bundles(paths) -> list[Path]:
    """Bundles named directly, or found one level below (a run's ``tasks`` folder or the
    run folder itself)."""
    out = []
    for raw in paths:
        path = Path(raw)
        if is_bundle(path):
            out.append(path)
            continue
        for folder in (path, path / "tasks"):
            if folder.is_dir():
                out.extend(sorted(p for p in folder.iterdir() if p.is_dir() and is_bundle(p)))
    return out
