"""The deterministic, symptom-based issue writer.

It says what a user would observe (the call, the actual vs expected result, or the
exception) from the failing tests' assertion output and their failing source line, turned
into a short reproduction. It never includes the fix, the diff, the mutated line, test
names, test files or test commands: every line that mentions one of those is dropped.
"""

from __future__ import annotations

import ast
import difflib
import html
import io
import itertools
import os
import re
import textwrap
import tokenize
from pathlib import Path, PurePosixPath

MAX_OBSERVATIONS = 3
MAX_STATEMENT_CHARS = 600  # a longer failing statement is cut at a token boundary
_WHERE = re.compile(r"^\s*\+\s+where\s+(.+?)\s+=\s+(.+?)\s*$")
_ASSERT_EQ = re.compile(r"^assert\s+(.+?)\s+==\s+(.+)$")
_ASSERT_TRUTH = re.compile(r"^assert (not )?(.+)$")
_VARYING = "the check fails, and the values it reports differ from run to run."
_PROPERTY = "a documented property of the result does not hold."  # what an unread assert says
_COMPARISONS = (" != ", " <= ", " >= ", " < ", " > ", " not in ", " in ")  # ``assert A op B`` other than ==
_ASSERT_IS = re.compile(r"^assert (?P<value>.+?) is (?P<negated>not )?(?P<wanted>True|False|None)$")
# unittest's assertCountEqual: the first element whose counts differ
_UNITTEST_COUNTS = re.compile(r"^First has (\d+), Second has (\d+):\s+(.+)$")
_FALSY = ("False", "None", "0", "0.0", "''", '""', "b''", "[]", "{}", "()", "set()")
# pytest's explanation of a comparison whose values it cut short (``{'matched_val...}``)
_PYTEST_SKIPPED = re.compile(r"^Skipping \d+ identical (leading|trailing) characters in diff")  # of one text
# a frame of pytest's short traceback, ``path:line: in name`` (yamale 6.1.0: a test module that raised)
_PYTEST_FRAME = re.compile(r"^\S[^\n]*:\d+: in \S+\n")
_PYTEST_TRUNCATED = "...Full output truncated"  # pytest's last line where it cut its explanation short
_PYTEST_AT = re.compile(r"^At index (\d+) diff: (.+)$")
_PYTEST_MORE = re.compile(r"^(Left|Right) contains (one|\d+) more items?"
                          r"(?::$|: (.+)$|, first extra item: (.+)$)")
_PYTEST_SET = re.compile(r"^Extra items in the (left|right) set:$")
_PYTEST_ATTRIBUTE = re.compile(r"^Drill down into differing attribute (\w+):$")
# other runners' comparisons, each giving (actual, expected): node's assert (``A !== B``, or its
# ``+ actual - expected`` diff), jest and vitest (``Expected: A`` / ``Received: B``, a ``- Expected``
# / ``+ Received`` diff, ``Expected substring:`` / ``Received message:`` and the like; before jest 23
# ``Expected value to be …:`` / ``Received:``, each over two lines), chai and
# vitest's expect (``expected A to equal B``, ``expected A to be B // Object.is equality``)
_DIFF_HEAD = re.compile(r"^(?:(?:- Expected\b.*\n\+ Received\b.*"
                        r"|\+ actual - expected(?: \.\.\. Lines skipped)?)\n\n"
                        r"|(?:--- expected\n)?\+\+\+ actual\n@@[^\n]*@@\n)", re.M)  # the last: node-tap's
# node's assert.deepEqual, its two values on lines of their own (negotiator 1.0: "the check reports
# `Expected values to be loosely deep-equal:`") or folded onto one line by node-tap 12 (json5 2.2.3);
# assert.strictEqual's ``A !== B`` (quotes respected) or one-line diff, which node-tap 12 folds too
_NODE_ERROR = r"^(?:AssertionError(?: \[ERR_ASSERTION\])?: )?"
_NODE_LOOSE = re.compile(_NODE_ERROR + r"Expected values to be loosely deep-equal:\s+(.+?)"
                         r"\s+should loosely deep-equal\s+(.+?)\s*$", re.S)
_NODE_STRICT = re.compile(_NODE_ERROR + r"Expected values to be strictly (?:deep-)?equal:"
                                        r"\s+(\S.*?)\s*$", re.S)
