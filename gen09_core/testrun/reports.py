"""Test-runner reports of other ecosystems, turned into gen09's one outcome record.

Each parser reads one report format and yields :class:`Case` values (the runner's own test
id, an outcome, seconds, a failure message, the test's file when the report names one) and
problems that are not tests (a file that could not load, a package that did not build).
:func:`write_record` writes them as the JSON lines gen09's pytest plugin writes, so
:mod:`gen09_core.testrun.outcomes` alone decides outcomes everywhere: in mutate's
validation, in ``gen09 verify`` and in every bundle's grader (the bundle ships this file as
``tests/runner/gen09_reports.py``). Standard library only.

Formats (``FORMAT`` of a profile's ``report = "FORMAT:PATH"``):

- ``junit``: JUnit XML (surefire, gradle, ``ctest --output-junit``, node's test runner with
  gen09's reporter, jest-junit, ...). Id: ``classname::name``, with the names of enclosing
  ``<testsuite>`` elements below the document root joined by `` > `` before ``name``;
  ``classname`` alone when it equals ``name`` (ctest); the ``file`` attribute when present.
  An ``<error>``'s message starts with its exception's simple name (surefire gives the name
  only in ``type``: ``IllegalArgumentException: ids must not be null``).
- ``tap``: TAP 13/14. Node's runner and node-tap nest subtests (``# Subtest:`` and
  indentation): the id is the names from the outermost test down, joined by `` > ``, and
  only leaves are tests; node-tap names the outermost by its test file, which becomes the
  file (``test/a.js::suite > name``). A point with no ``# Subtest:`` of its own is an assertion of the
  subtest around it (node-tap's ``ok 1 - should be equal``): not a test, and when it fails
  its name and YAML (``found:`` / ``wanted:``) are that subtest's message; node-tap's
  ``# time=`` after a name is dropped.
  Without subtests (tape and its kin) every ``# name`` comment opens a test whose
  assertions are the TAP points under it; it fails when one of them fails. A point no
  ``# name`` comment opened is a test of its own, its YAML block its message. A stream
  that ends with no plan (``1..N``) and other lines after the last test's points — the
  process died of an error the test threw (tape writes no point for it) — fails that test,
  the error from its first line on its message (ljharb/qs: such a test read as passed).
- ``ava-tap``: ava's ``--tap``: every point is a test (``file › title``), its YAML block its
  message; a ``# …`` comment is no test (ava writes one above a test whose hook failed:
  read as tape's, it swallowed every later test of sindresorhus/ky as its assertions).
- ``jest-json``: ``jest --json`` and ``vitest --reporter=json``. Id:
  ``file::ancestor titles > title``; a test file that failed to run is a problem.
- ``mocha-json``: mocha's ``json`` reporter. Id: ``file::fullTitle``.
- ``go-json``: ``go test -json``. Id: ``package::Test/sub``; a package that did not
  build or whose tests ended without a verdict is a problem.
- ``rspec-json``: ``rspec --format json``. Id: RSpec's own example id
  (``./spec/a_spec.rb[1:2]``).
- ``libtest``: Rust's test harness. **Text parsing**: libtest's machine-readable output
  (``--format json``) needs a nightly toolchain (``-Z unstable-options``), so its stable,
  line-oriented console output is read. Id: ``target::test path``, the target being the
  source file cargo names in ``Running unittests src/lib.rs`` / ``Running tests/x.rs``,
  or ``doctest`` for ``Doc-tests``. A test program that ends before its results (an abort,
  a segfault: its tests are never reported) is a problem of its target, with the panic it
  printed and how it ended (``signal: 6, SIGABRT: process abort signal``).
- ``trs``: the ``.trs`` files of automake's parallel test harness (``make check``), one per
  test: ``:test-result: PASS|FAIL|SKIP|XFAIL|XPASS|ERROR``. Id: the test's path relative to
  the folder part of the report glob (``build-gen09/**/*.trs`` → ``tests/t-sum``), and for
  a test with several results (automake's TAP driver writes one per TAP point, in order)
  ``path::N``, N counted from 1; XFAIL passes, XPASS fails. The file is the test's source
  beside it when one exists (``tests/t-sum.c``, ``t/a.sh``; never the bare path, which an
  in-tree build makes the test's binary).

A test id reported more than once in one run is made unique by its occurrence
(``id [2]``), in report order.

Command line::

    python gen09_reports.py FORMAT REPORT OUTCOMES.jsonl [--root DIR] [--exit N]

``REPORT`` is a file or a glob (relative to ``--root``); several matching files are read in
sorted order.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace

FORMATS = ("junit", "tap", "ava-tap", "jest-json", "mocha-json", "go-json", "rspec-json", "libtest", "trs")
PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"


@dataclass(frozen=True)
class Case:
    """One test as a report states it."""

    test_id: str
    outcome: str  # passed | failed | skipped | error
    seconds: float = 0.0
    message: str = ""
    file: str = ""


@dataclass(frozen=True)
class Parsed:
    """What one report (or several of one format) says: the tests and the problems that
    are not tests (``(where, message)``)."""

    cases: tuple = ()
    problems: tuple = ()


def _rel(path: str, root: str) -> str:
    """``path`` relative to ``root`` as a POSIX path (unchanged when outside it)."""
    if not path:
        return ""
    if os.path.isabs(path) and root:
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
        return path
    return path[2:] if path.startswith("./") else path


def _short(text, limit: int = 2000) -> str:
    return str(text or "").strip()[:limit]


# a terminal's colour and cursor codes: jest 19 colours its messages even under NO_COLOR and
# FORCE_COLOR=0 (facebook/prop-types 15.8.1: an issue quoted ``\x1b[2mexpect(``)
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def _plain(text: str) -> str:
    return _ESCAPES.sub("", text)


def _said(stack: str, message) -> str:
    """A failed test's message: a plain ``Error``'s stack, which says where it was thrown (by the
    test's own code, issue.py reads it as the test's check), else its message, else the stack."""
    return stack if stack.startswith("Error: ") else message or stack


# -- JUnit XML ---------------------------------------------------------------------------


def parse_junit(text: str, root: str = "") -> Parsed:
    """JUnit XML (see the module docstring for the id)."""
    try:
        top = ET.fromstring(text)
    except ET.ParseError as exc:
        return Parsed((), (("junit", f"unreadable JUnit XML: {exc}"),))
    cases, problems = [], []

    def walk(element, suites):
        for child in element:
            if child.tag == "testsuite":
                walk(child, suites + [child.get("name", "")])
            elif child.tag == "testcase":
                cases.append(_junit_case(child, suites))
            elif child.tag in ("error", "failure") and element.tag == "testsuite":
                problems.append((element.get("name", ""), _short(child.get("message") or child.text)))

    walk(top, [])
    return Parsed(tuple(cases), tuple(problems))


# the exception class of an ``<error>`` (a test that raised rather than failed a check), as
# surefire names it (``java.lang.IllegalArgumentException``), with its simple name
_EXCEPTION = re.compile(r"(?:[\w$]+\.)*([A-Z][\w$]*)")


def _junit_case(case, suites) -> Case:
    name, classname = case.get("name", ""), case.get("classname", "")
    path = " > ".join([s for s in suites if s] + [name])
    qualified = f"{classname}::{path}" if classname else path
    test_id = classname if classname == name and not suites else qualified
    outcome, message = PASSED, ""
    for child in case:
        if child.tag in ("failure", "error"):
            outcome = FAILED if child.tag == "failure" else ERROR
            message = _short(_said((child.text or "").strip(), child.get("message")))
            kind = _EXCEPTION.fullmatch(child.get("type") or "")
            if outcome == ERROR and kind and not message.startswith((kind.group(0), kind.group(1))):
                message = f"{kind.group(1)}: {message}" if message else kind.group(1)  # surefire's: no type
            break
        if child.tag == "skipped":
            outcome = SKIPPED
    if outcome in (FAILED, ERROR) and not message:  # ctest: ``<failure message=""/>``, the output beside it
        output = "\n".join(case.findtext(tag) or "" for tag in ("system-err", "system-out"))
        printed = [ln for ln in output.splitlines() if ln.strip()]
        message = _short(printed[-1] if printed else "")
    if case.get("status") == "notrun":
        outcome = SKIPPED
    try:
        seconds = float(case.get("time") or 0.0)
    except ValueError:
        seconds = 0.0
    return Case(test_id, outcome, seconds, message, case.get("file", ""))


# -- TAP ---------------------------------------------------------------------------------

_SCRIPT = re.compile(r"\.[cm]?[jt]sx?$")
_POINT = re.compile(r"^(?P<indent>\s*)(?P<ok>not ok|ok)\b\s*(?P<num>\d+)?\s*(?:-\s*)?(?P<desc>.*)$")
_TAP_TIME = re.compile(r"\s+# time=[\d.]+m?s$")  # node-tap's duration after a name
_DIRECTIVE = re.compile(r"\s+#\s*(?P<kind>SKIP|TODO)\b.*$", re.I)
# a runner's closing counts (``# tests 3``, ``# duration_ms 4.5``; ava's ``# skip 1``: tape's ``# SKIP
# name`` is a test); a test named ``ok`` or ``fail`` is a test (tape's closing ``# ok`` opens one that
# no point follows: none)
_PLAN = re.compile(r"^1\.\.\d+")
_RAISED = re.compile(r"^[A-Za-z_$][\w.$]*(?: \[\w+\])?: ")  # ``TypeError: …``, ``AssertionError [ERR_…]: …``
_BLOCK_SCALAR = re.compile(r":\s*[|>][-+0-9]*$")  # a YAML key whose value is the indented block below it
_SUMMARY = re.compile(r"^#\s*(?:tests|suites|pass|fail|cancelled|skipped|skip|todo|duration_ms)\s+[\d.]+\s*$")


def parse_tap(text: str, root: str = "") -> Parsed:
    """TAP (see the module docstring for the two layouts)."""
    lines = text.splitlines()
    if any(line.lstrip().startswith("# Subtest:") for line in lines):
        return Parsed(tuple(_tap_nested(lines)))
    return Parsed(tuple(_tap_flat(lines)))


def parse_ava_tap(text: str, root: str = "") -> Parsed:
    """ava's ``--tap``: each point a test, comments no tests."""
    return Parsed(tuple(_tap_flat(text.splitlines(), comments_open_tests=False)))


