"""The Ray executor: every job is a Ray task on a cluster, with the same interface and the
same results as :class:`~gen09_core.mutate.executor.LocalExecutor`.

What travels. A job names folders of the driver (the pristine work copy, a bundle); the
executor packs each such folder once per run into a tarball in Ray's object store
(:mod:`gen09_core.mutate.snapshot`) and the worker materialises it in a folder of its own.
The environment travels as its lock: the worker rebuilds the venv from it once per lock
(``testrun.venv.cached_env``, under its own work folder) — or, for a profile with
``venv = false``, uses the interpreter Ray runs it with. No path of the driver is read on a
worker. Which job runners can travel, and how, is :mod:`gen09_core.mutate.remote_jobs`.

The pristine baseline of ``gen09 mutate`` (two consecutive whole-suite runs, which decide what
is flaky) runs on the driver, in the environment the driver has just built and locked
(:attr:`RayExecutor.pristine`); every mutant run goes to the cluster.

Resources and faults. Each task asks for ``num_cpus`` CPUs and ``memory_mb`` of memory (the
run's ``limits.memory_mb``), so Ray places no more jobs on a node than it holds. Results come
back as they finish (``ray.wait``). A task lost to the infrastructure — its worker process or
its node died, its object was lost — is submitted again, up to ``max_retries`` times (Ray
places it on a live node); after that the job's result is the runner's *infrastructure
failure* (for a test job a ``crash`` whose detail says so), and the run goes on. An
exception raised by the job itself is not retried: it propagates as it would locally.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from gen09_core.errors import BadInput
from gen09_core.mutate.executor import LocalExecutor

EXTRA = "pip install 'gen09[ray]'"


def import_ray():
    """The ``ray`` module; ``BadInput`` (exit 2) naming the extra when it is not installed."""
    try:
        import ray
    except ImportError:
        raise BadInput(f"--executor ray needs Ray, which is not installed: {EXTRA}") from None
    return ray


class RayExecutor:
    """Runs jobs as Ray tasks on the cluster at ``address`` (None: ``RAY_ADDRESS``, a cluster
    already running on this machine, or a new local one). ``notify(job_id, attempt, error)``
    is told about each infrastructure failure that is retried."""

    def __init__(self, address: str | None = None, *, max_retries: int = 2, num_cpus: float = 1.0,
                 memory_mb: int | None = None, notify: Callable | None = None):
        self.ray = import_ray()
        self.address = address
        self.max_retries = max(0, int(max_retries))
        self.num_cpus = num_cpus
        self.memory_mb = memory_mb
        self.notify = notify
        self._packed: dict = {}  # folder -> (signature, ObjectRef, digest)
        # the pristine baseline runs here, where its environment was just built: its two runs are
        # consecutive runs of one folder on one machine (a test that keeps state between runs is
        # flaky, as with the local executor); the mutant runs go to the cluster
        self.pristine = LocalExecutor(1)

    def connect(self):
        """Join the cluster (once per process)."""
        ray = self.ray
        if not ray.is_initialized():
            ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                     include_dashboard=False if self.address is None else None,
                     configure_logging=True)
        return ray

    def ship(self, folder) -> tuple[str, object]:
        """``(digest, object ref)`` of the folder's snapshot in the object store, packed again
        only when the folder changed since the last call."""
        from gen09_core.mutate import snapshot

        key = str(folder)
        sig = snapshot.signature(folder)
        known = self._packed.get(key)
        if known is None or known[0] != sig:
            packed = snapshot.pack(folder)
            known = (sig, self.ray.put(packed.data), packed.digest)
            self._packed[key] = known
        return known[2], known[1]

    def run(self, fn: Callable, jobs: Iterable) -> Iterator:
        """Submit every job as a Ray task; yield results as each finishes."""
        from gen09_core.mutate.remote_jobs import remote_form

        jobs = list(jobs)
        if not jobs:
            return
        ray = self.connect()
        form = remote_form(fn)
        task = ray.remote(form.execute)
        options = {"num_cpus": self.num_cpus, "max_retries": 0, "retry_exceptions": False}
        if self.memory_mb:
            options["memory"] = int(self.memory_mb) * 1024 * 1024
        task = task.options(**options)
        payload = form.payload(self)  # shared by every job of this call (the environment)
        pending = {}

        def submit(job, attempt):
            pending[task.remote(payload, *form.job_args(self, job))] = (job, attempt)

        for job in jobs:
            submit(job, 1)
        while pending:
            # a bounded wait: the main thread returns to Python often enough for a signal's
            # handler (the CLI's, which ends what the command started) to run
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            if not ready:
                continue
            ref = ready[0]
            job, attempt = pending.pop(ref)
            try:
                value = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:  # the job itself raised: as locally
                raise exc.as_instanceof_cause() from None
            except ray.exceptions.RayError as exc:  # the worker, its node or the object was lost
                error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc) else ''}"
                if attempt <= self.max_retries:
                    if self.notify is not None:
                        self.notify(form.job_id(job), attempt, error)
                    submit(job, attempt + 1)
                    continue
                yield form.lost(job, attempt, error)
                continue
            yield form.finish(job, value)
