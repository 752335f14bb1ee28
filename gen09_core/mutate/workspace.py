"""Where one ``repo_mutate`` run works and what runs its test jobs.

``Workspace`` names the folders of a run (frozen); ``TestRunners`` holds the one resource a
run shares between stages, the optional warm worker, and closes it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from attrs import frozen


@frozen
class Workspace:
    """The folders of a run: ``out`` (the run folder), ``work`` (private working state),
    ``pristine`` (the untouched source copy) and ``scratch`` (per-job copies)."""

    out: Path
    work: Path
    pristine: Path
    scratch: Path

    @classmethod
    def at(cls, out: Path) -> Workspace:
        """The workspace of the run folder ``out``."""
        work = Path(out) / "work"
        return cls(Path(out), work, work / "pristine", work / "jobs")


class TestRunners:
    """The job runners of one run: a fresh pytest process per job, or, for mutant runs under
    ``limits.runner = "warm"``, one warm worker that forks per job (started on first use)."""

    __test__ = False  # not a pytest test class

    def __init__(self, test_env, work: Workspace, limits):
        self.test_env, self.work, self.limits = test_env, work, limits
        self._warm = None

    def fresh(self):
        """A runner starting a fresh process per job."""
        from gen09_core.testrun.jobs import run_job

        return functools.partial(run_job, self.test_env)

    def mutant(self):
        """The runner for mutant jobs: the warm worker when configured, else ``fresh()``."""
        if self.limits.runner != "warm":
            return self.fresh()
        if self._warm is None:
            from gen09_core.testrun.warm import WarmRunner

            self._warm = WarmRunner(self.test_env, self.work.pristine, self.work.scratch,
                                    self.limits.baseline_timeout_sec)
        return self._warm

    def close(self) -> dict:
        """Stop the warm worker, if one started; its statistics (empty without one)."""
        if self._warm is None:
            return {}
        self._warm.close()
        return self._warm.stats()
