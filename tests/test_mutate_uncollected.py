"""A pristine suite that pytest can only partly collect (pycodestyle 2.12.1's sdist: ten of
its eleven test files import a ``testing`` package the sdist leaves out) still makes tasks
from what runs, and says so: the files are listed in ``summary.json`` and the run warns."""

import json
import shutil

from tests.helpers import MUTATE_FIXTURE, run_gen09


def test_test_files_pytest_cannot_collect_are_listed_and_warned_of(tmp_path):
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    for name in ("check_broken_a.py", "check_broken_b.py"):
        (repo / "tests" / name).write_text("from testing.support import cases\n\n\ndef test_x():\n    pass\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"source": {"repo": str(repo)}, "seeds": {"mutate": 3},
                                  "limits": {"max_mutants": 4, "runner": "fresh"}}))
    out = tmp_path / "run"
    done = run_gen09("mutate", "--config", config, "--out", out, "--json")
    assert done.returncode == 0, done.stderr
    baseline = json.loads(done.stdout)["baseline"]
    assert baseline["uncollected"] == ["tests/check_broken_a.py", "tests/check_broken_b.py"]
    assert baseline["stable"] > 0
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and "could not collect 2 test file(s)" in warning[0], done.stderr
    assert "No module named 'testing'" in warning[0]


def test_a_fully_collected_suite_warns_of_nothing(tmp_path):
    from gen09_core.cli.mutate import uncollected_warning

    assert uncollected_warning({"uncollected": [], "collection_errors": []}) == ""
