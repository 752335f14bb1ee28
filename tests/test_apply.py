import os

import pytest

from gen09_core.apply import apply_candidate
from gen09_core.models import Applied, Candidate, Edit, Rejection, Span, Target
from gen09_core.repo import Snapshot


def run(registry, repo, *edits, target=None):
    return apply_candidate(registry, Snapshot(repo), Candidate("c", tuple(edits)), target)


def reason(result):
    assert isinstance(result, Rejection), result
    return result.reason


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n")
    return tmp_path


def test_unique_match_is_replaced(registry, repo):
    result = run(registry, repo, Edit("m.py", "def g():\n    x = 1", "def g():\n    x = 2"))
    assert isinstance(result, Applied)
    assert result.files[0].new_text.endswith("def g():\n    x = 2\n    return x\n")


def test_zero_matches_is_no_match_with_a_hint(registry, repo):
    result = run(registry, repo, Edit("m.py", "def g():\n  x = 1", "y"))
    assert reason(result) == "no_match"
    assert "line 6" in result.detail


def test_two_matches_is_ambiguous(registry, repo):
    result = run(registry, repo, Edit("m.py", "x = 1", "x = 2"))
    assert reason(result) == "ambiguous_match"
    assert "lines 2, 7" in result.detail


def test_overlapping_occurrences_count_as_ambiguous(registry, tmp_path):
    (tmp_path / "a.txt").write_text("aaa\n")
    assert reason(run(registry, tmp_path, Edit("a.txt", "aa", "b"))) == "ambiguous_match"


def test_span_makes_a_repeated_block_unique(registry, repo):
    result = run(registry, repo, Edit("m.py", "x = 1", "x = 2"), target=Target("m.py", Span(6, 8)))
    assert isinstance(result, Applied)
    assert result.files[0].new_text.count("x = 2") == 1
    assert result.files[0].new_text.index("x = 2") > result.files[0].new_text.index("def g")


def test_match_only_outside_the_span_is_outside_span(registry, repo):
    result = run(registry, repo, Edit("m.py", "def f():", "def h():"), target=Target("m.py", Span(6, 8)))
    assert reason(result) == "outside_span"
    assert "line 1" in result.detail


def test_overlapping_edits_are_rejected(registry, repo):
    result = run(registry, repo, Edit("m.py", "def f():\n    x", "a"), Edit("m.py", "x = 1\n    return x\n\n\ndef g", "b"))
    assert reason(result) == "overlapping_edits"


def test_whole_file_with_another_edit_of_that_file_is_overlapping(registry, repo):
    assert reason(run(registry, repo, Edit("m.py", content="x = 1\n"), Edit("m.py", "def f", "def h"))) == "overlapping_edits"


def test_empty_search_is_rejected(registry, repo):
    assert reason(run(registry, repo, Edit("m.py", "", "x"))) == "empty_search"


def test_a_candidate_that_changes_nothing(registry, repo):
    assert reason(run(registry, repo, Edit("m.py", "def g", "def g"))) == "no_change"


def test_missing_file(registry, repo):
    assert reason(run(registry, repo, Edit("nope.py", "a", "b"))) == "file_missing"


def test_whole_file_may_create_a_new_file(registry, repo):
    result = run(registry, repo, Edit("pkg/new.py", content="X = 1\n"))
    assert result.files[0].original is None and result.files[0].new_bytes() == b"X = 1\n"


def test_multi_edit_multi_file(registry, repo):
    (repo / "n.py").write_text("A = 1\n")
    result = run(registry, repo, Edit("m.py", "def f", "def f1"), Edit("m.py", "def g", "def g1"),
                 Edit("n.py", "A = 1", "A = 2"))
    assert [f.path for f in result.files] == ["m.py", "n.py"]
    assert "def f1" in result.files[0].new_text and "def g1" in result.files[0].new_text


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "a/../../x.py", "link/x.py"])
def test_paths_outside_the_repo(registry, repo, tmp_path_factory, path):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.py").write_text("A = 1\n")
    os.symlink(outside, repo / "link")
    assert reason(run(registry, repo, Edit(path, "A = 1", "A = 2"))) == "path_outside_repo"


def test_binary_and_undecodable_files(registry, repo):
    (repo / "b.bin").write_bytes(b"\x00\x01abc")
    (repo / "l.py").write_bytes("café = 1\n".encode("latin-1"))
    assert reason(run(registry, repo, Edit("b.bin", "abc", "x"))) == "not_text"
    assert reason(run(registry, repo, Edit("l.py", "1", "2"))) == "not_text"