def _in_yaml(lines):
    """Each of ``lines`` with whether it lies inside a point's YAML block (from its ``---`` to
    its ``...``, or to a line indented less than the ``---``): such a line is never a point
    (node-tap 12's ``source: |`` line ``ok(Buffer.isBuffer(x), 'cloned value is buffer')`` was
    read as a passing assertion, and the failed one's message lost the lines below it)."""
    indent = None  # the indentation of the open block's ``---``
    for line in lines:
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if indent is not None and (stripped == "..." or (stripped and depth < indent)):
            indent = None
        elif indent is None and stripped == "---":
            indent = depth
        yield line, indent is not None and stripped != "---"


def _tap_point(line: str):
    match = _POINT.match(line)
    if not match or line.lstrip().startswith("#"):
        return None
    desc = _TAP_TIME.sub("", match.group("desc").strip())
    directive = _DIRECTIVE.search(desc)
    kind = directive.group("kind").upper() if directive else ""
    if directive:
        desc = desc[:directive.start()].strip()
    ok = match.group("ok") == "ok"
    outcome = SKIPPED if kind in ("SKIP", "TODO") else (PASSED if ok else FAILED)
    return len(match.group("indent").expandtabs(4)) // 4, desc, outcome


class _YamlLines:
    """The lines of TAP points' YAML blocks as a message keeps them: stripped, except a block
    scalar's (node-tap's ``diff: |``), whose lines keep their indentation under its first line
    (a diff's context lines start with a space: minimatch 10's ``t.matchSnapshot`` diffs)."""

    def __init__(self):
        self.key = self.block = None  # the indentation of the key that opened a block scalar; of its lines

    def __call__(self, line: str) -> str:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if self.key is not None and indent > self.key:
            self.block = indent if self.block is None else self.block
            return line[min(self.block, indent):].rstrip()
        self.key = indent if _BLOCK_SCALAR.search(stripped) else None
        self.block = None
        return stripped