_NODE_FOLDED_DIFF = "+ actual - expected  + "
_QUOTED_OR_SPACE = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|\s+""")
# a node-tap assertion's YAML (not ``tapCaught``: an error the test threw)
_TAP_CHECK = re.compile(r"^(?:compare|found|wanted|pattern|at|diff):", re.M)
# sybil's first line of a failed example (tldextract 5.4.0's README: "raises `SybilFailure`", its last line)
_SYBIL = re.compile(r"^Example at .+, line \d+, column \d+ did not evaluate as expected:$")
_TAP_TYPE = re.compile(r"^type: (\w*Error)$", re.M)  # the type of an error a node-tap test threw
# node's assert() / assert.ok() of a falsy value, and the source of the call it printed (picomatch:
# issues said only "raises `The expression evaluated to a falsy value:`")
_NODE_OK = re.compile(_NODE_ERROR + r"The expression evaluated to a falsy value:\n\n"
                      r"(?:\s*[\w.]+\((?P<inner>.*)\)|(?P<whole>.*?))\s*$", re.S)
# a plain JS ``Error`` and its first frame, a path relative to the run's folder (the report reader makes
# node's and jest's absolute paths so; one outside the folder may hold a "test" folder above it):
# validator.js's test helper throws ``Error: validator.isIn(…) failed but should have passed``, which,
# thrown by test code, is the test's own check, not the code's crash
_JS_THROWN = re.compile(r"^Error: (?P<said>.+?)\n\s+at (?:.*? \()?(?P<path>[^\s()/][^\s()]*?):\d+:\d+\)?$",
                        re.M | re.S)
_TEST_CODE = re.compile(r"(?:^|/)(?:tests?|__tests__|spec)/|[._-](?:test|spec)\.[cm]?[jt]sx?$")
# node's assert.match / doesNotMatch (the regular expression, then the input as node printed it) and
# assert.throws / rejects finding nothing (commander 15: both read as an error the code raised)
_NODE_MATCH = re.compile(r"^The input (did not match|was expected to not match) the regular expression "
                         r"(/.*/\w*)\. Input:\n\n(.+)$", re.S)
_NODE_MISSING = re.compile(r"^Missing expected (?:exception|rejection)(?: \((\w+)\))?\W")
_PYTEST_NOT_RAISED = re.compile(r"^Failed: DID NOT RAISE (.+)$")  # pytest.raises met no error (priority 2)
# an object's address in its repr, ``<m.Tree object at 0x7f3c2f5bf650>`` (a function's too; or before
# what a repr adds: zope.schema 8.1's ``<zope.schema._bootstrapfields.Bool object at 0x7fea… <unknown>>``,
# webob 1.8.9's ``<Response at 0x7fdd7d2c9f50 200 OK>``): it differs on every run. Only inside ``<…>``:
# intelhex's "Bad access at 0x0" is a value of the data. A local function's ``<locals>`` may come
# before it (zope.component 7.1's ``<function protectedFactory.<locals>.factory at 0x7f17…>``)
_ADDRESS = re.compile(r"(<(?:[^<>\n]|<locals>)*?) at 0x[0-9a-f]{4,}(?=[ >])")
# where pytest cut a long repr short, the end of an address (``body=b"The matc...50>}"``) or one whose
# ``<`` was cut away (``'...ject at 0x7f853ca10110>``), Routes 2.5.1
_CUT_ADDRESS = re.compile(r"(?<=\.\.\.)[0-9a-f]{1,15}(?=>)")
_CUT_OPENER = re.compile(r"(\.\.\.[^<>\n]*?) at 0x[0-9a-f]{4,}(?=[ >])")
# unittest.mock's print of an object's id() (mock 5.1.0: ``<MagicMock name='mock.foo' id='140245'>``)
_MOCK_ID = re.compile(r"(<[^<>\n]*?) id='\d{4,}'(?=[ >])")


def _without_addresses(text: str) -> str:
    """``text`` with no object's address (or unittest.mock's id), whole or where a repr was cut short."""
    return _CUT_ADDRESS.sub("", _CUT_OPENER.sub(r"\1", _ADDRESS.sub(r"\1", _MOCK_ID.sub(r"\1", text))))


# a call of a function pytest printed by its repr (a local name holds it): ``<function get_in at 0x7f…>(``
_FUNCTION_PRINT = re.compile(r"^<function ([\w.]+) at 0x[0-9a-f]+>\(")
# pytest.raises(match=...) and unittest's assertRaisesRegex meeting another message, and
# assertRaises meeting no error (face 24.0.0, python-multipart 0.0.12: "the check reports `Regex
# pattern did not match.`", "the check reports `DecodeError not raised`")
_PYTEST_REGEX = re.compile(r"Regex pattern did not match\.\n\s+(?:Expected regex|Regex): (?P<regex>.+)\n"
                           r"\s+(?:Actual message|Input): (?P<said>.+)")
_UNITTEST_REGEX = re.compile(r'^(?:AssertionError: )?"(?P<regex>.+)" does not match "(?P<said>.+)"$')
# unittest's sequence comparison, its values cut short (croniter 7.0.0: "the check reports `Lists differ:
# ['201[13 chars]:00+00:00', …`"), and the first differing item it shows below
_UNITTEST_SEQUENCES = re.compile(r"^((?:Lists|Tuples|Sequences) differ): ")
_UNITTEST_CUT = re.compile(r"\[\d+ chars\]")
_UNITTEST_SET = re.compile(r"^Items in the (first|second) set but not the (?:first|second):$")
_UNITTEST_ITEM = re.compile(r"^First differing element (\d+):$")
# unittest's sequences, one longer than the other: ``Second list contains 3 additional elements.``
_UNITTEST_EXTRA = re.compile(r"^(First|Second) (\w+) contains (\d+) additional elements\.\n"
                             r"First extra element (\d+):\n(.+)$", re.M)
# below an exception group's message, the line gen09's pytest plugin names its first error on (FIRST_ERROR)
_FIRST_ERROR = "\nits first error: "
# a check's own message that labels the values it compares (``Result:`` / ``Expected:``)
_EXPECTED_LABELS = ("expected", "wanted", "target")
_VALUE_LABEL = re.compile(r"^\s*(result|actual|got|output|expected|wanted|target)\s*:(.*)$", re.I)
_UNITTEST_NOT_RAISED = re.compile(r"^(?:AssertionError: )?(\w+) not raised(?: by \S+)?$")
_JEST_EQ = re.compile(r"^\s*Expected(?: (\w+))?: (.+)\n\s*Received(?: (\w+))?: +(.+)$", re.M)
# jest before 23 (facebook/prop-types 15.8.1 runs jest 19): ``Expected value to be (using ===):``
# or ``Expected value to equal:``, each value indented on the line after its heading
_JEST_OLD_EQ = re.compile(r"^Expected value to (?:be|equal)\b[^\n]*:\n\s+(.+)\nReceived:\n\s+(.+)$", re.M)
_ENDING_COMMA = re.compile(r",( [\]}])")  # the comma a value printed over lines ends its last item with
# vitest's diff of two values of different kinds: each after its heading, over the lines up to an empty one
_VITEST_KINDS = re.compile(r"^- Expected: *\n(.+?)\n\n\+ Received: *\n(.+?)(?:\n\n|\n\s+at |\Z)", re.M | re.S)
# node's test runner on a test whose promise is left pending with nothing else to run (p-queue)
_NEVER_SETTLES = "Promise resolution is still pending but the event loop has already resolved"
_JEST_SUITE = "● Test suite failed to run"  # jest's heading of a test file that did not load (dayjs)
# Hamcrest's assert_that (PyHamcrest, and JUnit 4's assertThat): the matcher's description, then the mismatch
_HAMCREST = re.compile(r"^Expected: (.+)\n\s+but: (?:was (.+)|(.+))$", re.M)
# node-tap's YAML of a test file's own process, all it reports of a file that died before its tests did
_TAP_PROCESS = re.compile(r"^externalID: .*^exitCode: (\S+)\nsignal: (\S+)$", re.M | re.S)
_TAP_YAML = re.compile(r"^found: (.+)\nwanted: (.+)$", re.M)  # node-tap's YAML
# tape's YAML: the assertion's operator, then its two values, each on its line or, when long, on the
# line after ``|-`` (ljharb/qs: issues said only "the check reports `should be strictly equal`")
_TAPE_YAML = re.compile(r"^operator: (\w+)\nexpected: (?:\|-\n)?(.+)\nactual: +(?:\|-\n)?(.+)$", re.M)
_JEST_ONE = re.compile(r"^(?:Error: )?expect\(received\)\.(\w+)\(\)\n\nReceived: (.+)$", re.M)
_JEST_WANTED = {"toBeTruthy": "a truthy value", "toBeFalsy": "a falsy value", "toBeNull": "`null`",
                "toBeUndefined": "`undefined`", "toBeDefined": "a defined value", "toBeNaN": "`NaN`"}
# a test that ran out of time: jest's message, vitest's (whose JSON report may carry only the
# placeholder its timeout error took its stack from), pytest-timeout's, node-tap's ``expired:``
_TIMED_OUT = re.compile(r"^(?:Error: )?(?:STACK_TRACE_ERROR$|Test timed out in "
                        r"|thrown: \"Exceeded timeout of |Failed: Timeout \(>|expired: )")
# a Rust test's panic: its header line (``thread 'm::t' (123) panicked at src/lib.rs:4:9:``, or
# before Rust 1.73 ``thread 'm::t' panicked at 'message', src/lib.rs:4:9``), and assert_eq!'s values
_RUST_PANIC = re.compile(r"thread '[^']*' (?:\(\d+\) )?panicked at "
                         r"(?:'(?P<old>.*)', (?P<old_at>\S+):\d+:\d+$|(?P<at>\S+):\d+:\d+:\n)", re.S)
_RUST_EQ = re.compile(r"^\s*left: `?(.+?)`?,?\n\s*right: `?(.+?)`?$", re.M)
_RUST_ASSERTS = ("assertion `left", "assertion failed: `(left")  # assert_eq! / assert_ne!, new and old
_RUST_TESTS = re.compile(r"^(?:.*/)?(?:tests|benches)/")  # a panic there is the test's own check failing
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # kept out of the text: a mutant may print raw memory
# C's assert() as glibc prints it: ``prog: /path/src/load.c:223: stream_unget: Assertion `x' failed.``
# a TestCase's own class of failed checks (pypng 0.20220715.0's ``class failureException(Exception)``,
# reported as ``test_png.Test.failureException: Lists differ: …``)
_OWN_FAILURE = re.compile(r"^[\w.]+\.failureException(?=:|$)")
_C_ASSERT = re.compile(r"^\S+: \S+:\d+: (\w+): Assertion `(.+)' failed\.$")
# an error that says only where in a file the code failed, and what was raised on its last, indented
# line (zope.configuration's ``ZopeXMLConfigurationError: File "<string>", line 6.12-6.60`` then
# ``    TypeError: …``): what was raised is the one that tells
_WRAPPED = re.compile(r'^([\w.]+): File "[^"\n]*", line [\d.-]+$')
_WRAPPED_CAUSE = re.compile(r"^\s+([\w.]+: .+)$")
# where a C test printed its failure (``test_array.c:42: ``): the test's own file, which must not show
_LOCATION = re.compile(r"^[\w./-]+\.\w+:\d+:(?:\d+:)?\s+")
# an error a template engine rethrows with the template's place and lines (mde/ejs:
# ``examples/output-function.ejs:2``, the lines, a blank line, then what went wrong)
_LOCATED = re.compile(r"(?P<head>(?:[^\n]*: )?)[\w./-]+:\d+\n(?:[^\n]*\n)*?\n(?=\S)")
# node's print of a long string over lines (``'a\n' +`` then ``  'b'``), joined back into one literal
_JOINED = re.compile(r"""(['"`]) \+\n\s+\1""")
_JS_TEST = re.compile(r"\.[cm]?[jt]sx?$")
# a Python file of test code: a test, a conftest, under a tests/ or (_)testing/ folder, a testing module
_PY_TEST_CODE = re.compile(r"(?:^|/)(?:_?(?:tests?|testing)(?:/|\.py$)|test_[^/]*\.py$|[^/]*_test\.py$"
                           r"|conftest\.py$)")
# Python's print of a SyntaxError: the file and line, the line and a caret, then the error (astor 0.8.1:
# "raises `File "<unknown>", line 1`")
_PY_SYNTAX = re.compile(r'^File "[^"\n]*", line (?P<line>\d+)\n(?:.*\n)*?(?P<error>(?:\w+\.)*'
                        r"(?:SyntaxError|IndentationError|TabError): .+)$")
_SPREAD = re.compile(r"^[^\n]*[{\[]\n.*\n[}\]] [!=]= |^[^\n]* [!=]= [^\n]*[{\[]\n.*\n[}\]]$", re.S)
# node's assert.doesNotThrow / doesNotReject meeting an error: the error's own message follows (js-yaml)
_NODE_UNWANTED = re.compile(r'^Got unwanted (?:exception|rejection)(?:\.|: [^\n]*)\nActual message: "(.*)"$',
                            re.S)
# JUnit's assertions, after the test's own message (``msg ==> `` in JUnit 5): assertEquals (JUnit 5
# ``expected: <A> but was: <B>``, JUnit 4 ``expected:<A> but was:<B>``), assertThrows' two failures,
# assertNotNull and assertNotEquals
_JUNIT_EQ = re.compile(r"^(?:.*?\s)?expected: ?<(.*)> but was: ?<(.*)>$", re.S)
_JUNIT_THROWN = re.compile(r"^(?:.* ==> )?(?:Unexpected exception type thrown, expected: <([\w.$]+)> "
                           r"but was: <([\w.$]+)>|Expected ([\w.$]+) to be thrown, but nothing was thrown\.)",
                           re.S)
_JUNIT_NOT = re.compile(r"^(?:.* ==> )?expected: not (?:<null>|equal but was: <(.*)>)$", re.S)
# a Python traceback inside a message: a subprocess's, printed or inside a bytes or str repr
# (tabulate 0.9.0's CLI tests raise ``OSError(stderr)``), and its exception line
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):(\\n|\n)")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")
# ava's YAML (``ava --tap``): the first key of its ``details``, with its value when on the same line
_AVA_DETAIL = re.compile(r"^'(.+?):': ?(?:'(.*)'|\S*)$", re.M)
_AVA_VALUE = re.compile(r"^Value is not `(.+)`$")
# the keys under which ava shows an error the code raised: thrown or rejected in the test, or where
# t.notThrows / t.notThrowsAsync expected none, or another than t.throws expected (sindresorhus/p-map
# 7: each read "the check reports `Promise rejected with`")
_AVA_RAISED = ("Error thrown in test", "Rejected promise returned by test. Reason", "Function threw",
               "Promise rejected with", "Function threw unexpected exception",
               "Promise rejected with unexpected exception")
_AVA_INSTANCE = re.compile(r"^'Expected instance of:': '(?:Function )?(\w+)", re.M)
_CHAI_PROPERTY = re.compile(r"^(?:AssertionError: )?expected .+ to have (?:deep |own |nested )*property "
                            r"'([^']+)' of (.+), but got (.+)$")
# jasmine's matchers: ``Expected 'a' to be 'b'.``, a deep difference at its path
# (``Expected $.err.msg = 'x' to equal 'y'.``), ``Expected 3 not to equal 3.``
_JASMINE_EQ = re.compile(r"^Expected (?:(\$\S*) = )?(.+) to (?:be|equal) (.+)\.$")
_JASMINE_NOT = re.compile(r"^Expected (.+) not to (?:be|equal) (.+)\.$")
_CHAI_EQ = re.compile(r"^(?:AssertionError: )?expected (.+) to "
                      r"(be|(?:deeply |strictly )?equal|eql|match object) (.+?)(?: // Object\.is equality)?$")
# chai's ``to be`` followed by a word or a comparison, not a value (supermacro/neverthrow 8: "a result
# is `true` where `falsy` is expected")
_CHAI_WORDS = {"truthy": "a truthy value", "falsy": "a falsy value", "empty": "an empty value",
               "ok": "a truthy value"}
_CHAI_RELATION = re.compile(r"^(above|below|at least|at most|greater than(?: or equal to)?"
                            r"|less than(?: or equal to)?|an instance of|one of|close to|within) (.+)$")
_CHAI_TYPE = re.compile(r"^an? (\w+)$")


def forbidden_strings(tests: list[str], diff: str) -> list[str]:
    """What must never appear: test names and files, and the changed lines of the diff. A
    name part that is one identifier without "test" in it (a unittest class named ``Null``
    after the type it tests) is a word of the code as much as a test's name, and stays allowed,
    as does a doctest's dotted name, which names the code whose docstring holds it (zope.event
    6.2's ``event.classhandler``); so does a test named just ``test`` or ``tests`` (jsonpickle
    4.1.4's ``FeedParserTestCase.test``)."""
    out = set()
    for nodeid in tests:
        file, _, rest = nodeid.partition("::")
        out.add(PurePosixPath(file).name)
        out.add(file)
        for part in rest.split("::"):
            name = part.split("[")[0]
            code_words = all(word.isidentifier() and "test" not in word.lower() for word in name.split("."))
            if len(name) > 3 and name.lower() not in ("test", "tests") and not code_words:
                out.add(name)
    for line in diff.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            body = line[1:].strip()
            if len(body) >= 8:
                out.add(body)
    return sorted(out, key=len, reverse=True)


def _clean(line: str, forbidden: list[str]) -> str | None:
    low = line.lower()
    if "pytest" in low or re.search(r"\w+\.py\b", line):
        return None
    if any(f in line for f in forbidden):
        return None
    return line


def _repro_line(nodeid: str, failure: dict, repo: Path, forbidden=()) -> str | None:
    """The failing statement of the test (whole, up to a few lines), from its source: the first of
    its frames in the test file whose statement names none of ``forbidden`` (ConfigArgParse 1.9.0's
    ``testGlobalInstances_WithName`` calls the test method ``testGlobalInstances``, whose
    statement that failed is the one to show)."""
    shown = (s for s in _statements(nodeid, failure, repo) if s and _clean(s, forbidden) is not None)
    return next(shown, None)


