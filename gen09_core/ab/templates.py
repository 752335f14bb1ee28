"""Repair templates: single-token rewrites that undo common procedural mutation kinds.

This is NOT a model. It is a deterministic stand-in that lets the A/B harness run end to end
on a CPU with no network; results it produces are labelled as a harness demonstration and are
never reported as a model's.
"""

from __future__ import annotations

import io
import tokenize

SWAPS = {
    "<": ("<=", ">=", ">"), ">": (">=", "<=", "<"), "<=": ("<", ">", ">="), ">=": (">", "<", "<="),
    "==": ("!=",), "!=": ("==",), "+": ("-",), "-": ("+",), "*": ("/", "//"), "/": ("*", "//"),
    "//": ("/", "*"), "%": ("//",), "and": ("or",), "or": ("and",), "is": ("is not",),
    "True": ("False",), "False": ("True",), "+=": ("-=",), "-=": ("+=",),
}


def variants(code: str) -> list[tuple[str, str]]:
    """Candidate ``(search, replace)`` line rewrites of ``code``, most plausible first: one
    operator or constant changed per candidate, the search block being the whole line."""
    lines = code.splitlines(keepends=True)
    found: list[tuple[int, str, str]] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    for tok in tokens:
        row, col = tok.start
        if row > len(lines) or tok.start[0] != tok.end[0]:
            continue
        line = lines[row - 1]
        before, after = line[:col], line[tok.end[1]:]
        if tok.string == "is" and after.lstrip().startswith("not "):
            continue  # "is not" is undone by dropping the "not" (below)
        if tok.type in (tokenize.OP, tokenize.NAME) and tok.string in SWAPS:
            rank = 0 if tok.type == tokenize.OP else 1
            for alt in SWAPS[tok.string]:
                found.append((rank, line, before + alt + after))
        elif tok.type == tokenize.NUMBER and tok.string.isdigit():
            value = int(tok.string)
            for alt in (value + 1, value - 1):
                if alt >= 0:
                    found.append((2, line, before + str(alt) + after))
        elif tok.type == tokenize.NAME and tok.string == "not":
            found.append((1, line, before + after.lstrip()))
    found.sort(key=lambda item: item[0])
    seen, result = set(), []
    for _, search, replace in found:
        if (search, replace) not in seen and lines.count(search) == 1:
            seen.add((search, replace))
            result.append((search, replace))
    return result
