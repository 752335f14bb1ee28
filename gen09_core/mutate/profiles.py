"""Repository profiles: how to install a repository, run its tests and read per-test outcomes.

The built-in ``python-pytest`` profile makes one virtual environment per repository
(``--without-pip``; by default it sees the packages of the interpreter running gen09 through
a ``.pth`` file, so pytest, pytest-json-report and coverage need no download), runs the
profile's ``install`` commands in it, and runs pytest with the ``pytest-json-report`` plugin:
outcomes are read from that machine-readable report, never scraped from text. Per-test
coverage uses coverage.py dynamic contexts, switched to each test's node id by a tiny pytest
plugin written into the run folder.

Custom profiles live in the configuration file under ``[profiles.NAME]`` and override fields
of a base profile (``base = "python-pytest"``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

from attrs import evolve, field, frozen

from gen09_core import hookimpl
from gen09_core.errors import EnvironmentFailure

PASSING = "passed"
IMPORT_CONTEXT = "<import>"  # coverage context of lines run outside any test
COVERAGE_PLUGIN = "gen09_covctx"
FIRST_PLUGIN = "gen09_first"

_COVERAGE_PLUGIN_SOURCE = '''"""gen09: per-test coverage, coverage.py dynamic contexts (context = node id)."""
import os

import coverage
import pytest

_cov = None


def pytest_configure(config):
    global _cov
    _cov = coverage.Coverage(data_file=os.environ["GEN09_COV_FILE"], source=[os.getcwd()])
    _cov.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _cov.switch_context(item.nodeid)
    yield
    _cov.switch_context("")


def pytest_unconfigure(config):
    if _cov is not None:
        _cov.stop()
        _cov.save()
'''


_FIRST_PLUGIN_SOURCE = '''"""gen09: run the tests listed in $GEN09_FIRST first; when none of them fails, stop
there (the rest is the confirmation, needed only for a caught mutant)."""
import os

import pytest

_first = set()
_state = {"left": 0, "failed": False}


def pytest_collection_modifyitems(session, config, items):
    with open(os.environ["GEN09_FIRST"], encoding="utf-8") as handle:
        _first.update(line.rstrip("\\n") for line in handle if line.strip())
    head = [item for item in items if item.nodeid in _first]
    items[:] = head + [item for item in items if item.nodeid not in _first]
    _state["left"] = len(head)


def pytest_runtest_logreport(report):
    if report.nodeid in _first and report.failed:
        _state["failed"] = True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    yield
    if item.nodeid in _first:
        _state["left"] -= 1
        if _state["left"] == 0 and not _state["failed"]:
            item.session.shouldstop = "gen09: no covering test failed"
'''


@frozen
class Profile:
    """A repository profile (built in, from a plugin, or from the configuration file)."""

    name: str
    language: str = "python"
    venv: bool = True
    inherit_runner_packages: bool = True
    install: tuple[str, ...] = ()  # shell commands, run in a work copy with the venv first on PATH
    test_paths: tuple[str, ...] = ()  # what a whole-suite run passes to pytest (empty: its discovery)
    pytest_args: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = (".",)  # folders of the work copy put on PYTHONPATH
    plugin_autoload: bool = False  # off: only the plugins named below (and gen09's) load
    plugins: tuple[str, ...] = ()  # pytest plugins loaded with -p when autoload is off
    env: dict = field(factory=dict)
    base_image: str = "python:3.11-slim"
    # Dockerfile RUN steps; {pytest_version} is the pytest the validation ran with
    image_install: tuple[str, ...] = ("pip install --no-cache-dir pytest=={pytest_version}",)

    def with_spec(self, name: str, spec) -> Profile:
        """This profile with the fields a ``config.ProfileSpec`` sets."""
        changes = {k: v for k, v in {
            "install": spec.install, "test_paths": spec.test_paths, "pytest_args": spec.pytest_args,
            "pythonpath": spec.pythonpath, "env": spec.env, "venv": spec.venv,
            "inherit_runner_packages": spec.inherit_runner_packages, "base_image": spec.base_image,
            "image_install": spec.image_install, "plugin_autoload": spec.plugin_autoload,
            "plugins": spec.plugins,
        }.items() if v is not None}
        return evolve(self, name=name, **changes)


PYTHON_PYTEST = Profile("python-pytest")


@hookimpl
def gen09_repo_profiles():
    """The built-in Python/pytest profile."""
    return [PYTHON_PYTEST]


def resolve_profile(registry, config) -> Profile:
    """The profile the configuration names: a config-file profile over its base, or a
    registered one."""
    known = {}
    for answer in registry.hook.gen09_repo_profiles():
        for profile in answer or []:
            known[profile.name] = profile
    spec = config.profiles.get(config.profile)
    if spec is not None:
        return known[spec.base].with_spec(config.profile, spec)
    return known[config.profile]


def known_profiles(registry) -> dict:
    """Registered profiles by name."""
    return {p.name: p for answer in registry.hook.gen09_repo_profiles() for p in (answer or [])}


@frozen
class TestEnv:
    """A prepared environment: the interpreter to run and the folder of gen09's plugin."""

    __test__ = False  # a data class, not a pytest test class

    python: str
    profile: Profile
    plugin_dir: str

    def pytest_version(self) -> str:
        """The version of pytest this environment runs."""
        done = subprocess.run([self.python, "-c", "import pytest; print(pytest.__version__)"],
                              capture_output=True, text=True)
        return done.stdout.strip() or "unknown"


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


