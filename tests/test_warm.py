"""The warm runner on real pytest processes: a forked child per job sees the mutated code,
gives the same outcomes as a fresh process, keeps its limits, cannot leak into the next
child, and hands back what it cannot carry soundly."""

import json
import os
import re
import sys
import textwrap

import pytest

from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import warm_project

LIB = '''
import os

STATE = {"calls": 0}


def add(a, b):
    STATE["calls"] += 1
    return a + b


def scale(values, factor=2):
    return [v * factor for v in values]


class Box:
    def area(self, w, h):
        return w * h
'''

TESTS = '''
import os
import lib


def test_add():
    assert lib.add(2, 3) == 5


def test_scale():
    assert lib.scale([1, 2]) == [2, 4]


def test_area():
    assert lib.Box().area(2, 3) == 6


def test_state_is_fresh():
    assert lib.STATE["calls"] == 0 and "GEN09_LEAK" not in os.environ
    assert not os.path.exists("leaked.txt") and not os.path.exists("leaked")


def test_leaks():
    lib.STATE["calls"] += 100
    os.environ["GEN09_LEAK"] = "1"
    open("leaked.txt", "w").write("x")
    os.makedirs("leaked/empty")  # backports.tarfile 1.2.0's TESTFN folder, left by a mutant
    open("leaked/made.py", "w").write("x = 1")
    __import__("sys").path.insert(0, "leaked")
    __import__("made")  # its ``__pycache__``
'''

IDS = tuple(f"tests/test_lib.py::test_{n}" for n in ("add", "area", "leaks", "scale", "state_is_fresh"))


@pytest.fixture
def setup(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text(LIB)
    (repo / "tests" / "test_lib.py").write_text(TESTS)
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    yield repo, env, runner, tmp_path
    runner.close()


def _job(repo, tmp_path, name, text, tests=IDS, **kw):
    return TestJob(name, str(repo), str(tmp_path / "jobs"), {"lib.py": text}, tests, **kw)


def _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids):
    """One job on the warm runner and in a new process; their outcomes must be equal."""
    job = TestJob(name, str(repo), str(tmp_path / "jobs"), {"lib.py": text}, ids)
    warm, fresh = runner(job), run_job(env, job)
    assert warm.outcomes == fresh.outcomes, (name, warm.runner)
    return warm, fresh


def _not_passed(run):
    """The names (after ``test_``) of the tests of ``run`` that did not pass."""
    return {test.split("::test_")[1] for test, outcome in run.outcomes.items() if outcome != "passed"}


def _agrees(runner, env, repo, tmp_path, name, text, ids, failing, expected):
    """``_warm_and_fresh``, then: the fresh run's tests not passed are ``failing`` (names
    after ``test_``), and the warm runner ran it warm (``expected`` "warm") or handed it
    back with ``expected`` in its reason."""
    warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids)
    assert _not_passed(fresh) == failing, name
    assert (warm.runner == "warm") if expected == "warm" else (expected in warm.runner), (name, warm.runner)
    return warm, fresh


def test_warm_children_see_the_mutation_and_agree_with_fresh_processes(setup):
    repo, env, runner, tmp_path = setup
    mutants = {"add": LIB.replace("return a + b", "return a - b"),
               "area": LIB.replace("return w * h", "return w + h"),
               "scale": LIB.replace("v * factor", "v + factor")}
    for name, text in mutants.items():
        job = _job(repo, tmp_path, name, text)
        warm, fresh = runner(job), run_job(env, job)
        assert warm.runner == "warm" and fresh.runner == "fresh"
        assert warm.outcomes == fresh.outcomes, name
        assert warm.outcomes[f"tests/test_lib.py::test_{name}"] == "failed"
        assert warm.detail == fresh.detail == "pytest exit 1", (warm.detail, fresh.detail)  # tests failed
    same = runner(_job(repo, tmp_path, "same", LIB.replace("return a + b", "return b + a"),
                       tests=("tests/test_lib.py::test_add",)))
    assert same.runner == "warm" and same.detail == "pytest exit 0", same.detail
    assert (repo / "lib.py").read_text() == LIB  # nothing was written to the source


def test_nothing_a_child_does_is_seen_by_the_next(setup):
    repo, _, runner, tmp_path = setup
    same = LIB.replace("return a + b", "return b + a")
    first = runner(_job(repo, tmp_path, "leak", same, tests=("tests/test_lib.py::test_leaks",)))
    assert first.outcomes == {"tests/test_lib.py::test_leaks": "passed"} and first.runner == "warm"
    second = runner(_job(repo, tmp_path, "check", same, tests=("tests/test_lib.py::test_state_is_fresh",)))
    assert second.outcomes == {"tests/test_lib.py::test_state_is_fresh": "passed"}, second


