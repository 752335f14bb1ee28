"""A source file no stable test ran a line of is not mutated: with coverage selection each of
its mutants would be rejected as ``uncovered`` without running (xmltodict 0.13.0's
``ez_setup.py`` took 19 of 40 mutants), and ``selection = "full"`` makes the same mutants
(one seed, one set of mutants, whichever the selection)."""

import json
import shutil

from tests.helpers import MUTATE_FIXTURE, run_gen09

UNUSED = '''
def bootstrap(version):
    """Nothing in the suite imports this module."""
    if version > 2:
        return "new"
    return "old"
'''


def _run(tmp_path, selection):
    repo = tmp_path / "shop"
    if not repo.exists():
        shutil.copytree(MUTATE_FIXTURE, repo)
        (repo / "shop" / "unused.py").write_text(UNUSED)
    config = tmp_path / f"{selection}.json"
    config.write_text(json.dumps({"source": {"repo": str(repo)}, "seeds": {"mutate": 3},
                                  "limits": {"max_mutants": 40, "runner": "fresh"},
                                  "recipe": {"swe_smith": {"selection": selection}}}))
    out = tmp_path / selection
    done = run_gen09("mutate", "--config", config, "--out", out)
    assert done.returncode == 0, done.stderr
    paths = {p.stem: json.loads(p.read_text())["mutant"]["path"] for p in (out / "mutants").glob("*.json")}
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    started = next(e for e in events if e["stage"] == "generate" and e["status"] == "started")
    return paths, started["detail"]


def test_a_file_no_test_runs_is_not_mutated(tmp_path):
    paths, detail = _run(tmp_path, "coverage")
    assert "shop/unused.py" not in paths.values() and {"shop/cart.py", "shop/pricing.py"} <= set(paths.values())
    assert detail["never_run_files"] == 2  # unused.py, and __init__.py: its docstring runs only at import
    assert _run(tmp_path, "full") == (paths, detail)


CLI = '''import sys


def label(count):
    if count > 2:
        return "many"
    return "few"


if __name__ == "__main__":
    print(label(int(sys.argv[1])))
'''
CLI_TEST = '''import subprocess
import sys


def test_cli_many():
    done = subprocess.run([sys.executable, "-m", "shop.cli", "3"], capture_output=True, text=True)
    assert done.stdout == "many\\n"


def test_cli_few():
    done = subprocess.run([sys.executable, "-m", "shop.cli", "1"], capture_output=True, text=True)
    assert done.stdout == "few\\n"
'''


def test_a_file_tests_run_only_in_a_subprocess_is_mutated_and_its_tasks_verify(tmp_path):
    # a module a test runs only as `python -m shop.cli` was left out as never run (coverage did
    # not see subprocesses); now its lines count for the test that started the subprocess
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "shop" / "cli.py").write_text(CLI)
    (repo / "tests" / "check_cli.py").write_text(CLI_TEST)
    out = tmp_path / "out"
    done = run_gen09("mutate", repo, "--out", out, "--max-mutants", "60", "--seed", "3")
    assert done.returncode == 0, done.stderr
    tasks = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    cli_tasks = [t for t in tasks if "shop/cli.py" in t["patch"]]
    assert cli_tasks, [t["instance_id"] for t in tasks]
    assert all(set(t["FAIL_TO_PASS"]) <= {"tests/check_cli.py::test_cli_many", "tests/check_cli.py::test_cli_few"}
               for t in cli_tasks)
    bundle = next(p for p in (out / "tasks").iterdir() if "shop/cli.py" in (p / "solution" / "solve.sh").read_text())
    verified = run_gen09("verify", bundle)
    assert verified.returncode == 0, verified.stderr
