"""Test jobs: one pytest process over a fresh copy of a folder, with gen09's plugin
recording outcomes (read back through :mod:`gen09_core.testrun.outcomes`) and, when asked,
per-test coverage."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
from pathlib import Path

from attrs import field, frozen

from gen09_core.testrun import outcomes
from gen09_core.testrun.bytecode import forget
from gen09_core.testrun.process import Finished, clean_env, run_limited

IMPORT_CONTEXT = "<import>"  # coverage context of lines run outside any test
PLUGIN = "gen09_pytest"
RUNNER_FAILURES = {3: "pytest internal error", 4: "pytest usage error"}  # the run measured nothing
# the detail of a crash gen09's machinery caused (a job that could not start, a worker that died,
# a process killed from outside, a job the cluster lost) begins with it; any other crash is the
# tested code's own doing (a mutant whose conftest import fails ends pytest with exit 4)
INFRASTRUCTURE = "infrastructure"


@frozen
class TestEnv:
    """How to run one repository's tests: the interpreter (and its venv), the folder
    holding gen09's plugin, the folders of the work copy put on ``PYTHONPATH``, the pytest
    plugins loaded by name (autoload is off), extra pytest arguments, the ``addopts``
    that replaces the repository's own (None: keep it), whole-suite paths, extra
    environment variables and the venv's lock."""

    __test__ = False  # a data class, not a pytest test class

    python: str
    plugin_dir: str
    venv: str | None = None
    pythonpath: tuple[str, ...] = (".",)
    plugins: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    addopts: str | None = None
    test_paths: tuple[str, ...] = ()
    env: dict = field(factory=dict)
    lock: str | None = None  # the rendered lock of ``venv``: what a remote worker rebuilds it from

    def pytest_options(self, traceback: str = "no") -> list[str]:
        """The pytest options every run of this environment gets (after ``-m pytest``).
        ``traceback`` is pytest's ``--tb``: gen09 reads a failure's message and frames from the
        exception itself (``gen09_pytest``), so its own runs format nothing (``no``; pytest's
        default long traceback re-parsed every frame's source, ~17 ms per failing test of
        cachetools, and ``native`` still cost ~0.17 ms per failing test there, 17% of one mutant's
        test loop); a bundle's ``tests/test.sh`` asks for ``native`` to keep its log readable."""
        opts = ["-p", "no:cacheprovider", "-p", PLUGIN, "--continue-on-collection-errors", "-q",
                f"--tb={traceback}", "--maxfail=0"]  # an addopts ``-x``/``--maxfail`` would leave tests unrun
        for plugin in self.plugins:
            opts += ["-p", plugin]
        for warning in PYTEST_OWN_WARNINGS:
            opts += ["-W", f"ignore::{warning}"]
        if self.addopts is not None:
            opts += ["-o", f"addopts={self.addopts}"]
        return opts + list(self.pytest_args)

    def process_env(self, folder: Path, **extra: str) -> dict:
        """The environment of a pytest process running in ``folder``."""
        paths = [str(Path(folder) / p) for p in self.pythonpath] + [self.plugin_dir]
        return clean_env(self.venv, PYTHONPATH=":".join(paths), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                         **{str(k): str(v) for k, v in self.env.items()}, **extra)


# what pytest and its plugins say of the way the suite uses and configures them, ignored: under a
# repository's ``filterwarnings = error`` each ended every run in an INTERNALERROR or before a test
# was collected, and none says anything of the code under test (pytest-asyncio 0.24's start-up
# warning that ``asyncio_default_fixture_loop_scope`` is unset: aiosignal 1.3.1; pytest 9.2's
# ``config.inicfg`` deprecation, which plumbum 2.0.2's conftest meets in ``pytest_configure``; an
# ini key of a lint plugin gen09 leaves out, "Unknown config option: flake8-max-line-length")
PYTEST_OWN_WARNINGS = ("pytest.PytestDeprecationWarning", "pytest.PytestConfigWarning")


@frozen
class TestJob:
    """One test-runner process: copy ``source_dir``, overlay ``files``, run ``tests``
    (None: the whole suite), optionally with per-test coverage."""

    __test__ = False  # a data class, not a pytest test class

    job_id: str
    source_dir: str
    scratch: str
    files: dict = field(factory=dict)
    tests: tuple[str, ...] | None = None
    coverage: bool = False
    timeout_sec: float = 300.0
    memory_mb: int = 4096
    first: tuple[str, ...] | None = None  # run these first; stop after them unless one fails
    stall_sec: float | None = None  # once the tests began: killed when no phase ends in this much CPU time
    file_order: tuple[str, ...] = ()  # test files in the order the whole suite met them (see ordered_files)


