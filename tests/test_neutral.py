"""The neutral helpers no stage owns: text, hashing and totals."""

import hashlib

from gen09_core.hashing import sha256_file, sha256_tree, tree_hash
from gen09_core.models import ChangedFile, SourceFile
from gen09_core.text import BOM, common_ends, encode, line_offsets
from gen09_core.totals import known_total


def test_the_bom_aware_encoder_is_the_one_models_use():
    assert encode("x\n") == b"x\n" and encode("x\n", bom=True) == BOM + b"x\n"
    assert SourceFile("a.py", "é\n", bom=True).encode() == encode("é\n", True)
    assert ChangedFile("a.py", None, "y\n", bom=True).new_bytes() == BOM + b"y\n"


def test_line_offsets_and_common_ends():
    assert line_offsets("a\nbb\n") == (0, 2, 5)
    assert line_offsets("a\nb") == (0, 2, 3)
    assert line_offsets("") == (0, 0)
    assert common_ends(["a", "b", "c"], ["a", "x", "c"]) == (1, 1)
    assert common_ends(["a", "a"], ["a"]) == (1, 0)  # never overlapping


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