def _statements(nodeid: str, failure: dict, repo: Path):
    """The statements of the test file's frames of a failure, the test function's own first."""
    test_file = nodeid.split("::")[0]
    try:
        source = (repo / test_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    frames = [(path, lineno) for path, lineno in failure.get("trace", []) if path == test_file and lineno]
    # a frame at a decorator's line is a wrapper's that carries the test's name and first line
    # (Hypothesis's ``@given``: jsondiff 2.2.1's issue quoted ``@settings(max_examples=1000)``)
    nodes = list(ast.walk(tree)) if tree else []
    decorators = (one for node in nodes for one in getattr(node, "decorator_list", ()))
    decorated = {line for one in decorators for line in range(one.lineno, (one.end_lineno or one.lineno) + 1)}
    frames = [frame for frame in frames if frame[1] not in decorated] or frames
    name = nodeid.split("::")[-1].split("[")[0]
    # the test function's own frames first: an outer one may be a decorator's wrapper (tqdm's tests)
    spans = [(node.lineno, node.end_lineno) for node in nodes
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name]
    own = [(path, at) for path, at in frames if any(first <= at + 1 and at <= last for first, last in spans)]
    by_the_with = _raised_by_the_check(failure.get("message") or "")
    for _, lineno in [*own, *(frame for frame in frames if frame not in own)]:
        yield _statement_of_frame(source, tree, lines, lineno, by_the_with)


def _raised_by_the_check(message: str) -> bool:
    """Whether ``message`` is an error other than a check's own report (``AssertionError``, pytest's
    ``Failed``): one a ``with`` that expects an error raised itself where the failure is at its line
    (oauthlib 3.2.2: ``assertRaises`` given a class the mutant had made no exception)."""
    return bool(_EXCEPTION_LINE.match(message)) and not message.startswith(("AssertionError", "Failed"))


def _statement_of_frame(source: str, tree, lines: list[str], lineno: int,
                        by_the_with: bool = False) -> str | None:
    """The statement a frame at ``lineno`` ran: a ``with pytest.raises`` block's body (its check,
    where that raised: ``by_the_with``), a call or assertion, else the line."""
    if tree and (body := _expected_to_raise(source, tree, lineno, by_the_with)):
        return body
    for line in (lineno, lineno + 1):  # the report's line may be 0- or 1-based
        statement = _statement_at(source, tree, line) if tree else None
        if statement and (statement.startswith("assert") or "(" in statement):
            return statement
    return lines[lineno - 1].strip() or None if 0 < lineno <= len(lines) else None


# pytest's report of a failed doctest: the docstring's lines up to the example's first, numbered (or
# the example's own lines after ``???`` where its place is unknown), then doctest's own report
_DOCTEST_LISTED = re.compile(r"^(?:(\d{3,})|\?\?\?) (.*)$")
_DOCTEST_REPORTS = ("Expected:", "Expected nothing", "Differences (", "UNEXPECTED EXCEPTION: ")
_TRACEBACK_HEAD = "Traceback (most recent call last):"


def _doctest(message: str, path: Path) -> tuple[str | None, str | None, str | None] | None:
    """``(example, observation, exception)`` of pytest's report of a failed doctest of the file
    ``path`` (``message``), or None where it is not one: the example whole (its ``...`` lines read
    from the file), and what it printed or raised against what its documentation shows."""
    lines = message.splitlines()
    listed = list(itertools.takewhile(
        lambda ln: _DOCTEST_LISTED.match(ln) or ln.startswith("EXAMPLE LOCATION UNKNOWN"), lines))
    report = lines[len(listed):]
    if not listed or not report or not report[0].startswith(_DOCTEST_REPORTS):
        return None
    shown = [match.groups() for ln in listed if (match := _DOCTEST_LISTED.match(ln))]
    start = max((at for at, (_, ln) in enumerate(shown) if ln.lstrip().startswith(">>>")), default=None)
    example = None if start is None else _example(path, *shown[start]) if shown[start][0] else \
        textwrap.dedent("\n".join(ln for _, ln in shown[start:]))
    if report[0].startswith("UNEXPECTED EXCEPTION: "):
        return example, None, _raised(report[1:]) or report[0].partition(": ")[2]
    expected, got = _doctest_sides(report)
    if expected is None:
        return example, "the example prints other output than its documentation shows.", None
    if got[:1] == [_TRACEBACK_HEAD]:
        if expected[:1] != [_TRACEBACK_HEAD]:
            return example, None, _raised(got)
        return example, f"the example raises `{_raised(got)}` where `{_raised(expected)}` is expected.", None
    if expected[:1] == [_TRACEBACK_HEAD]:
        return example, f"no error is raised where `{_raised(expected)}` is expected.", None
    if not (expected and got):  # one side prints nothing (jaraco.functools 4.6.0: ``Got nothing``)
        printed = ("nothing" if not side else f"`{cut_at_token(side[0], 300)}{' …' * (len(side) > 1)}`"
                   for side in (got, expected))
        return example, "the example prints {} where {} is expected.".format(*printed), None
    sides = ([cut_at_token(ln.replace("<BLANKLINE>", ""), 300) for ln in side] for side in (expected, got))
    body = [ln for ln in difflib.ndiff(*sides) if not ln.startswith("? ")]
    return example, _diff_observation(body, "+", "-"), None


def doctest_said(message: str) -> str | None:
    """What a failed doctest's report (``message``) says went wrong, in one line: what the example
    printed or raised against what its documentation shows; None for another failure."""
    found = _doctest(message, Path())
    return found and (found[1] or (found[2] and f"the example raises `{found[2]}`."))


def _example(path: Path, number: str, first: str) -> str:
    """A doctest's example whose first line ``first`` is line ``number`` of the file ``path``, with
    the ``...`` lines that continue it there (as doctest reads them); ``first`` alone where the file
    does not hold it at that line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    at = int(number)
    if not (0 < at <= len(lines)) or lines[at - 1].strip() != first.strip():
        return first.strip()
    more = itertools.takewhile(lambda ln: ln.lstrip().startswith("..."), lines[at:])
    return cut_at_token(textwrap.dedent("\n".join([lines[at - 1], *more])).strip(), MAX_STATEMENT_CHARS)


def _doctest_sides(report: list[str]) -> tuple[list[str] | None, list[str]]:
    """The lines an example's documentation shows and the lines it printed, from doctest's report
    (``Expected:`` and ``Got:`` blocks, or a unified diff or ndiff of the two); ``(None, [])`` for a
    report it cannot read (a context diff)."""
    block = _indented(report[1:])
    if report[0].startswith("Differences (unified diff"):
        kept = [ln for ln in block if not ln.startswith("@@")]
        return [ln[1:] for ln in kept if ln[:1] in " -"], [ln[1:] for ln in kept if ln[:1] in " +"]
    if report[0].startswith("Differences (ndiff"):
        return [ln[2:] for ln in block if ln[:1] in " -"], [ln[2:] for ln in block if ln[:1] in " +"]
    if report[0].startswith("Differences"):
        return None, []
    expected = [] if report[0] == "Expected nothing" else block
    rest = report[1 + len(block):]
    while rest and not rest[0]:
        rest = rest[1:]
    return expected, _indented(rest[1:]) if rest[:1] == ["Got:"] else []


def _indented(lines: list[str]) -> list[str]:
    """The block of ``lines`` doctest indented by four spaces, from the first, without them and
    without the empty lines that end it."""
    block = [ln[4:] for ln in itertools.takewhile(lambda ln: ln.startswith("    ") or not ln, lines)]
    while block and not block[-1]:
        block.pop()
    return block


def _raised(lines: list[str]) -> str | None:
    """The exception line of the last traceback in ``lines`` (``_inner_exception``), or None."""
    return _inner_exception("\n".join(lines))


def _expected_to_raise(source: str, tree: ast.Module, line: int, the_check: bool = False) -> str | None:
    """The body of the ``with`` at ``line`` of ``source`` that expects an error or a warning
    (``pytest.raises``, ``assertRaises``, ``assert_raises``, ``pytest.warns``): the code that was
    to raise, where the check fails at its ``with`` line (jsonpickle 4.1.4: "DID NOT RAISE" read
    as the check ``with pytest.raises(ValueError):``, and every line naming pytest is dropped);
    with ``the_check``, the check itself (``self.assertRaises(Error)``), which raised."""
    for node in ast.walk(tree):
        if not (isinstance(node, (ast.With, ast.AsyncWith)) and node.lineno == line):
            continue
        checks = [item.context_expr for item in node.items if isinstance(item.context_expr, ast.Call)
                  and re.search(r"raise|warn", ast.unparse(item.context_expr.func), re.I)]
        if checks:
            steps = checks if the_check else node.body
            body = "\n".join(ast.get_source_segment(source, step, padded=True) or "" for step in steps)
            return cut_at_token(textwrap.dedent(body).strip(), MAX_STATEMENT_CHARS) or None
    return None


def _expected_first(statement: str | None) -> bool:
    """Whether the check ``statement`` is ``assert <literal> == <code>`` or ``assert expected == <code>``:
    the expected value written first (plac 1.4.7: ``assert ['3', '5', '10'] == plac.runp(...)``), so
    pytest's left side is it."""
    test = _asserted(statement)
    if not (isinstance(test, ast.Compare) and [type(op) for op in test.ops] == [ast.Eq]):
        return False
    left, right = test.left, test.comparators[0]
    return (_literal(left) and not _literal(right)) or (_named_expected(left) and not _named_expected(right))


def _asserted(statement: str | None) -> ast.expr | None:
    """What the ``assert`` statement ``statement`` tests, or None where it is no assert."""
    try:
        check = ast.parse(statement or "").body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    return check.test if isinstance(check, ast.Assert) else None


def _named_expected(node: ast.expr) -> bool:
    """Whether ``node`` is a name that says it holds the expected value (``expected``, ``want``)."""
    return isinstance(node, ast.Name) and node.id.lower().startswith(("expect", "want"))


def _literal(node: ast.expr) -> bool:
    """Whether ``node`` is a Python literal (a value written out, not computed)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _asserts_a_constant(repo: Path, trace) -> bool:
    """Whether the failure's innermost frame (the last of ``trace``, a file of ``repo``) is ``assert
    False`` or another constant: csscompressor 0.9.5's test helper prints both values and asserts
    ``False``, which read as "a result is `False` where a truthy value is expected"."""
    if not trace or os.path.isabs(str(trace[-1][0])):
        return False
    path, line = trace[-1]
    try:
        source = (repo / path).read_text(encoding="utf-8")
        statement = _statement_at(source, ast.parse(source), int(line))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    return isinstance(_asserted(statement), ast.Constant)


def _statement_at(source: str, tree: ast.Module, line: int) -> str | None:
    """The simple statement of ``source`` (parsed as ``tree``) at ``line``, whole."""
    best = None
    compound = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.For, ast.While, ast.If,
                ast.Try)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, compound) \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            best = node
    if best is None:
        return None
    text = textwrap.dedent(ast.get_source_segment(source, best, padded=True) or "").strip()
    return cut_at_token(text, MAX_STATEMENT_CHARS)


def cut_at_token(text: str, cap: int) -> str:
    """``text`` when it fits in ``cap`` characters, else its longest prefix that ends at a
    token boundary, followed by `` ...``."""
    if len(text) <= cap:
        return text
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    end = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            stop = offsets[token.end[0] - 1] + token.end[1]
            if stop > cap:
                break
            end = stop
    except (tokenize.TokenError, IndentationError):
        pass
    return text[:end].rstrip() + " ..."


def _result(actual: str, expected: str, subject: str = "a result") -> str:
    """The observation of a comparison: what ``subject`` is and what was expected; that the two print
    alike where they do once objects' addresses are left out (cssselect 1.2.0's default reprs)."""
    if (shown := _printed_alike(actual, expected)) is not None:
        return f"{subject} differs from what is expected, though both print as `{shown}`."
    return f"{subject} is `{actual}` where `{expected}` is expected."


def _printed_alike(one: str, other: str) -> str | None:
    """The print two values share once objects' addresses are left out, or None where they differ."""
    shown = _without_addresses(one)
    return shown if shown == _without_addresses(other) else None


def _check(text: str) -> str:
    """The observation of a failed check that shows no values: the check's own words."""
    return f"the check reports `{cut_at_token(text, 300)}`."


