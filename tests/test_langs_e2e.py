"""repo_mutate end to end beyond Python, with the real toolchains: detection → baseline →
mutant validation (whole suite) → Harbor bundles → ``gen09 verify`` without Docker (nop 0 /
oracle 1). Each fixture project is small and has no dependencies, so nothing is fetched."""

import json
import shutil
import tomllib

import pytest

from tests.helpers import ROOT, run_gen09

LANGS = ROOT / "tests" / "fixtures" / "langs"
ARGS = ("--n", "6", "--seed", "1", "--workers", "2")


def need(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"toolchain not installed: {', '.join(missing)}")


def mutate(tmp_path_factory, name):
    base = tmp_path_factory.mktemp(name)
    repo = base / name
    shutil.copytree(LANGS / name, repo)
    done = run_gen09("mutate", repo, *ARGS, "--out", base / "run")
    return {"repo": repo, "out": base / "run", "done": done}


def summary(out):
    return json.loads((out / "summary.json").read_text())


def verify_all(out, data):
    """Every exported bundle verifies: nop 0, oracle 1, with the local toolchain."""
    done = run_gen09("verify", out, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] == report["total"] == data["exported"] >= 1
    return report


def instances(out):
    return [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def node_run(tmp_path_factory):
    need("node", "npm")
    return mutate(tmp_path_factory, "node-calc")


def test_node_is_detected_and_runs_the_whole_suite(node_run):
    assert node_run["done"].returncode == 0, node_run["done"].stderr
    data = summary(node_run["out"])
    assert data["environment"]["ecosystem"] == "node"
    assert data["environment"]["toolchain"].startswith("node ")
    assert data["selection"] == "full"
    assert data["baseline"]["stable"] == 12  # every test of both files, by file::suite > name
    assert data["exported"] >= 1


def test_node_bundles_verify_with_the_local_toolchain(node_run):
    out = node_run["out"]
    done = run_gen09("verify", out, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["total"] == summary(out)["exported"] and report["ok"] == report["total"]
    for bundle in report["bundles"]:
        assert bundle["nop"] == 0 and bundle["oracle"] == 1
        assert bundle["python"].startswith("node ") and "node" in bundle["environment"]
        assert bundle["runners"] == ""  # no pytest run, warm or fresh
    assert "pytest runs" not in done.stderr


def test_node_bundle_layout(node_run):
    out = node_run["out"]
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        assert not (snap / "node_modules").exists()
        assert (snap / "package-lock.json").is_file()  # written by npm install, installed by npm ci
        for test_file in {t.split("::")[0] for t in inst["FAIL_TO_PASS"]}:
            assert not (snap / test_file).exists()
            assert (bundle / "tests" / "hidden" / test_file).is_file()
        dockerfile = (bundle / "environment" / "Dockerfile").read_text()
        lock = json.loads((bundle / "environment" / "gen09.toolchain.json").read_text())
        node = dict(lock["tools"])["node"]
        assert dockerfile.startswith(f"FROM node:{node}\n") and "RUN npm ci" in dockerfile
        assert 'gen09_reports.py" junit' in (bundle / "tests" / "test.sh").read_text()
        toml = tomllib.loads((bundle / "task.toml").read_text())
        assert "javascript" in toml["task"]["keywords"]
        # the issue names the file as a JavaScript user would, not as a dotted module
        changed = inst["patch"].split("\n", 1)[0].split(" b/", 1)[1]
        assert changed.endswith(".js") and f"`{changed}`" in (bundle / "instruction.md").read_text()


def test_verify_refuses_without_the_toolchain(node_run, tmp_path):
    out = node_run["out"]
    bundle = out / instances(out)[0]["task"]
    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    lock_path = copy / "environment" / "gen09.toolchain.json"
    lock = json.loads(lock_path.read_text())
    lock["tools"].append(["gen09-no-such-tool", "1.0"])
    lock_path.write_text(json.dumps(lock))
    done = run_gen09("verify", copy)
    assert done.returncode == 3
    assert "gen09-no-such-tool" in done.stderr


@pytest.fixture(scope="module")
def cargo_run(tmp_path_factory):
    need("cargo", "rustc")
    return mutate(tmp_path_factory, "rust-calc")


def test_cargo_targets_and_verify(cargo_run):
    out = cargo_run["out"]
    assert cargo_run["done"].returncode == 0, cargo_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "cargo" and data["selection"] == "full"
    assert data["baseline"]["stable"] == 12  # 3 unit + 8 integration + 1 doc test
    verify_all(out, data)
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        assert not (snap / "target").exists() and (snap / "Cargo.lock").is_file()
        assert (snap / inst["entity"].split("::")[0]).is_file()  # the mutated source ships
        for test_id in inst["FAIL_TO_PASS"]:
            target = test_id.split("::")[0]
            if target.startswith("tests/"):  # an integration-test target is hidden
                assert not (snap / target).exists() and (bundle / "tests" / "hidden" / target).is_file()
        assert (bundle / "environment" / "Dockerfile").read_text().startswith("FROM rust:")


@pytest.fixture(scope="module")
def cmake_run(tmp_path_factory):
    need("cmake", "ctest", "gcc", "cc")
    return mutate(tmp_path_factory, "c-calc")


def test_cmake_ctest_junit_and_verify(cmake_run):
    out = cmake_run["out"]
    assert cmake_run["done"].returncode == 0, cmake_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "cmake" and data["baseline"]["stable"] == 10
    verify_all(out, data)
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        # ctest names no file: the test sources by convention are hidden and restored
        assert not (snap / "tests" / "test_calc.c").exists()
        assert (bundle / "tests" / "hidden" / "tests" / "test_calc.c").is_file()
        assert not (snap / "build-gen09").exists()
        assert (bundle / "environment" / "Dockerfile").read_text().startswith("FROM gcc:")


@pytest.fixture(scope="module")
def go_run(tmp_path_factory):
    need("go")
    return mutate(tmp_path_factory, "go-calc")


def test_go_json_and_verify(go_run):
    out = go_run["out"]
    assert go_run["done"].returncode == 0, go_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "go" and data["baseline"]["stable"] == 9  # with subtests
    verify_all(out, data)
    for inst in instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        assert not list(snap.rglob("*_test.go"))  # go names packages, not files: every test file hidden
        assert (bundle / "tests" / "hidden" / "calc_test.go").is_file()
        assert (bundle / "environment" / "Dockerfile").read_text().startswith("FROM golang:")


def test_ab_self_check_runs_node_bundles(node_run, tmp_path):
    """``gen09 ab`` reads a node run's bundles and checks them with the local toolchain."""
    from gen09_core.ab.selfcheck import check_task
    from gen09_core.ab.tasks import load
    from gen09_core.plugins import make_registry

    tasks, _ = load(node_run["out"], make_registry())
    assert len(tasks) == summary(node_run["out"])["exported"]
    check, runner = check_task(tasks[0], None, tmp_path, 300.0)
    assert check.status == "ok", check.reason
    assert not check.nop.resolved and check.gold.resolved
    assert "local node toolchain" in runner.source


@pytest.fixture(scope="module")
def ruby_run(tmp_path_factory):
    need("ruby", "rspec")
    return mutate(tmp_path_factory, "ruby-calc")


def test_rspec_json_and_verify(ruby_run):
    out = ruby_run["out"]
    assert ruby_run["done"].returncode == 0, ruby_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "ruby" and data["baseline"]["stable"] == 8
    verify_all(out, data)
    lock = None
    for inst in instances(out):
        bundle = out / inst["task"]
        for test_file in {t.split("[")[0].removeprefix("./") for t in inst["FAIL_TO_PASS"]}:
            assert not (bundle / "environment" / "repo" / test_file).exists()
            assert (bundle / "tests" / "hidden" / test_file).is_file()
        lock = json.loads((bundle / "environment" / "gen09.toolchain.json").read_text())
        dockerfile = (bundle / "environment" / "Dockerfile").read_text()
        assert dockerfile.startswith(f"FROM ruby:{dict(lock['tools'])['ruby']}\n")
        assert f"RUN gem install rspec -v {dict(lock['tools'])['rspec']}" in dockerfile


def test_java_junit_xml_through_a_command_profile(tmp_path):
    """javac + the JUnit 5 console launcher (Debian's junit5) as a ``command`` profile: JUnit
    XML ids ``class::method()``, the F2P test classes' sources hidden."""
    import pathlib

    need("javac", "java")
    jar = pathlib.Path("/usr/share/java/junit-platform-console-standalone.jar")
    if not jar.is_file():
        pytest.skip("JUnit 5 console launcher not installed (Debian package junit5)")
    repo = tmp_path / "java-calc"
    shutil.copytree(LANGS / "java-calc", repo)
    out = tmp_path / "run"
    done = run_gen09("mutate", repo, "--config", repo / "gen09.toml", "--n", "3", "--seed", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    data = summary(out)
    assert data["baseline"]["stable"] == 8 and data["environment"]["report"].startswith("junit:")
    inst = instances(out)[0]
    bundle = out / inst["task"]
    for test_id in inst["FAIL_TO_PASS"]:
        source = "src/test/java/" + test_id.split("::")[0].replace(".", "/") + ".java"
        assert not (bundle / "environment" / "repo" / source).exists()
        assert (bundle / "tests" / "hidden" / source).is_file()
    verified = run_gen09("verify", bundle, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_node_tests_of_what_prepare_builds_see_each_mutant(tmp_path):
    """isaacs/minimatch 10: its tests import ``dist/``, which ``prepare`` builds at install. With a
    build tool gen09 did not know, dist/ was built once and 13 of 20 mutants had no FAIL_TO_PASS.
    Here ``prepare`` is a script of the repository's own that copies lib/ into dist/."""
    need("node", "npm")
    repo = tmp_path / "built-calc"
    shutil.copytree(LANGS / "node-calc", repo)
    for test in (repo / "test").iterdir():
        test.write_text(test.read_text().replace("'../lib/", "'../dist/"))
    (repo / "build.js").write_text("require('node:fs').cpSync('lib', 'dist', { recursive: true });\n")
    package = json.loads((repo / "package.json").read_text())
    package["scripts"]["prepare"] = "node build.js"
    (repo / "package.json").write_text(json.dumps(package))
    done = run_gen09("mutate", repo, *ARGS, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    data = summary(tmp_path / "run")
    assert "a test imports dist/index.js, which is not in the repository" in " ".join(
        data["environment"]["notes"]), data["environment"]
    assert data["exported"] >= 1, data["totals"]
    verify_all(tmp_path / "run", data)