def test_crlf_bom_and_missing_final_newline_are_preserved(registry, tmp_path):
    raw = b"\xef\xbb\xbfa = 1\r\nb = 2\r\nc = 3"
    (tmp_path / "w.py").write_bytes(raw)
    result = run(registry, tmp_path, Edit("w.py", "a = 1\nb = 2\n", "a = 1\nb = 20\n"))
    assert result.files[0].new_bytes() == b"\xef\xbb\xbfa = 1\r\nb = 20\r\nc = 3"


def test_same_candidate_same_result(registry, repo):
    edits = (Edit("m.py", "def f", "def h"),)
    first = run(registry, repo, *edits)
    assert all(run(registry, repo, *edits) == first for _ in range(3))
    assert reason(run(registry, repo, Edit("m.py", "x = 1", "y"))) == reason(run(registry, repo, Edit("m.py", "x = 1", "y")))


def test_tolerant_tier_is_opt_in_and_recorded(registry, repo):
    slipped = Edit("m.py", "  x = 1   \n  return x\n", "  x = 2\n  return x\n")
    target = Target("m.py", Span(6, 8))
    assert reason(run(registry, repo, slipped, target=target)) == "no_match"
    result = apply_candidate(registry, Snapshot(repo), Candidate("c", (slipped,)), target, tolerant=True)
    assert result.tiers == ("tolerant",) and result.match_tier == "tolerant"
    assert result.files[0].new_text.endswith("def g():\n    x = 2\n    return x\n")


def test_tolerant_tier_shifts_indentation_left_and_still_needs_a_unique_match(registry, repo):
    over_indented = Edit("m.py", "        x = 1\n        return x\n", "        x = 3\n        return x\n")
    result = apply_candidate(registry, Snapshot(repo), Candidate("c", (over_indented,)), None, tolerant=True)
    assert reason(result) == "ambiguous_match" and "tolerant" in result.detail
    result = apply_candidate(registry, Snapshot(repo), Candidate("c", (over_indented,)),
                             Target("m.py", Span(1, 3)), tolerant=True)
    assert result.files[0].new_text.startswith("def f():\n    x = 3\n    return x\n\n\ndef g():\n    x = 1\n")


def test_tolerant_tier_never_ignores_other_differences(registry, repo):
    edit = Edit("m.py", "def g():\n  x = 1\n  return  x\n", "pass\n")
    result = apply_candidate(registry, Snapshot(repo), Candidate("c", (edit,)), None, tolerant=True)
    assert reason(result) == "no_match"
    exact = apply_candidate(registry, Snapshot(repo), Candidate("c", (Edit("m.py", "def f", "def h"),)), None, tolerant=True)
    assert exact.tiers == ("exact",)


def test_a_batch_built_in_code_with_repeated_ids_is_refused(registry, repo):
    from gen09_core.errors import BadInput
    from gen09_core.models import CandidateBatch
    from gen09_core.pipeline import run_batch

    twice = Candidate("c", (Edit("m.py", "def f", "def h"),))
    with pytest.raises(BadInput, match="unique"):
        run_batch(CandidateBatch((twice, twice)), repo, registry)


def test_a_new_file_under_an_existing_file_is_rejected(registry, repo):
    result = run(registry, repo, Edit("m.py/new.py", content="X = 1\n"))
    assert reason(result) == "parent_not_directory" and "m.py" in result.detail
    assert reason(run(registry, repo, Edit("m.py/a/b.py", content="X = 1\n"))) == "parent_not_directory"


def test_one_file_reached_through_a_symlink_and_its_target_is_rejected(registry, repo):
    os.symlink("m.py", repo / "link.py")
    result = run(registry, repo, Edit("m.py", "def f", "def h"), Edit("link.py", "def g", "def k"))
    assert reason(result) == "aliased_file" and "m.py" in result.detail
    through_link = run(registry, repo, Edit("link.py", "def g", "def k"))
    assert [f.path for f in through_link.files] == ["m.py"]  # what --write writes, and the diff names


@pytest.mark.parametrize("path", ["C:/x.py", "c:x.py", "D:\\x.py", ".git/config", "sub/.GIT/hooks/pre-commit",
                                  ".gen09/journal.json"])
def test_drive_paths_and_git_internals_are_outside_the_repo(registry, repo, path):
    assert reason(run(registry, repo, Edit(path, content="x\n"))) == "path_outside_repo"


def test_a_result_over_the_file_limit_is_rejected(registry, repo):
    from gen09_core.repo import MAX_FILE_BYTES

    big = "é" * (MAX_FILE_BYTES // 2 + 1)  # 2 bytes each in UTF-8
    assert reason(run(registry, repo, Edit("m.py", "x = 1\n    return x\n\n\ndef g", big))) == "too_large"
    assert reason(run(registry, repo, Edit("new.txt", content=big))) == "too_large"
    assert isinstance(run(registry, repo, Edit("new.txt", content="é" * (MAX_FILE_BYTES // 2))), Applied)