def _simple(name: str | None) -> str | None:
    """A Java class's simple name (``IllegalArgumentException`` of ``java.lang.IllegalArgumentException``)."""
    return name.rsplit(".", 1)[-1] if name else name


def _diff_observation(body: list[str], actual_sign: str, expected_sign: str) -> str | None:
    """The observation of a diff's lines ``body``, from its first run of lines that differ: the first
    line of each side there (a line that opens a block shown as ``a: [ … ]``) is a result where the
    whole diff is those two lines, else part of one; a run of one side is something held or lacked
    (html2text 2025.4.15: two empty lines the result gained before a line that changed)."""
    signs = (actual_sign, expected_sign)
    start = next((at for at, ln in enumerate(body) if ln.startswith(signs)), len(body))
    run, depth = [], 0
    # up to a line both sides share outside any block a differing line opened (node's "...": lines skipped)
    for line in body[start:]:
        if depth <= 0 and run and not line.startswith(signs) and line.strip() != "...":
            break
        run.append(line)
        depth += line.rstrip().endswith(("[", "{")) - line[1:].lstrip().startswith(("]", "}"))

    def first(sign: str) -> tuple[str | None, int]:
        """The first line of side ``sign`` in the run, with the lines a string node printed as
        ``'a\\n' +`` continues on joined to it, and how many lines that took."""
        start = next((at for at, ln in enumerate(run) if ln.startswith(sign)), None)
        if start is None:
            return None, 0
        text, end = run[start][1:].strip(), start + 1
        while text.endswith(" +") and end < len(run) and run[end].startswith(sign):
            text, piece = text[:-2], run[end][1:].strip()
            text, end = (text[:-1] + piece[1:] if text[-1:] in "'\"`" and piece[:1] == text[-1:]
                         else f"{text} + {piece}"), end + 1
        text = text.removesuffix(" +").rstrip(",")
        if text.endswith(("{", "[")):
            closer, depth = "]" if text.endswith("[") else "}", _indent(run[start][1:])
            stop = next((at for at in range(end, len(run)) if not run[at].startswith(sign)
                         or _indent(run[at][1:]) <= depth), len(run))
            pieces = [ln[1:].strip() for ln in run[start:stop + 1]]
            whole = " ".join(piece.removesuffix(",") if after[:1] in ("]", "}") else piece
                             for piece, after in zip(pieces, [*pieces[1:], ""], strict=True)).rstrip(",")
            if stop < len(run) and run[stop].startswith(sign + " " * depth + closer) and len(whole) <= 300:
                return whole, stop + 1 - start  # the whole block is this side's: one line of it
            text = f"{text} … {closer}"
        return text, end - start

    (actual, taken), (expected, given) = first(actual_sign), first(expected_sign)
    if actual is not None and expected is not None:
        if actual == expected:
            at = [start + next(n for n, ln in enumerate(run) if ln.startswith(sign)) for sign in signs]
            if body[at[0]][1:] == body[at[1]][1:]:  # a line that ends one text, not the other (schema 0.7.7)
                rest = [ln for n, ln in enumerate(body) if n not in at]
                return _diff_observation(rest, actual_sign, expected_sign)
            # lines that differ in their spacing only (sqlparse 0.5.1): shown as they are
            actual, expected = (repr(body[n][2:]) for n in at)
        subject = "a result" if taken + given == len(body) else "part of a result"
        if not (actual and expected):
            return f"{subject} is {_line(actual)} where {_line(expected)} is expected."
        return _result(actual, expected, subject)
    if actual is not None:
        return _held("left", _line(actual), "is")
    if expected is not None:
        return _held("right", _line(expected), "is")
    return None


def _line(text: str) -> str:
    """A diff's line as an observation shows it: in backticks (cut at 300 characters), or "an empty line"."""
    return f"`{cut_at_token(text.strip(), 300)}`" if text.strip() else "an empty line"


def _indent(line: str) -> int:
    """How many spaces ``line`` starts with."""
    return len(line) - len(line.lstrip(" "))


def _unquoted(text: str):
    """``(at, char, depth)`` for each character of the Python print ``text`` outside its quotes, with
    how many brackets are open before it (a closing bracket counts itself out)."""
    depth, quote, escaped = 0, "", False
    for at, char in enumerate(text):
        if quote:
            escaped, quote = (not escaped and char == "\\"), ("" if char == quote and not escaped else quote)
            continue
        if char in "'\"":
            quote = char
            continue
        depth += (char in "([{") - (char in ")]}")
        yield at, char, depth


def _unequal(text: str, sign: str = " != ") -> tuple[str, str] | None:
    """``(left, right)`` of pytest's ``left != right`` line (or another ``sign``'s): split at the
    ``sign`` outside every quote and bracket."""
    return next(((text[:at], text[at + len(sign):]) for at, _, depth in _unquoted(text)
                 if depth == 0 and text.startswith(sign, at)), None)


def _held(side: str, what: str, verb: str) -> str:
    """The observation that a result holds ``what`` it is not to hold (pytest's ``Left`` ``side``), or
    lacks it (``Right``); ``verb`` agrees with ``what``."""
    return (f"a result holds {what}, which {verb} not expected." if side == "left"
            else f"a result lacks {what}, which {verb} expected.")


def _extra_items(side: str, count: str, lines: list[str]) -> str:
    """What pytest's ``Left contains 3 more items:`` (``side``, ``count``) says over its ``lines``
    below: the dict of those items (pprint's print, over lines), or when pytest cut its explanation
    short before the dict closed (pyhumps 3.8.0), how many keys and the ones it shows."""
    block = list(itertools.takewhile(
        lambda ln: ln and not ln.startswith(("...", "Left ", "Right ", "Full diff:")), lines))
    text, keys, start = " ".join(block), [], 1
    for at, char, depth in _unquoted(text):
        if depth == 0:
            return _held(side, f"`{cut_at_token(text[:at + 1], 300)}`", "is")
        if depth == 1 and char in ",:":
            keys += [f"`{text[start:at].strip()}`"] if char == ":" else []
            start = at + 1
    named = f"{', '.join(keys[:-1])} and {keys[-1]}" if len(keys) > 1 else "".join(keys)
    noun, verb = ("a key", "is") if count == "one" else (f"{count} keys", "are")
    if keys and len(keys) == (1 if count == "one" else int(count)):
        noun = f"the key{'s' * (len(keys) > 1)} {named}"
    elif keys:
        noun += f" ({named} among them)"
    return _held(side, noun, verb)


def _pytest_explained(lines: list[str], texts: bool = False, swapped: bool = False) -> str | None:
    """The observation of pytest's explanation below ``assert left == right`` (``lines``): its
    first differing item, index, attribute or extra item, else the lines of its text diff; a
    diff of one line a side of two strings (``texts``) shows them quoted, as pytest prints them.
    ``swapped``: the check wrote the expected value first, so pytest's left side is the expected one."""
    truncated = next((at for at, ln in enumerate(lines) if ln.strip().startswith(_PYTEST_TRUNCATED)), None)
    if truncated is not None:  # pytest cut its explanation short, ending the last line it kept with "..."
        lines = [*lines[:truncated - 1], lines[truncated - 1].rstrip().removesuffix("...")]
    body = [ln.strip() for ln in lines[1:] if not _WHERE.match(ln)]
    oriented = (lambda pair: pair[::-1]) if swapped else (lambda pair: pair)
    for at, line in enumerate(body):
        after = body[at + 1] if at + 1 < len(body) else ""
        if (match := _PYTEST_AT.match(line)) and (sides := _unequal(match.group(2))):
            return _result(*oriented(sides), f"item {match.group(1)} of a result")
        if line == "Differing items:" and (sides := _unequal(after)):
            return _result(*oriented(sides), "part of a result")
        if (match := _PYTEST_ATTRIBUTE.match(line)) and (sides := _unequal(after.partition(": ")[2])):
            return _result(*oriented(sides), f"the attribute `{match.group(1)}` of a result")
        more, extra = _PYTEST_MORE.match(line), _PYTEST_SET.match(line)
        named = (more or extra).group(1).lower() if more or extra else ""
        side = oriented(("left", "right"))[named == "right"]
        if more and after.startswith("{") and not (more.group(3) or more.group(4)):
            return _extra_items(side, more.group(2), body[at + 1:])
        if more or extra:
            item = (more.group(3) or more.group(4) if more else None) or after
            if item:
                return _held(side, f"`{item}`", "is")
    diff = [ln[2:] for ln in lines[1:] if not ln.lstrip().startswith("?")]  # ndiff's ``?`` guides left out
    skipped = {match.group(1) for ln in diff if (match := _PYTEST_SKIPPED.match(ln))}
    diff = [ln for ln in diff if not _PYTEST_SKIPPED.match(ln)]
    if skipped:
        diff = _cut_ends_marked(diff, skipped)
    elif texts and len(diff) == 2 and {ln[:2] for ln in diff} == {"+ ", "- "}:  # cron-descriptor 2.2.1
        return _result(*(repr(next(ln[2:] for ln in diff if ln.startswith(sign))) for sign in oriented("+-")))
    shown = [ln for ln in diff if ln[:2] in ("+ ", "- ")]
    if truncated is not None and len(diff) == len(shown) == 1:  # radon 6.0.1: the other side was cut off
        text = f"`{cut_at_token(shown[0][2:].removesuffix('…') + '…', 300)}`"
        if shown[0][0] == oriented("+-")[0]:
            return f"a result reads {text} where something else is expected."
        return f"a result differs from what is expected, which reads {text} there."
    return _diff_observation(diff, *oriented("+-"))


def _cut_ends_marked(diff: list[str], skipped: set[str]) -> list[str]:
    """pytest's text ``diff`` with "…" where it skipped identical ``leading`` or ``trailing``
    characters (``skipped``): at the start of each side's first line before any line both share,
    and at the end of each side's last line after them (pydot 4.0.1: "first in `ge [style=…`",
    a line's fragment)."""
    marked = list(diff)
    for where in skipped:
        seen = set()
        for at in range(len(marked)) if where == "leading" else range(len(marked) - 1, -1, -1):
            sign = marked[at][:2]
            if sign not in ("- ", "+ "):
                break
            if sign not in seen:
                seen.add(sign)
                marked[at] = f"{sign}…{marked[at][2:]}" if where == "leading" else f"{marked[at]}…"
    return marked


def _diffed(message: str) -> str | None:
    """The observation of a jest/vitest or node diff (``+`` the actual side), or None."""
    head = _DIFF_HEAD.search(message)
    if not head:
        return None
    body = []
    for line in message[head.end():].splitlines():
        if not line.strip() or re.match(r"\s+at ", line) or not line.startswith(("+", "-", " ", "@@", "...")):
            break
        if not re.fullmatch(r"\s+\^", line):  # node 20's mark of where two strings part
            body.append(line)
    return _diff_observation(body, "+", "-")


