"""Repair templates: single-token rewrites that undo common procedural mutation kinds.

This is NOT a model. It is a deterministic stand-in that lets the A/B harness run end to end
on a CPU with no network; results it produces are labelled as a harness demonstration and are
never reported as a model's.
"""

from __future__ import annotations

import io
import tokenize

KINDS = {  # repair kind of each token the templates rewrite
    "comparison": ("<", ">", "<=", ">=", "==", "!=", "is"),
    "arithmetic": ("+", "-", "*", "/", "//", "%", "+=", "-="),
    "logic": ("and", "or", "not"),
    "boolean": ("True", "False"),
}
_KIND_OF = {tok: kind for kind, toks in KINDS.items() for tok in toks}
SWAPS = {
    "<": ("<=", ">=", ">"), ">": (">=", "<=", "<"), "<=": ("<", ">", ">="), ">=": (">", "<", "<="),
    "==": ("!=",), "!=": ("==",), "+": ("-",), "-": ("+",), "*": ("/", "//"), "/": ("*", "//"),
    "//": ("/", "*"), "%": ("//",), "and": ("or",), "or": ("and",), "is": ("is not",),
    "True": ("False",), "False": ("True",), "+=": ("-=",), "-=": ("+=",),
}


def variants(code: str) -> list[tuple[str, str]]:
    """Candidate ``(search, replace)`` line rewrites of ``code``: one operator, boolean or
    constant changed per candidate, the search block being the whole line. The order
    spreads over the repair kinds (comparison, arithmetic, logic, boolean, constant): the
    first candidates are each kind's most plausible rewrite, then each kind's second, and
    so on, so N candidates reach N kinds before spending two on one."""
    lines = code.splitlines(keepends=True)
    by_kind: dict[str, list[tuple[str, str]]] = {kind: [] for kind in (*KINDS, "constant")}
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
            for alt in SWAPS[tok.string]:
                by_kind[_KIND_OF[tok.string]].append((line, before + alt + after))
        elif tok.type == tokenize.NUMBER and tok.string.isdigit():
            value = int(tok.string)
            for alt in (value + 1, value - 1):
                if alt >= 0:
                    by_kind["constant"].append((line, before + str(alt) + after))
        elif tok.type == tokenize.NAME and tok.string == "not":
            by_kind["logic"].append((line, before + after.lstrip()))
    seen, result = set(), []
    for rank in range(max(len(found) for found in by_kind.values())):
        for found in by_kind.values():
            if rank < len(found):
                pair = found[rank]
                if pair not in seen and lines.count(pair[0]) == 1:
                    seen.add(pair)
                    result.append(pair)
    return result
