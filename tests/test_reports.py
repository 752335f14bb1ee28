"""The report parsers, on output captured from real runs of each runner (tests/fixtures/reports:
node 20's test runner with its TAP reporter and with gen09's JUnit reporter, tape 5, jest 29,
vitest 3, mocha 10, go 1.19 ``go test -json``, RSpec 3.12, cargo 1.95's libtest, ctest 3.25,
surefire 3.2.5),
and through the one outcome reader."""

import json
import subprocess
from pathlib import Path

import pytest

from gen09_core.mutate.baseline import Baseline
from gen09_core.mutate.issue import write_issue
from gen09_core.mutate.validate import judge
from gen09_core.testrun import outcomes, reports
from gen09_core.testrun.jobs import TestJob, judge_record
from gen09_core.testrun.process import Finished
from tests.helpers import ROOT
from tests.test_langs_e2e import need

FIXTURES = Path(__file__).parent / "fixtures" / "reports"


def parsed(fmt, name, root=""):
    return reports.parse(fmt, [(FIXTURES / name).read_text(encoding="utf-8")], root)


def by_id(result):
    return {case.test_id: case.outcome for case in result.cases}


def test_node_gen09_junit_names_file_and_suites():
    result = parsed("junit", "node-gen09-junit.xml")
    assert by_id(result) == {
        "test/math.test.js::adds": "passed", "test/math.test.js::subs": "failed",
        "test/math.test.js::group > nested ok": "passed", "test/math.test.js::group > skipped": "skipped",
        "test/math.test.js::group > todo": "skipped", "test/other.test.js::adds": "passed",
        "test/sub.test.js::parent > child ok": "passed", "test/sub.test.js::parent > child bad": "failed",
        "test/sub.test.js::parent": "failed", "test/sub.test.js::outer > inner > deep": "passed"}
    subs = next(c for c in result.cases if c.test_id == "test/math.test.js::subs")
    assert "-1 !== 5" in subs.message and subs.file == "test/math.test.js"


def test_node_gen09_junit_keeps_line_breaks_and_names_a_file_by_its_relative_path(tmp_path):
    """uuid 14 (node 20): its ``dist-node/test/test_constants.js`` defines no test, node reports the
    file as one named by its absolute path, and the two pristine runs (two copies) made it flaky; and
    a message attribute's line breaks became spaces, so the issue said "raises `Expected values to be
    strictly equal: + actual - expected  + '5abc…' - '0f5a…'`" and "a result is `Expected values to be
    strictly equal:  -1` where `0` is expected"."""
    need("node")
    reporter = ROOT / "gen09_core" / "testrun" / "ecosystems" / "gen09_node_junit.mjs"
    runs = []
    for copy in ("one", "two"):
        folder = tmp_path / copy / "test"
        folder.mkdir(parents=True)
        (folder / "a.test.js").write_text(
            "const assert = require('node:assert');\nconst test = require('node:test');\n"
            "test('strings', () => assert.strictEqual('5abcd1c1-9494', '0f5abcd1-c194'));\n"
            "test('numbers', () => assert.strictEqual(-1, 0));\n")
        (folder / "constants.test.js").write_text("module.exports = 1;\n")
        subprocess.run(["node", "--test", f"--test-reporter={reporter}", "--test-reporter-destination=r.xml",
                        "test/"], cwd=folder.parent, capture_output=True, check=False)
        runs.append(reports.parse("junit", [(folder.parent / "r.xml").read_text()], str(folder.parent)))
    assert by_id(runs[0]) == by_id(runs[1]) == {
        "test/a.test.js::strings": "failed", "test/a.test.js::numbers": "failed", "test/constants.test.js": "passed"}
    failures = {c.test_id: {"message": c.message} for c in runs[0].cases if c.outcome == "failed"}
    issue = write_issue("src/v7.ts", failures, sorted(failures), sorted(failures), "", tmp_path)
    assert "a result is `'5abcd1c1-9494'` where `'0f5abcd1-c194'` is expected" in issue
    assert "a result is `-1` where `0` is expected" in issue


