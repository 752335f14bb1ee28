"""The make recipe (``gen09_core.testrun.ecosystems.make``): detection from a Makefile's rule
lines or an automake project, the ``.trs`` reader on files written by a real automake 1.16 run
(tests/fixtures/reports/automake-trs: its ``Makefile.am``, ``configure.ac`` and test scripts
beside them), and ``gen09 mutate`` → bundles → ``gen09 verify`` with real make and gcc on
tests/fixtures/langs/c-make-calc (TAP from two test programs) and, where autoreconf is
installed, tests/fixtures/langs/c-automake-calc (automake's TAP driver, ``.trs`` files)."""

import json
import shutil
from pathlib import Path

import pytest

from gen09_core.testrun import ecosystems, reports
from gen09_core.testrun.ecosystems import make
from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
from gen09_core.testrun.jobs import TestJob
from tests.helpers import ROOT, run_gen09
from tests.test_langs_e2e import instances, need, summary, verify_all

LANGS = ROOT / "tests" / "fixtures" / "langs"
TRS = ROOT / "tests" / "fixtures" / "reports" / "automake-trs"
ARGS = ("--n", "6", "--seed", "1", "--workers", "2")


def test_trs_reader_on_real_automake_files(tmp_path):
    """test-driver: one result per test (exit 77 SKIP, an XFAIL passes); the TAP driver: one per
    point, ``path::N``; the failing point carries its log; the sources beside are the files."""
    record = tmp_path / "outcomes.jsonl"
    parsed = reports.convert("trs", "build/**/*.trs", str(record), str(TRS), exitstatus=2)
    got = {c.test_id: (c.outcome, c.file) for c in parsed.cases}
    assert got == {"t/fail": ("passed", "t/fail.sh"), "t/pass": ("passed", "t/pass.sh"),
                   "t/skip": ("skipped", "t/skip.sh"), "t/points::1": ("passed", "t/points.tap"),
                   "t/points::2": ("failed", "t/points.tap"), "t/points::3": ("skipped", "t/points.tap"),
                   "t/points::4": ("passed", "t/points.tap")}
    failed = next(c for c in parsed.cases if c.outcome == "failed")
    assert "not ok 2 - second" in failed.message
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[-1] == {"kind": "finish", "exitstatus": 2}
    assert {"kind": "phase", "id": "t/points::2", "file": "t/points.tap", "when": "call",
            "outcome": "failed"}.items() <= next(x for x in lines if x.get("id") == "t/points::2"
                                                 and x["when"] == "call").items()