@pytest.mark.parametrize("body, status", [
    ("    import time\n    time.sleep(60)\n    return a + b\n", "timeout"),
    ("    import os\n    os._exit(3)\n", "crash"),
    ("    import ctypes\n    ctypes.string_at(0)\n", "crash"),  # a segfault
    ("    x = bytearray(3 * 1024 ** 3)\n    return a + b\n", "ok"),  # the memory cap turns it into MemoryError
])
def test_a_child_that_misbehaves_ends_only_its_own_job(setup, body, status):
    repo, _, runner, tmp_path = setup
    text = LIB.replace('    STATE["calls"] += 1\n    return a + b\n', body)
    run = runner(_job(repo, tmp_path, "bad", text, timeout_sec=3, memory_mb=1024))
    assert run.status == status and run.runner == "warm", run
    if status == "ok":
        assert run.outcomes["tests/test_lib.py::test_add"] == "failed"
    after = runner(_job(repo, tmp_path, "after", LIB.replace("return a + b", "return a - b")))
    assert after.runner == "warm" and after.outcomes["tests/test_lib.py::test_add"] == "failed"


@pytest.mark.parametrize("body, status", [
    ("    raise KeyboardInterrupt\n", "ok"),  # pytest ends the session: exit 2, what ran before is kept
    ("    import pytest\n    pytest.exit('stop', returncode=5)\n", "ok"),
    ("    import pytest\n    pytest.exit('stop')\n", "ok"),
    # the mutant breaks pytest itself: its teardown finds no runner function (pytest's internal error)
    ("    import _pytest.runner\n    _pytest.runner.call_and_report = None\n    return [2, 4]\n", "crash"),
])
def test_a_test_that_ends_or_breaks_the_session_ends_as_in_a_fresh_process(setup, body, status):
    repo, env, runner, tmp_path = setup
    text = LIB.replace("    return [v * factor for v in values]\n", body)
    job = _job(repo, tmp_path, "ender", text, tests=(IDS[0], IDS[3]))  # add passes, then scale ends it
    warm, fresh = runner(job), run_job(env, job)
    assert warm.runner == "warm" and (warm.status, warm.outcomes) == (fresh.status, fresh.outcomes), (warm, fresh)
    assert warm.status == status and warm.outcomes[IDS[0]] == "passed", warm
    assert warm.detail.split(":")[0] == fresh.detail.split(":")[0]  # "pytest exit N (...)"
    if status == "crash":
        assert "NoneType" in warm.detail and warm.problem == fresh.problem != "", (warm.detail, warm.problem)
    after = runner(_job(repo, tmp_path, "after", LIB.replace("return a + b", "return a - b")))
    assert after.runner == "warm" and after.outcomes["tests/test_lib.py::test_add"] == "failed"


def test_a_test_that_breaks_the_clocks_leaves_the_record_whole(setup):
    # a freezegun 1.5.1 mutant left `time.monotonic` calling itself: every record write after
    # it failed and the session crashed (warm and fresh); the recorder keeps its own clocks
    repo, env, runner, tmp_path = setup
    body = ("    import time\n    def broken():\n        return broken()\n"
            "    time.monotonic = time.process_time = broken\n    return [v * factor for v in values]\n")
    text = LIB.replace("    return [v * factor for v in values]\n", body)
    warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, "clocks", text, IDS)
    assert warm.runner == "warm" and warm.status == fresh.status == "ok", (warm.detail, fresh.detail)
    assert set(warm.outcomes) == set(IDS) and warm.outcomes["tests/test_lib.py::test_scale"] == "passed"


def test_what_the_swap_cannot_carry_runs_fresh_with_the_reason(setup):
    """Handed back, with the reason, to a child of the fork server (a fresh interpreter's
    view of the files): the same outcomes as a new process."""
    repo, env, runner, tmp_path = setup
    cases = {"def scale(values, factor=len('ab') + 1):": "module or class-level code changed",
             "class Box(object):": "module or class-level code changed",
             "STATE = {\"calls\": 1}": "module or class-level code changed"}
    originals = {"def scale(values, factor=len('ab') + 1):": "def scale(values, factor=2):",
                 "class Box(object):": "class Box:", "STATE = {\"calls\": 1}": "STATE = {\"calls\": 0}"}
    for new, reason in cases.items():
        job = _job(repo, tmp_path, "fallback", LIB.replace(originals[new], new))
        run = runner(job)
        assert run.runner.startswith("prefork: ") and reason in run.runner, run.runner
        assert run.outcomes == run_job(env, job).outcomes and run.outcomes
    added = runner(_job(repo, tmp_path, "added", LIB + "\n\ndef extra():\n    return 1\n"))
    assert "a definition was added" in added.runner


def test_a_dead_worker_is_replaced_and_the_job_retried(setup):
    repo, _, runner, tmp_path = setup
    warm = runner(_job(repo, tmp_path, "one", LIB.replace("return a + b", "return a - b")))
    assert warm.runner == "warm"
    (worker,) = runner.workers
    os.killpg(worker.proc.pid, 9)
    worker.proc.wait()
    again = runner(_job(repo, tmp_path, "two", LIB.replace("return a + b", "return a * b")))
    assert again.runner == "warm" and again.outcomes["tests/test_lib.py::test_add"] == "failed"
    assert worker.proc.poll() is None  # a new process


