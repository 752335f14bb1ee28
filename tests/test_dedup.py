from hypothesis import given, settings
from hypothesis import strategies as st

from gen09_core.dedup import collapse_whitespace, dedup, normal_form
from gen09_core.models import Applied, Candidate, ChangedFile


def applied(text, path="m.py"):
    return Applied(Candidate("x", ()), (ChangedFile(path, None, text),))


def test_whitespace_and_comment_differences_collapse(registry):
    a = applied("def f(a, b):\n    return a + b\n")
    b = applied("def f(a,  b):   # adds\n\n        return a + b   \n# trailing comment\n")
    keys = dedup(registry, [("c1", a), ("c2", b)])
    assert keys[0][1] is None and keys[1] == (keys[0][0], "c1")


def test_hash_inside_a_string_is_not_a_comment(registry):
    a = applied('x = "# not a comment"\n')
    b = applied('x = ""\n')
    assert normal_form(registry, a) != normal_form(registry, b)
    assert "# not a comment" in normal_form(registry, a)


def test_distinct_candidates_stay_distinct_and_first_wins(registry):
    items = [("c1", applied("x = 1\n")), ("c2", applied("x = 2\n")), ("c3", applied("x  =  1\n"))]
    keys = dedup(registry, items)
    assert [dup for _, dup in keys] == [None, None, "c1"]


def test_files_without_a_pack_get_whitespace_rules_only():
    assert collapse_whitespace("  a   b \n\n\t c\n") == "a b\nc"


def test_fast_comment_stripper_agrees_with_the_tokenizer():
    import argparse
    import io
    import json.decoder
    import textwrap
    import tokenize

    from gen09_python.pack import strip_comments

    def by_tokenizer(text):
        lines = text.split("\n")
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col] + lines[row - 1][tok.end[1]:]
        return "\n".join(lines)

    for module in (argparse, textwrap, json.decoder, tokenize):
        with open(module.__file__, encoding="utf-8") as handle:
            text = handle.read()
        assert "#" in text
        assert strip_comments(text) == by_tokenizer(text), module.__name__


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(["\n", " ", "\t", "\r", "\x0c", "\u2028", "\x1c", "a", "b"]), max_size=60))
def test_collapsing_by_blocks_is_collapsing_by_lines(text):
    """The per-block (cached) collapse equals its definition, line by line."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    assert collapse_whitespace(text) == "\n".join(filter(None, lines))