def test_node_builtin_junit_nests_suites_below_the_root():
    assert by_id(parsed("junit", "node-junit.xml")) == {
        "test::adds": "passed", "test::subs": "failed", "test::group > nested ok": "passed",
        "test::group > skipped": "skipped", "test::group > todo": "skipped"}


def test_ctest_junit_uses_the_test_name():
    result = parsed("junit", "ctest.xml")
    assert by_id(result) == {"add_ok": "passed", "add_bad": "failed", "add_skip": "skipped"}
    # ctest leaves the failure's message empty and the test's output beside it (jansson 2.14's issues
    # were empty): the last line it printed is the message
    assert next(c for c in result.cases if c.test_id == "add_bad").message == "add.c:12: expected 4 got 3"


def test_surefire_errors_name_their_exception():
    """surefire 3.2.5 (jsemver 0.10.2): an ``<error>`` keeps its exception's name in ``type`` alone, and
    the issue said 'raises `preReleaseIds must not be null`'."""
    cases = {c.test_id.rpartition("::")[2]: c for c in parsed("junit", "surefire.xml").cases}
    assert {name: c.outcome for name, c in cases.items()} == {
        "shouldNotAcceptNegativeNumbersForPatchVersion": "passed",
        "shouldSetVersionCoreWithDefaultMinorAndPatchValues": "error",
        "shouldNotAcceptNullsWhenSettingNormalVersion": "failed"}
    assert cases["shouldSetVersionCoreWithDefaultMinorAndPatchValues"].message == \
        "IllegalArgumentException: preReleaseIds must not be null"
    assert cases["shouldNotAcceptNullsWhenSettingNormalVersion"].message.startswith("Unexpected exception type")
    text = "<testsuite><testcase classname='a.B' name='{}'><error {}/></testcase></testsuite>"
    for attributes, message in (("type='java.lang.IllegalStateException'", "IllegalStateException"),
                                ("message='java.lang.X: y' type='java.lang.X'", "java.lang.X: y"),
                                ("message='y' type=''", "y")):
        assert reports.parse("junit", [text.format("t", attributes)]).cases[0].message == message


def test_node_tap_keeps_leaves_only():
    result = parsed("tap", "node-tap.txt")
    assert by_id(result) == {"adds": "passed", "subs": "failed", "group > nested ok": "passed",
                             "group > skipped": "skipped", "group > todo": "skipped"}
    subs = next(c for c in result.cases if c.test_id == "subs")
    assert "-1 !== 5" in subs.message and subs.seconds > 0


def test_node_tap_subtests_are_tests_and_their_assertions_the_message():
    """node-tap 16 (npm/node-semver's runner): a file per outermost subtest, assertions as points."""
    result = parsed("tap", "node-tap16.txt")
    assert by_id(result) == {"test/index.js::clamp > keeps values inside": "passed",
                             "test/index.js::clamp > raises low values": "failed",
                             "test/index.js::clamp > lowers high values": "passed",
                             **{f"test/index.js::numbers > {name}": "passed" for name in (
                                 "sum adds every value", "mean of values", "mean of nothing is zero",
                                 "range counts up", "range takes a step")}}
    failed = next(c for c in result.cases if c.outcome == "failed")
    assert failed.file == "test/index.js" and failed.message.startswith("should be equal\nfound: 10\nwanted: 0")


def test_node_tap_diffs_keep_their_indentation(tmp_path):
    """node-tap 21 (isaacs/minimatch 10): a ``diff: |`` block's context lines start with a space; the
    YAML's lines were all stripped, so the diff was not read and its issues said "the check reports
    `a* parsed`" (the assertion's name). A real tap 21.7 run of ``t.same``, ``t.strictSame`` and ``t.equal``."""
    result = parsed("tap", "node-tap21-diffs.tap")
    said = {c.test_id: write_issue("index.js", {c.test_id: {"message": c.message}}, [c.test_id], [], "", tmp_path)
            for c in result.cases}
    assert set(said) == {"test/checks.js::same", "test/checks.js::lacks", "test/checks.js::equal"}, said
    assert "Observed: part of a result is `2` where `3` is expected." in said["test/checks.js::same"]
    assert "Observed: a result lacks `Object {}`, which is expected." in said["test/checks.js::lacks"]
    assert "Observed: a result is `2` where `3` is expected." in said["test/checks.js::equal"]