def test_a_worker_with_threads_after_collection_refuses(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text(LIB)
    (repo / "tests" / "conftest.py").write_text(textwrap.dedent("""
        import threading, time
        threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
        """))
    (repo / "tests" / "test_lib.py").write_text(TESTS)
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        run = runner(_job(repo, tmp_path, "t", LIB.replace("return a + b", "return a - b")))
    finally:
        runner.close()
    assert run.runner.startswith("prefork: ") and "thread" in run.runner
    assert run.outcomes["tests/test_lib.py::test_add"] == "failed"


@pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")  # toolz's own source
def test_warm_and_fresh_runners_accept_identical_tasks_on_a_real_suite(tmp_path):
    """toolz 1.0.0 from PyPI, no configuration: the same seed on warm workers and on fresh
    processes accepts the same tasks with the same FAIL_TO_PASS and PASS_TO_PASS sets, and
    the warm run really ran mutants warm."""
    import subprocess
    import tarfile

    from gen09_core.mutate.pipeline import run

    got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                          "toolz==1.0.0", "-d", str(tmp_path)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    with tarfile.open(next(tmp_path.glob("toolz-*.tar.gz"))) as archive:
        archive.extractall(tmp_path, filter="data")
    tasks, summaries = {}, {}
    for runner in ("warm", "fresh"):
        data = {"source": {"repo": str(tmp_path / "toolz-1.0.0")}, "seeds": {"mutate": 1},
                "limits": {"max_mutants": 12, "workers": 2, "runner": runner}}
        summaries[runner] = run(data, tmp_path / runner)
        records = [json.loads(x) for x in (tmp_path / runner / "instances.jsonl").read_text().splitlines()]
        tasks[runner] = {r["instance_id"]: (r["FAIL_TO_PASS"], r["PASS_TO_PASS"]) for r in records}
    assert tasks["warm"] and tasks["warm"] == tasks["fresh"]
    assert summaries["warm"]["runs_by_runner"].get("warm", 0) > 0
    assert set(summaries["fresh"]["runs_by_runner"]) == {"fresh"}


FACTORY = '''
def cached(store, strict=False):
    def decorator(fn):
        if strict:
            def wrapper(x):
                if not isinstance(x, int):
                    raise TypeError(x)
                if x in store.keys():
                    return store[x]
                store[x] = fn(x)
                return store[x]
        else:
            def wrapper(x):
                if x in store:
                    return store[x]
                store[x] = fn(x)
                return store[x]
        return wrapper
    return decorator


def double(x):
    return x * 2
'''

FACTORY_TESTS = '''
import lib


@lib.cached({})
def square(x):
    return x * x


@lib.cached({}, strict=True)
def cube(x):
    return x ** 3


def test_square():
    assert square(3) == 9 and square(3) == 9


def test_cube():
    assert cube(2) == 8 and cube(2) == 8


def test_double():
    assert lib.double(2) == 4
'''

FACTORY_MUTANTS = {  # name: (old, new, the runner: "warm" or part of the reason it ran fresh)
    # inside a wrapper the factory made at import: its closures take the new code; the other
    # definition of wrapper (strict) keeps its own
    "wrapper": ("            if x in store:\n", "            if x not in store:\n", "warm"),
    "decorator": ("        if strict:", "        if not strict:", "cached.<locals>.decorator ran at import"),
    "factory": ("    def decorator(fn):", "    store.setdefault(-1, -1)\n\n    def decorator(fn):",
                "cached ran at import"),
    "arguments": ("            def wrapper(x):\n                if x in store:",
                  "            def wrapper(x, *rest):\n                if x in store:",
                  "the arguments or closure of cached.<locals>.decorator.<locals>.wrapper changed"),
    "plain": ("return x * 2", "return x * 3", "warm"),
}


@pytest.mark.parametrize("known_from", ["profile hook", "coverage run"])
def test_code_that_ran_at_import_time_runs_fresh_unless_only_its_closures_changed(tmp_path, known_from):
    """A decorator factory ran when the test module was imported: what its own code did then
    would not be done again, so a change to it (or to a nested function that also ran) runs
    in a fresh process; a change only inside the wrapper it made runs warm, the closures
    taking the new code — each matched to its own definition of ``wrapper`` (cachetools'
    ``cachedmethod`` is such a case) — and agrees with the fresh run. The worker knows what
    ran from its own profile hook, or (as in mutate, which passes the baseline's import-time
    lines) from a pristine coverage run."""
    from gen09_core.mutate.baseline import derive_baseline

    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text(FACTORY)
    (repo / "tests" / "test_it.py").write_text(FACTORY_TESTS)
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))
    import_lines = None
    if known_from == "coverage run":
        pristine = run_job(env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
        import_lines = derive_baseline(pristine, pristine).import_lines
        assert import_lines["lib.py"]
    runner = WarmRunner(env, repo, tmp_path / "warm", import_lines=import_lines)
    ids = ("tests/test_it.py::test_cube", "tests/test_it.py::test_double", "tests/test_it.py::test_square")
    failing = {"wrapper": {"square"}, "decorator": set(), "factory": set(), "arguments": set(), "plain": {"double"}}
    try:
        for name, (old, new, expected) in FACTORY_MUTANTS.items():
            assert FACTORY.count(old) == 1, name
            _agrees(runner, env, repo, tmp_path, name, FACTORY.replace(old, new), ids, failing[name], expected)
    finally:
        runner.close()


def test_a_test_that_runs_the_code_in_a_subprocess_sees_the_mutation(tmp_path):
    """The child also writes the mutated file into the worker's copy (restored afterwards),
    so a test that runs the library in a subprocess (a console script) sees the mutant."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text("def answer():\n    return 42\n")
    (repo / "tests" / "test_it.py").write_text(
        "import subprocess, sys\nimport lib\n\n\ndef test_in_process():\n    assert lib.answer() == 42\n\n\n"
        "def test_in_a_subprocess():\n    out = subprocess.run([sys.executable, '-c', 'import lib; print(lib.answer())'],\n"
        "                         capture_output=True, text=True, check=True).stdout\n    assert out.strip() == '42'\n")
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)), pythonpath=(".",))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = ("tests/test_it.py::test_in_a_subprocess", "tests/test_it.py::test_in_process")
    try:
        job = TestJob("m", str(repo), str(tmp_path / "jobs"), {"lib.py": "def answer():\n    return 41\n"}, ids)
        warm, fresh = runner(job), run_job(env, job)
        assert warm.runner == "warm" and warm.outcomes == fresh.outcomes
        assert set(fresh.outcomes.values()) == {"failed"}
        after = runner(TestJob("p", str(repo), str(tmp_path / "jobs"), {"lib.py": "def answer():\n    return 42\n"},
                               ids))
        assert set(after.outcomes.values()) == {"passed"}  # the worker's copy was restored
    finally:
        runner.close()


REWRITER = '''
def doubled_constants(fn):
    """A stand-in for typeguard's @typechecked: the live function gets code its file does
    not compile to (here every int constant doubled)."""
    fn.__code__ = fn.__code__.replace(co_consts=tuple(
        c * 2 if type(c) is int else c for c in fn.__code__.co_consts))
    return fn


@doubled_constants
def answer():
    return 21
'''


def test_a_function_whose_code_a_decorator_rewrote_runs_fresh(tmp_path):
    """Swapping in the plainly compiled mutant would drop what the decorator put in (inflect's
    typeguard checks made the warm runner disagree with fresh processes): fresh, with the reason."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text(REWRITER)
    (repo / "tests" / "test_it.py").write_text("import lib\n\n\ndef test_answer():\n    assert lib.answer() == 42\n")
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        job = TestJob("same", str(repo), str(tmp_path / "jobs"),
                      {"lib.py": REWRITER.replace("return 21", "return int(21)")}, ("tests/test_it.py::test_answer",))
        warm, fresh = runner(job), run_job(env, job)
    finally:
        runner.close()
    assert fresh.outcomes == {"tests/test_it.py::test_answer": "passed"} == warm.outcomes
    assert "the code of answer was rewritten after import by a decorator other than typeguard's" in warm.runner


TWICE = """import sys
from typing import overload


def parse(text):
    value = int(text)
    return value


if sys.version_info < (3, 0):
    parse_checked = parse

    def parse(text):
        return parse_checked(text.strip())


class Box:
    def __init__(self):
        self._size = 0

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value


if sys.platform == "never":
    def same():
        return 1
else:
    def same():
        return (1)


@overload
def pick(x: int) -> int: ...
@overload
def pick(x: str) -> str: ...
def pick(x):
    return x


def later():
    return 1
"""

TWICE_TESTS = """import lib


def test_parse():
    assert lib.parse('41') == 41


def test_size():
    box = lib.Box()
    box.size = 3
    assert box.size == 3


def test_same():
    assert lib.same() == 1


def test_later():
    assert lib.later() == 1


def test_pick():
    assert lib.pick(2) == 2
"""

TWICE_MUTANTS = {  # name: (old, new, the test that fails, the runner: "warm" or part of the reason)
    "same lines": ("    value = int(text)\n", "    value = int(text) + 1\n", "parse", "warm"),
    "moves the rest": ("    value = int(text)\n", "    value = int(text)\n    value += 1\n", "parse", "warm"),
    "setter": ("        self._size = value\n", "        self._size = value + 1\n", "size", "warm"),
    "getter": ("        return self._size\n", "        return -self._size\n", "size", "warm"),
    "same code": ("        return (1)\n", "        return (2)\n", "same",
                  "same is defined more than once and two of its definitions have the same code"),
    "overloaded": ("def pick(x):\n    return x\n", "def pick(x):\n    return x * 2\n", "pick", "warm"),
}


def test_a_change_to_one_definition_of_a_name_defined_twice_runs_warm_on_its_own_live_functions(tmp_path):
    """A name defined more than once — toolz 1.0.0's ``_check_sigspec`` (a second one only on
    PyPy), inflect 7.5.0's ``_number_args`` property getter and setter — : the live functions
    of the changed definition are found by their pristine code and take its new code, the
    others keep theirs (the setter, the getter); the definitions after it move. Two
    definitions with the same code cannot be told apart and run fresh, unless neither is
    touched (``@overload`` stubs, as click 8.1.7's ``Context.invoke`` has). Before, the code
    table held one code per name: a change to the first ``parse`` ran warm with only
    ``later`` moved and ``parse`` unchanged."""
    repo, env = warm_project(tmp_path, TWICE, TWICE_TESTS)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("later", "parse", "pick", "same", "size"))
    try:
        for name, (old, new, failing, expected) in TWICE_MUTANTS.items():
            assert TWICE.count(old) == 1, name
            runs = _agrees(runner, env, repo, tmp_path, name, TWICE.replace(old, new), ids, {failing}, expected)
            symptoms = [re.sub(r"0x[0-9a-f]+", "0x", json.dumps(run.failures)) for run in runs]
            assert symptoms[0] == symptoms[1], name  # the same failure: the right definition took the change
    finally:
        runner.close()