def _tap_nested(lines) -> list:
    names: list = []  # open subtest names by depth
    points: list = []  # (depth, path, outcome, message lines)
    failed_asserts: dict = {}  # subtest path -> the lines of its failed assertions
    detail = None  # where the lines under the last point go
    yaml = _YamlLines()
    for line, in_yaml in _in_yaml(lines):
        stripped = line.lstrip()
        depth = len(line[:len(line) - len(stripped)].expandtabs(4)) // 4
        if stripped.startswith("# Subtest:") and not in_yaml:
            del names[depth:]
            names.append(stripped[len("# Subtest:"):].strip())
            continue
        point = None if in_yaml else _tap_point(line)
        if point is None:
            if detail is not None and stripped and not stripped.startswith(("#", "1..")):
                detail.append(yaml(line))
            continue
        depth, desc, outcome = point
        yaml = _YamlLines()  # a point's YAML block is its own
        if desc == "timeout!" and len(names) > depth:  # node-tap's point for a file it killed: the file's
            desc = names[depth]
        if depth and names[depth:depth + 1] != [desc]:  # no "# Subtest:" of its own: an assertion
            detail = failed_asserts.setdefault(tuple(names), []) if outcome == FAILED else None
            if detail is not None:  # an empty line between two failed assertions' lines
                detail.extend(["", desc] if detail else [desc])
            continue
        path = tuple(names[:depth]) + (desc,)
        del names[depth:]
        detail = failed_asserts.pop(path, [])
        points.append((depth, path, outcome, detail))
    cases = []
    for index, (_depth, path, outcome, detail) in enumerate(points):
        children = [p for p in points[:index] if p[1][:len(path)] == path and len(p[1]) > len(path)]
        if children and (outcome != FAILED or any(c[2] == FAILED for c in children)):
            continue  # a suite or parent test: its leaves are the tests
        message = "\n".join(d for d in detail if not d.startswith(("---", "...", "duration_ms")))
        file = path[0] if len(path) > 1 and _SCRIPT.search(path[0]) else ""  # node-tap: a file per subtest
        test_id = f"{file}::{' > '.join(path[1:])}" if file else " > ".join(path)
        cases.append(Case(test_id, outcome, _tap_duration(detail), _short(message), file))
    return cases


