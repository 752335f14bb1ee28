"""The pristine copy's bytecode, made once: only exact pycs reach it (checked-hash module
pycs, pytest's rewritten test modules), the collection's side effects do not, and a job that
changes a file — by a same-size edit, the case timestamps cannot tell apart — runs its text."""

import subprocess
import sys

import pytest

from gen09_core.testrun.bytecode import CHECKED_HASH, prime
from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job
from gen09_core.testrun.venv import create_venv
from gen09_core.testrun.warm import WarmRunner

LIB = "def add(a, b):\n    return a + b\n"
HELPERS = "def expected():\n    return 5\n"
TESTS = '''
import subprocess, sys

import lib
from helpers import expected


def test_add():
    assert lib.add(2, 3) == expected()


def test_add_in_a_subprocess():
    out = subprocess.run([sys.executable, "-c", "import lib; print(lib.add(2, 3))"], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "5"
'''
CONFTEST = '''
import pathlib, pytest

pytest.register_assert_rewrite("helpers")
pathlib.Path("collected.txt").write_text("side effect")
'''
IDS = ("tests/test_lib.py::test_add", "tests/test_lib.py::test_add_in_a_subprocess")


def _repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text(LIB)
    (repo / "helpers.py").write_text(HELPERS)
    (repo / "tests" / "test_lib.py").write_text(TESTS)
    (repo / "conftest.py").write_text(CONFTEST)
    return repo


@pytest.fixture
def primed(tmp_path):
    repo = _repo(tmp_path)
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))
    done = prime(env, repo, tmp_path / "scratch")
    return repo, env, done, tmp_path


def _names_the_check(run) -> bool:
    """Whether ``run``'s failure of ``test_add`` names its check by the test file's own path."""
    return ["tests/test_lib.py", 9] in [list(frame) for frame in run.failures[IDS[0]]["trace"]]


def test_only_exact_bytecode_reaches_the_pristine_copy(primed):
    repo, _, done, _ = primed
    assert not done.problem, done.problem
    assert not (repo / "collected.txt").exists()  # the conftest ran in the throwaway copy
    pycs = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.pyc"))
    assert any(p.startswith("__pycache__/lib.cpython-") and "-pytest-" not in p for p in pycs), pycs
    assert any(p.startswith("tests/__pycache__/test_lib.") and "-pytest-" in p for p in pycs), pycs
    assert done.modules >= 3 and done.rewritten >= 2  # lib, helpers, conftest, the test; test + conftest
    for pyc in repo.rglob("*.pyc"):
        if "-pytest-" not in pyc.name:
            assert int.from_bytes(pyc.read_bytes()[4:8], "little") == CHECKED_HASH, pyc


@pytest.mark.parametrize("rel, text", [
    ("lib.py", LIB.replace("a + b", "a - b")),  # a plain module, same size
    ("helpers.py", HELPERS.replace("5", "6")),  # a module pytest rewrites, same size
    ("tests/test_lib.py", TESTS.replace("== expected()", "!= expected()")),  # the test file, same size
])
def test_a_changed_file_runs_its_own_text_fresh_and_warm(primed, rel, text):
    repo, env, _, tmp_path = primed
    assert len(text) == len((repo / rel).read_text())
    job = TestJob("m", str(repo), str(tmp_path / "jobs"), {rel: text}, IDS)
    fresh = run_job(env, job)
    assert fresh.outcomes["tests/test_lib.py::test_add"] == "failed", fresh
    assert _names_the_check(fresh), fresh.failures
    if rel == "lib.py":
        assert fresh.outcomes["tests/test_lib.py::test_add_in_a_subprocess"] == "failed"
        runner = WarmRunner(env, repo, tmp_path / "warm")
        try:
            warm = runner(job)
        finally:
            runner.close()
        assert warm.runner == "warm" and warm.outcomes == fresh.outcomes
    pristine = run_job(env, TestJob("p", str(repo), str(tmp_path / "jobs"), {}, IDS))
    assert set(pristine.outcomes.values()) == {"passed"}


def test_an_older_pytest_keeps_no_rewritten_module_and_frames_name_the_test_file(tmp_path):
    """pytest before 9.2 runs a cached rewritten test module under the name of the folder it was
    rewritten in (desert 2022.9.22 pins 7.1.3): none is kept, so a failure's frames name the
    test file, as in a run with no bytecode made at all."""
    python = create_venv(tmp_path / "venv")
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "pytest==8.4.2"], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    env = TestEnv(python, str(install_plugin(tmp_path / "plugins")), str(tmp_path / "venv"))
    repo = _repo(tmp_path)
    done = prime(env, repo, tmp_path / "scratch")
    assert not done.problem and done.modules >= 3 and done.rewritten == 0, done
    assert not list(repo.rglob("*-pytest-*.pyc"))
    run = run_job(env, TestJob("m", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("+", "-")}, IDS))
    assert run.outcomes[IDS[0]] == "failed" and _names_the_check(run), run.failures