def test_node_tap_yaml_lines_are_no_points_and_a_tests_first_failure_is_read(tmp_path):
    """node-tap 12 (davidmarkclements/rfdc 1.4.1): a ``source: |`` line ``ok(Buffer.isBuffer(…), …)``
    inside a failed assertion's YAML was read as a passing point, and its issues said "raises `cloned
    value is buffer`" (the assertion's name) where a second failure of the same test was a thrown
    error; an error thrown alone lacked its type. A real tap 12.7 run."""
    result = parsed("tap", "node-tap12-check-then-throw.tap")
    said = {c.test_id: write_issue("index.js", {c.test_id: {"message": c.message}}, [c.test_id], [], "", tmp_path)
            for c in result.cases}
    assert by_id(result) == {"test/two.js::a check then a throw": "failed", "test/two.js::a throw alone": "failed"}
    both = next(c.message for c in result.cases if c.test_id.endswith("then a throw"))
    assert "source: |\nok(Buffer.isBuffer('x'), 'cloned value is buffer')\n\nCannot read" in both
    assert "Observed: the check reports `cloned value is buffer`." in said["test/two.js::a check then a throw"]
    assert "raises `TypeError: Iterator value undefined is not an entry object`." in said[
        "test/two.js::a throw alone"]

def test_node_tap_files_that_died_or_ran_out_of_time(tmp_path):
    """node-tap 21 (isaacs/minimatch 10): a test file that threw at import is reported by its process's
    YAML alone (its error went to stderr), which an issue quoted as "raises `stdio: inherit`"; a file
    it killed at ``--timeout`` is a point named ``timeout!``, not the file. A real tap 21.7 run."""
    result = parsed("tap", "node-tap21-died.tap")
    assert by_id(result) == {"test/dies.js": "failed", "test/hang.js": "failed"}
    said = {c.test_id: write_issue("index.js", {c.test_id: {"message": c.message}}, [c.test_id], [], "", tmp_path)
            for c in result.cases}
    assert "Observed: the test program ends with exit code 1 before its checks report." in said["test/dies.js"]
    assert "Observed: a call does not finish: the check runs out of time." in said["test/hang.js"]
    killed = "stdio: inherit\nexternalID: test/x.js\ncommand: /usr/bin/node\nexitCode: null\nsignal: SIGKILL"
    assert "Observed: a call does not finish: the test program is killed (SIGKILL)." in write_issue(
        "index.js", {"test/x.js": {"message": killed}}, ["test/x.js"], [], "", tmp_path)


def test_node_tap_assertions_beside_subtests_belong_to_the_file():
    text = ("TAP version 13\n# Subtest: test/x.js\n    # Subtest: sub\n        ok 1 - should be equal\n"
            "        1..1\n    ok 1 - sub # time=1ms\n    not ok 2 - should be equal\n      ---\n"
            "      found: 1\n      wanted: 2\n      ...\n    ok 3 - should be equal\n    1..3\n"
            "not ok 1 - test/x.js # time=5ms\n1..1\n")
    result = reports.parse("tap", [text], "")
    assert by_id(result) == {"test/x.js::sub": "passed", "test/x.js": "failed"}
    assert result.cases[-1].message == "should be equal\nfound: 1\nwanted: 2"


def test_tape_tap_groups_assertions_by_test():
    assert by_id(parsed("tap", "tape.txt")) == {"adds": "passed", "adds wrong": "failed", "skipped": "skipped"}


def test_jest_json_ids_and_suite_that_failed_to_run():
    result = parsed("jest-json", "jest.json", "/tmp/wt15-s/js")
    assert by_id(result) == {
        "test/calc.test.js::calc > adds": "passed", "test/calc.test.js::calc > adds wrong": "failed",
        "test/calc.test.js::calc > skipped": "skipped", "test/calc.test.js::calc > inner > zero": "passed",
        "test/calc.test.js::top level": "passed"}
    assert [where for where, _ in result.problems] == ["test/broken.test.js"]
    assert "Cannot find module" in result.problems[0][1]