STARTED = """def numbers():
    yield 1
    yield 2


STREAM = numbers()


def adders():
    while True:
        def add(x):
            return x + 1
        yield add


ADDERS = adders()
FIRST = next(ADDERS)


def fresh():
    return next(numbers())
"""


def test_a_generator_made_before_the_fork_hands_its_function_back(tmp_path):
    """A generator made at import keeps its function's old code in its own frame, even never
    advanced (so no call of it was noted), and makes new closures from that code: a change
    to that function, or inside a function nested in it, runs fresh; a function with no
    generator alive still runs warm."""
    repo, env = warm_project(tmp_path, STARTED, "import lib\n\n\ndef test_stream():\n"
                                               "    assert next(lib.STREAM) == 1\n\n\ndef test_fresh():\n"
                                               "    assert lib.fresh() == 1\n\n\ndef test_adders():\n"
                                               "    assert next(lib.ADDERS)(1) == 2\n")
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = ("tests/test_it.py::test_adders", "tests/test_it.py::test_fresh", "tests/test_it.py::test_stream")
    mutants = {"yield 1": ("yield 5", "numbers ran at import", {"fresh", "stream"}),
               "return x + 1": ("return x + 5", "adders ran at import", {"adders"}),
               "next(numbers())": ("next(numbers()) + 1", "warm", {"fresh"})}
    try:
        for old, (new, expected, failing) in mutants.items():
            _agrees(runner, env, repo, tmp_path, old, STARTED.replace(old, new), ids, failing, expected)
    finally:
        runner.close()


