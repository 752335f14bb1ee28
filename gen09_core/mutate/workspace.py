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
        self.import_lines = None  # the baseline's import-time lines, once known (see know_baseline)

    def know_baseline(self, baseline) -> None:
        """Hand the warm worker the lines the pristine coverage run ran outside any test: it
        then knows which functions ran at import or collection time without a profile hook."""
        self.import_lines = baseline.import_lines
        if self._warm is not None:
            self._warm.import_lines = baseline.import_lines  # its workers start after this

    def fresh(self):
        """A runner starting a fresh process per job (a command recipe's shell command, for
        other ecosystems)."""
        from gen09_core.testrun.ecosystems.jobs import CommandEnv, run_command_job
        from gen09_core.testrun.jobs import run_job

        if isinstance(self.test_env, CommandEnv):
            return functools.partial(run_command_job, self.test_env)
        return functools.partial(run_job, self.test_env)

    def pristine(self):
        """The runner for the pristine baseline's runs: under ``limits.runner = "warm"`` the
        warm runner, which runs them (whole-suite and coverage runs, no changed file) in
        children of its fork server — a new interpreter's view, without starting Python and
        pytest each time; else ``fresh()``. A fork server it starts is the baseline's cost."""
        return self._runner("baseline")

    def mutant(self):
        """The runner for mutant jobs: the warm worker when configured, else ``fresh()``."""
        return self._runner("mutants")

    def _runner(self, phase: str):
        from gen09_core.testrun.ecosystems.jobs import CommandEnv

        if self.limits.runner != "warm" or isinstance(self.test_env, CommandEnv):
            return self.fresh()
        if self._warm is None:
            from gen09_core.testrun.warm import WarmRunner

            self._warm = WarmRunner(self.test_env, self.work.pristine, self.work.scratch,
                                    self.limits.baseline_timeout_sec, self.import_lines)
        self._warm.phase = phase
        return self._warm

    def close(self) -> dict:
        """Stop the warm worker, if one started; its statistics (empty without one)."""
        if self._warm is None:
            return {}
        self._warm.close()
        return self._warm.stats()