def test_jest_19_json_without_describe_titles_or_colour(tmp_path):
    """facebook/prop-types 15.8.1 runs jest 19 (captured from a real run): its report names no
    describe block, so a title used twice is numbered; its messages carry colour codes even
    under NO_COLOR and FORCE_COLOR=0, which the record leaves out, and its comparison spans
    two lines a side (an issue said "raises `Error: \x1b[2mexpect(…`")."""
    out = tmp_path / "outcomes.jsonl"
    reports.convert("jest-json", str(FIXTURES / "jest19.json"), str(out), root="/tmp/wt15-s/js", exitstatus=1)
    record = outcomes.read(out)
    assert record.outcomes() == {"__tests__/zzcalc-test.js::sums": "failed",
                                 "__tests__/zzcalc-test.js::sums [2]": "passed",
                                 "__tests__/zzcalc-test.js::is skipped": "passed"}
    failure = record.tests["__tests__/zzcalc-test.js::sums"]
    assert "\x1b" not in failure.message and failure.message.startswith("Error: expect(received).toBe(expected)")
    failures = {"__tests__/zzcalc-test.js::sums": {"message": failure.message}}
    issue = write_issue("calc.js", failures, list(failures), [], "", tmp_path)
    assert "a result is `-1` where `3` is expected" in issue


def test_jest_titles_that_are_not_strings_read_as_javascript_writes_them():
    """iamkun/dayjs 1.11 (jest 22): ``it([2010, 1, 14, 15, 25, 50, 125], …)`` is reported with that
    array as its title, and the whole run ended in a TypeError traceback."""
    report = {"testResults": [{"name": "/r/test/a.test.js", "status": "passed", "assertionResults": [
        {"ancestorTitles": ["parse array local"], "title": [2010, 1, 14.0, None], "status": "passed"},
        {"ancestorTitles": [], "title": True, "status": "passed"},
        {"ancestorTitles": [], "title": 1.5, "status": "failed", "failureMessages": ["x"]}]}]}
    assert by_id(reports.parse("jest-json", [json.dumps(report)], "/r")) == {
        "test/a.test.js::parse array local > 2010,1,14,": "passed", "test/a.test.js::true": "passed",
        "test/a.test.js::1.5": "failed"}


def test_a_plain_error_thrown_by_a_typescript_test_under_node_reads_as_its_check(tmp_path):
    """sindresorhus/p-queue 9 (``node --import=tsx/esm --test``, the report gen09's reporter wrote in a
    real run): a test's own ``throw new Error(…)`` read as "raises `clear() should resolve …`" — the
    JUnit message names no frame, and node's stack paths are absolute; a test whose promise never
    settles read as "raises `Promise resolution is still pending …`"."""
    result = parsed("junit", "node-tsx-junit.xml", "/tmp/wt15-s/js")
    message = {c.test_id: c.message for c in result.cases}
    thrown = "test/zz-gen09.ts::plain error from the test"
    assert message[thrown].startswith("Error: half() should settle\n    at <anonymous> (test/zz-gen09.ts:10:10)")
    said = {tid: write_issue("source/queue.ts", {tid: {"message": m}}, [tid], [], "", tmp_path)
            for tid, m in message.items()}
    assert "the check reports `half() should settle`" in said[thrown]
    assert "a result is `2` where `3` is expected" in said["test/zz-gen09.ts::assert from the test"]
    jest = {"testResults": [{"name": "/tmp/wt15-s/js/test/a.test.js", "status": "failed", "assertionResults": [
        {"ancestorTitles": [], "title": "helper", "status": "failed", "failureMessages": [
            "Error: isIn('foo') failed\n    at check (/tmp/wt15-s/js/test/helpers.js:3:9)\n"
            "    at Object.<anonymous> (/tmp/wt15-s/js/test/a.test.js:5:3)"]}]}]}
    (case,) = reports.parse("jest-json", [json.dumps(jest)], "/tmp/wt15-s/js").cases
    assert "the check reports `isIn('foo') failed`" in write_issue(
        "src/v.js", {case.test_id: {"message": case.message}}, [case.test_id], [], "", tmp_path)
    pending = {"test/basic.ts::.add() - handle task promise failure": {
        "message": "Promise resolution is still pending but the event loop has already resolved"}}
    assert "a call does not finish: a promise it returns never settles." in write_issue(
        "source/queue.ts", pending, list(pending), [], "", tmp_path)


