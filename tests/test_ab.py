"""The A/B harness end to end on tasks made by `gen09 mutate` from a fixture repository:
with the template generator, with its recorded cassette served by a loopback
OpenAI-compatible server, and replayed with no network."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from attrs import evolve

from gen09_core.ab import decision, stats
from gen09_core.ab.arms import Forwarded, select
from gen09_core.ab.templates import variants
from gen09_core.ab.validate import Verdict, passed_tests, validate
from tests.helpers import MUTATE_FIXTURE, run_gen09, tree_bytes, without_runner
from tests.openai_server import ChatServer, Reply

FIXTURE = MUTATE_FIXTURE
AB_ARGS = ("--k", "3", "--n", "3", "--seed", "5", "--workers", "2", "--tolerant")


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    base = tmp_path_factory.mktemp("ab")
    repo = base / "shop"
    shutil.copytree(FIXTURE, repo)
    done = run_gen09("mutate", repo, "--max-mutants", "12", "--seed", "3", "--workers", "2", "--out", base / "run")
    assert done.returncode == 0, done.stderr
    return base


@pytest.fixture(scope="module")
def template_run(mutated):
    out, cassette = mutated / "ab-template", mutated / "calls.jsonl"
    before = tree_bytes(mutated / "run")
    done = run_gen09("ab", mutated / "run", *AB_ARGS, "--generator", "template", "--record", cassette,
                     "--out", out)
    assert done.returncode == 0, done.stderr
    assert tree_bytes(mutated / "run") == before  # the tasks are only read
    return out, cassette, json.loads(done.stdout)


def _report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def test_template_run_writes_every_part_of_the_report(template_run):
    out, _, summary = template_run
    report = _report(out)
    assert summary["label"] == report["label"] == "harness demonstration (template generator, not a model)"
    assert report["sample"]["k"] == 3 and len(report["sample"]["tasks"]) == 3
    assert set(report["arms"]) == {"baseline", "candidate", "no_sampling", "no_intent", "whole_file", "no_gate",
                                   "tolerant"}
    baseline, candidate = report["arms"]["baseline"], report["arms"]["candidate"]
    assert baseline["n"] == 1 and baseline["generated"] <= 3 and candidate["generated"] > baseline["generated"]
    assert all(0 <= m["resolve"] <= m["pass_at_n"] <= 1 for m in report["arms"].values())
    assert len(report["decision"]["clauses"]) == 7 and report["decision"]["verdict"] in {"adopt", "keep current path"}
    assert {a["mechanism"] for a in report["ablations"].values()} == {
        "candidate sampling", "intent package", "format selection", "syntax/lint gate",
        "tolerant matching tier (opt-in)"}
    probe = report["probe"]
    assert probe["all_rejected"] and probe["repositories_corrupted"] == 0
    assert all(row["rejected"] == row["planted"] == 3 for row in probe["planted"].values())
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "report.md").read_text()
    assert "Verdict:" in md and "harness demonstration" in md and "Format-robustness probe" in md
    # the candidate arm is one generation per task: exactly one call each
    assert all(row["generated"] <= 3 for row in report["per_task"]["candidate"])


def test_a_resolving_candidate_is_found_by_its_own_verifier(template_run):
    report = _report(template_run[0])
    resolved = [f for rows in report["per_task"].values() for r in rows for f in r["forwarded"] if f["resolved"]]
    # every resolving candidate also keeps the regression tests green
    assert all(f["regression_ok"] for f in resolved)
    # the bundles' test.sh pytest runs went to the warm service (a candidate it cannot carry
    # runs fresh with its reason)
    runners = [f["runner"] for rows in report["per_task"].values() for r in rows for f in r["forwarded"]]
    assert "warm" in runners and all(r == "warm" or r.startswith("fresh: ") for r in runners)


def test_cassette_served_by_a_loopback_server_reproduces_the_metrics(mutated, template_run):
    out, cassette, _ = template_run
    entries = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert len(entries) == 3 * 7  # one call per task and arm, never a re-prompt
    with ChatServer() as server:
        server.push(*(Reply(200, e["response"]) for e in entries))
        done = run_gen09("ab", mutated / "run", *AB_ARGS, "--generator", "openai", "--base-url", server.url,
                         "--model", "template", "--out", mutated / "ab-served")
        assert done.returncode == 0, done.stderr
        assert [r["body"] for r in server.requests] == [e["request"] for e in entries]
    served, recorded = _report(mutated / "ab-served"), _report(out)
    assert served["arms"] == recorded["arms"] and served["decision"] == recorded["decision"]


def test_replay_re_scores_without_network(mutated, template_run):
    out, cassette, _ = template_run
    done = run_gen09("ab", mutated / "run", *AB_ARGS, "--replay", cassette, "--out", mutated / "ab-replay")
    assert done.returncode == 0, done.stderr
    replayed = _report(mutated / "ab-replay")
    assert replayed["label"] == "model template"
    assert replayed["arms"] == _report(out)["arms"]
    assert without_runner(replayed["per_task"]) == without_runner(_report(out)["per_task"])



def test_bad_task_source_is_a_clear_error(tmp_path):
    done = run_gen09("ab", tmp_path, "--generator", "template", "--out", tmp_path / "o")
    assert done.returncode == 2 and "no instances.jsonl" in done.stderr and "Traceback" not in done.stderr
    done = run_gen09("ab", tmp_path, "--generator", "template", "--n", "11", "--out", tmp_path / "o")
    assert done.returncode == 2 and "--n" in done.stderr


def _swe_record(mutated, tmp_path, **changes):
    """A mutate task rewritten as a SWE-bench record: the checkout lacks the hidden test file,
    the test_patch adds it, the gold patch restores the pristine code (after a changelog
    hunk, which is not the target)."""
    instance = json.loads((mutated / "run" / "instances.jsonl").read_text().splitlines()[0])
    bundle = mutated / "run" / instance["task"]
    checkout = tmp_path / "checkouts" / instance["instance_id"]
    shutil.copytree(bundle / "environment" / "repo", checkout)
    (checkout / "CHANGES.rst").write_text("Changes\n=======\n")
    test_patch = _added_files_diff(bundle / "tests" / "hidden", checkout)
    changelog = ("--- a/CHANGES.rst\n+++ b/CHANGES.rst\n@@ -1,2 +1,3 @@\n Changes\n =======\n"
                 "+- a fix\n")
    record = {"instance_id": instance["instance_id"], "repo": "shop", "base_commit": "x",
              "patch": changelog + _reverse(instance["patch"]), "test_patch": test_patch,
              "FAIL_TO_PASS": json.dumps(instance["FAIL_TO_PASS"]),  # the dataset's string encoding
              "PASS_TO_PASS": json.dumps(instance["PASS_TO_PASS"]),
              "problem_statement": instance["problem_statement"], "version": "1.0", "created_at": "2026"}
    record.update(changes)
    return record, instance, bundle


def test_swe_bench_jsonl_with_checkouts(mutated, tmp_path, registry, monkeypatch):
    from gen09_core.ab.tasks import load
    from gen09_core.ab.validate import prepare_runner
    from gen09_core.models import ChangedFile

    record, instance, bundle = _swe_record(mutated, tmp_path)
    broken = {**record, "instance_id": "no-checkout"}
    jsonl = tmp_path / "swe.jsonl"
    jsonl.write_text(json.dumps(record) + "\n" + json.dumps(broken) + "\n")
    [task], skipped = load(jsonl, registry, tmp_path / "checkouts")
    assert skipped == [{"id": "no-checkout", "reason": f"no checkout for no-checkout at "
                                                       f"{tmp_path / 'checkouts' / 'no-checkout'}"}]
    assert task.bundle is None and task.test_patch and task.file in instance["entity"]
    assert task.fail_to_pass == tuple(instance["FAIL_TO_PASS"])
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # --out inside the user's repository
    runner = prepare_runner(task, sys.executable, Path("work"))  # a relative work folder, as --out may be
    assert not validate(task, runner, ()).resolved
    assert validate(task, runner, (), gold=True).resolved
    pristine = _pristine(bundle, task.file)
    assert validate(task, runner, (ChangedFile(task.file, None, pristine),)).resolved


def _adder_task(tmp_path, registry, name: str, module: str, source: str, tests: str, extra: dict):
    """A SWE-bench task ``name``-1 whose checkout (``extra`` more files in it) has an ``add``
    that subtracts in ``source`` (module ``module``) and an old test in ``tests``; the gold
    patch fixes it and the test patch adds its test. The task and its checkout."""
    from gen09_core.ab.tasks import load

    checkout = tmp_path / "checkouts" / f"{name}-1"
    for rel, text in {**extra, source: "def add(a, b):\n    return a - b\n",
                      f"{tests}test_old.py": f"from {module} import add\n\n\ndef test_zero():\n"
                                             "    assert add(0, 0) == 0\n"}.items():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text)
    patch = (f"--- a/{source}\n+++ b/{source}\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
             "-    return a - b\n+    return a + b\n")
    test_patch = (f"--- /dev/null\n+++ b/{tests}test_add.py\n@@ -0,0 +1,5 @@\n+from {module} import add\n+\n+\n"
                  "+def test_add():\n+    assert add(2, 3) == 5\n")
    record = {"instance_id": f"{name}-1", "repo": name, "base_commit": "x", "patch": patch,
              "test_patch": test_patch, "FAIL_TO_PASS": [f"{tests}test_add.py::test_add"],
              "PASS_TO_PASS": [f"{tests}test_old.py::test_zero"], "problem_statement": "add subtracts"}
    jsonl = tmp_path / "swe.jsonl"
    jsonl.write_text(json.dumps(record) + "\n")
    [task], _ = load(jsonl, registry, tmp_path / "checkouts")
    return task, checkout


def test_swe_bench_tests_run_in_the_order_of_the_test_patch(tmp_path, registry):
    # gen09 ab gave pytest the test files by name; the harness gives them in the test patch's
    # order: a test reading what a test of an earlier file left failed here, passed there
    from gen09_core.ab.validate import prepare_runner

    task, _ = _adder_task(tmp_path, registry, "calc", "calc", "calc.py", "tests/", {})
    first = ("--- /dev/null\n+++ b/tests/test_z_mode.py\n@@ -0,0 +1,5 @@\n+import calc\n+\n+\n"
             "+def test_mode():\n+    calc.MODE = 'checked'\n")
    task = evolve(task, test_patch=first + task.test_patch.replace(
        "+    assert add(2, 3) == 5\n", "+    assert add(2, 3) == 5 and __import__('calc').MODE == 'checked'\n"),
        fail_to_pass=(*task.fail_to_pass, "tests/test_z_mode.py::test_mode"))
    runner = prepare_runner(task, sys.executable, tmp_path / "work")
    gold = validate(task, runner, (), gold=True)
    assert gold.resolved, gold.problem or gold.not_passed


def _src_layout_task(tmp_path, registry):
    """A SWE-bench task over a src/ layout checkout, with a venv that has the original
    checkout installed in editable mode; the task and its prepared runner."""
    from gen09_core.ab.validate import prepare_runner

    pyproject = ('[project]\nname = "calc"\nversion = "1"\n'
                 '[tool.setuptools.packages.find]\nwhere = ["src"]\n')
    task, checkout = _adder_task(tmp_path, registry, "calc", "calc", "src/calc/__init__.py", "tests/",
                                 {"pyproject.toml": pyproject})
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest", "-e",
                          str(checkout)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    return task, prepare_runner(task, str(venv / "bin" / "python"), tmp_path / "work")


def test_swe_bench_src_layout_needs_no_pythonpath(tmp_path, registry):
    """A src/ layout checkout imports from the copy under test with no PYTHONPATH set by the
    user, even when the interpreter has the original checkout installed in editable mode."""
    from gen09_core.models import ChangedFile

    task, runner = _src_layout_task(tmp_path, registry)
    assert task.file == "src/calc/__init__.py" and task.entity == "calc.add"
    assert validate(task, runner, (), gold=True).resolved
    assert not validate(task, runner, ()).resolved
    fixed = ChangedFile(task.file, None, "def add(a, b):\n    return b + a\n")
    assert validate(task, runner, (fixed,)).resolved  # the copy under test, not the editable original


def test_warm_validation_agrees_with_fresh_processes(tmp_path, registry):
    """Candidates of a SWE-bench task validated on a warm worker get the verdicts fresh
    processes give; one the code swap cannot carry runs in a child of the fork server (a new
    interpreter's view of the files), with the reason."""
    from gen09_core.ab.run import warm_runner
    from gen09_core.models import ChangedFile

    task, runner = _src_layout_task(tmp_path, registry)
    candidates = {"fix": "def add(a, b):\n    return b + a\n",
                  "wrong": "def add(a, b):\n    return a * b\n",
                  "breaks the old test": "def add(a, b):\n    return a + b + 1\n",
                  "adds a function": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}
    warm = warm_runner(runner, tmp_path / "scratch")
    try:
        for name, text in candidates.items():
            files = (ChangedFile(task.file, None, text),)
            fresh, hot = validate(task, runner, files), validate(task, runner, files, warm=warm)
            assert (fresh.resolved, fresh.regression_ok, fresh.not_passed, fresh.problem) == \
                   (hot.resolved, hot.regression_ok, hot.not_passed, hot.problem), name
            assert fresh.runner == "fresh"
            if name == "adds a function":
                assert hot.runner.startswith("prefork: "), hot.runner
            else:
                assert hot.runner == "warm", (name, hot.runner)
        assert validate(task, runner, (), warm=warm).runner == "fresh"  # nothing changed: nothing to swap
    finally:
        warm.close()
    assert warm.stats()["workers"] == 1 and warm.stats()["fork_servers"] == 1


def _added_files_diff(root: Path, checkout: Path) -> str:
    chunks = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if (checkout / rel).exists():
            continue
        lines = path.read_text().splitlines()
        chunks.append(f"--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,{len(lines)} @@\n"
                      + "".join(f"+{ln}\n" for ln in lines))
    return "".join(chunks)


def _reverse(patch: str) -> str:
    out = []
    for line in patch.splitlines(keepends=True):
        if line.startswith("@@"):
            import re

            m = re.match(r"@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@", line)
            out.append(f"@@ -{m.group(2)} +{m.group(1)} @@\n")
        elif line.startswith("-") and not line.startswith("---"):
            out.append("+" + line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            out.append("-" + line[1:])
        else:
            out.append(line)
    return "".join(out)


def _pristine(bundle: Path, rel: str) -> str:
    import base64
    import re

    solve = (bundle / "solution" / "solve.sh").read_text()
    payload = re.search(r"<<'GEN09_PAYLOAD'\n(.*?)GEN09_PAYLOAD", solve, re.S).group(1)
    return base64.b64decode(payload).decode()


def test_selection_never_peeks_at_the_hidden_tests():
    def fwd(cid, votes, regression_ok, resolved):
        return Forwarded(cid, cid, votes, Verdict(resolved, regression_ok, 0.0))

    # the resolving candidate breaks a regression test: selection must not pick it for resolving
    assert select((fwd("a", 1, True, False), fwd("b", 3, False, True))) == "a"
    # most votes among the regression-safe ones; ties to the earliest
    assert select((fwd("a", 1, True, False), fwd("b", 2, True, True), fwd("c", 2, True, False))) == "b"
    # none keeps the regression tests: vote among all
    assert select((fwd("a", 1, False, False), fwd("b", 2, False, True))) == "b"
    assert select(()) is None


def test_decision_needs_every_clause_and_unknown_never_holds():
    base = {"resolve": 0.2, "resolved": 4, "tokens_per_resolved": 1000, "edit_success": 0.8,
            "mean_distinct": 1, "n": 1, "cost": 1.0, "tokens": 4000}
    good = {"resolve": 0.4, "resolved": 8, "tokens_per_resolved": 625, "edit_success": 0.9,
            "mean_distinct": 2.5, "n": 4, "cost": 1.4, "tokens": 5000}
    assert decision.decide(good, base)["verdict"] == "adopt"
    costly = {**good, "tokens": 6001}
    verdict = decision.decide(costly, base)
    assert verdict["verdict"] == "keep current path"
    assert [c["holds"] for c in verdict["clauses"]][-1] is False
    unknown = decision.decide({**good, "cost": None}, base)
    assert unknown["verdict"] == "keep current path" and unknown["unknown"] == ["cost_candidate ≤ 1.5 × cost_current"]
    # nothing resolved by the baseline: its tokens per resolved is infinite, so the clause holds
    none = decide_clause(good, {**base, "resolve": 0.0, "resolved": 0, "tokens_per_resolved": None})
    assert none["holds"] is True and none["values"]["baseline"].startswith("∞")


def decide_clause(candidate, baseline):
    return next(c for c in decision.decide(candidate, baseline)["clauses"] if c["clause"].startswith("tokens-per"))


def test_ablation_rule_deletes_within_noise():
    full = {"resolve": 0.5, "edit_success": 0.9, "tokens_per_resolved": 1000}
    assert not decision.ablate(full, {"resolve": 0.46, "edit_success": 0.9, "tokens_per_resolved": 1040})["keep"]
    kept = decision.ablate(full, {"resolve": 0.3, "edit_success": 0.9, "tokens_per_resolved": 1000})
    assert kept["keep"] and kept["degraded"] == ["resolve"]
    assert decision.ablate(full, {**full, "tokens_per_resolved": 1200})["degraded"] == ["tokens_per_resolved"]


def test_intervals():
    low, high = stats.wilson(10, 20)
    assert low < 0.5 < high and stats.wilson(0, 0) == (0.0, 0.0)
    same = stats.paired_bootstrap([1, 0] * 10, [1, 0] * 10, seed=1)
    assert same["mean_diff"] == 0 and same["ci95"] == [0.0, 0.0] and same["p_not_better"] == 1.0
    better = stats.paired_bootstrap([1] * 20, [0] * 20, seed=1)
    assert better["mean_diff"] == 1 and better["p_not_better"] == 0.0


def test_outcomes_are_read_by_exact_node_id(tmp_path):
    phases = [("tests/test_a.py::test_ok", "call", "passed"), ("tests/test_a.py::TestK::test_p[ff::1/2]", "call",
              "passed"), ("tests/test_a.py::test_bad", "call", "failed")]
    (tmp_path / "outcomes.jsonl").write_text("".join(
        json.dumps({"kind": "phase", "id": i, "when": w, "outcome": o}) + "\n" for i, w, o in phases))
    assert passed_tests(tmp_path) == {"tests/test_a.py::test_ok", "tests/test_a.py::TestK::test_p[ff::1/2]"}
    assert passed_tests(tmp_path / "absent") == set()


def test_templates_change_one_token_outside_strings():
    code = 'def f(a, b):\n    s = "<"\n    if a < b:\n        return a - b\n'
    found = variants(code)
    assert ("    if a is not b:\n", "    if a is b:\n") in variants("    if a is not b:\n")
    assert not any("not not" in r for _, r in variants("    if a is not b:\n"))
    assert ("    if a < b:\n", "    if a >= b:\n") in found
    assert ("        return a - b\n", "        return a + b\n") in found
    assert all('"<"' not in search or '"<"' in replace for search, replace in found)


def test_report_records_the_self_check(template_run):
    report = _report(template_run[0])
    check = report["self_check"]
    assert check["failed"] == 0 and len(check["tasks"]) == report["sample"]["k"] == 3
    for row in check["tasks"]:
        assert row["status"] == "ok" and row["nop"]["resolved"] is False and row["gold"]["resolved"] is True
    assert report["validation_timeout_sec"] > 10 and report["validation_timeout_source"].startswith("derived")
    assert "## Self-check" in (template_run[0] / "report.md").read_text()


def _copy_run(mutated, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(mutated / "run", run)
    return run


def test_a_broken_oracle_stops_the_harness_with_no_numbers(mutated, tmp_path):
    run = _copy_run(mutated, tmp_path)
    for solve in run.glob("tasks/*/solution/solve.sh"):
        solve.write_text("#!/usr/bin/env bash\ntrue\n")
    done = run_gen09("ab", run, *AB_ARGS, "--generator", "template", "--out", tmp_path / "out")
    assert done.returncode == 3, done.stderr
    assert "self-check: 3 of 3 sampled tasks failed" in done.stderr and "[gold_fails]" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "report.json").exists()
    check = json.loads((tmp_path / "out" / "self_check.json").read_text())["self_check"]
    assert all(row["status"] == "gold_fails" and row["gold"]["tail"] for row in check["tasks"])


def test_unknown_test_ids_are_an_environment_failure_not_a_miss(mutated, tmp_path):
    run = _copy_run(mutated, tmp_path)
    lines = []
    for line in (run / "instances.jsonl").read_text().splitlines():
        record = json.loads(line)
        record["PASS_TO_PASS"].append("tests/check_cart.py::test_that_does_not_exist")
        lines.append(json.dumps(record))
    (run / "instances.jsonl").write_text("\n".join(lines) + "\n")
    done = run_gen09("ab", run, *AB_ARGS, "--generator", "template", "--out", tmp_path / "out")
    assert done.returncode == 3
    assert "[environment]" in done.stderr and "never reported" in done.stderr


def test_self_check_rules():
    from gen09_core.ab.selfcheck import Check, classify, derived_timeout, too_many_failures

    ok, miss = Verdict(True, True, 2.0), Verdict(False, True, 1.0, not_passed=("t::a",))
    assert classify(miss, ok) == ("ok", "")
    assert classify(ok, ok)[0] == "nop_resolves"
    assert classify(miss, miss)[0] == "gold_fails"
    assert classify(miss, Verdict(False, False, 1.0, problem="crash: boom"))[0] == "environment"
    checks = [Check(str(i), "ok", "", miss, ok, 3.0) for i in range(10)]
    assert too_many_failures(checks) is None and derived_timeout(checks) == 16.0
    one_bad = [*checks, Check("x", "gold_fails", "r", miss, miss, 1.0)]
    assert too_many_failures(one_bad) is None  # 1 of 11 is under a tenth: excluded, not fatal
    two_bad = [*one_bad, Check("y", "environment", "r", None, None, 1.0)]
    assert too_many_failures(two_bad).task == "x"


def test_templates_spread_over_repair_kinds():
    code = "def f(a, b):\n    if a < b and True:\n        return a + 2\n    return a - b\n"
    kinds = [_kind(search, replace) for search, replace in variants(code)[:5]]
    assert kinds == ["comparison", "arithmetic", "logic", "boolean", "constant"]


def _kind(search, replace):
    changed = {a for a, b in zip(search.split(), replace.split(), strict=False) if a != b} or set(search.split()) - set(replace.split())
    token = changed.pop()
    for kind, tokens in (("comparison", "< > <= >= == !="), ("arithmetic", "+ - * /"), ("logic", "and or not"),
                         ("boolean", "True False")):
        if token.rstrip(":") in tokens.split():
            return kind
    return "constant"


def test_the_target_is_what_the_first_source_hunk_changes(registry):
    from gen09_core.ab.tasks import source_target

    patch = ("diff --git a/docs/CHANGES.rst b/docs/CHANGES.rst\n--- a/docs/CHANGES.rst\n+++ b/docs/CHANGES.rst\n"
             "@@ -1,2 +1,3 @@\n x\n+y\n z\n"
             "--- a/tests/test_mod.py\n+++ b/tests/test_mod.py\n@@ -1,1 +1,2 @@\n a\n+b\n"
             "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
             "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -10,7 +10,7 @@ def f():\n     a = 1\n     b = 2\n"
             "     c = 3\n-    return a - b\n+    return a + b\n     d = 4\n     e = 5\n     g = 6\n")
    path, span = source_target(patch, registry)
    assert path == "pkg/mod.py" and (span.start, span.end) == (13, 13)  # context lines left out
    inserted = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -4,3 +4,4 @@\n a\n b\n+c\n d\n"
    assert source_target(inserted, registry)[1].start == 5


def test_formats_add_one_arm_per_format_and_probe_each_patch_format(mutated):
    out = mutated / "ab-formats"
    done = run_gen09("ab", mutated / "run", "--k", "2", "--n", "2", "--seed", "5", "--workers", "2",
                     "--generator", "template", "--formats", "search_replace,udiff,apply_patch,whole_file",
                     "--out", out)
    assert done.returncode == 0, done.stderr
    report = _report(out)
    formats = report["formats"]
    assert sorted(formats) == ["apply_patch", "search_replace", "udiff", "whole_file"]  # report.json sorts keys
    assert {f"format:{f}" for f in formats} <= set(report["arms"])
    # the template generator makes the same line rewrites in every format: the formats must agree
    rows = {f: [(r["task"], r["generated"], r["applied_and_parsed"], r["distinct_valid"])
                for r in report["per_task"][f"format:{f}"]] for f in formats}
    assert rows["udiff"] == rows["apply_patch"] == rows["search_replace"]
    assert all(row["generated"] > 0 and row["edit_success"] is not None for row in formats.values())
    for fmt in ("udiff", "apply_patch"):
        probed = report["probe"]["formats"][fmt]
        assert probed["all_rejected"] and probed["repositories_corrupted"] == 0
        assert all(row["planted"] == row["rejected"] == 2 for row in probed["planted"].values())
    assert "malformed_patch" in report["probe"]["formats"]["udiff"]["planted"]["truncated_hunk"]["reasons"]
    assert "## Edit formats" in (out / "report.md").read_text()
    bad = run_gen09("ab", mutated / "run", "--generator", "template", "--formats", "udiff,yaml", "--out", out)
    assert bad.returncode == 2 and "yaml is not one of" in bad.stderr


def test_a_reused_task_environment_says_again_what_its_build_changed(tmp_path, registry, monkeypatch):
    # a cached environment said nothing of the pins its first build had to drop
    from gen09_core.ab.validate import prepare_runner

    pins = "attrs==19.3.0\ncattrs==23.2.3\npytest<10\n"
    task, _ = _adder_task(tmp_path, registry, "pins", "pins", "pins.py", "", {"requirements-test.txt": pins})
    monkeypatch.setenv("GEN09_CACHE_DIR", str(tmp_path / "cache"))
    built = prepare_runner(task, None, tmp_path / "work")
    reused = prepare_runner(task, None, tmp_path / "again")
    [note] = [n for n in built.notes if "pinned test requirements cannot be installed" in n]
    assert note in reused.notes and reused.notes == built.notes
    assert validate(task, reused, (), gold=True).resolved