def _tap_duration(detail) -> float:
    for line in detail:
        if line.startswith("duration_ms:"):
            try:
                return float(line.split(":", 1)[1]) / 1000.0
            except ValueError:
                return 0.0
    return 0.0


def _tap_flat(lines, comments_open_tests: bool = True) -> list:
    entries: list = []  # [name, outcome, message lines]; a "# name" comment opens one
    current = detail = None  # the test a "# name" opened; where the lines under a point go
    planned, after = False, []  # a "1..N" line seen; the other lines since the last point or comment
    yaml = _YamlLines()
    for line, in_yaml in _in_yaml(lines):
        stripped = line.strip()
        planned = planned or bool(_PLAN.match(stripped))
        point = None if in_yaml else _tap_point(line)  # None for a comment
        if stripped.startswith("#") or stripped in ("---", "...") or point is not None:
            after = []
        elif stripped:
            after.append(stripped)
        if stripped.startswith("#"):
            if _SUMMARY.match(stripped) or not comments_open_tests:
                detail = None
                continue
            name = stripped[1:].strip()
            skipped = name.upper().startswith("SKIP ")  # tape's line for a skipped test
            current = [name[5:].strip() if skipped else name, SKIPPED if skipped else None, []]
            entries.append(current)
            detail = current[2]
            continue
        if point is None:
            if detail is not None and stripped and not stripped.startswith(("1..", "---", "...")):
                detail.append(yaml(line))
            continue
        _depth, desc, outcome = point
        yaml = _YamlLines()  # a point's YAML block is its own
        entry = current if current is not None else [desc, None, []]
        if entry is not current:  # a test of its own: its YAML is its message
            entries.append(entry)
        elif outcome == FAILED:  # an assertion of the test: its name starts the message
            entry[2].append(desc)
        detail = entry[2] if outcome == FAILED else None
        if outcome == FAILED:
            entry[1] = FAILED
        elif entry[1] is None or (entry[1] == SKIPPED and outcome == PASSED):
            entry[1] = outcome
    if comments_open_tests and current is not None and not planned and after:  # died in this test
        raised = next((i for i, ln in enumerate(after) if _RAISED.match(ln)), 0)
        current[1:] = [FAILED, current[2] if current[1] == FAILED else after[raised:]]  # its first failure
    return [Case(name, outcome, 0.0, _short("\n".join(detail)))
            for name, outcome, detail in entries if outcome is not None]


