"""gen09 verify's warm service (``mutate/verify_warm.py``): every bundle's own test.sh runs,
its pytest run forked from a warm worker; rewards and outcomes must equal a fresh
interpreter's, and whatever the service cannot carry runs fresh with the reason kept."""

import json
import shutil
from pathlib import Path

import pytest

from gen09_core.models import ChangedFile
from gen09_core.mutate.verify import bundle_python, run_trial
from gen09_core.mutate.verify_warm import Handback, WarmVerify, differing_file
from tests.helpers import MUTATE_FIXTURE, run_gen09


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("verify-warm")
    shutil.copytree(MUTATE_FIXTURE, base / "shop")
    done = run_gen09("mutate", base / "shop", "--max-mutants", "8", "--seed", "3", "--workers", "2",
                     "--out", base / "run")
    assert done.returncode == 0, done.stderr
    return base / "run"


def _verify(folder, runner, *extra):
    done = run_gen09("verify", folder, "--json", "--runner", runner, *extra)
    assert done.returncode in (0, 1), done.stderr
    return {**json.loads(done.stdout), "stderr": done.stderr}


def _rewards(report):
    return {Path(b["bundle"]).name: (b["nop"], b["oracle"], b["hash_ok"]) for b in report["bundles"]}


def _trials(report):
    return {Path(b["bundle"]).name: b["runners"] for b in report["bundles"]}


def test_warm_verify_gives_every_bundle_the_rewards_of_fresh_processes(run):
    warm, fresh = _verify(run, "warm"), _verify(run, "fresh")
    assert warm["total"] == fresh["total"] >= 3
    assert _rewards(warm) == _rewards(fresh)
    assert warm["ok"] == warm["total"]
    # the fixture's mutants change function bodies and a method: every run is carried warm
    assert set(_trials(warm).values()) == {"nop warm; oracle warm"}
    assert set(_trials(fresh).values()) == {"nop fresh; oracle fresh"}
    runs = 2 * warm["total"]
    assert f"{runs} of {runs} pytest runs warm" in warm["stderr"]
    assert f"0 of {runs} pytest runs warm" in fresh["stderr"]


def test_a_folder_that_differs_in_more_than_one_file_runs_fresh_with_the_reason(run, tmp_path):
    first, second = sorted((run / "tasks").iterdir())[:2]
    shutil.copytree(first, tmp_path / "tasks" / f"a-{first.name}")
    tampered = tmp_path / "tasks" / f"b-{second.name}"  # verified after the worker started on the first
    shutil.copytree(second, tampered)
    (tampered / "environment" / "repo" / "notes.txt").write_text("not in the worker's copy\n")
    warm, fresh = _verify(tmp_path, "warm", "--workers", "1"), _verify(tmp_path, "fresh", "--workers", "1")
    assert _rewards(warm) == _rewards(fresh)
    trials = _trials(warm)
    assert trials[f"a-{first.name}"] == "nop warm; oracle warm"
    assert trials[tampered.name].count("fresh: the folder has 1 file(s) the worker's has not") == 2
    assert "notes.txt" in trials[tampered.name]


def test_a_child_that_dies_is_run_again_fresh_and_the_worker_serves_on(run, tmp_path):
    bundle = next(b for b in sorted((run / "tasks").iterdir())
                  if "price * (100 - percent)" not in (b / "environment/repo/shop/pricing.py").read_text())
    pricing = (bundle / "environment/repo/shop/pricing.py").read_text()
    dies = pricing.replace("    return round(price", "    __import__('os')._exit(3)\n    return round(price", 1)
    assert dies != pricing
    files = [ChangedFile("shop/pricing.py", None, dies)]
    python, _ = bundle_python(bundle)
    with WarmVerify([bundle]) as service:
        first = run_trial(bundle, tmp_path / "first", python, True, 120, warm=service)
        died = run_trial(bundle, tmp_path / "died", python, False, 120, files, warm=service)
        again = run_trial(bundle, tmp_path / "again", python, True, 120, warm=service)
    fresh = run_trial(bundle, tmp_path / "fresh", python, False, 120, files)
    assert (first.runner, first.reward) == ("warm", 1.0)
    assert died.runner.startswith("fresh: the warm child ended with crash")
    assert (died.reward, died.status, died.record.outcomes()) == (fresh.reward, fresh.status, fresh.record.outcomes())
    assert died.reward == 0
    assert (again.runner, again.reward) == ("warm", 1.0)


def test_a_failed_oracle_shows_its_failing_tests_in_a_log(run, tmp_path):
    """cmd2 2.4.3: ``gen09 verify … > log`` cut a failed oracle's detail to ``tests/test_ut…``
    (rich's 80 columns off a terminal, the detail cut at 160 characters)."""
    bundle = tmp_path / "tasks" / "unsolved"
    shutil.copytree(sorted((run / "tasks").iterdir())[0], bundle)
    (bundle / "solution" / "solve.sh").write_text("#!/usr/bin/env bash\nexit 0\n")  # fixes nothing
    done = run_gen09("verify", bundle)
    assert done.returncode == 1, done.stderr
    failing = json.loads((bundle / "tests" / "expected.json").read_text())["FAIL_TO_PASS"]
    assert all(test_id in done.stdout for test_id in failing), done.stdout


def test_differing_file_names_one_changed_python_file_and_hands_back_the_rest(tmp_path):
    ref, app = tmp_path / "ref", tmp_path / "app"
    for root in (ref, app):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "mod.py").write_text("x = 1\n")
        (root / "data.txt").write_text("data\n")
    assert differing_file(app, ref) is None
    (app / "pkg" / "mod.py").write_text("x = 2\n")
    assert differing_file(app, ref) == ("pkg/mod.py", "x = 2\n")
    (app / "pkg" / "__pycache__").mkdir()
    (app / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")  # bytecode is not compared
    assert differing_file(app, ref) == ("pkg/mod.py", "x = 2\n")
    (app / "data.txt").write_text("tada\n")
    with pytest.raises(Handback, match="data.txt"):
        differing_file(app, ref)
    (app / "data.txt").write_text("data\n")
    (app / "pkg" / "mod.py").chmod(0o755)
    with pytest.raises(Handback, match="only one Python file's text"):
        differing_file(app, ref)