def _compared(message: str, lines: list[str]) -> str | None:
    """The observation a runner's failed comparison shows (what was got and what was expected),
    or None."""
    chai = _CHAI_EQ.match(lines[0].strip())
    whole = chai and "…" not in lines[0] and chai.group(1) != chai.group(3)  # chai's print elides with "…"
    if not whole and (diffed := _diffed(message)):  # a diff, unless chai's own line shows both values whole
        return diffed
    if match := _VITEST_KINDS.search(message):  # path-to-regexp 8: ``expected false to deeply equal { … }``
        expected, actual = (_ENDING_COMMA.sub(r"\1", _squeezed(side)) for side in match.groups())
        return _result(cut_at_token(actual, 300), cut_at_token(expected, 300))
    if match := _JEST_EQ.search(message):
        noun = match.group(3) or match.group(1)
        if noun and "toThrow" in lines[0]:
            noun = f"error {noun}"
        return _result(match.group(4), match.group(2), f"the {noun}" if noun else "a result")
    if match := _JEST_OLD_EQ.search(message):
        return _result(match.group(2), match.group(1))
    if match := _HAMCREST.search(message):
        wanted, value, mismatch = match.group(1).removeprefix("is "), match.group(2), match.group(3)
        return _result(value, wanted) if value is not None else f"`{wanted}` is expected, but {mismatch}."
    if match := _TAP_YAML.search(message):
        return _result(match.group(1), match.group(2))
    if match := _TAPE_YAML.search(message):
        return _tape(*match.groups())
    if match := _JEST_ONE.search(message):
        wanted = _JEST_WANTED.get(match.group(1))
        return f"a result is `{match.group(2)}` where {wanted} is expected." if wanted else None
    if "Received function did not throw" in message:
        return "no error is raised where one is expected."
    if lines[0].startswith(("assertion `left == right` failed", "assertion failed: `(left == right)`")) and (
            match := _RUST_EQ.search(message)):
        return _result(match.group(1), match.group(2))
    if lines[0].startswith(("assertion `left != right` failed", "assertion failed: `(left != right)`")) and (
            match := _RUST_EQ.search(message)):
        return f"`{match.group(1)}` and `{match.group(2)}` compare equal where they are expected to differ."
    if match := _NODE_LOOSE.match(lines[0]) or _NODE_LOOSE.match(message):  # node-tap's fold, else node's
        return _result(*(_squeezed(side) for side in match.groups()))
    if (match := _NODE_STRICT.match(lines[0].strip()) or _NODE_STRICT.match(message.strip())) and (
            sides := _node_strict(match.group(1))):
        return _result(*sides)
    if match := _NODE_MATCH.match(message.strip()):
        unmatched, pattern, given = match.groups()
        lines_given = [ln.strip() for ln in given.strip().splitlines()]
        shown = cut_at_token(lines_given[0] + (" …" if len(lines_given) > 1 else ""), 300)
        if unmatched.startswith("did"):
            return f"a result `{shown}` does not match `{pattern}`, which it is expected to."
        return f"a result `{shown}` matches `{pattern}`, which it is expected not to."
    if match := _NODE_MISSING.match(message.strip() + " "):
        return f"no error is raised where {f'`{match.group(1)}`' if match.group(1) else 'one'} is expected."
    if match := _PYTEST_REGEX.search(message) or _UNITTEST_REGEX.match(lines[0].strip()):
        said, regex = match["said"], match["regex"]
        return f"the error message `{said}` does not match `{regex}`, which it is expected to."
    if match := _UNITTEST_NOT_RAISED.match(lines[0].strip()):
        return f"no error is raised where `{match.group(1)}` is expected."
    if match := _PYTEST_NOT_RAISED.match(lines[0].strip()):
        raised = match.group(1).removeprefix("any of ")  # ``<class 'E'>``, or since pytest 8.4 ``E``
        classes = re.findall(r"<class '([\w.]+)'>", raised) or re.findall(r"[^\W\d][\w.]*", raised)
        names = " or ".join(f"`{_simple(name)}`" for name in classes)
        return f"no error is raised where {names or 'one'} is expected."
    if match := _NODE_OK.match(message.strip()):
        expression = " ".join(ln.strip() for ln in (match.group("inner") or match.group("whole")).splitlines()
                              if ln.strip()).rstrip(",")
        return f"`{cut_at_token(expression, 300)}` is falsy where a truthy value is expected."
    text = message.strip()
    if match := _JUNIT_THROWN.match(text):
        expected, actual, missing = (_simple(name) for name in match.groups())
        if missing:
            return f"no error is raised where `{missing}` is expected."
        return f"the error raised is `{actual}` where `{expected}` is expected."
    if match := _JUNIT_NOT.match(text):
        if match.group(1) is None:
            return "a result is `null` where a value is expected."
        return f"a result is `{match.group(1)}`, a value it is expected not to be."
    if match := _JUNIT_EQ.match(text):
        return _result(match.group(2), match.group(1))
    if match := _CHAI_PROPERTY.match(lines[0].strip()):
        return _result(match.group(3), match.group(2), f"the property `{match.group(1)}`")
    if match := _CHAI_EQ.match(lines[0].strip()):
        actual, verb, expected = match.groups()
        if actual == "a thrown error":  # vitest's toThrowError(error)
            return f"the error raised is not the expected `{expected}`."
        if verb == "be" and (wanted := _chai_wanted(expected)):
            return f"a result is `{actual}` where {wanted} is expected."
        if actual == expected:  # chai cut both short (``{ path: '/test', …(1) }``)
            return f"a result differs from what is expected, though both print as `{actual}`."
        if verb == "match object":  # vitest's toMatchObject (unjs/scule: "the check reports `expected …`")
            return f"a result is `{actual}` where a value matching `{expected}` is expected."
        return _result(actual, expected)
    if match := _JASMINE_NOT.match(lines[0].strip()):
        return f"a result is `{match.group(1)}`, a value it is expected not to be."
    if match := _JASMINE_EQ.match(lines[0].strip()):
        path, actual, expected = match.groups()
        return _result(actual, expected, f"`{path}` of a result" if path else "a result")
    return None


def _chai_wanted(said: str) -> str | None:
    """What chai's ``to be SAID`` asks for, in words, when ``said`` is a word or a comparison
    (``falsy``, ``above 10``, ``a number``), not a value."""
    if said in _CHAI_WORDS:
        return _CHAI_WORDS[said]
    if match := _CHAI_RELATION.match(said):
        relation, value = match.groups()
        return f"{'' if relation.startswith(('an ', 'one ')) else 'a value '}{relation} `{value}`"
    return said if _CHAI_TYPE.match(said) else None


def _node_strict(text: str) -> tuple[str, str] | None:
    """``(actual, expected)`` of what follows node's ``Expected values to be strictly equal:``:
    ``A !== B``, or a one-line diff node-tap 12 folded onto the line (``+ actual - expected  + A - B``)."""
    if text.startswith(_NODE_FOLDED_DIFF):
        return _unequal(text.removeprefix(_NODE_FOLDED_DIFF), " - ")
    return _unequal(text, " !== ")


def _squeezed(text: str) -> str:
    """``text`` with each run of whitespace outside a quoted string made one space."""
    return _QUOTED_OR_SPACE.sub(lambda m: m.group(1) or " ", text.strip())


def _tape(operator: str, expected: str, actual: str) -> str | None:
    """The observation of a failed tape assertion ``operator`` (``t.equal``, ``t.notOk``, ...)."""
    if operator in ("ok", "notOk"):
        wanted = "truthy" if operator == "ok" else "falsy"
        return f"a result is `{actual}` where a {wanted} value is expected."
    if operator == "throws":
        if actual == "undefined":
            return "no error is raised where one is expected."
        return f"the error raised is `{actual}` where `{expected}` is expected."
    if operator == "match":
        return f"a result `{actual}` does not match `{expected}`, which it is expected to."
    if operator == "doesNotMatch":
        return f"a result `{actual}` matches `{expected}`, which it is expected not to."
    if operator.startswith("not"):  # notEqual, notDeepEqual, notLooseEqual, ...
        return f"a result is `{actual}`, a value it is expected not to be."
    if "qual" in operator:  # equal, deepEqual, looseEqual, deepLooseEqual, strictEqual, ...
        return _result(actual, expected)
    return None


def _inner_exception(message: str) -> str | None:
    """The exception line of the last traceback ``message`` holds (escaped or not), or None."""
    found = list(_TRACEBACK.finditer(message))
    if not found:
        return None
    text = message[found[-1].end():]
    if found[-1].group(1) != "\n":  # inside a repr: its escapes undone
        text = re.sub(r"\\([\\'\"nt])", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)
    # as indented as its header's line (ijson 3.6.0: pytest indents a check's message of many lines)
    head = message[message.rfind("\n", 0, found[-1].start()) + 1:]
    if re.match(r"\s*<\w+>Traceback", head):  # in an HTML page (bottle's error page in webargs 8.6.0's
        text = html.unescape(text)  # checks): its entities undone, as the page shows them
    indent = " " * (len(head) - len(head.lstrip(" ")))
    lines = [ln for ln in text.splitlines() if _EXCEPTION_LINE.match(ln.removeprefix(indent))]
    return lines[-1].strip() if lines else None


def _ava(message: str) -> tuple[str | None, str | None] | None:
    """``(observation, exception)`` of ava's YAML (its ``--tap``), or None for another message."""
    head = _AVA_DETAIL.search(message) if message.startswith("name: ") else None
    if head is None:
        return None
    key, value = head.group(1), (head.group(2) or "").replace("''", "'")
    below = []
    for line in message[head.end():].splitlines()[1:]:
        if line.startswith(("message:", "at:", "assertion:", "'")):
            break
        below.append(line)
    if key.startswith("Difference (- actual, + expected)") and (diffed := _diff_observation(below, "-", "+")):
        return diffed, None
    if (wanted := _AVA_VALUE.match(key)) and value:
        return _result(value, wanted.group(1)), None
    if key in ("Function returned", "Promise resolved with"):  # t.throws / t.throwsAsync
        return "no error is raised where one is expected.", None
    if key in _AVA_RAISED and below:  # ``TypeError {``, its fields below (``message: '…',``)
        raised = _ava_error(below[0], message[head.end():])
        if key.endswith("unexpected exception") and (wanted := _AVA_INSTANCE.search(message)):
            kind = raised.split(":")[0]
            return f"the error raised is `{kind}` where `{wanted.group(1)}` is expected.", None
        return None, raised
    return _check(f"{key}: {value}" if value else key), None


def _ava_error(opening: str, rest: str) -> str:
    """``Name: message`` of an error as ava prints it: its ``opening`` line (``TypeError {``), then
    in the ``rest`` of the YAML its field ``message: '…',``."""
    name = opening.strip().rstrip(" {")
    said = re.search(r"^\s*message: '(.*)',$", rest, re.M)
    return f"{name}: {said.group(1)}".replace("\\'", "'") if said and said.group(1) else name


def _truthiness(first: str, lines: list[str]) -> str | None:
    """The observation of pytest's ``assert VALUE`` / ``assert not VALUE`` (``first``): the value, and
    the call that returned it where pytest names one (pure-eval 0.2.4: "a documented property of the
    result does not hold" for ``assert not check_interesting('foo.method')``), or None."""
    match = _ASSERT_TRUTH.match(first)
    if not match:
        return None
    negated, value = match.groups()
    calls = _calls(value, lines)
    if not calls and value not in (_FALSY if not negated else ("True",)):
        return None  # not one value (``assert 'a' not in 'abc'``)
    wanted = "a falsy value" if negated else "a truthy value"
    call = next(iter(_named(calls, value)), None)
    return f"`{call}` returns `{value}` where {wanted} is expected." if call else \
        f"a result is `{value}` where {wanted} is expected."


def _calls(value: str, lines: list[str]) -> list[str]:
    """The calls pytest's ``+  where VALUE = CALL`` lines below a failed assert (``lines``) name as
    giving ``value``; a function a decorator made is named by the attribute a nested ``where`` read
    it from (pickledb 1.6: ``wrapper('foo')``, ``where wrapper = <pickledb.PickleDB object>.get``,
    is ``get('foo')``, as pytest names a plain method)."""
    wheres = [where.groups() for ln in lines[1:] if (where := _WHERE.match(ln))]
    read_as = {name: attribute.group(1) for name, got in wheres
               if name.isidentifier() and (attribute := re.search(r"\.(\w+)$", got))}
    calls = [_FUNCTION_PRINT.sub(r"\1(", call) for said, call in wheres if said == value]
    return [read_as[name] + call[len(name):] if (name := call.partition("(")[0]) in read_as else call
            for call in calls]


