"""jest, mocha, vitest, node-tap and jasmine end to end with the real runners: ``gen09 mutate`` (detection from
``scripts.test``, ``npm ci`` from the fixture's committed lockfile, baseline, whole-suite
validation) → Harbor bundles → ``gen09 verify`` with the local node (nop 0 / oracle 1), the
F2P test files hidden. Fixtures: tests/fixtures/langs/node-{jest,mocha,mocha6,vitest,tap,jasmine}-calc, each
with a ``package-lock.json`` pinning jest 29.7.0, mocha 10.8.2, mocha 6.2.3, vitest 3.2.4 + vite 7.1.12
(vite 8 needs a newer node than 20), tap 16.3.10, jasmine 5.6.0. ``npm ci`` installs from the npm registry, so these tests skip when node or
npm is missing or the registry does not answer ``npm ping``."""

import json
import shutil
import subprocess

import pytest

from tests.helpers import run_gen09
from tests.test_langs_e2e import LANGS, instances, need, summary, verify_all

ARGS = ("--n", "6", "--seed", "1", "--workers", "2")
RUNNERS = {  # runner: (report format, what the test command must and must not hold)
    "jest": ("jest-json", "npx --no-install jest --ci --json", "--coverage"),
    "mocha": ("mocha-json", "npx --no-install mocha 'test/**/*.spec.js' --reporter json", "--reporter spec"),
    # mocha 6's json reporter names no test's file and has no output option: gen09's reporter instead
    "mocha6": ("mocha-json", "npx --no-install mocha 'test/**/*.spec.js' --reporter \"$GEN09_RUNNER/gen09_mocha_json.cjs\"",
               "--reporter spec"),
    # vitest's json report keeps no diff: gen09's reporter before it writes each into its error
    "vitest": ("jest-json", 'npx --no-install vitest run --reporter="$GEN09_RUNNER/gen09_vitest_diff.mjs" '
               "--reporter=json", None),
    "tap": ("tap", "npx --no-install tap -R tap --no-coverage", None),  # node-tap 16, its TAP on stdout
    # jasmine 5 has no machine-readable reporter: gen09's, which names each spec's file
    "jasmine": ("mocha-json", 'npx --no-install jasmine --reporter="$GEN09_RUNNER/gen09_jasmine_json.cjs" '
                "--config=test/support/jasmine.json", "--parallel"),
}


def need_registry():
    need("node", "npm")
    try:
        done = subprocess.run(["npm", "ping"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.skip("the npm registry did not answer `npm ping` within 60 s")
    if done.returncode != 0:
        pytest.skip(f"the npm registry cannot be reached (`npm ping`: {done.stderr.strip()[-200:]})")


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_runner_mutate_bundles_and_verify(runner, tmp_path):
    need_registry()
    fmt, command, dropped = RUNNERS[runner]
    name = f"node-{runner}-calc"
    repo = tmp_path / name
    shutil.copytree(LANGS / name, repo)
    out = tmp_path / "run"
    done = run_gen09("mutate", repo, *ARGS, "--out", out)
    assert done.returncode == 0, done.stderr
    data = summary(out)
    env = data["environment"]
    assert env["ecosystem"] == "node" and env["report"].startswith(f"{fmt}:") and env["lockfiles"] == [
        "package-lock.json"]
    assert env["test"].startswith(command) and (dropped is None or dropped not in env["test"])
    assert data["baseline"]["stable"] == 12 and not data["baseline"]["flaky"]  # 8 + 4 tests in two files
    report = verify_all(out, data)
    assert all(b["nop"] == 0 and b["oracle"] == 1 for b in report["bundles"])
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        assert not (snap / "node_modules").exists()
        assert (snap / "package-lock.json").read_bytes() == (LANGS / name / "package-lock.json").read_bytes()
        assert inst["entity"].startswith("lib/")  # never a test file
        for test_id in inst["FAIL_TO_PASS"] + inst["PASS_TO_PASS"]:
            assert test_id.split("::")[0].startswith("test/"), test_id  # file::title, the file relative
        for test_file in {t.split("::")[0] for t in inst["FAIL_TO_PASS"]}:
            assert not (snap / test_file).exists() and (bundle / "tests" / "hidden" / test_file).is_file()
        assert "RUN npm ci" in (bundle / "environment" / "Dockerfile").read_text()
        assert f'gen09_reports.py" {fmt}' in (bundle / "tests" / "test.sh").read_text()
        lock = json.loads((bundle / "environment" / "gen09.toolchain.json").read_text())
        assert lock["setup"] == lock["replay"] == ["npm ci --no-audit --no-fund"]  # the lockfile, pinned


def test_a_vitest_comparison_reads_from_the_diff_vitest_made(tmp_path):
    """pillarjs/path-to-regexp 8: vitest's json report keeps only an assertion's message (``expected {
    path: '/a-b-c-d', …(1) } to deeply equal { path: '/a-b-c-d', …(1) }``), and its issues read "a result
    differs from what is expected, though both print as …". gen09's reporter, listed before vitest's json,
    writes vitest's own diff into the message: a real vitest 3.2.4 run."""
    from gen09_core.mutate.issue import write_issue
    from gen09_core.testrun.ecosystems import node
    from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
    from gen09_core.testrun.jobs import TestJob

    need_registry()
    repo = tmp_path / "repo"
    shutil.copytree(LANGS / "node-vitest-calc", repo)
    (repo / "test" / "deep.test.js").write_text(
        "import { expect, test } from 'vitest';\n"
        "test('deep', () => { expect({ path: '/a', params: { a: ['1', '2'] } }).toEqual("
        "{ path: '/a', params: { a: ['1', '3'] } }); });\n")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=repo, check=True, capture_output=True)
    recipe = node.detect(repo)
    env = CommandEnv(recipe.test, recipe.report, str(install_runner(tmp_path / "runner")), "node",
                     linked=tuple(recipe.linked), limit_memory=False)
    run = run_command_job(env, TestJob("j", str(repo), str(tmp_path / "scratch")))
    assert "test/deep.test.js::deep" in run.failures, (run.problem, run.detail, run.outcomes)
    failure = run.failures["test/deep.test.js::deep"]
    assert "- Expected\n+ Received\n" in failure["message"], failure
    text = write_issue("lib/index.js", {"test/deep.test.js::deep": failure}, ["test/deep.test.js::deep"], [], "",
                       repo)
    assert "Observed: part of a result is `\"2\"` where `\"3\"` is expected.\n" in text, text