TYPECHECKED = '''
from typeguard import typechecked


@typechecked
def label(n: int) -> str:
    return str(n)


class Shelf:
    @typechecked
    def count(self, items: list) -> int:
        return len(items)
'''

TYPECHECKED_TESTS = '''
import pytest
from typeguard import TypeCheckError

import lib


def test_label_text():
    assert str(lib.label(3)) == "3"


def test_label_checks_its_argument():
    with pytest.raises(TypeCheckError):
        lib.label("x")


def test_count():
    assert lib.Shelf().count([1, 2]) == 2
'''


def test_typeguard_instrumented_functions_run_warm_and_agree_with_fresh_processes(tmp_path):
    """Real typeguard: the worker instruments the mutated function with typeguard's own
    transformer, so a mutant whose return value breaks its annotation fails exactly as in a
    new process (a plain swap would drop the checks and pass ``test_label_text``)."""
    pytest.importorskip("typeguard")
    repo, env = warm_project(tmp_path, TYPECHECKED, TYPECHECKED_TESTS)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("count", "label_checks_its_argument", "label_text"))
    mutants = {"wrong-type": TYPECHECKED.replace("return str(n)", "return n"),
               "method": TYPECHECKED.replace("return len(items)", "return len(items) + 1"),
               "same": TYPECHECKED.replace("return str(n)", "return str(int(n))")}
    try:
        for name, text in mutants.items():
            warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids)
            assert warm.runner == "warm", (name, warm.runner)
        assert fresh.outcomes[ids[2]] == "passed"  # the last mutant changes nothing observable
        wrong = runner(TestJob("w", str(repo), str(tmp_path / "jobs"), {"lib.py": mutants["wrong-type"]}, ids))
        assert wrong.outcomes[ids[2]] == "failed" and wrong.outcomes[ids[1]] == "passed"
    finally:
        runner.close()