def _named(calls: list[str], value: str) -> list[str]:
    """The ``calls`` giving ``value`` that are not an object's print (``<bound method …>()``,
    ``<boolean.boolean.BooleanAlgebra object>.TRUE``), nor were given that long value itself to
    return (responses 0.25.3: ``str(ConnectionError("Connection refused by Responses …"))``)."""
    return [call for call in calls if not call.startswith("<") and (len(value) < 12 or value not in call)]


def _call(value: str, lines: list[str]) -> str | None:
    """The first call ``_calls`` names as giving ``value`` that is not an object's print, nor given
    ``value`` itself where another call gave it that (``round(61642.48, 3)`` of textstat 0.7.13's
    ``round(f(text), 3) == 5.82``), or None."""
    calls = _calls(value, lines)
    given = (f"{value},", f"{value})")
    return next(iter(_named([call for call in calls if len(calls) == 1 or not
                             call.partition("(")[2].startswith(given)], value)), None)


def _identity(first: str, lines: list[str]) -> str | None:
    """The observation of pytest's ``assert VALUE is None`` (``is True``, ``is False``, ``is not None``;
    ``first``): the value and the call that gave it, or for a comparison pytest prints in parentheses
    (``(a != b) is False``, isodate 0.7.2) the comparison, whose result pytest does not print; of
    ``assert A is B`` (``is not``) of other values, that ``A`` is not (is) the very object; or None."""
    match = _ASSERT_IS.match(first)
    text = first.removeprefix("assert ")
    if not match and text != first and (sides := _unequal(text, " is not ")):
        return f"a result is the very object `{sides[0]}`, where another object is expected."
    if not match and text != first and (sides := _unequal(text, " is ")):  # jaraco.functools 4.6.0
        said = f"`{call}` returns" if (call := _call(sides[0], lines)) else "a result is"
        return f"{said} `{sides[0]}`, not the very object `{sides[1]}` that is expected."
    if not match:
        return None
    value, negated, wanted = match.group("value", "negated", "wanted")
    if value.startswith("(") and value.endswith(")") and any(  # a comparison, not a tuple's print
            _unequal(value[1:-1], sign) for sign in (" == ", " is ", *_COMPARISONS)):
        if negated:
            return f"`{value[1:-1]}` is `{wanted}`, though another value is expected."
        return f"`{value[1:-1]}` is not `{wanted}`, though `{wanted}` is expected."
    call = _call(value, lines)
    said = f"`{call}` returns `{value}`" if call else f"a result is `{value}`"
    return f"{said} where a value other than `{wanted}` is expected." if negated else \
        f"{said}, but `{wanted}` is expected."


def _ordering(first: str, lines: list[str]) -> str | None:
    """The observation of pytest's ``assert A != B`` (``first``): the value that was not to be; of
    ``assert A < B`` (``<=``, ``>``, ``>=``): the comparison that does not hold, and a call that gave a
    side (boolean.py 4.0's ``assert algebra.FALSE < algebra.TRUE``); of ``assert A in B`` (``not in``):
    what B lacks or holds (rfc3986 2.0.0's ``assert "http" in validator.allowed_schemes``); or None."""
    text = first.removeprefix("assert ")
    found = next(((sign, sides) for sign in _COMPARISONS if (sides := _unequal(text, sign))), None)
    if text == first or not found:
        return None
    sign, (left, right) = found
    called = [(call, value) for value in (left, right)
              for call in _named(_calls(value, lines), value) if call != value]
    if sign == " != ":
        call = next((call for call, value in called if value == left), None)
        return f"`{call}` returns `{left}`, a value it is expected not to be." if call else \
            f"a result is `{left}`, a value it is expected not to be."
    # a side may be the whole print gen09_pytest kept (up to 1,000 characters): cut like other values
    left, right = (cut_at_token(side, 300) for side in (left, right))
    said = {" in ": f"`{right}` does not hold `{left}`, though it is expected to",
            " not in ": f"`{right}` holds `{left}`, though it is expected not to"}.get(
        sign, f"`{left}{sign}{right}` does not hold, though it is expected to")
    return f"{said} (`{called[0][0]}` returns `{called[0][1]}`)." if called else f"{said}."


def _counted(lines: list[str]) -> str | None:
    """The observation of unittest's assertCountEqual (``Element counts were not equal:``, ``lines``):
    the first element whose counts differ, or None."""
    found = next((m for ln in lines[1:] if (m := _UNITTEST_COUNTS.match(ln.strip()))), None)
    if not found or not lines[0].strip().endswith("Element counts were not equal:"):
        return None
    one, other, element = found.groups()
    one, other = (f"{count} time{'s' * (count != '1')}" for count in (one, other))
    return (f"the check reports `Element counts were not equal`: `{cut_at_token(element, 300)}` is there "
            f"{one} on one side and {other} on the other.")


def _library_assert(message: str, trace) -> bool:
    """Whether the failure ``message`` is an ``assert`` of the repository's own code, not of a test:
    its innermost frame (the last of ``trace``) a Python file of the repository that is no test code
    (astor 0.8.1's ``assert node is not None, node``: "the check reports `None`"). pytest rewrites
    only test code's asserts, so a rewritten one (``assert -1 == 5``) is a test's."""
    if not (message.startswith("AssertionError") and trace) or message.startswith("AssertionError: assert "):
        return False
    path = str(trace[-1][0])
    return path.endswith(".py") and not os.path.isabs(path) and not _PY_TEST_CODE.search(path)


def _node_unequal(message: str) -> str | None:
    """What node's assert.equal (``A == B``) or notEqual says failed, once node's string pieces are
    joined and an object it printed over lines is put on one line; None for any other message."""
    loose = _JOINED.sub("", message.strip()).removeprefix("AssertionError: ")
    loose = _squeezed(loose) if _SPREAD.search(loose) else loose
    if "\n" in loose:
        return None
    if sides := _unequal(loose, " == "):
        return _result(*sides)
    if sides := _unequal(loose):
        return f"a result is `{sides[0]}`, a value it is expected not to be."
    return None


def _symptom(message: str, test_file: str = "", trace=(),
             swapped: bool = False) -> tuple[str | None, str | None]:
    """(short observation, exception line) from a crash message of a test of ``test_file``
    (``trace``: the failure's ``[file, line]`` frames, innermost last, where the runner gives them;
    ``swapped``: its check is ``assert <expected> == <actual>``, see :func:`_expected_first`)."""
    if _FIRST_ERROR in message:  # an exception group: what was raised is its first error
        return _symptom(message.rpartition(_FIRST_ERROR)[2], test_file, trace, swapped)
    if own := _OWN_FAILURE.match(message):  # a TestCase's own failureException: its checks' failures
        message = "AssertionError" + message[own.end():]
    report = message.strip().splitlines()
    if report and _SYBIL.match(report[0]):  # sybil's report of a document's example, as doctest's: what
        if report[1:2] == ["Exception raised:"] and (raised := _raised(report[2:-1])):  # it raised
            return None, raised
        if said := _expected_got(report[1:]):  # or what it printed
            return said, None
    message = _inner_exception(message) or message
    if _library_assert(message, trace):  # no check of the test failed: the library raised, unless its
        # message labels a result and what was expected (plac 1.4.7's own ``Interpreter.check``)
        lines = message.splitlines()
        labelled = _labelled(lines[0].removeprefix("AssertionError").lstrip(":").strip(), lines)
        return (labelled, None) if labelled else (None, lines[0].strip())
    if syntax := _PY_SYNTAX.match(message.strip()):  # Python's print of a SyntaxError, its lines and caret
        return None, f"{syntax.group('error')} (line {syntax.group('line')})"
    if ((message.startswith("E   ") or _PYTEST_FRAME.match(message))  # a module pytest could not collect:
            and (marked := re.findall(r"(?:^E {3}.*(?:\n|$))+", message, re.M))):  # the marked lines of its
        message = re.sub(r"^E {3}", "", marked[-1], flags=re.M)  # last exception (raised handling another)
    if message.startswith(_JEST_SUITE):  # a test file jest could not load: what stopped it follows
        message = textwrap.dedent(message[len(_JEST_SUITE):].strip("\n"))
    if message.startswith("Test executable failed") and "\nthread '" in message:  # a doctest's panic
        message = message[message.index("\nthread '") + 1:]
    in_test = in_library = False
    if message.startswith("thread '"):  # a Rust panic: its own message, without the header and notes
        kept = "\n".join(ln for ln in message.strip().splitlines() if not ln.startswith("note: "))
        if match := _RUST_PANIC.match(kept):
            message = kept[match.end():] if match.group("old") is None else match.group("old")
            at = match.group("at") or match.group("old_at")
            in_test = bool(_RUST_TESTS.match(at))
            # not the test's own file (a doctest's own check names its source file: never the library's)
            in_library = not in_test and test_file not in ("", "doctest") and at != test_file
    if unwanted := _NODE_UNWANTED.match(message.strip()):
        message = unwanted.group(1)
    while located := _LOCATED.match(message.strip()):  # an error rethrown around another: the innermost
        message = located.group("head") + message.strip()[located.end():]
    lines = [ln for ln in message.splitlines() if ln.strip()]
    if not lines:
        return None, None
    if in_library and lines[0].startswith(_RUST_ASSERTS) and (match := _RUST_EQ.search(message)):
        # the library's own assert_eq! / assert_ne!: the call panicked, no result was compared
        return None, f"{lines[0].strip()} (left: {match.group(1)}, right: {match.group(2)})"
    if lines[0] == "stdio: inherit" and (match := _TAP_PROCESS.search(message)):
        code, killed = match.groups()
        if killed != "null":
            return f"a call does not finish: the test program is killed ({killed}).", None
        return f"the test program ends with exit code {code} before its checks report.", None
    if _TIMED_OUT.match(lines[0].strip()):
        return "a call does not finish: the check runs out of time.", None
    if lines[0].strip().startswith(_NEVER_SETTLES):
        return "a call does not finish: a promise it returns never settles.", None
    if (read := _ava(message)) is not None:
        return read
    if compared := _compared(message, lines):
        return compared, None
    if _JS_TEST.search(test_file) and (said := _node_unequal(message)):
        return said, None
    first = lines[0].strip()
    if in_test and not first.startswith(("called `", "assert")):  # a test's own panic!(), not an unwrap()
        return _check(first), None
    if re.search(r"^operator: error$", message, re.M):  # tape's t.error(err): the error the code gave
        return None, first
    block = message.split("\n\n", 1)[0]  # node-tap: the first failed assertion's lines (rfdc 1.4.1: its
    if _TAP_CHECK.search(block) and "tapCaught:" not in block:  # own name, not the error thrown after it)
        return _check(first), None
    if "tapCaught:" in block and (thrown := _TAP_TYPE.search(block)) and not first.startswith(thrown[1]):
        # an error the test threw: its type before its message
        return None, f"{thrown.group(1)}: {first}"[:300]
    if re.match(r"(?:Error: )?expect\(", first):  # a jest or vitest matcher's own check failed
        return _check(first.removeprefix("Error: ")), None
    if re.match(r"(?:AssertionError: )?expected .+ to ", first):  # another of chai's checks
        return _check(first.removeprefix("AssertionError: ")), None
    if re.match(r"Expected .+ to ", first):  # another of jasmine's matchers (``… to have been called.``)
        return _check(first), None
    if (thrown := _JS_THROWN.match(message.strip())) and _TEST_CODE.search(thrown.group("path")):
        return _check(" ".join(thrown.group("said").split())), None
    if first.startswith("Failed: "):  # the test's own pytest.fail(): a failed check, unless it shows
        # the traceback of what a call raised (its last exception; the first where it was cut short)
        shown = first == f"Failed: {_TRACEBACK_HEAD}"
        if shown and (raised := _raised(lines) or next(filter(_EXCEPTION_LINE.match, lines[1:]), None)):
            return None, raised.strip()
        return _failed_call(message), None
    failed_check = first.startswith("AssertionError")
    if failed_check:
        first = first[len("AssertionError"):].lstrip(":").strip()
        if not re.search(r"[^\W\d_]", first) and len(lines) > 1 and lines[1].startswith("assert "):
            lines = lines[1:]  # ``assert a == b, 271``: a message of no words; pytest's comparison says more
            first = lines[0]
        elif at := next((n for n, ln in enumerate(lines[1:], 1) if ln.startswith("assert ")), 0):
            # a message pytest's comparison follows (bracex 2.5: "Comparison between objects yielded False.";
            # plac 1.4.7: a unified diff over lines, its lines indented; jsmin 3.0.1: "got:" and "exp:" lines
            # after an empty first one): what the comparison shows, and the message where its first line
            # has words
            compared, _ = _symptom("\n".join(lines[at:]), test_file, swapped=swapped)
            if compared and compared != _PROPERTY:
                if not re.search(r"[^\W\d_]", first):
                    return compared, None
                return f"{compared[:-1]} (the check's message: `{cut_at_token(first, 300)}`).", None
    if failed_check and (joined := _pprinted_unequal(first, lines)):
        first, lines = joined
    if clause := _failed_clause(first, lines):
        first, lines = clause[0], clause
    if said := _identity(first, lines) or _ordering(first, lines):
        return said, None
    sides = _unequal(first.removeprefix("assert "), " == ") if first.startswith("assert ") else None
    if not sides and (match := _ASSERT_EQ.match(first)) and match[1].count("(") == match[1].count(")"):
        sides = match.groups()  # values pytest cut short (``['ab...cd', ...]``) may leave a quote open
    elif not sides and match and "..." in first and (explained := _pytest_explained(lines, swapped=swapped)):
        return explained, None  # cut short leaving a bracket open (pyhocon 0.3.63: ``ConfigTree([(...``)
    if sides:  # ``assert A == B``; not ``assert (x == 1 and y == 2)`` (schema 0.7.7: "a result is `(1`")
        actual, expected = sides[::-1] if swapped else sides
        texts = all(side[:1] in ("'", '"') for side in (actual, expected))
        if "..." in actual + expected and (explained := _pytest_explained(lines, texts, swapped)):
            return explained, None  # pytest cut the values short: its explanation shows the difference
        if call := _call(actual, lines):
            return f"`{call}` returns `{actual}`, but `{expected}` is expected.", None
        return _result(actual, expected), None
    if truth := _truthiness(first, lines):
        return truth, None
    if first.startswith("assert") or (failed_check and not first):
        return _PROPERTY, None
    if failed_check and first.endswith(" :") and len(lines) > 1:  # unittest's ``A != B : `` before a
        words = " ".join(ln.strip() for ln in lines[1:])  # message of lines (py-ubjson 0.16.1's "Input:")
        return f"{_check(first[:-2])[:-1]} (the check's message: `{cut_at_token(words, 300)}`).", None
    if failed_check:  # unittest's assertEqual & co.: a failed check, not an exception
        return (_unittest_sets([first, *lines[1:]]) or _unittest_cut(first, lines) or _counted(lines)
                or _alike(first, lines) or _not_unequal(first) or _labelled(first, lines)
                or _check(first)), None
    if match := _C_ASSERT.match(first):
        return None, f"Assertion '{match.group(2)}' failed in {match.group(1)}()"[:300]
    if (match := _WRAPPED.match(first)) and (cause := _WRAPPED_CAUSE.match(lines[-1])):
        return None, f"{match.group(1)}: {cause.group(1)}"[:300]
    return None, _LOCATION.sub("", first)[:300]