# -- jest / vitest / mocha JSON ----------------------------------------------------------

_JEST_STATUS = {"passed": PASSED, "failed": FAILED, "pending": SKIPPED, "skipped": SKIPPED, "todo": SKIPPED,
                "disabled": SKIPPED, "focused": PASSED}


def parse_jest_json(text: str, root: str = "") -> Parsed:
    """``jest --json`` / vitest's ``json`` reporter."""
    data = _json(text)
    if data is None:
        return Parsed((), (("jest-json", "unreadable JSON report"),))
    cases, problems = [], []
    for result in data.get("testResults") or []:
        file = _rel(result.get("name") or result.get("testFilePath") or "", root)
        assertions = result.get("assertionResults") or []
        if result.get("status") == "failed" and not assertions:
            problems.append((file, _short(result.get("message") or result.get("failureMessage"))))
        for item in assertions:
            titles = [_js_text(t) for t in [*(item.get("ancestorTitles") or []), item.get("title", "")]]
            seconds = (item.get("duration") or 0) / 1000.0
            message = _short("\n".join(item.get("failureMessages") or []))
            cases.append(Case(f"{file}::{' > '.join(titles)}", _JEST_STATUS.get(item.get("status"), FAILED),
                              seconds, message, file))
    return Parsed(tuple(cases), tuple(problems))