POSTPONED = '''from __future__ import annotations

import functools


def clamp(value: float, ceil: float | None = None) -> float:
    return min(value, ceil) if ceil is not None else value


@functools.lru_cache
def half(value: int) -> float:
    return value / 2
'''

POSTPONED_TESTS = '''
import inspect

import lib


def test_clamp():
    assert lib.clamp(5, 3) == 3


def test_clamp_annotations():
    assert lib.clamp.__annotations__ == {"value": "float", "ceil": "float | None", "return": "float"}


def test_signature():
    assert str(inspect.signature(lib.clamp)) == "(value: 'float', ceil: 'float | None' = None) -> 'float'"


def test_half():
    assert lib.half(3) == 1.5
'''


def test_annotation_changes_in_a_postponed_annotations_module_run_warm(tmp_path):
    """humanize's operator mutants also rewrite annotations (``float | None`` -> ``None | float``),
    which changes module-level code; with ``from __future__ import annotations`` those are
    strings no one evaluates at import, so the worker swaps the body and the new
    ``__annotations__`` in and agrees with fresh processes; a decorated function's
    annotations (a decorator may read them at import) and evaluated annotations run fresh."""
    repo, env = warm_project(tmp_path, POSTPONED, POSTPONED_TESTS)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("clamp", "clamp_annotations", "half", "signature"))
    warm_mutants = {
        "annotation+body": POSTPONED.replace("ceil: float | None", "ceil: None | float").replace("min(", "max("),
        "annotation only": POSTPONED.replace("-> float:\n    return min", "-> float & int:\n    return min"),
        "literal default": POSTPONED.replace("= None) -> float", "= 4) -> float")}
    fresh_mutants = {
        "decorated": (POSTPONED.replace("half(value: int)", "half(value: int ^ None)"), "module or class-level"),
        "evaluated": (POSTPONED.replace("from __future__ import annotations\n", "").replace(
            "ceil: float | None", "ceil: None | float"), "module or class-level")}
    try:
        for name, text in warm_mutants.items():
            warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids)
            assert warm.runner == "warm", (name, warm.runner)
            assert fresh.outcomes[ids[3]] == "failed", name  # the signature shows the change
        for name, (text, reason) in fresh_mutants.items():
            warm, _ = _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids)
            assert reason in warm.runner, (name, warm.runner)
        after = runner(TestJob("p", str(repo), str(tmp_path / "jobs"), {"lib.py": POSTPONED.replace("/ 2", "/ 2.0")},
                               ids))
        assert after.runner == "warm" and set(after.outcomes.values()) == {"passed"}  # nothing leaked
    finally:
        runner.close()


CLASSES = '''
import abc


class Base(abc.ABC):
    @abc.abstractmethod
    def size(self): ...


class Sized(Base):
    def size(self):
        return 1

    def __len__(self):
        return self.size()

    def label(self):
        return "sized"

    def __eq__(self, other):
        return True


class Child(Sized):
    pass


class Plain:
    def get(self):
        return 1


class Keeper(Plain):
    def get(self):
        return 2

    def name(self):
        return "keeper"


KEPT = {"getter": Keeper.get}
'''

CLASSES_TESTS = '''
import collections.abc

import lib

AT_IMPORT = None


def test_len():
    assert len(lib.Sized()) == 1


def test_sized_abc():
    assert isinstance(lib.Child(), collections.abc.Sized)


def test_child():
    assert lib.Child().size() == 1


def test_label():
    assert lib.Child().label() == "sized"


def test_keep():
    assert lib.KEPT["getter"](lib.Keeper()) == 2 and lib.Keeper().get() == 2


def test_eq():
    assert lib.Sized() == lib.Sized()
'''


def test_removed_methods_run_warm_when_a_live_class_can_show_it(tmp_path):
    """class_rm_funcs mutants: a removed method is deleted from the live class (abstract
    methods recomputed) — same outcomes as new processes. Runs fresh, with the reason, when
    something before the fork could have seen the method: another object took it at import
    (a default argument), class creation reads it (``__eq__``), its removal uncovers an
    abstract method, or an isinstance check at import cached the class."""
    repo, env = warm_project(tmp_path, CLASSES, CLASSES_TESTS)
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("child", "eq", "keep", "label", "len", "sized_abc"))

    def without(method, cls="Sized"):
        start = CLASSES.index(f"    def {method}(", CLASSES.index(f"class {cls}"))
        return CLASSES[:start] + CLASSES[CLASSES.find("\n\n", start) + 2:]

    at_import = "AT_IMPORT = isinstance(lib.Child(), collections.abc.Sized)"
    cases = [("__len__", "", "warm", {"len", "sized_abc"}), ("label", "", "warm", {"label"}),
             ("__len__", at_import, "an isinstance or issubclass check saw Sized", {"len", "sized_abc"}),
             ("size", "", "leaves an abstract method", {"child", "eq", "label", "len", "sized_abc"}),
             ("__eq__", "", "decorated, bound twice or special", {"eq"}),
             ("get", "", "referred to from elsewhere", {"keep"})]
    for n, (method, import_line, runner_kind, failing) in enumerate(cases):
        (repo / "tests" / "test_it.py").write_text(CLASSES_TESTS.replace("AT_IMPORT = None", import_line or "X = 1"))
        runner = WarmRunner(env, repo, tmp_path / f"warm{n}")
        try:
            warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, method,
                                          without(method, "Keeper" if method == "get" else "Sized"), ids)
            assert runner_kind in warm.runner, (method, warm.runner)
            assert _not_passed(fresh) == failing, method
            after = runner(TestJob("p", str(repo), str(tmp_path / "jobs"), {"lib.py": CLASSES}, ids))
            assert set(after.outcomes.values()) == {"passed"}  # nothing leaked into the next child
        finally:
            runner.close()


