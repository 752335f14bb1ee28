"""The neutral helpers no stage owns: text, hashing and totals."""

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from gen09_core.hashing import sha256_file, sha256_tree, tree_hash
from gen09_core.models import ChangedFile, SourceFile
from gen09_core.text import BOM, common_ends, encode, line_count, line_offsets
from gen09_core.totals import known_total


def test_the_bom_aware_encoder_is_the_one_models_use():
    assert encode("x\n") == b"x\n" and encode("x\n", bom=True) == BOM + b"x\n"
    assert SourceFile("a.py", "é\n", bom=True).encode() == encode("é\n", True)
    assert ChangedFile("a.py", None, "y\n", bom=True).new_bytes() == BOM + b"y\n"


def test_line_offsets_and_common_ends():
    assert line_offsets("a\nbb\n") == (0, 2, 5)
    assert line_offsets("a\nb") == (0, 2, 3)
    assert line_offsets("") == (0, 0)
    assert common_ends("a\nb\nc", "a\nx\nc") == (1, 1)
    assert common_ends("a\na\n", "a\n") == (1, 0)  # never overlapping
    assert common_ends("a\nb", "a\nb\n") == (1, 0)  # an unterminated last line is not the same line


def _lines(text):
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _common_ends_line_by_line(old, new):
    head, limit = 0, min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


_TEXT = st.text(alphabet="ab\n\r", max_size=12)


@settings(max_examples=2000, deadline=None)
@given(_TEXT, _TEXT, st.data())
def test_common_ends_on_strings_counts_lines_as_a_line_by_line_comparison_does(old, other, data):
    cut = data.draw(st.integers(0, len(old)))
    new = data.draw(st.sampled_from([other, old[:cut] + other + old[cut:], old[:cut] + other]))
    assert line_count(old) == len(_lines(old))
    assert common_ends(old, new) == _common_ends_line_by_line(_lines(old), _lines(new))


def test_a_folder_digest_is_paths_and_file_digests_in_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "y.txt").write_bytes(b"yy")
    (tmp_path / "x.txt").write_bytes(b"x")
    expected = hashlib.sha256()
    for rel, data in (("b/y.txt", b"yy"), ("x.txt", b"x")):
        expected.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    assert sha256_tree(tmp_path) == "sha256:" + expected.hexdigest()
    assert tree_hash(tmp_path, ["x.txt", "b/y.txt"]).hexdigest() == expected.hexdigest()
    assert sha256_tree(tmp_path, ["x.txt"]) != sha256_tree(tmp_path)
    assert sha256_file(tmp_path / "x.txt") == "sha256:" + hashlib.sha256(b"x").hexdigest()


def test_a_total_with_an_unknown_part_is_unknown():
    assert known_total([1, 2, 3]) == 6
    assert known_total([]) == 0
    assert known_total([1, None, 3]) is None
    assert known_total(iter([0.5, 0.25])) == 0.75
