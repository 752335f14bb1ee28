"""Where validation jobs run. The pipeline only calls :meth:`Executor.run`; a job is a
frozen, picklable value and a result is keyed by the job's id, so a distributed engine
(a cluster queue, remote sandboxes) can replace the local pool without other changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Protocol


class Executor(Protocol):
    """Runs ``fn(job)`` for every job and yields the results as they complete."""

    def run(self, fn: Callable, jobs: Iterable) -> Iterator:
        """Yield ``fn(job)`` for each job, in completion order."""
        ...


class LocalExecutor:
    """The default: up to ``workers`` jobs at once on this machine. Each job is its own
    test-runner process (started by ``fn``); the pool only dispatches and waits, so its
    workers are threads."""

    def __init__(self, workers: int = 2):
        self.workers = max(1, int(workers))

    def run(self, fn: Callable, jobs: Iterable) -> Iterator:
        """Dispatch every job; yield results as each finishes."""
        jobs = list(jobs)
        if not jobs:
            return
        if self.workers == 1:
            for job in jobs:
                yield fn(job)
            return
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gen09-job") as pool:
            futures = [pool.submit(fn, job) for job in jobs]
            for future in completed(futures):
                yield future.result()


def completed(futures) -> Iterator:
    """Yield ``futures`` as they finish. The waiting thread wakes every fifth of a second:
    a signal the kernel hands to a worker thread only runs its Python handler when the
    main thread runs again, and a wait without a timeout would never return to it."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        yield from done