SHELF = '''
class Registry:
    names = []

    def __init_subclass__(cls):
        Registry.names.append([n for n in vars(cls) if not n.startswith("__")])


class Shelf:
    """A shelf."""

    size = 3

    def first(self):
        return "first"

    def second(self):
        return "second"

    @property
    def label(self):
        return "shelf"

    @label.setter
    def label(self, value):
        raise AttributeError(value)


class Listed(Registry):
    def one(self):
        return 1

    def two(self):
        return 2


class Named:
    def call(self):
        return 1

    @property
    def __name__(self):
        return "named"


class _Private:
    __marker = "m"

    def mark(self):
        return self.__marker

    def other(self):
        return 2
'''

SHELF_TESTS = '''
import inspect

import lib


def test_order():
    assert [n for n in vars(lib.Shelf) if not n.startswith("__")] == ["size", "first", "second", "label"]


def test_lines():
    assert inspect.getsourcelines(lib.Shelf.first)[1] == 14


def test_calls():
    assert lib.Shelf().first() + lib.Shelf().second() == "firstsecond"


def test_listed():
    assert lib.Registry.names == [["one", "two"]]


def test_named():
    assert (lib.Named.__name__, lib.Named().__name__, lib.Named().call()) == ("Named", "named", 1)
    assert [n for n in vars(lib.Named) if not n.startswith("__")] == ["call"]


def test_private():
    assert [n for n in vars(lib._Private) if not n.startswith("__")] == ["_Private__marker", "mark", "other"]
    assert lib._Private().mark() == "m"
'''


def _swap(text, a, b):
    """``text`` with the method blocks starting at the (unique) lines ``a`` and ``b`` swapped."""
    def block(start):
        end = text.find("\n\n", start)
        return text[start:end if end >= 0 else len(text.rstrip("\n"))]
    first, second = sorted((text.index(a), text.index(b)))
    one, two = block(first), block(second)
    return text[:first] + two + text[first + len(one):second] + one + text[second + len(two):]


def test_reordered_methods_run_warm_with_the_new_class_order_and_lines(tmp_path):
    """class_shuffle_funcs mutants: the live class's namespace takes the order a new class
    would have and the moved methods their new line numbers, so even tests that look at the
    order or the lines agree with new processes; a reordering that changes what a name is
    bound to (a property and its setter) or that an ``__init_subclass__`` saw runs fresh. A
    class whose first reordered name is one the type itself answers (a ``__name__`` property,
    as toolz's ``excepts`` has) keeps its name: the child crashed there before. A class with a
    private name (``__marker``, kept as ``_Private__marker``) runs warm too (cachetools'
    ``Cache`` was handed back)."""
    repo, env = warm_project(tmp_path, SHELF, SHELF_TESTS)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("calls", "lines", "listed", "named", "order", "private"))
    cases = {"methods": (_swap(SHELF, "    def first(", "    def second("), "warm", {"lines", "order"}),
             "property": (_swap(SHELF, "    @property", "    @label.setter"), "bound twice or decorated", set()),  # no import
             "subclass hook": (_swap(SHELF, "    def one(", "    def two("), "__init_subclass__", {"listed"}),
             "special name": (_swap(SHELF, "    def call(", "    @property\n    def __name__"), "warm", set()),
             "private name": (_swap(SHELF, "    def mark(", "    def other("), "warm", {"private"})}
    try:
        for name, (text, kind, failing) in cases.items():
            warm, fresh = _warm_and_fresh(runner, env, repo, tmp_path, name, text, ids)
            assert kind in warm.runner, (name, warm.runner)
            assert _not_passed(fresh) == failing, name
        after = runner(TestJob("p", str(repo), str(tmp_path / "jobs"), {"lib.py": SHELF.replace('"first"', '"1st"')},
                               ids))
        assert after.runner == "warm" and _not_passed(after) == {"calls"}
    finally:
        runner.close()


LAZY = '''
RATE = 2


class Base:
    def size(self):
        return 1


class Box(Base):
    def scaled(self, n):
        return n * RATE
'''

