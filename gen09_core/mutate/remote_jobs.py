"""The job runners the Ray executor can send to another machine, and how each travels.

A local job runner is a callable over paths of this machine; its *remote form* splits it into
what is shared by every job of a call (the environment: a lock, not a venv), what each job
carries (its folder as a snapshot in the object store, its overlay files, its test ids), the
function the worker runs, and the result the driver reports when the infrastructure lost a
job for good (failure class ``infrastructure``). Known runners:

- ``functools.partial(testrun.jobs.run_job, test_env)`` and ``testrun.warm.WarmRunner``
  (``gen09 mutate``: baseline, validation, confirmation). On a worker every job is a fresh
  pytest process: the warm runner's forking workers are a per-machine optimisation and give
  the same outcomes.
- ``functools.partial(mutate.verify.verify_bundle, ...)`` over bundle folders (``gen09 verify``).
- ``functools.partial(ab.validate.run_validation, ...)`` over ``ValidationJob`` s (``gen09 ab``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

from attrs import evolve, frozen

from gen09_core.testrun.jobs import INFRASTRUCTURE


def lost_detail(attempts: int, error: str) -> str:
    """The detail of a job the cluster lost ``attempts`` times."""
    return f"{INFRASTRUCTURE}: the job was lost {attempts} time(s) on the Ray cluster (last: {error})"


def remote_form(fn):
    """The remote form of the job runner ``fn``; ``TypeError`` for a runner that cannot travel."""
    from gen09_core.testrun.jobs import run_job
    from gen09_core.testrun.warm import WarmRunner

    if isinstance(fn, WarmRunner):
        return TestJobs(fn.env)
    if isinstance(fn, functools.partial):
        from gen09_core.ab.validate import run_validation
        from gen09_core.mutate.verify import verify_bundle

        if fn.func is run_job and len(fn.args) == 1 and not fn.keywords:
            return TestJobs(fn.args[0])
        if fn.func is verify_bundle and not fn.args:
            return BundleVerifications(fn.keywords.get("python"), fn.keywords.get("timeout_sec", 900.0))
        if fn.func is run_validation and not fn.args:
            return Validations(fn.keywords["timeout"])
    raise TypeError(f"the Ray executor cannot send {fn!r} to a worker (see gen09_core.mutate.remote_jobs)")


def _node_python(lock_text: str | None, project: Path, root: Path) -> tuple[str, str | None]:
    """``(interpreter, venv)`` on this node: a venv rebuilt from the lock (once per lock and
    packaging metadata, under this node's work folder), or this process's interpreter."""
    if lock_text is None:
        return sys.executable, None
    from gen09_core.testrun.venv import Lock, cached_env

    python = cached_env(Lock.parse(lock_text), project, root / "cache")
    return python, str(Path(python).parent.parent)


def _plugin_dir(root: Path) -> str:
    from gen09_core.testrun.jobs import install_plugin

    # one folder per worker process: a copy never overwrites a file another job is importing
    return str(install_plugin(root / "plugins" / str(os.getpid())))


def _fetch(digest: str, data: bytes) -> tuple[Path, Path]:
    from gen09_core.mutate.snapshot import materialise, work_root

    root = work_root()
    return root, materialise(digest, data, root)


# -- gen09 mutate: test jobs -------------------------------------------------------------------


@frozen
class ShippedEnv:
    """A ``TestEnv`` without paths: the lock (None: the worker's own interpreter) and how the
    tests run."""

    lock: str | None
    pythonpath: tuple[str, ...]
    plugins: tuple[str, ...]
    pytest_args: tuple[str, ...]
    addopts: str | None
    test_paths: tuple[str, ...]
    env: dict


@frozen
class TestJobs:
    """Remote form of ``run_job`` over one ``TestEnv``."""

    __test__ = False

    test_env: object

    def payload(self, executor) -> ShippedEnv:
        """The environment, once per call."""
        e = self.test_env
        if e.venv is not None and not e.lock:
            raise TypeError("this test environment has a venv but no lock to rebuild it from on a worker")
        return ShippedEnv(e.lock if e.venv is not None else None, e.pythonpath, e.plugins, e.pytest_args,
                          e.addopts, e.test_paths, dict(e.env))

    def job_args(self, executor, job) -> tuple:
        """The job's snapshot (digest, object ref) and the job itself."""
        digest, ref = executor.ship(job.source_dir)
        return digest, ref, job

    @staticmethod
    def execute(shipped: ShippedEnv, digest: str, data: bytes, job):
        """On the worker: materialise, rebuild the environment, run the job."""
        from gen09_core.testrun.jobs import TestEnv, run_job

        root, source = _fetch(digest, data)
        python, venv = _node_python(shipped.lock, source, root)
        env = TestEnv(python, _plugin_dir(root), venv, shipped.pythonpath, shipped.plugins,
                      shipped.pytest_args, shipped.addopts, shipped.test_paths, dict(shipped.env))
        # one scratch folder per run and node, as the local executor has one per run
        scratch = root / "jobs" / hashlib.sha256(job.scratch.encode()).hexdigest()[:16]
        return evolve(run_job(env, evolve(job, source_dir=str(source), scratch=str(scratch))), runner="ray")

    @staticmethod
    def job_id(job) -> str:
        """The job's id."""
        return job.job_id

    @staticmethod
    def finish(job, value):
        """The result as the driver reports it."""
        return value

    @staticmethod
    def lost(job, attempts: int, error: str):
        """A ``crash`` that names the infrastructure."""
        from gen09_core.testrun.jobs import TestRun

        return TestRun(job.job_id, "crash", detail=lost_detail(attempts, error), runner="ray")


# -- gen09 verify: bundle verifications --------------------------------------------------------


@frozen
class BundleVerifications:
    """Remote form of ``verify_bundle`` over bundle folders."""

    python: str | None
    timeout_sec: float

    def payload(self, executor) -> tuple:
        """The interpreter override and the timeout."""
        return self.python, self.timeout_sec

    def job_args(self, executor, bundle) -> tuple:
        """The bundle's snapshot."""
        digest, ref = executor.ship(Path(bundle).resolve())
        return digest, ref

    @staticmethod
    def execute(payload: tuple, digest: str, data: bytes):
        """On the worker: materialise the bundle and verify it in its own lock's venv."""
        from gen09_core.mutate.verify import verify_bundle

        root, bundle = _fetch(digest, data)
        os.environ.setdefault("GEN09_CACHE_DIR", str(root / "cache"))
        return verify_bundle(bundle, *payload)

    @staticmethod
    def job_id(bundle) -> str:
        """The bundle's folder name."""
        return Path(bundle).name

    @staticmethod
    def finish(bundle, value):
        """The result, naming the driver's bundle folder."""
        return evolve(value, bundle=str(Path(bundle).resolve()))

    @staticmethod
    def lost(bundle, attempts: int, error: str):
        """A contrast with no rewards whose detail names the infrastructure."""
        from gen09_core.mutate.verify import Contrast

        return Contrast(str(Path(bundle).resolve()), None, None, True, 0.0, lost_detail(attempts, error))


# -- gen09 ab: candidate validations -----------------------------------------------------------


@frozen
class Validations:
    """Remote form of ``ab.validate.run_validation`` over ``ValidationJob`` s."""

    timeout: float

    def payload(self, executor) -> float:
        """The timeout of one validation run."""
        return self.timeout

    def job_args(self, executor, job) -> tuple:
        """The folder the job's tests run in (the bundle, or the base or gold copy) and the job."""
        runner = job.runner
        if job.task.bundle is not None:
            folder = Path(job.task.bundle)
        else:
            folder = runner.gold if job.gold else runner.base
        digest, ref = executor.ship(Path(folder).resolve())
        return digest, ref, job

    @staticmethod
    def execute(timeout: float, digest: str, data: bytes, job):
        """On the worker: materialise the folder, rebuild the task's environment, validate."""
        from gen09_core.ab.validate import Runner, run_validation

        root, folder = _fetch(digest, data)
        task, runner = job.task, job.runner
        if task.bundle is not None:
            if runner.source == "--python":
                python = runner.python
            else:
                from gen09_core.mutate.verify import bundle_python

                os.environ.setdefault("GEN09_CACHE_DIR", str(root / "cache"))
                python = bundle_python(folder)[0]
            local = Runner(python, runner.source)
            task = evolve(task, bundle=folder)
        else:
            if runner.lock is None:
                python, venv = runner.python, None
            else:
                python, venv = _node_python(runner.lock, folder, root)
            test_env = evolve(runner.test_env, python=python, venv=venv, plugin_dir=_plugin_dir(root))
            local = Runner(python, runner.source, test_env, folder, folder, runner.notes, runner.lock)
        return run_validation(evolve(job, task=task, runner=local), timeout=timeout)

    @staticmethod
    def job_id(job) -> str:
        """The task and candidate key."""
        return f"{job.task.id}:{job.key[-1][:12]}"

    @staticmethod
    def finish(job, value):
        """The ``(key, verdict)`` pair."""
        return value

    @staticmethod
    def lost(job, attempts: int, error: str):
        """A verdict that could not measure, naming the infrastructure."""
        from gen09_core.ab.validate import Verdict

        return job.key, Verdict(False, False, 0.0, lost_detail(attempts, error))