def test_trs_results_xpass_and_error_fail(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.trs").write_text(":test-result: XPASS\n:global-test-result: XPASS\n")
    (tmp_path / "b" / "y.trs").write_text(":global-test-result: ERROR\n:test-result: PASS\n:test-result: ERROR\n")
    parsed = reports.parse_trs(sorted(str(p) for p in (tmp_path / "b").glob("*.trs")), "b/*.trs", str(tmp_path))
    assert {c.test_id: c.outcome for c in parsed.cases} == {"x": "failed", "y::1": "passed", "y::2": "error"}
    assert reports.glob_base("build-gen09/**/*.trs") == "build-gen09" and reports.glob_base("*.trs") == ""


def write(folder: Path, files: dict) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_detect_plain_makefile_targets(tmp_path):
    a = write(tmp_path / "a", {"Makefile": "CC := gcc\nall lib: x.o\n\ttest -f x\ncheck: all\n\t./t\n"})
    assert make.rule_targets(a, "Makefile") == {"all", "lib", "check"}  # recipe and := lines are no rules
    recipe = ecosystems.detect(a)
    assert recipe.ecosystem == "make" and recipe.test == "make -k check" and recipe.report == "tap:-"
    assert recipe.setup == () and recipe.language == "c" and "gcc" in recipe.tools
    b = write(tmp_path / "b", {"GNUmakefile": "include rules.mk\n", "rules.mk": "test: \\\n  prog\n\t./prog\n"})
    assert make.detect(b).test == "make -k test"  # found in the included file
    assert make.detect(write(tmp_path / "c", {"Makefile": "all:\n\tcc -o x x.c\n"})) is None
    assert make.detect(tmp_path / "empty") is None


def test_detect_automake_and_the_order_after_cmake(tmp_path):
    a = write(tmp_path / "a", {"Makefile.am": "TESTS = t\n", "configure.ac": "AC_INIT([a],[1])\n", "x.cc": ""})
    recipe = make.detect(a)
    assert recipe.report == "trs:**/*.trs" and recipe.setup[0].startswith("autoreconf -fi")
    assert "autoreconf" in recipe.tools and recipe.language == "cpp"
    assert recipe.test.startswith("./configure") and "AUTOMAKE=: AUTOHEADER=: check" in recipe.test
    write(a, {"configure": "#!/bin/sh\n"})
    assert make.detect(a).setup == () and "autoreconf" not in make.detect(a).tools
    both = write(tmp_path / "both", {"CMakeLists.txt": "project(x)\nenable_testing()\n",
                                     "Makefile": "check:\n\t./t\n"})
    assert ecosystems.detect(both).ecosystem == "cmake"
    write(both, {"CMakeLists.txt": "project(x)\n"})  # an untested CMake project: its Makefile's target
    assert ecosystems.detect(both).ecosystem == "make"


def test_a_mutant_that_does_not_compile_passes_no_test(tmp_path):
    need("make", "cc")
    repo = tmp_path / "repo"
    shutil.copytree(LANGS / "c-make-calc", repo)
    recipe = make.detect(repo)
    env = CommandEnv(recipe.test, recipe.report, str(install_runner(tmp_path / "runner")), "make")
    good = run_command_job(env, TestJob("good", str(repo), str(tmp_path / "s1")))
    assert good.status == "ok" and len(good.outcomes) == 11 and set(good.outcomes.values()) == {"passed"}
    broken = {"src/calc.c": (repo / "src/calc.c").read_text().replace("return", "retrun", 1)}
    bad = run_command_job(env, TestJob("bad", str(repo), str(tmp_path / "s2"), files=broken))
    assert bad.status == "ok" and "passed" not in bad.outcomes.values()


def test_a_target_without_per_test_outcomes_makes_no_task(tmp_path):
    """One pass/fail for the whole target could give no PASS_TO_PASS: the baseline says so."""
    need("make", "cc")
    repo = write(tmp_path / "repo", {"Makefile": "check: t\n\t./t\nt: t.c\n\tcc -o t t.c\n",
                                     "t.c": "int twice(int x) { return 2 * x; }\n"
                                            "int main(void) { return twice(2) != 4; }\n"})
    done = run_gen09("mutate", repo, *ARGS, "--out", tmp_path / "run")
    assert done.returncode != 0 and "no stable passing tests" in done.stderr


@pytest.fixture(scope="module")
def make_run(tmp_path_factory):
    need("make", "gcc", "cc")
    base = tmp_path_factory.mktemp("make")
    shutil.copytree(LANGS / "c-make-calc", base / "c-make-calc")
    done = run_gen09("mutate", base / "c-make-calc", *ARGS, "--out", base / "run")
    return {"out": base / "run", "done": done}


def test_make_check_tap_mutate_and_verify(make_run):
    out = make_run["out"]
    assert make_run["done"].returncode == 0, make_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "make" and data["environment"]["report"] == "tap:-"
    assert data["baseline"]["stable"] == 11  # 6 + 5 TAP points of the two test programs
    verify_all(out, data)
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        shipped = {p.relative_to(snap).as_posix() for p in snap.rglob("*") if p.is_file()}
        assert shipped == {"Makefile", "src/calc.c", "src/calc.h"}  # no object, library or test binary
        assert (bundle / "tests" / "hidden" / "tests" / "test_arith.c").is_file()
        assert (bundle / "tests" / "hidden" / "tests" / "run.sh").stat().st_mode & 0o100  # still executable
        assert (bundle / "environment" / "Dockerfile").read_text().startswith("FROM gcc:")


def test_automake_trs_mutate_and_verify(tmp_path):
    """Real autotools (skipped where they are not installed): autoreconf once, every run a fresh
    configure + build + ``make check`` in its copy; the generated ``configure`` ships executable,
    and nothing the build made ships."""
    need("make", "gcc", "cc", "autoreconf", "automake")
    repo = tmp_path / "c-automake-calc"
    shutil.copytree(LANGS / "c-automake-calc", repo)
    out = tmp_path / "run"
    done = run_gen09("mutate", repo, *ARGS, "--out", out)
    assert done.returncode == 0, done.stderr
    data = summary(out)
    assert data["environment"]["report"] == "trs:**/*.trs" and data["baseline"]["stable"] == 11
    verify_all(out, data)
    for inst in instances(out):
        snap = out / inst["task"] / "environment" / "repo"
        assert all(t.split("::")[0] in ("tests/test_arith", "tests/test_numbers") for t in inst["FAIL_TO_PASS"])
        assert (snap / "configure").stat().st_mode & 0o100 and (snap / "Makefile.in").is_file()
        made = [p.name for p in snap.rglob("*") if p.suffix in (".o", ".a", ".trs", ".log") or p.name in (
            "Makefile", "config.status", "autom4te.cache", "test_arith", "test_numbers")]
        assert made == []
        for test_id in inst["FAIL_TO_PASS"]:
            assert not (snap / (test_id.split("::")[0] + ".c")).exists()