@frozen
class TestRun:
    """What one job observed: status, per-test outcomes, failure symptoms, runner seconds,
    and (for coverage jobs) ``{file: {line: [node ids]}}``."""

    __test__ = False  # a data class, not a pytest test class

    job_id: str
    status: str  # "ok" | "timeout" | "crash"
    outcomes: dict = field(factory=dict)
    failures: dict = field(factory=dict)
    seconds: float = 0.0
    coverage: dict | None = None
    detail: str = ""
    cpu_seconds: float = 0.0  # user + system time of the runner process


def prepare(profile: Profile, work: Path, source_dir: Path) -> TestEnv:
    """Create (or reuse) the repository's virtual environment under ``work`` and run the
    profile's install commands; write gen09's coverage plugin. ``EnvironmentFailure`` when
    the environment cannot be built."""
    work = Path(work).resolve()
    plugin_dir = work / "plugins"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    (plugin_dir / f"{COVERAGE_PLUGIN}.py").write_text(_COVERAGE_PLUGIN_SOURCE, encoding="utf-8")
    (plugin_dir / f"{FIRST_PLUGIN}.py").write_text(_FIRST_PLUGIN_SOURCE, encoding="utf-8")
    if not profile.venv:
        return TestEnv(sys.executable, profile, str(plugin_dir))
    venv = work / "venv"
    python = venv / "bin" / "python"
    marker = venv / ".gen09-ready"
    if not marker.exists():
        shutil.rmtree(venv, ignore_errors=True)
        _run_setup([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, "create the venv")
        if profile.inherit_runner_packages:
            site = Path(_venv_purelib(python))
            site.mkdir(parents=True, exist_ok=True)
            paths = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
            (site / "gen09-inherit.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
        if profile.install:
            copy = work / "install-copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(source_dir, copy, symlinks=True)
            env = _env(profile, venv, copy, plugin_dir)
            for command in profile.install:
                _run_setup(["bash", "-c", command], copy, f"install ({command})", env)
            shutil.rmtree(copy, ignore_errors=True)
        probe = subprocess.run([str(python), "-c", "import pytest, pytest_jsonreport, coverage"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise EnvironmentFailure("the test environment lacks pytest, pytest-json-report or "
                                     f"coverage: {probe.stderr.strip()[-300:]}")
        marker.write_text("ok\n")
    return TestEnv(str(python), profile, str(plugin_dir))


def _venv_purelib(python: Path) -> str:
    done = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _run_setup(cmd, cwd, what, env=None) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    except OSError as exc:
        raise EnvironmentFailure(f"could not {what}: {exc}") from None
    if done.returncode != 0:
        raise EnvironmentFailure(f"could not {what} (exit {done.returncode}): "
                                 f"{(done.stderr or done.stdout).strip()[-500:]}")


def _env(profile: Profile, venv: Path | None, cwd: Path, plugin_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE", "GEN09_"))}
    env.pop("PYTHONPATH", None)
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    paths = [str(Path(cwd) / p) for p in profile.pythonpath] + [str(plugin_dir)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env.update({str(k): str(v) for k, v in profile.env.items()})
    return env


def run_job(env: TestEnv, job: TestJob) -> TestRun:
    """Run one job in its own folder and process; the folder is removed afterwards."""
    folder = Path(job.scratch).resolve() / job.job_id
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(job.source_dir, folder, symlinks=True)
    try:
        for rel, text in job.files.items():
            (folder / rel).write_text(text, encoding="utf-8")
        return _run_pytest(env, job, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_pytest(env: TestEnv, job: TestJob, folder: Path) -> TestRun:
    meta = folder.parent / f"{job.job_id}.gen09"
    meta.mkdir(parents=True, exist_ok=True)
    report, cov_file = meta / "report.json", meta / "coverage"
    limit = job.memory_mb * 1024 * 1024
    cmd = [env.python, "-c", _LIMITED_PYTEST.format(limit=limit), "-p", "no:cacheprovider", "-q",
           "--json-report", f"--json-report-file={report}", "--json-report-omit", "collectors",
           "keywords", "log", "warnings", "streams", f"--rootdir={folder}"]
    if not env.profile.plugin_autoload:
        for plugin in ("pytest_jsonreport.plugin", *env.profile.plugins):
            cmd += ["-p", plugin]
    if job.coverage:
        cmd += ["-p", COVERAGE_PLUGIN]
    if job.first is not None:
        first_file = meta / "first.txt"
        first_file.write_text("".join(t + "\n" for t in job.first), encoding="utf-8")
        cmd += ["-p", FIRST_PLUGIN]
    cmd += list(env.profile.pytest_args)
    if job.tests is None:
        cmd += list(env.profile.test_paths)
    else:
        argsfile = meta / "tests.txt"
        argsfile.write_text("".join(t + "\n" for t in job.tests), encoding="utf-8")
        cmd.append(f"@{argsfile}")
    venv = Path(env.python).parent.parent if env.profile.venv else None
    proc_env = _env(env.profile, venv, folder, Path(env.plugin_dir))
    proc_env["GEN09_COV_FILE"] = str(cov_file)
    if job.first is not None:
        proc_env["GEN09_FIRST"] = str(first_file)
    if not env.profile.plugin_autoload:
        proc_env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    start = time.perf_counter()
    sink_path = meta / "output.txt"
    try:
        with open(sink_path, "wb") as sink:
            proc = subprocess.Popen(cmd, cwd=folder, env=proc_env, stdout=sink,
                                    stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        shutil.rmtree(meta, ignore_errors=True)
        return TestRun(job.job_id, "crash", detail=f"could not start pytest: {exc}")
    expired = threading.Event()

    def kill():
        expired.set()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(job.timeout_sec, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)  # wait4: the runner's own CPU time too
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if expired.is_set():
        shutil.rmtree(meta, ignore_errors=True)
        return TestRun(job.job_id, "timeout", seconds=time.perf_counter() - start, cpu_seconds=cpu,
                       detail=f"over {job.timeout_sec}s")
    output = sink_path.read_bytes()
    seconds = time.perf_counter() - start
    try:
        if not report.exists():
            tail = output.decode("utf-8", "replace")[-800:]
            return TestRun(job.job_id, "crash", seconds=seconds, cpu_seconds=cpu,
                           detail=f"pytest exit {proc.returncode}, no report: {tail}")
        outcomes, failures = read_report(report, folder)
        coverage = read_coverage(cov_file, folder) if job.coverage else None
        return TestRun(job.job_id, "ok", outcomes, failures, seconds, coverage,
                       detail=f"pytest exit {proc.returncode}", cpu_seconds=cpu)
    finally:
        shutil.rmtree(meta, ignore_errors=True)


# pytest started with its address space capped (no preexec_fn: the pool has threads)
_LIMITED_PYTEST = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
                   "sys.argv[0] = 'pytest'; import pytest; raise SystemExit(pytest.console_main())")

_OUTCOMES = {"passed": "passed", "xfailed": "passed", "failed": "failed", "xpassed": "failed",
             "error": "error", "skipped": "skipped"}


def read_report(path: Path, folder: Path) -> tuple[dict, dict]:
    """Per-test outcomes (``passed``/``failed``/``error``/``skipped``) and, for the failing
    ones, the symptom (crash message and the traceback's file/line pairs), from a
    pytest-json-report file."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    outcomes, failures = {}, {}
    for test in data.get("tests", []):
        nodeid = test["nodeid"]
        outcome = _OUTCOMES.get(test.get("outcome"), "error")
        outcomes[nodeid] = outcome
        if outcome in ("failed", "error"):
            for phase in ("call", "setup", "teardown"):
                info = test.get(phase) or {}
                if info.get("outcome") == "failed":
                    crash = info.get("crash") or {}
                    trace = [(_rel(t.get("path", ""), folder), t.get("lineno"))
                             for t in info.get("traceback") or []][:30]
                    failures[nodeid] = {"phase": phase, "message": str(crash.get("message", ""))[:4000],
                                        "trace": trace}
                    break
    return outcomes, failures


def _rel(path: str, folder: Path) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(folder).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix()


def read_coverage(path: Path, folder: Path) -> dict:
    """``{relative file: {line: sorted node ids}}`` from coverage.py's dynamic contexts;
    a line run outside any test (at import or collection time) also lists ``IMPORT_CONTEXT``."""
    import coverage

    if not Path(path).exists():
        return {}
    data = coverage.CoverageData(basename=str(path))
    data.read()
    out: dict = {}
    root = Path(folder).resolve()
    for measured in data.measured_files():
        try:
            rel = Path(measured).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        lines = {}
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            ids = sorted(c if c else IMPORT_CONTEXT for c in contexts)
            if ids:
                lines[line] = ids
        if lines:
            out[rel] = lines
    return out