def test_vitest_json_reads_as_jest():
    assert by_id(parsed("jest-json", "vitest.json", "/tmp/wt15-s/js")) == {
        "vt/calc.test.js::calc > adds": "passed", "vt/calc.test.js::calc > adds wrong": "failed",
        "vt/calc.test.js::calc > skipped": "skipped"}


def test_mocha_json_and_failed_hook():
    result = parsed("mocha-json", "mocha.json", "/tmp/wt15-s/js")
    assert by_id(result) == {"test/calc.mocha.js::calc adds": "passed",
                             "test/calc.mocha.js::calc adds wrong": "failed",
                             "test/calc.mocha.js::calc skipped": "skipped"}
    assert result.problems and "hook boom" in result.problems[0][1]


def test_go_json_subtests_and_build_failure():
    result = parsed("go-json", "go.json")
    assert by_id(result) == {
        "example.com/godemo::TestAdd": "passed", "example.com/godemo::TestBad": "failed",
        "example.com/godemo::TestSkip": "skipped", "example.com/godemo::TestSub": "failed",
        "example.com/godemo::TestSub/one": "passed", "example.com/godemo::TestSub/two": "failed",
        "example.com/godemo/sub::TestX": "passed"}
    assert any("broken" in message for _, message in result.problems)
    bad = next(c for c in result.cases if c.test_id == "example.com/godemo::TestBad")
    assert "want 4 got 3" in bad.message


def test_rspec_json_uses_rspec_ids():
    result = parsed("rspec-json", "rspec.json", "/tmp/wt15-s/rb")
    outcomes_ = by_id(result)
    assert outcomes_["./spec/calc_spec.rb[1:1]"] == "passed"
    assert outcomes_["./spec/calc_spec.rb[1:2]"] == "failed"
    assert outcomes_["./spec/calc_spec.rb[1:3]"] == "skipped"
    assert len(outcomes_) == 5 and {c.file for c in result.cases} == {"spec/calc_spec.rb"}


def test_libtest_targets_and_failure_message():
    result = parsed("libtest", "libtest.txt")
    assert by_id(result) == {"src/lib.rs::tests::adds": "passed", "src/lib.rs::tests::ignored": "skipped",
                             "src/lib.rs::tests::fails": "failed", "src/lib.rs::tests::panics": "passed",
                             "tests/integ.rs::integ_ok": "passed"}
    fails = next(c for c in result.cases if c.test_id == "src/lib.rs::tests::fails")
    assert "left: 3" in fails.message and "right: 4" in fails.message


def test_libtest_a_program_that_aborts_is_a_problem_its_unreported_tests_fail_with(tmp_path):
    """semver 1.0.14 (cargo 1.95): a mutant's dealloc aborts two test programs; their tests are never
    reported, and the task's issue had no symptom. The panic each printed, and how it ended, is the
    problem of its target, and the message of each selected test of it that never reported."""
    result = parsed("libtest", "libtest-abort.txt")
    assert not any(c.test_id.startswith("tests/test_identifier.rs") for c in result.cases)
    assert by_id(result)["tests/test_version.rs::test_ne"] == "passed"
    assert [where for where, _ in result.problems] == ["tests/test_identifier.rs", "tests/test_version.rs"]
    message = dict(result.problems)["tests/test_identifier.rs"]
    assert message.startswith("thread 'test_eq' (15220) panicked at src/identifier.rs:237:31:\nunsafe precondition")
    assert message.endswith("\n(signal: 6, SIGABRT: process abort signal)") and "stack backtrace" not in message
    out = tmp_path / "outcomes.jsonl"
    reports.convert("libtest", str(FIXTURES / "libtest-abort.txt"), str(out), exitstatus=101)
    wanted = ("tests/test_identifier.rs::test_eq", "tests/test_version.rs::test_ne", "tests/test_version.rs::test_parse")
    job = TestJob("m", str(tmp_path), str(tmp_path), tests=wanted)
    run = judge_record(job, out, Finished("ok", 101, 1.0, 1.0), runner_failures={})
    assert set(run.failures) == {wanted[0], wanted[2]} and run.failures[wanted[0]]["message"] == message
    assert run.outcomes.get(wanted[0]) is None and run.outcomes[wanted[1]] == "passed"
    issue = write_issue("src/identifier.rs", run.failures, [wanted[0]], list(wanted), "", tmp_path)
    assert "raises `unsafe precondition(s) violated: Layout::from_size_align_unchecked requires" in issue
    # the whole suite (every mutant of a command ecosystem; commander's jest file that ran process.exit):
    # the file's message goes under its own id, and a verdict's never-reported tests of it take it
    whole = judge_record(TestJob("m", str(tmp_path), str(tmp_path)), out, Finished("ok", 101, 1.0, 1.0),
                         runner_failures={})
    assert whole.failures["tests/test_identifier.rs"]["message"] == message
    verdict = judge(Baseline(wanted, (), (), {}, 0.0), whole, wanted, "full")
    assert verdict.fail_to_pass == (wanted[0], wanted[2]) and verdict.failures[wanted[0]]["message"] == message
    assert verdict.failures[wanted[2]]["message"] == dict(result.problems)["tests/test_version.rs"]