def _js_text(value) -> str:
    """A test title as JavaScript's ``String()`` writes it: jest 22 keeps a title that is not a
    string as it was given (iamkun/dayjs: ``it([2010, 1, 14], …)`` is titled ``2010,1,14``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join("" if v is None else _js_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "null" if value is None else str(value)


def parse_mocha_json(text: str, root: str = "") -> Parsed:
    """mocha's ``json`` reporter, or gen09's for mocha before 9 (``gen09_mocha_json.cjs``)."""
    data = _json(text)
    if data is None:
        return Parsed((), (("mocha-json", "unreadable JSON report"),))
    pending = {(t.get("file"), t.get("fullTitle")) for t in data.get("pending") or []}
    failed = {(t.get("file"), t.get("fullTitle")): t for t in data.get("failures") or []}
    cases, problems, seen = [], [], set()
    for test in data.get("tests") or []:
        key = (test.get("file"), test.get("fullTitle"))
        seen.add(key)
        file = _rel(test.get("file") or "", root)
        seconds = (test.get("duration") or 0) / 1000.0
        if key in failed or (test.get("err") or {}).get("message"):
            err = (failed.get(key) or test).get("err") or {}
            outcome, message = FAILED, _short(_said(str(err.get("stack") or ""), err.get("message")))
        else:
            outcome, message = (SKIPPED if key in pending else PASSED), ""
        cases.append(Case(f"{file}::{test.get('fullTitle', '')}", outcome, seconds, message, file))
    for key, test in failed.items():
        if key not in seen:  # a failed hook: the tests it guards never ran
            err = test.get("err") or {}
            problems.append((_rel(key[0] or "", root), f"{key[1]}: {_short(err.get('message'))}"))
    return Parsed(tuple(cases), tuple(problems))


def _json(text: str):
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


# -- go test -json -----------------------------------------------------------------------


def parse_go_json(text: str, root: str = "") -> Parsed:
    """``go test -json`` events (a non-JSON line, such as a build error go prints
    between the events, is kept as a problem of the package it names)."""
    verdict: dict = {}
    output: dict = {}
    order: list = []
    packages: dict = {}
    problems = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            if line.startswith(("FAIL\t", "# ")) and line.strip():
                problems.append(("go", line.strip()))
            continue
        if not isinstance(event, dict):
            continue
        package, test, action = event.get("Package", ""), event.get("Test"), event.get("Action")
        if test is None:
            if action in ("pass", "fail", "skip"):
                packages[package] = action
            continue
        key = (package, test)
        if key not in verdict:
            verdict[key] = None
            order.append(key)
        if action == "output":
            output.setdefault(key, []).append(event.get("Output", ""))
        elif action in ("pass", "fail", "skip"):
            verdict[key] = (action, float(event.get("Elapsed") or 0.0))
    cases = []
    for package, test in order:
        done = verdict[(package, test)]
        text_out = "".join(output.get((package, test), []))
        if done is None:
            problems.append((f"{package}::{test}", "no verdict (the binary stopped): " + _short(text_out)))
            continue
        action, seconds = done
        outcome = {"pass": PASSED, "fail": FAILED, "skip": SKIPPED}[action]
        message = _short(text_out) if outcome == FAILED else ""
        cases.append(Case(f"{package}::{test}", outcome, seconds, message))
    seen = {p for p, _ in order}
    for package, action in packages.items():
        if action == "fail" and package not in seen:
            problems.append((package, "the package failed without running a test (build failed?)"))
    return Parsed(tuple(cases), tuple(problems))


# -- RSpec JSON --------------------------------------------------------------------------


def parse_rspec_json(text: str, root: str = "") -> Parsed:
    """``rspec --format json``."""
    start = text.find("{")  # rspec may print warnings before its JSON on the same stream
    data = _json(text[start:] if start >= 0 else text)
    if data is None:
        return Parsed((), (("rspec-json", "unreadable JSON report"),))
    cases = []
    for example in data.get("examples") or []:
        status = example.get("status")
        outcome = {"passed": PASSED, "failed": FAILED, "pending": SKIPPED}.get(status, FAILED)
        exception = example.get("exception") or {}
        message = _short(f"{exception.get('class', '')}: {exception.get('message', '')}") if exception else ""
        file = _rel(example.get("file_path", ""), root)
        cases.append(Case(example.get("id") or example.get("full_description", ""), outcome,
                          float(example.get("run_time") or 0.0), message, file))
    problems = []
    if data.get("summary", {}).get("errors_outside_of_examples_count"):
        messages = data.get("messages") or ["errors outside of examples"]
        problems.append(("rspec", _short("\n".join(messages))))
    return Parsed(tuple(cases), tuple(problems))


# -- Rust libtest (text) -----------------------------------------------------------------

_RUNNING = re.compile(r"^\s*Running (?:unittests )?(?P<src>\S+)(?: \(.*\))?\s*$")
_DOCTESTS = re.compile(r"^\s*Doc-tests (?P<crate>\S+)\s*$")
_RESULT = re.compile(r"^test (?P<name>.+?) \.\.\. (?P<status>ok|FAILED|ignored(?:, .*)?|bench:.*)$")
_FAIL_HEAD = re.compile(r"^---- (?P<name>.+?) stdout ----$")
_STARTED = re.compile(r"^running [1-9]\d* tests?$")
_PANIC = re.compile(r"^thread '[^']*' (?:\(\d+\) )?panicked at ")  # on stderr, between the results
_EXITED = re.compile(r"process didn't exit successfully: .*\((?P<why>signal: .+)\)\s*$")


def parse_libtest(text: str, root: str = "") -> Parsed:
    """libtest's console output of ``cargo test`` (text: see the module docstring)."""
    target = ""
    cases: list = []
    messages: dict = {}
    current_failure = None
    unfinished, panic, panicking, ended = "", [], False, {}  # a test program that ends before its results
    problems: list = []

    def close() -> None:
        if unfinished:
            said = "\n".join(panic) or "the test program ended before it reported its tests"
            problems.append((unfinished, f"{said}\n({ended[unfinished]})" if unfinished in ended else said))

    for line in text.splitlines():
        running, doctests = _RUNNING.match(line), _DOCTESTS.match(line)
        if running or doctests:
            close()
            target = running.group("src") if running else "doctest"
            current_failure, unfinished, panicking = None, "", False
            continue
        if _STARTED.match(line):
            unfinished, panic = target, []
        elif line.startswith("test result:"):
            unfinished = ""
        elif (exited := _EXITED.search(line)) and unfinished:
            ended[unfinished] = exited.group("why")
        if current_failure is None and _PANIC.match(line):
            panic, panicking = [line], True
            continue
        if panicking:
            panicking = bool(line.strip()) and not line.startswith(("note: ", "stack backtrace:", "test "))
            if panicking:
                panic.append(line)
                continue
        result = _RESULT.match(line)
        if result:
            status = result.group("status")
            outcome = PASSED if status == "ok" else (FAILED if status == "FAILED" else SKIPPED)
            name = result.group("name")
            name = re.sub(r" - should panic$", "", name)
            cases.append([target, name, outcome])
            continue
        head = _FAIL_HEAD.match(line)
        if head:
            current_failure = (target, head.group("name"))
            messages[current_failure] = []
            continue
        if current_failure is not None:
            if line.startswith(("failures:", "test result:")) or line.strip() == "stack backtrace:":
                current_failure = None
            else:
                messages[current_failure].append(line)
    out = []
    for target, name, outcome in cases:
        message = _short("\n".join(messages.get((target, name), ())))
        file = target if target.startswith("tests/") else ""  # an integration-test target is its file
        out.append(Case(f"{target}::{name}", outcome, 0.0, message, file))
    close()
    return Parsed(tuple(out), tuple(problems))