def ordered_files(tests, file_order=()) -> list[str]:
    """The files of the test ids ``tests`` in the order pytest gets them: the order of
    ``file_order`` (the repository's whole-suite run's, so that a test reading what a test of
    an earlier file set runs after it as there: semver 3.0.2's docs doctests and ``tests/``),
    any file not in it after those, by name."""
    rank = {f: i for i, f in enumerate(file_order)}
    return sorted({t.split("::", 1)[0] for t in tests}, key=lambda f: (rank.get(f, len(rank)), f))


@frozen
class TestRun:
    """What one job observed: status (``ok``, ``timeout``, or ``crash`` when pytest did
    not finish its session), per-test outcomes, failure symptoms, runner seconds, the
    first collection error, the output's tail and (for coverage jobs)
    ``{file: {line: [node ids]}}``."""

    __test__ = False  # a data class, not a pytest test class

    job_id: str
    status: str
    outcomes: dict = field(factory=dict)
    failures: dict = field(factory=dict)
    seconds: float = 0.0
    coverage: dict | None = None
    detail: str = ""
    cpu_seconds: float = 0.0
    problem: str = ""
    runner: str = "fresh"  # "warm", or "fresh" (with the reason when a warm worker handed it back)
    test_seconds: float = 0.0  # the summed durations of the test phases themselves (a killed one's so far)
    longest_phase: float = 0.0  # the duration of the longest test phase
    files: dict = field(factory=dict)  # test id -> its file, where the runner's report names one
    marked_flaky: tuple[str, ...] = ()  # tests the repository marks ``flaky``
    uncollected: tuple[str, ...] = ()  # what pytest could not collect (test files, mostly)
    unfinished: tuple[str, ...] = ()  # tests whose run began and never ended (what a crashed run ran)


SUBCOV = "gen09_subcov"  # the folder of the plugin's coverage of the tests' subprocesses