def test_ava_tap_points_are_tests_and_their_yaml_the_message(tmp_path):
    """ava 6.4.1's ``--tap`` (sindresorhus/camelcase 9.0.0): no ``# name`` comments, so every point is
    a test, and the YAML block under a failed one is its message, which the issue reads."""
    result = parsed("ava-tap", "ava.tap")
    assert by_id(result) == {
        "checks › skipped": "skipped", "checks › passes": "passed", "checks › is": "failed",
        "checks › deep": "failed", "checks › true": "failed", "checks › throws": "failed",
        "checks › crash": "failed", "more › is": "failed"}
    failures = {c.test_id: {"message": c.message} for c in result.cases if c.outcome == "failed"}
    assert failures["checks › is"]["message"].startswith("name: AssertionError\nassertion: t.is()\n")
    said = {test: write_issue("index.js", {test: failure}, [test], [], "", tmp_path)
            for test, failure in failures.items()}
    assert "Observed: a result is `'a'` where `'b'` is expected." in said["checks › is"]
    assert "Observed: part of a result is `2` where `3` is expected." in said["checks › deep"]
    assert "Observed: a result is `false` where `true` is expected." in said["checks › true"]
    assert "Observed: no error is raised where one is expected." in said["checks › throws"]
    assert "raises `TypeError: Cannot read properties of null (reading 'x')`." in said["checks › crash"]
    assert "Observed: a result is `1` where `2` is expected." in said["more › is"]


def test_ava_comment_above_a_test_whose_hook_failed_opens_no_test():
    """sindresorhus/ky (ava 6 under tsx): ava writes ``# browser › beforeEach hook for …`` above a test
    whose ``beforeEach`` failed (no browser here); read as tape's comment, it swallowed every later
    test as its assertions, and 72 of 581 tests were reported (excerpt of the real run's TAP)."""
    result = parsed("ava-tap", "ava-hook.tap")
    assert by_id(result) == {
        **{f"body-size › {t}": "passed" for t in ("returns 0 for undefined", "returns 0 for null",
                                                  "returns correct size for ASCII string",
                                                  "returns correct size for multi-byte string")},
        "browser › chromium - baseUrl option": "failed", "retry › respect 413 Retry-After with HTTP date": "passed",
        "retry › respect maxRetryAfter": "passed", "retry › respect maximum backoffLimit": "passed"}
    failed = next(c for c in result.cases if c.outcome == "failed")
    assert failed.message.startswith("name: AssertionError\ndetails:") and "browserType.launch" in failed.message
    assert "retry ›" not in failed.message
    assert len(parsed("tap", "ava-hook.tap").cases) == 5  # tape's reading: the comment took the rest


def test_duplicate_ids_are_numbered():
    text = "TAP version 13\nok 1 - same\nnot ok 2 - same\n1..2\n"
    assert by_id(reports.parse("tap", [text])) == {"same": "passed", "same [2]": "failed"}


def test_unreadable_report_is_a_problem_not_a_pass():
    result = reports.parse("junit", ["<testsuite><testcase name='x'>"])
    assert not result.cases and result.problems


