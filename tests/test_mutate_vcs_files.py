"""A repository that holds a VCS *file* (a git submodule's ``.git`` link, as tomlkit 0.13.2's
sdist ships in ``tests/toml-test/``) is read without it: no learner snapshot carries it, so
the leak scan does not refuse every bundle."""

import json
import shutil

from gen09_core.mutate.config import source_files
from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy


def test_a_submodule_git_file_is_not_source(tmp_path):
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / "data").mkdir()
    (repo / "tests" / "data" / ".git").write_text("gitdir: ../../.git/modules/tests/data\n")
    (repo / "tests" / "data" / "case.txt").write_text("kept\n")
    files = source_files(repo)
    assert "tests/data/case.txt" in files and not [f for f in files if f.endswith(".git")]
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=6)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["outcomes"]["export_failed"] == 0 and summary["outcomes"]["exported"] > 0, summary["outcomes"]
    for bundle in (out / "tasks").iterdir():
        assert (bundle / "environment" / "repo" / "tests" / "data" / "case.txt").exists()
        assert not (bundle / "environment" / "repo" / "tests" / "data" / ".git").exists()