# -- automake .trs -------------------------------------------------------------------------

_TRS = {"PASS": PASSED, "XFAIL": PASSED, "FAIL": FAILED, "XPASS": FAILED, "SKIP": SKIPPED, "ERROR": ERROR}
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".sh", ".tap", ".test", ".t", ".pl", ".py")


def glob_base(pattern: str) -> str:
    """The folder part of a glob before its first wildcard (``build/**/*.trs`` → ``build``)."""
    parts = []
    for part in pattern.replace(os.sep, "/").split("/")[:-1]:
        if glob.has_magic(part):
            break
        parts.append(part)
    return "/".join(parts)


def parse_trs(paths, pattern: str, root: str = "") -> Parsed:
    """The ``.trs`` files ``paths`` of the glob ``pattern`` (see the module docstring)."""
    base = os.path.join(root, glob_base(pattern)) if root else glob_base(pattern)
    cases = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            results = [line.split(":", 2)[2].split()[0] for line in handle
                       if line.startswith(":test-result:") and line.split(":", 2)[2].split()]
        name = os.path.relpath(path[:-len(".trs")], base or ".").replace(os.sep, "/")
        source = next((name + suffix for suffix in SOURCE_SUFFIXES
                       if os.path.isfile(os.path.join(root or ".", name + suffix))), "")
        outcomes = [_TRS.get(result.upper(), ERROR) for result in results]
        log = path[:-len(".trs")] + ".log"
        message = ""
        if any(o in (FAILED, ERROR) for o in outcomes) and os.path.isfile(log):
            with open(log, encoding="utf-8", errors="replace") as handle:
                message = _short(handle.read()[-2000:])
        for number, outcome in enumerate(outcomes, 1):
            cases.append(Case(name if len(results) == 1 else f"{name}::{number}", outcome, 0.0,
                              message if outcome in (FAILED, ERROR) else "", source))
    return Parsed(tuple(_unique(cases)))


PARSERS = {"junit": parse_junit, "tap": parse_tap, "ava-tap": parse_ava_tap, "jest-json": parse_jest_json,
           "mocha-json": parse_mocha_json, "go-json": parse_go_json, "rspec-json": parse_rspec_json,
           "libtest": parse_libtest}


def parse(fmt: str, texts, root: str = "") -> Parsed:
    """Parse one or several reports of format ``fmt`` into one ``Parsed``."""
    if fmt not in PARSERS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    cases, problems = [], []
    for text in texts:
        parsed = PARSERS[fmt](text, root)
        cases.extend(replace(case, test_id=_valid(case.test_id), message=_valid(_here(case.message, root)),
                             file=_valid(case.file)) for case in parsed.cases)
        problems.extend((_valid(where), _valid(_here(message, root))) for where, message in parsed.problems)
    return Parsed(tuple(_unique(cases)), tuple(problems))