def _failed_call(message: str) -> str:
    """The observation of a test's own ``pytest.fail(...)`` (``message``, from ``Failed: ``): its
    words, or the first difference of the ``Expected:`` and ``Got:`` blocks it shows as doctest
    does (chameleon 4.6.0's template tests: "Failed: (inputs/001-variable-scope.pt) -")."""
    first, _, rest = message.strip().removeprefix("Failed: ").partition("\n")
    return _expected_got(rest.splitlines()) or _check(first.strip())


def _expected_got(report: list[str]) -> str | None:
    """The first difference of the ``Expected:`` (or ``Expected nothing``) and ``Got:`` blocks
    that ``report`` shows as doctest does, or None where it shows none."""
    at = next((at for at, ln in enumerate(report) if ln in ("Expected:", "Expected nothing")), None)
    if at is None:
        return None
    expected, got = ([ln.replace("<BLANKLINE>", "") for ln in side] for side in _doctest_sides(report[at:]))
    return _diff_observation([ln for ln in difflib.ndiff(expected, got) if not ln.startswith("? ")], "+", "-")


def _failed_clause(first: str, lines: list[str]) -> list[str] | None:
    """The lines of pytest's ``assert (a == b and c == d)`` (``first``, then ``lines[1:]``) as those of
    the clause that failed, the last it shows (plac 1.4.7), or None: not an ``and`` in parentheses
    (``assert (a != b) is False``), or an ``or``, whose clauses all failed."""
    closed = next((at for at, _, depth in _unquoted(first) if at > 7 and depth == 0), len(first) - 1)
    if not (first.startswith("assert (") and closed == len(first) - 1 and lines[-1].rstrip().endswith(")")):
        return None
    inner = "\n".join([first[len("assert ("):], *lines[1:]]).rstrip()[:-1]
    head = inner.splitlines()[0]
    if _unequal(head, " or "):
        return None
    ands = [at + 5 for at, _, depth in _unquoted(head) if depth == 0 and head.startswith(" and ", at)]
    return [ln for ln in f"assert {inner[max(ands, default=0):]}".splitlines() if ln.strip()]


def _labelled(first: str, lines: list[str]) -> str | None:
    """The observation of a check whose own message labels both values (parsedatetime 2.6: "Result
    does not match target value", then ``Result:`` and ``Expected:``, each value on the lines below
    up to an empty line; or ``output:``, maybe empty): what the result is and what was expected, and
    the message's first line (``first``) where it is not a label; or None."""
    found, lines = {}, [first, *lines[1:]]
    for at, line in enumerate(lines):
        if not (label := _VALUE_LABEL.match(line)):
            continue
        below = itertools.takewhile(lambda ln: ln.strip() and not _VALUE_LABEL.match(ln), lines[at + 1:])
        value = label.group(2).strip() or " ".join(ln.strip() for ln in below)
        found.setdefault("expected" if label.group(1).lower() in _EXPECTED_LABELS else "actual", value)
    if "actual" not in found or not found.get("expected"):
        return None
    actual, expected = (cut_at_token(found[side], 300) for side in ("actual", "expected"))
    # an empty result (plac 1.4.7's "input: .clear", "output: ", "expected: cleared the shelve")
    said = _result(actual, expected) if actual else f"a result is empty where `{expected}` is expected."
    if _VALUE_LABEL.match(first):
        return said
    return f"{said[:-1]} (the check's message: `{cut_at_token(first, 300)}`)."


def _pprinted_unequal(first: str, lines: list[str]) -> tuple[str, list[str]] | None:
    """unittest's ``A != B`` whose ``A`` printed over lines (mock 5.1.0's call lists print with
    pprint: "the check reports `[call.foo(1),`"), ``first`` its first line: as one line, and the
    ``lines`` after it; or None."""
    if " != " in first or first.startswith("assert "):  # pytest's explanation is not a value's print
        return None
    end = next((n for n, line in enumerate(lines[1:], 1) if not line.startswith(" ") or " != " in line), 0)
    if not end or not lines[end].startswith(" ") or " != " not in lines[end]:
        return None
    return " ".join([first, *(line.strip() for line in lines[1:end + 1])]), [lines[0], *lines[end + 1:]]


def _first_differing_item(first: str, lines: list[str]) -> tuple[str, str, str, str] | None:
    """What unittest's report of two sequences (``first``: ``Lists differ: …``) says on the ``lines``
    below it of their first differing item: the kind of sequence, the item's index and its two
    printed sides, or None."""
    kind = _UNITTEST_SEQUENCES.match(first)
    at = next((n for n, line in enumerate(lines) if _UNITTEST_ITEM.match(line.strip())), None)
    if not kind or at is None or len(lines) < at + 3:
        return None
    index = _UNITTEST_ITEM.match(lines[at].strip()).group(1)
    return kind.group(1), index, lines[at + 1].strip(), lines[at + 2].strip()


def _alike(first: str, lines: list[str]) -> str | None:
    """The observation of unittest's ``A != B`` (``first``) whose sides print alike, once objects'
    addresses are left out (unidiff 0.7.5: a mutated ``__eq__`` of ``<Line: +Sample line>``), or None;
    of two sequences, their first differing item, shown on the ``lines`` below (dnspython 2.7.0:
    "the check reports `Tuples differ: (1, <dns.immutable.Dict object>) != (1, <dns.immutable.Dict
    object>)`")."""
    if item := _first_differing_item(first, lines):
        kind, index, one, other = item
        if (shown := _printed_alike(one, other)) is None:
            return None
        return (f"the check reports `{kind}`: their first differing item ({index}) differs, though "
                f"both print as `{cut_at_token(shown, 300)}`.")
    sides = _unequal(first)
    if not sides or (shown := _printed_alike(*sides)) is None:
        return None
    return f"the check reports two values that differ, though both print as `{cut_at_token(shown, 300)}`."


def _not_unequal(first: str) -> str | None:
    """The observation of unittest's ``assertNotEqual`` report ``A == B`` (``first``) whose sides print
    the same (odfpy 1.4.1: "the check reports `-1 == -1`" for ``assertNotEqual(-1, text.find(…))``),
    or None."""
    sides = _unequal(first, " == ")
    if not sides or sides[0] != sides[1]:
        return None
    return f"a result is `{cut_at_token(sides[0], 300)}`, a value it is expected not to be."


def _unittest_sets(lines: list[str]) -> str | None:
    """The observation of unittest's ``assertSetEqual`` report (``lines``: ``Items in the first set
    but not the second:``, an item a line, and the same for the second set; the items sorted), or
    None (beniget 0.5.0: "the check reports `Items in the first set but not the second:`")."""
    found, side = {}, None
    for line in lines:
        if match := _UNITTEST_SET.match(line.strip()):
            side = found.setdefault(match.group(1), [])
        elif side is not None:
            side.append(f"`{cut_at_token(line.strip(), 100)}`")
    if not found:
        return None
    shown = [f"{', '.join(sorted(items)[:5])}{f' and {len(items) - 5} more' * (len(items) > 5)}"
             f" only in the {name}" for name, items in found.items()]
    return f"the check reports two sets that differ: {'; '.join(shown)}."