@pytest.mark.parametrize("fmt,name", [("junit", "node-gen09-junit.xml"), ("libtest", "libtest.txt"),
                                      ("go-json", "go.json")])
def test_convert_feeds_the_one_outcome_reader(tmp_path, fmt, name):
    out = tmp_path / "outcomes.jsonl"
    result = reports.convert(fmt, str(FIXTURES / name), str(out), exitstatus=1)
    record = outcomes.read(out)
    assert record.finished and record.exitstatus == 1
    assert record.outcomes() == by_id(result)
    assert record.passed() == {c.test_id for c in result.cases if c.outcome == "passed"}


def test_convert_without_a_report_is_an_unfinished_record(tmp_path):
    out = tmp_path / "outcomes.jsonl"
    assert reports.convert("junit", "missing/*.xml", str(out), root=str(tmp_path)) is None
    record = outcomes.read(out)
    assert not record.finished and not record.tests and "no junit report" in record.first_problem()


def test_record_keeps_the_files_reports_name(tmp_path):
    out = tmp_path / "outcomes.jsonl"
    reports.convert("jest-json", str(FIXTURES / "jest.json"), str(out), root="/tmp/wt15-s/js", exitstatus=1)
    record = outcomes.read(out)
    assert set(record.files.values()) == {"test/calc.test.js"}


def test_an_error_case_is_decided_as_error(tmp_path):
    out = tmp_path / "o.jsonl"
    parsed_ = reports.Parsed((reports.Case("t", "error", 0.0, "boom"),))
    out.write_text("".join(json.dumps(line) + "\n" for line in reports.records(parsed_, 1)))
    assert outcomes.read(out).outcome("t") == "error"