DROPPED = '''
VALUE = 5
'''

LAZY_TESTS = '''
import importlib
import sys

import dropped

VALUE = dropped.VALUE
del sys.modules["dropped"]  # imported at collection, then dropped: its module code still ran


def test_scaled():
    box = importlib.import_module("lazy").Box()  # imported by the test, as Markdown loads its extensions
    assert box.scaled(3) == 6


def test_size():
    assert importlib.import_module("lazy").Box().size() == 1


def test_value():
    assert VALUE == 5
'''


@pytest.mark.parametrize("known_from", ["profile hook", "coverage run"])
def test_a_file_nothing_imported_before_the_fork_runs_warm_as_it_is(tmp_path, known_from):
    """A module only a test imports (Markdown 3.7's extensions) needs no swap: the child's
    import reads the mutated file the child wrote, so even changes no swap carries (module
    constants, a removed base, a removed method) run warm and agree with new processes, and
    the next child imports the pristine file again. A module imported at collection and
    dropped from ``sys.modules`` again still ran: its changes run fresh."""
    from gen09_core.mutate.baseline import derive_baseline

    repo, env = warm_project(tmp_path, "", LAZY_TESTS)
    (repo / "lib.py").unlink()
    (repo / "lazy.py").write_text(LAZY)
    (repo / "dropped.py").write_text(DROPPED)
    import_lines = None
    if known_from == "coverage run":
        pristine = run_job(env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
        import_lines = derive_baseline(pristine, pristine).import_lines
        assert "lazy.py" not in import_lines and import_lines["dropped.py"]
    runner = WarmRunner(env, repo, tmp_path / "warm", import_lines=import_lines)
    ids = tuple(f"tests/test_it.py::test_{n}" for n in ("scaled", "size", "value"))
    cases = {"lazy.py": {"constant": (LAZY.replace("RATE = 2", "RATE = 3"), {"scaled"}),
                         "base": (LAZY.replace("class Box(Base):", "class Box:"), {"size"}),
                         "method": (LAZY.replace("    def size(self):\n        return 1\n", "    pass\n"), {"size"}),
                         "pristine": (LAZY, set())},
             "dropped.py": {"dropped": (DROPPED.replace("5", "6"), {"value"})}}
    try:
        for path, mutants in cases.items():
            for name, (text, failing) in mutants.items():
                job = TestJob(name, str(repo), str(tmp_path / "jobs"), {path: text}, ids)
                warm, fresh = runner(job), run_job(env, job)
                assert warm.outcomes == fresh.outcomes and _not_passed(fresh) == failing, name
                assert (warm.runner == "warm") == (path == "lazy.py"), (name, warm.runner)
    finally:
        runner.close()


@pytest.mark.parametrize(("importer", "known_from", "reason"), [
    ("early_plugin.py", "profile hook", "ran at import"),  # the warm plugin loads first: its hook sees it
    # imported before any plugin: neither the hook nor a coverage run saw it, and it is handed back whole
    ("sitecustomize.py", "profile hook", "lib.py was imported before gen09 could note"),
    ("sitecustomize.py", "coverage run", "lib.py was imported before gen09 could note"),
])
def test_code_another_plugin_ran_at_import_is_never_swapped(tmp_path, importer, known_from, reason):
    """pathvalidate 3.2.1: its own pytest plugin pytest-md-report imports pathvalidate (through
    pytablewriter), and loaded before gen09's warm plugin, so the profile hook never saw
    ``_get_ascii_symbols`` run at import; the warm verify of a mutant of it swapped the function,
    the module's constant stayed pristine, and the nop trial passed every test. The warm plugin
    now loads first, and a file imported before it (here by a ``sitecustomize``) is never
    swapped without the baseline's import-time lines: each runs fresh and agrees."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    lib = "def _symbols():\n    return [c for c in 'ab1' if not c.isdigit()]\n\n\nSYMBOLS = tuple(_symbols())\n"
    (repo / "lib.py").write_text(lib)
    (repo / importer).write_text("import lib  # noqa: F401\n")
    (repo / "tests" / "test_it.py").write_text("import lib\n\n\ndef test_symbols():\n"
                                               "    assert lib.SYMBOLS == ('a', 'b')\n")
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)), pythonpath=(".",),
                  plugins=("early_plugin",) if importer == "early_plugin.py" else ())
    import_lines = None
    if known_from == "coverage run":
        from gen09_core.mutate.baseline import derive_baseline

        pristine = run_job(env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
        import_lines = derive_baseline(pristine, pristine).import_lines
    runner = WarmRunner(env, repo, tmp_path / "warm", import_lines=import_lines)
    try:
        _agrees(runner, env, repo, tmp_path, "symbols", lib.replace("if not c.isdigit()", "if c.isdigit()"),
                ("tests/test_it.py::test_symbols",), {"symbols"}, reason)
    finally:
        runner.close()