def _valid(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\udead``): a JSON report may hold
    one (eemeli/yaml's test titled ``'\\uDEAD'``), and no file can (every task's export failed)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _here(message: str, root: str) -> str:
    """``message`` with the paths under the run's folder ``root`` relative to it, as its stack
    frames then name a test file (``test/basic.ts``) wherever the run was: node's and jest's
    stacks give absolute paths (sindresorhus/p-queue's own ``throw new Error(…)`` in a test)."""
    return message.replace(f"file://{root}/", "").replace(f"{root}/", "") if root else message


def _unique(cases) -> list:
    seen: dict = {}
    out = []
    for case in cases:
        count = seen.get(case.test_id, 0) + 1
        seen[case.test_id] = count
        if count > 1:
            case = Case(f"{case.test_id} [{count}]", case.outcome, case.seconds, case.message, case.file)
        out.append(case)
    return out


def records(parsed: Parsed, exitstatus) -> list:
    """The outcome record's lines (dicts) for ``parsed``: a setup and a call phase per test
    (an ``error`` fails in setup), the problems as collection errors, then ``finish``."""
    lines = []
    for case in parsed.cases:
        base = {"kind": "phase", "id": case.test_id}
        if case.file:
            base["file"] = case.file
        if case.outcome == ERROR:
            lines.append({**base, "when": "setup", "outcome": "failed", "duration": case.seconds,
                          "message": _plain(case.message)})
            continue
        lines.append({**base, "when": "setup", "outcome": "passed", "duration": 0.0})
        phase = {**base, "when": "call", "outcome": case.outcome, "duration": case.seconds}
        if case.message:
            phase["message"] = _plain(case.message)
        lines.append(phase)
    for where, message in parsed.problems:
        lines.append({"kind": "collect_error", "id": where, "message": _plain(message)})
    lines.append({"kind": "finish", "exitstatus": exitstatus})
    return lines


def report_files(pattern: str, root: str) -> list:
    """The files a report glob names (relative to ``root``), sorted."""
    full = pattern if os.path.isabs(pattern) else os.path.join(root or ".", pattern)
    return sorted(p for p in glob.glob(full, recursive=True) if os.path.isfile(p))


def convert(fmt: str, pattern: str, out_path: str, root: str = "", exitstatus=None) -> Parsed | None:
    """Read the reports ``pattern`` names, write the outcome record to ``out_path``; None
    (and no ``finish`` line: the run counts as not finished) when no report exists."""
    paths = report_files(pattern, root)
    with open(out_path, "w", encoding="utf-8") as out:
        if not paths:
            out.write(json.dumps({"kind": "internal_error", "by": fmt,
                                  "message": f"no {fmt} report at {pattern}"}) + "\n")
            return None
        if fmt == "trs":  # the ids are the files' paths
            parsed = parse_trs(paths, pattern, os.path.abspath(root) if root else "")
        else:
            texts = []
            for path in paths:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    texts.append(handle.read())
            parsed = parse(fmt, texts, os.path.abspath(root) if root else "")
        for line in records(parsed, exitstatus):
            out.write(json.dumps(line, sort_keys=True) + "\n")
    return parsed


def main(argv: list) -> int:
    """``FORMAT REPORT OUTCOMES [--root DIR] [--exit N]``: write the outcome record."""
    args, root, exitstatus = list(argv), "", None
    if "--root" in args:
        at = args.index("--root")
        root = args[at + 1]
        del args[at:at + 2]
    if "--exit" in args:
        at = args.index("--exit")
        exitstatus = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 3 or args[0] not in FORMATS:
        print(f"usage: gen09_reports.py {{{','.join(FORMATS)}}} REPORT OUTCOMES.jsonl "
              "[--root DIR] [--exit N]", file=sys.stderr)
        return 2
    convert(args[0], args[1], args[2], root, exitstatus)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
