"""Hook implementations of the Python pack (registered as entry point ``python``)."""

from __future__ import annotations

import ast
import functools
import io
import re
import sys
import tokenize
import warnings

from gen09_core import hookimpl
from gen09_core.models import Entity, Finding, Language, Span
from gen09_python import pieces

LANGUAGE = "python"


@hookimpl
def gen09_languages():
    """Python source files."""
    return [Language(LANGUAGE, (".py", ".pyi"))]


@hookimpl
def gen09_parse(language, path, text, original):
    """Compile (not just parse): ``return`` outside a function and other compile-time
    errors reject too. The message carries no line number, so it compares across edits.
    With the ``original``, only the changed class-body or top-level statements are compiled
    when that decides for the whole file, else the file from the changed statements on
    (``gen09_python.pieces``)."""
    if language != LANGUAGE:
        return None
    if original is None:
        return list(_compile_problems(path, text))
    if pieces.class_chunk(original, text) or pieces.chunk(original, text) is not None:
        return []
    rest = pieces.rest(original, text)
    if rest is not None and not _compile_problems(path, original):
        return list(_compile_problems(path, *rest))
    return list(_compile_problems(path, text))


@functools.lru_cache(maxsize=16)
def _compile_problems(path: str, text: str, flags: int = 0) -> tuple[Finding, ...]:
    """The compile error of ``text`` (none or one) under ``__future__`` ``flags``; cached by
    content, so the original of a batch's broken candidates, which the gate checks again
    each call, compiles once."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escapes: warnings never reject
            compile(text, path, "exec", flags, dont_inherit=True)
    except SyntaxError as exc:
        return (Finding("syntax", exc.msg, exc.lineno or 0),)
    except ValueError as exc:  # e.g. NUL bytes
        return (Finding("syntax", str(exc), 0),)
    return ()


@hookimpl
def gen09_lint(language, sources, select):
    """Ruff, one process for the whole batch."""
    if language != LANGUAGE:
        return None
    from gen09_python.lint import ruff_findings

    return ruff_findings(sources, select)


NAME_RULES = frozenset({"F401", "F821"})  # decided by which names are bound and used where


@hookimpl
def gen09_lint_unchanged(language, path, text, original, select):
    """True when only name rules are selected (unused import, undefined name) and the edit
    changes no name, binding or string, only operators and constants
    (``pieces.same_names``): ruff would report the original's findings again."""
    if language != LANGUAGE:
        return None
    return set(select) <= NAME_RULES and pieces.same_names(original, text)


@hookimpl
def gen09_normalize(language, text, original):
    """Remove comments (a ``#`` inside a string stays); with the ``original``, only the
    changed top-level statements are scanned."""
    if language != LANGUAGE:
        return None
    return strip_comments(text) if original is None else pieces.normalize(original, text, strip_comments)


@hookimpl
def gen09_entities(language, path, text):
    """Functions, methods and classes with their decorators, named ``Class.method``."""
    if language != LANGUAGE:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return list(_walk(tree.body, ""))


@hookimpl
def gen09_mutators(language):
    """The procedural mutators (libcst transformers, imported lazily)."""
    if language != LANGUAGE:
        return None
    from gen09_python.mutators import MUTATORS

    return list(MUTATORS)


# A string literal (any prefix, single or triple quoted) or a comment. Scanned left to right,
# so a "#" inside a string is part of the string. Exact for every Python before 3.12; from
# 3.12 an f-string may nest its own quote character (PEP 701), so there the tokenizer decides.
_STRING_OR_COMMENT = re.compile(
    r"""(?P<string>[rRbBuUfF]{0,2}(?:'{3}(?:\\.|[^\\])*?'{3}|"{3}(?:\\.|[^\\])*?"{3}"""
    r"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))|(?P<comment>\#[^\r\n]*)""",
    re.S,
)


def strip_comments(text: str) -> str:
    """``text`` with every comment cut out (a ``#`` inside a string stays); text that does
    not tokenize comes back unchanged."""
    if "#" not in text:
        return text
    if sys.version_info < (3, 12):
        return _STRING_OR_COMMENT.sub(lambda m: m.group("string") or "", text)
    lines = text.split("\n")
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                line = lines[row - 1]
                lines[row - 1] = line[:col] + line[tok.end[1]:]
    except (tokenize.TokenError, SyntaxError):
        return text
    return "\n".join(lines)


def _walk(body, prefix, in_class=False):
    for node in body:
        if isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind = "method" if in_class else "function"
        else:
            continue
        name = prefix + node.name
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        yield Entity(name, kind, Span(start, node.end_lineno))
        if kind == "class":
            yield from _walk(node.body, name + ".", in_class=True)