def _unittest_cut(first: str, lines: list[str]) -> str | None:
    """The observation of a unittest comparison (``first``) whose values it cut short
    (``[13 chars]``): the first differing item of a sequence, else the first lines of its diff
    that differ (unittest's ``-`` and ``+`` sides are its two arguments, whichever is the
    expected one), or None."""
    if not _UNITTEST_CUT.search(first):
        return None
    if item := _first_differing_item(first, lines):
        kind, index, one, other = item
        return (f"the check reports `{kind}`: their first differing item ({index}) is "
                f"`{cut_at_token(one, 300)}` on one side and `{cut_at_token(other, 300)}` on the other.")
    kind = _UNITTEST_SEQUENCES.match(first)
    extra = _UNITTEST_EXTRA.search("\n".join(line.strip() for line in lines))
    if kind and extra:
        which, sequence, count, index, item = extra.groups()
        return (f"the check reports `{kind.group(1)}`: the {which.lower()} {sequence} has {count} more "
                f"item{'s' * (count != '1')} than the other, from item {index}: `{cut_at_token(item, 300)}`.")
    changed = [ln for ln in lines[1:] if ln.startswith(("- ", "+ "))]
    if not changed:
        return _cut_sides(first)
    if (dicts := _diffed_dicts(lines[1:])) and (where := _dict_difference(*dicts)):
        return "the check reports two dicts that differ at `{}`: {} in one, {} in the other.".format(*where)
    if len(changed) < 2 or changed[1][0] == changed[0][0]:
        return f"the check reports two values that differ, first in {_line(changed[0][2:])} on one side only."
    one, other = (line[2:] for line in changed[:2])
    if one.strip() == other.strip():  # they differ in spacing only (odfpy 1.4.1: ' * Item A', '  * Item A')
        one, other = (f"`{cut_at_token(repr(side), 300)}`" for side in (one, other))
    else:
        one, other = _line(one), _line(other)
    return f"the check reports two values that differ, first in {one} on one side and {other} on the other."


def _cut_sides(first: str) -> str | None:
    """The observation of unittest's one line ``A != B`` it cut short and shows no diff for ("Diff is
    1664 characters long"): from the word where the two prints part on (jsonmerge 1.9.2:
    "the check reports `{'pro[159 chars]e': 'string', …} != {'pro[159 chars]e': 'array', …}`"), or None."""
    sides = first.split(" != ")
    if len(sides) != 2:
        return None
    at = len(os.path.commonprefix(sides))
    start = sides[0].rfind(" ", max(0, at - 20), at) + 1 or max(0, at - 8)  # from the word they part in,
    # not from inside a ``[127 chars]`` of unittest's (colander 2.0: "first in `…chars]a.seq': …`")
    start = next((cut.end() for cut in _UNITTEST_CUT.finditer(sides[0])
                  if cut.start() < start < cut.end()), start)
    one, other = (f"`{'…' * bool(start)}{cut_at_token(side[start:], 80)}`" for side in sides)
    return f"the check reports two values that differ, first in {one} on one side and {other} on the other."


def _diffed_dicts(lines: list[str]) -> tuple[dict, dict] | None:
    """The two dicts of unittest's diff ``lines`` (each side: its own lines and the lines both
    share), when both read as Python literals; else None."""
    sides = []
    for sign in "-+":
        text = " ".join(ln[2:] for ln in lines if ln.startswith((f"{sign} ", "  ")))
        try:
            sides.append(ast.literal_eval(text))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return tuple(sides) if all(isinstance(side, dict) for side in sides) else None


def _dict_difference(one: dict, other: dict, path: str = "") -> tuple[str, str, str] | None:
    """``(where, one's value, other's value)`` of the first key (in print order) at which two
    dicts differ, inside nested dicts; a side without the key holds "nothing"."""
    for key in [*one, *(key for key in other if key not in one)]:
        where, mine, theirs = f"{path}[{key!r}]", one.get(key, _ABSENT), other.get(key, _ABSENT)
        if isinstance(mine, dict) and isinstance(theirs, dict) and mine != theirs:
            return _dict_difference(mine, theirs, where)
        if mine != theirs:
            return where, *(f"`{cut_at_token(repr(v), 300)}`" if v is not _ABSENT else "nothing"
                             for v in (mine, theirs))
    return None


_ABSENT = object()


def _printable(text: str) -> str:
    """``text`` with its control characters (other than newline and tab) written as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def observations(failures: dict, fail_to_pass: list[str], forbidden, repo: Path) -> list[tuple]:
    """Distinct ``(repro, observation, exception)`` triples of the failing tests, cleaned of
    ``forbidden`` strings, at most ``MAX_OBSERVATIONS``."""
    found, seen = [], set()
    for nodeid in sorted(fail_to_pass):
        failure = failures.get(nodeid)
        if not failure:
            continue
        key = _observation(nodeid, failure, failure.get("message", ""), repo, forbidden)
        if "message_again" in failure:  # the recheck's run of the same mutant said something else
            again = _observation(nodeid, failure, failure["message_again"], repo, forbidden)
            said = _words_both_said(failure.get("message", ""), failure["message_again"])
            if said and _names_the_runs_folder(said, repo.parent):
                said = None
            key = _steady(key, again, said and _clean(_printable(said), forbidden))
        if key in seen or not any(key):
            continue
        seen.add(key)
        found.append(key)
        if len(found) == MAX_OBSERVATIONS:
            break
    return found


def _observation(nodeid: str, failure: dict, message: str, repo: Path, forbidden) -> tuple:
    """``(repro, observation, exception)`` of one failing test that said ``message``, cleaned of
    ``forbidden`` strings."""
    if doctest := _doctest(message, repo / nodeid.partition("::")[0]):
        repro, observation, exception = doctest
    else:
        repro = _repro_line(nodeid, failure, repo, forbidden)
        observation, exception = _symptom(message, nodeid.partition("::")[0], failure.get("trace") or (),
                                          _expected_first(repro))
        if failure.get("phase") == "collect" and observation == _PROPERTY:  # no test's check ran yet:
            observation, exception = None, "AssertionError"  # the import raised it (icontract 2.7.3)
        elif observation and _asserts_a_constant(repo, failure.get("trace") or ()):
            observation = _PROPERTY  # ``assert False`` after a helper's own comparison: no value to show
    if _names_the_runs_folder(observation or "", repo.parent):
        observation = None
    if _names_the_runs_folder(exception or "", repo.parent):
        exception = exception.partition(":")[0]
    exception = exception and cut_at_token(exception, 300)  # responses 0.25.3 raised 2,000 characters
    return tuple(_clean(_without_addresses(_printable(text)), forbidden) if text else None
                 for text in (repro, observation, exception))


_ABSOLUTE_PATH = re.compile(r"/[\w.+-]+(?:/[\w.+-]+){2,}")


def _names_the_runs_folder(text: str, folder: Path) -> bool:
    """Whether ``text`` names the folder the runs were made in or a path in it, whole or cut
    short: a path of this machine tells a reader nothing (pkginfo 2.0 imports a path as a module
    name when a mutant drops its check, and Python cut it at the first dot: "No module named
    '/tmp/out/pkginfo-2'")."""
    folder = str(folder)
    return any(folder.startswith(path) or path.startswith(folder) for path in _ABSOLUTE_PATH.findall(text)) \
        or any(_shortened_path_in(folder, head, int(n), tail) for head, n, tail in _SHORTENED.findall(text))


# unittest's shortened repr of a long string: ``'/tmp[23 chars]n-5.1/work/jobs/…'``
_SHORTENED = re.compile(r"([\w.+/-]*)\[(\d+) chars\]([\w.+/-]*)")


def _shortened_path_in(folder: str, head: str, count: int, tail: str) -> bool:
    """Whether ``head``, ``count`` characters left out, then ``tail`` may be a path in ``folder``
    (transaction 5.1's tests compare warnings' file names, and unittest cut them to
    ``'/tmp[23 chars]n-5.1/work/jobs/warm-2/src/…'``): the head starts the folder and the
    tail goes on where it ends, or the tail starts with the folder's last parts."""
    rest = folder[len(head) + count:]
    if head.startswith("/") and folder.startswith(head) and (tail.startswith(rest) or rest.startswith(tail)):
        return True
    ends = [i for i, char in enumerate(tail) if char == "/"] + [len(tail)]
    return tail.find("/") > 0 and any(folder.endswith(tail[:i]) for i in ends[1:])


def _words_both_said(message: str, again: str) -> str | None:
    """What both runs' unittest reports said besides their values, as an observation's start: the
    check's own words after the values (odfpy 1.4.1: ``-1 != 1093 : Must use the original generator
    string``, 1093 another number in the other run), else the kind of sequences both compared
    (jsondiff 2.2.1: Hypothesis found another falsifying example each run, both ``Tuples differ``);
    or None."""
    firsts = [text.partition("\n")[0] for text in (message, again)]
    ends = {first.rpartition(" : ")[2].strip() for first in firsts}
    if all(" : " in first for first in firsts) and len(ends) == 1 and "" not in ends:
        return f"the check fails with the message `{cut_at_token(ends.pop(), 300)}`"
    kinds = {(kind := _UNITTEST_SEQUENCES.match(first.removeprefix("AssertionError: "))) and kind.group(1)
             for first in firsts}
    return f"the check reports `{kinds.pop()}`" if len(kinds) == 1 and None not in kinds else None


def _steady(first: tuple, again: tuple, said: str | None = None) -> tuple:
    """What two runs of the same failing test (``(repro, observation, exception)`` each) both
    said: a value that differs between them (a test of random input: pylru 1.3.3 checks its cache
    against random operations) is no observation a reader could reproduce, though what else both
    runs ``said`` is; an exception's message that differs leaves its type."""
    repro, observation, exception = first
    if observation != again[1]:
        observation = f"{said}, and the values it reports differ from run to run." if said else _VARYING
    if exception != again[2] and exception:
        exception = exception.partition(":")[0]
    return repro, observation, exception


def _code(text: str) -> str:
    """``text`` as Markdown's inline code: between one backtick more than its longest run of them
    (pymemcache 4.0.0 raised "… was present in both `retry_for` and `do_not_retry_for` …")."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if len(fence) > 1 else f"`{text}`"


def _observed(number: int, module: str, repro, observation, exception) -> list[str]:
    """The lines of one numbered observation."""
    if not repro:
        if observation:
            return [f"{number}. Observed: {observation}", ""]
        return [f"{number}. Calling into `{module}` raises {_code(exception)}.", ""]
    shown = "\n".join("   " + ln for ln in repro.splitlines())
    lines = [f"{number}. This check fails:", "", "   ```python", shown, "   ```", ""]
    if observation:
        lines.append(f"   Observed: {observation}")
    elif exception:
        lines.append(f"   It raises {_code(exception)}.")
    return [*lines, ""]


def write_issue(module: str, failures: dict, fail_to_pass: list[str], all_tests: list[str], diff: str,
                repo: Path) -> str:
    """The issue text for one task (Markdown), deterministic for the same inputs."""
    # and the folder the runs were made in (``repo``'s): a path of this machine means nothing to a reader
    forbidden = [*forbidden_strings(sorted(set(all_tests) | set(fail_to_pass)), diff), str(repo.parent)]
    seen = observations(failures, fail_to_pass, forbidden, repo)
    parts = [f"# Unexpected behaviour in `{module}`", "",
             f"Code that uses `{module}` no longer gets the results it used to. "
             "Here is what I observe:", ""]
    if not seen:
        parts += [f"- Several documented behaviours of `{module}` now give different results or errors.",
                  ""]  # a paragraph of its own: the line after it is not part of the item
    for number, key in enumerate(seen, 1):
        parts += _observed(number, module, *key)
    parts += ["Expected: these calls behave as they did before and as the module documents.", ""]
    return "\n".join(parts)