def test_command_line(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "o.jsonl"
    done = subprocess.run([sys.executable, reports.__file__, "libtest", str(FIXTURES / "libtest.txt"), str(out),
                           "--exit", "101"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert outcomes.read(out).exitstatus == 101
    bad = subprocess.run([sys.executable, reports.__file__, "nope", "x", str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_a_missing_report_is_the_runners_problem_not_pytests(tmp_path):
    """validator.js (mocha 6, whose json reporter ignored the output option): the run left no
    report, and the baseline said "pytest internal error: no mocha-json report at ..."."""
    out = tmp_path / "outcomes.jsonl"
    assert reports.convert("mocha-json", str(tmp_path / "report"), str(out)) is None
    record = outcomes.read(out)
    assert not record.finished and record.first_problem() == f"no mocha-json report at {tmp_path / 'report'}"


def test_a_plain_error_thrown_by_test_code_is_the_tests_check(tmp_path):
    """validator.js 13 (mocha 6, through gen09's reporter, captured): its test helper throws a plain
    ``Error`` ("validator.isIn(…) failed but should have passed"), and the issue said the code raised
    it. The stack of a plain Error is the message; thrown by test code it reads as the test's own check,
    thrown by the library as what the call raises."""
    result = parsed("mocha-json", "mocha6-gen09.json", "/tmp/wt15-s/js")
    assert by_id(result) == {"test/parse.test.js::parse counts": "failed",
                             "test/parse.test.js::parse refuses nothing": "failed",
                             "test/parse.test.js::parse passes": "passed"}
    said = {c.test_id: write_issue("lib/parse.js", {c.test_id: {"message": c.message}}, [c.test_id], [], "",
                                   tmp_path) for c in result.cases if c.outcome == "failed"}
    assert ("Observed: the check reports `parse(\"ab\") gave 3 but should have given 2`."
            in said["test/parse.test.js::parse counts"])
    assert "raises `Error: bad input`." in said["test/parse.test.js::parse refuses nothing"]
    absolute = "Error: boom\n    at helper (/home/u/tests/run/work/jobs/m1/lib/a.js:3:9)"  # a folder above
    assert "raises `Error: boom`." in write_issue("lib/a.js", {"t::x": {"message": absolute}}, ["t::x"], [], "",
                                                  tmp_path)


def test_a_jasmine_report_from_gen09s_reporter_reads_as_mocha_json(tmp_path):
    """jasmine has no machine-readable reporter; gen09's (``gen09_jasmine_json.cjs``) wrote this one in
    a real jasmine 3.10 run (no file in jasmine 3's results: the reporter named each spec's and
    suite's), /tmp/jt/spec/a.spec.js: a pass, a matcher's failure, a deep difference, a thrown Error,
    a TypeError, ``xit``, ``pending()``, and an ``afterAll`` that threw after its spec passed."""
    out = tmp_path / "outcomes.jsonl"
    reports.convert("mocha-json", str(FIXTURES / "jasmine3.json"), str(out), root="/tmp/jt", exitstatus=1)
    record = outcomes.read(out)
    spec = "spec/a.spec.js::"
    assert record.outcomes() == {
        f"{spec}math adds": "passed", f"{spec}math compares": "failed", f"{spec}math deep": "failed",
        f"{spec}math throws": "failed", f"{spec}math type error": "failed", f"{spec}math skipped": "skipped",
        f"{spec}math is pending": "skipped", f"{spec}broken after passes first": "passed"}
    assert list(record.collect_errors) == [
        ("spec/a.spec.js", "broken after: Error: cleanup failed")]
    said = {test: record.tests[f"{spec}math {test}"].message for test in ("compares", "deep", "throws", "type error")}
    failures = {f"{spec}math {test}": {"message": message} for test, message in said.items()}
    issue = write_issue("lib/math.js", dict(list(failures.items())[:3]), list(failures)[:3], [], "", tmp_path)
    assert "Observed: a result is `2` where `3` is expected." in issue
    assert "Observed: `$.a.b` of a result is `1` where `2` is expected." in issue
    assert "Observed: the check reports `boom in test`." in issue  # the test's own throw
    crashed = {f"{spec}math type error": failures[f"{spec}math type error"]}
    issue = write_issue("lib/math.js", crashed, list(crashed), [], "", tmp_path)
    assert "raises `TypeError: Cannot read properties of undefined (reading 'y')`" in issue


def test_a_lone_surrogate_in_a_report_becomes_its_escape(tmp_path):
    """eemeli/yaml (vitest): a test titled ``'\\uDEAD'`` came out of the JSON report as a lone surrogate,
    which no file can hold: every task's export failed ("surrogates not allowed")."""
    report = ('{"testResults": [{"name": "/r/tests/s.ts", "status": "failed", "assertionResults": ['
              '{"ancestorTitles": ["unpaired"], "title": "\\udead", "status": "failed", '
              '"failureMessages": ["expected \'\\ud800\' to be \'x\'"]}]}]}')
    (tmp_path / "report.json").write_text(report)
    out = tmp_path / "outcomes.jsonl"
    reports.convert("jest-json", str(tmp_path / "report.json"), str(out), root="/r", exitstatus=1)
    record = outcomes.read(out)
    assert record.outcomes() == {"tests/s.ts::unpaired > \\udead": "failed"}
    (case,) = record.tests.values()
    assert case.message == "expected '\\ud800' to be 'x'"
    (tmp_path / "ids.txt").write_text("\n".join(record.tests), encoding="utf-8")  # valid Unicode: no error


def test_tape_tests_named_like_its_counts_are_tests():
    # tests named "ok", "fail" and "pass" (a real tape 5.10.2 run): their "# name" comments are not the
    # closing counts ("# pass  1", "# fail  1") nor tape's closing "# ok"
    assert by_id(parsed("tap", "tape-named-like-counts.tap")) == {"ok": "passed", "fail": "passed", "pass": "failed"}


@pytest.mark.parametrize("name", ["tape-crash.tap", "tape-crash-first.tap"])
def test_a_tape_test_that_throws_fails_with_its_error(name):
    # ljharb/qs: a mutant made a test throw after (or at) its first assertion; tape's process died
    # with no point for it, and the test read as passed (its earlier "ok") or not at all. Real tape
    # 5.10.2 runs (stdout and stderr, as gen09 reads them): the test fails with the error thrown,
    # the tests after it never ran
    cases = {case.test_id: case for case in parsed("tap", name).cases}
    assert {i: c.outcome for i, c in cases.items()} == {"first": "passed", "second": "failed"}
    assert cases["second"].message.startswith("TypeError: Cannot read properties of "), cases["second"].message