def install_plugin(folder: Path, warm: bool = False, coverage: bool = True) -> Path:
    """Copy gen09's pytest plugin, the outcome reader, with ``coverage`` the plugin's
    coverage of the tests' subprocesses, and with ``warm`` the warm-worker plugin, its swap
    planner and the fork server into ``folder``; returns it, absolute (test processes run in
    other folders)."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).parent
    shutil.copyfile(here / "gen09_pytest.py", folder / "gen09_pytest.py")
    if coverage:
        (folder / SUBCOV).mkdir(exist_ok=True)
        shutil.copyfile(here / SUBCOV / "sitecustomize.py", folder / SUBCOV / "sitecustomize.py")
    if warm:
        shutil.copyfile(here / "gen09_warm.py", folder / "gen09_warm.py")
        shutil.copyfile(here / "gen09_swap.py", folder / "gen09_swap.py")
        shutil.copyfile(here / "gen09_prefork.py", folder / "gen09_prefork.py")
    shutil.copyfile(here / "outcomes.py", folder / "gen09_outcomes.py")
    return folder


def run_job(env: TestEnv, job: TestJob, launch=run_limited) -> TestRun:
    """Run one job in its own folder and process (started by ``launch``, which has
    ``run_limited``'s contract); the folder is removed afterwards."""
    def copy(folder: Path) -> None:
        shutil.copytree(job.source_dir, folder, symlinks=True)

    with job_folders(job, copy) as (folder, meta):
        return _run_pytest(env, job, folder, meta, launch)


def meta_folder(job: TestJob) -> Path:
    """The folder beside a job's copy that holds its record (``outcomes.jsonl``) while it runs."""
    return Path(job.scratch).resolve() / f"{job.job_id}.gen09"


@contextlib.contextmanager
def job_folders(job: TestJob, copy):
    """``(folder, meta)`` of one job: ``copy(folder)`` fills a fresh folder, the job's files
    are written over it, ``meta`` is an empty folder beside it; both are removed afterwards."""
    folder, meta = Path(job.scratch).resolve() / job.job_id, meta_folder(job)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(meta, ignore_errors=True)
    copy(folder)
    meta.mkdir(parents=True)
    try:
        for rel, text in job.files.items():
            forget(folder, rel)  # its pristine bytecode is not this text's
            (folder / rel).write_text(text, encoding="utf-8")
        yield folder, meta
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(meta, ignore_errors=True)


def _id_file(path: Path, ids) -> str:
    path.write_text("".join(t + "\n" for t in ids), encoding="utf-8")
    return str(path)


def _run_pytest(env: TestEnv, job: TestJob, folder: Path, meta: Path, launch=run_limited) -> TestRun:
    record_path, cov_file = meta / "outcomes.jsonl", meta / "coverage.json"
    (meta / "tmp").mkdir()
    # a temp folder of its own: tests that write fixed names under /tmp cannot collide
    extra = {"GEN09_OUTCOMES": str(record_path), "TMPDIR": str(meta / "tmp")}
    cmd = [env.python, "-m", "pytest", *env.pytest_options(), f"--rootdir={folder}"]
    if job.coverage:
        extra["GEN09_COV_FILE"] = str(cov_file)
    if job.first is not None:
        extra["GEN09_FIRST"] = _id_file(meta / "first.txt", job.first)
    if job.tests is None:
        cmd += list(env.test_paths)
    else:
        extra["GEN09_SELECT"] = _id_file(meta / "select.txt", job.tests)
        # the test files on the command line (an @argsfile needs pytest >= 8.2)
        cmd += ordered_files(job.tests, job.file_order)
    done = launch(cmd, folder, env.process_env(folder, **extra), job.timeout_sec, meta / "output.txt",
                  job.memory_mb, progress=record_path, stall_sec=job.stall_sec)
    return judge_record(job, record_path, done, cov_file)


def failure_of(run: TestRun, test_id: str) -> dict | None:
    """What ``run`` says of the failure of ``test_id``: its own, else that of its file when the
    file failed as a whole in a whole-suite run and ``test_id`` was never reported."""
    return run.failures.get(test_id) or (None if test_id in run.outcomes
                                         else run.failures.get(test_id.partition("::")[0]))


def _signal_name(returncode: int) -> str | None:
    """``killed by SIGSEGV`` for a process a signal ended (a negative ``returncode``), else None."""
    try:
        return f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else None
    except ValueError:
        return f"killed by signal {-returncode}"


def judge_record(job: TestJob, record_path: Path, done: Finished, cov_file: Path | None = None,
                 runner_failures: dict = RUNNER_FAILURES, runner: str = "pytest") -> TestRun:
    """A job's ``TestRun`` from how its process ended and the record it left; an exit code
    in ``runner_failures`` means the runner measured nothing."""
    if done.status == "error":
        return TestRun(job.job_id, "crash", detail=f"{INFRASTRUCTURE}: {done.output}")
    record = outcomes.read(record_path)
    if done.status == "timeout":  # the tests' time: the phases that ended, and the one killed as it ran
        return TestRun(job.job_id, "timeout", seconds=done.seconds, cpu_seconds=done.cpu_seconds,
                       detail=done.limit or f"over {job.timeout_sec:g}s",
                       test_seconds=record.duration + done.phase_seconds)
    failures = {tid: {"phase": r.phase, "message": r.message, "trace": [list(t) for t in r.trace]}
                for tid, r in record.tests.items() if r.outcome in ("failed", "error")}
    broken = dict(record.collect_errors)  # a file (or test program) that failed as a whole: the message of
    for tid in job.tests or ():  # each of its selected tests that was never reported
        if tid not in record.tests and (message := broken.get(tid.partition("::")[0])):
            failures[tid] = {"phase": "collect", "message": message, "trace": []}
    if job.tests is None:  # the whole suite: which tests the file holds is not known here, so the message
        # goes under the file's own id, for ``failure_of`` (commander: a jest file that ran process.exit)
        failures.update({file: {"phase": "collect", "message": message, "trace": []}
                         for file, message in broken.items() if file and file not in record.tests})
    status = "ok" if record.finished and done.returncode not in runner_failures else "crash"
    detail = f"{runner} exit {done.returncode}"
    if status == "crash":
        said = done.output.strip() or record.first_problem()  # a warm child's output is its worker's
        why = runner_failures.get(done.returncode) or _signal_name(done.returncode) or "session not finished"
        if record.unfinished:  # pygraphviz without graphviz (transitions 0.9.3): SIGSEGV in one test
            why += f", while {record.unfinished[-1]} ran"
        detail += f" ({why}): {said}"
        if done.returncode == -signal.SIGKILL:  # not gen09's limits (those are timeouts): from outside
            detail = f"{INFRASTRUCTURE}: killed from outside; {detail}"
    coverage = read_coverage(cov_file) if job.coverage and cov_file is not None else None
    return TestRun(job.job_id, status, record.outcomes(), failures, done.seconds, coverage, detail,
                   done.cpu_seconds, record.first_problem() or (done.output if not record.tests else ""),
                   test_seconds=record.duration, files=dict(record.files), longest_phase=record.longest,
                   marked_flaky=record.marked_flaky,
                   uncollected=tuple(dict.fromkeys(i or "(session)" for i, _ in record.collect_errors)),
                   unfinished=record.unfinished)


def read_coverage(path: Path) -> dict:
    """``{file: {line: sorted node ids}}`` from the plugin's coverage file; a line run
    outside any test (at import or collection time) lists ``IMPORT_CONTEXT``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    names = [c or IMPORT_CONTEXT for c in data["contexts"]]  # one string per test, however many lines
    return {rel: {int(line): sorted(names[i] for i in ctx) for line, ctx in lines.items()}
            for rel, lines in data["files"].items()}
