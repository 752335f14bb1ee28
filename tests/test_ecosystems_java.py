"""Java without configuration: Maven and Gradle detection, and ``gen09 mutate`` → bundles →
``gen09 verify`` of a Maven project with the real ``mvn -o`` and the local repository
(``~/.m2/repository``; the fixture's pom pins junit-jupiter and every plugin to versions that
must be there, so nothing is fetched). Gradle is not installed on gen09's build machine: only
its detection, and the refusal without it, are tested."""

import json
import shutil
import subprocess

import pytest

from gen09_core.testrun import ecosystems, reports
from gen09_core.testrun.ecosystems import gradle, maven
from tests.helpers import ROOT, run_gen09

FIXTURE = ROOT / "tests" / "fixtures" / "langs" / "maven-calc"


def test_pom_is_maven_and_comes_before_a_tooling_package_json(tmp_path):
    (tmp_path / "pom.xml").write_text("<project/>")
    (tmp_path / "package.json").write_text('{"scripts": {"test": "node --test"}}')
    recipe = ecosystems.detect(tmp_path)
    assert recipe.ecosystem == "maven" and recipe.language == "java"
    assert "mvn -o " in recipe.test and "-Dmaven.test.failure.ignore=true" in recipe.test
    assert recipe.report == "junit:**/target/surefire-reports/TEST-*.xml"
    assert recipe.tools == ("mvn", "java") and recipe.build_dirs == ("target",)
    assert recipe.image == "maven:{mvn}-eclipse-temurin-{java.major}"
    assert maven.detect(tmp_path / "nothing") is None


@pytest.mark.parametrize(("files", "command", "tools", "image"), [
    (("build.gradle",), "gradle test --offline", ("gradle", "java"), "gradle:{gradle}-jdk{java.major}"),
    (("build.gradle.kts", "gradlew"), "./gradlew test --offline", ("java",), "eclipse-temurin:{java.major}"),
])
def test_gradle_build_files_and_wrapper(tmp_path, files, command, tools, image):
    for name in files:
        (tmp_path / name).write_text("")
    recipe = ecosystems.detect(tmp_path)
    assert recipe.ecosystem == "gradle" and command in recipe.test and "--continue" in recipe.test
    assert recipe.report == "junit:**/build/test-results/test/TEST-*.xml"
    assert recipe.tools == tools and recipe.image == image and recipe.build_dirs == ("build", ".gradle")
    (tmp_path / files[0]).unlink()
    assert gradle.detect(tmp_path) is None


def test_gradle_project_without_gradle_is_refused_with_exit_3(tmp_path):
    if shutil.which("gradle"):
        pytest.skip("gradle is installed: the refusal needs a machine without it")
    repo = tmp_path / "g"
    shutil.copytree(FIXTURE / "src", repo / "src")
    (repo / "build.gradle").write_text("plugins { id 'java' }\n")
    done = run_gen09("mutate", repo, "--max-mutants", "2", "--out", tmp_path / "run")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "gradle" in done.stderr and "not on PATH" in done.stderr


def test_several_surefire_reports_give_unique_class_method_ids(tmp_path):
    folder = tmp_path / "target" / "surefire-reports"
    folder.mkdir(parents=True)
    for cls, body in (("calc.ATest", '<testcase name="adds" classname="calc.ATest"/>'
                                     '<testcase name="adds" classname="calc.ATest$Inner"/>'),
                      ("calc.BTest", '<testcase name="adds" classname="calc.BTest">'
                                     '<failure message="expected 1">trace</failure></testcase>')):
        (folder / f"TEST-{cls}.xml").write_text(f'<testsuite name="{cls}"><properties/>{body}</testsuite>')
    parsed = reports.convert("junit", maven.REPORTS, str(tmp_path / "o.jsonl"), str(tmp_path), 0)
    assert [(c.test_id, c.outcome) for c in parsed.cases] == [
        ("calc.ATest::adds", "passed"), ("calc.ATest$Inner::adds", "passed"), ("calc.BTest::adds", "failed")]


@pytest.fixture(scope="module")
def maven_run(tmp_path_factory):
    missing = [t for t in ("mvn", "java") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"toolchain not installed: {', '.join(missing)}")
    base = tmp_path_factory.mktemp("maven")
    repo = base / "maven-calc"
    shutil.copytree(FIXTURE, repo)
    probe = subprocess.run(["mvn", "-o", "-B", "-q", "test"], cwd=base / "maven-calc", capture_output=True,
                           text=True)
    if probe.returncode != 0:
        lacking = [line for line in probe.stdout.splitlines() if "[ERROR]" in line][:3]
        pytest.skip(f"the local Maven repository lacks the fixture's artifacts: {' '.join(lacking)[:600]}")
    shutil.rmtree(repo / "target")
    out = base / "run"
    done = run_gen09("mutate", repo, "--max-mutants", "6", "--seed", "1", "--workers", "2", "--out", out)
    return {"out": out, "done": done}


def test_maven_is_detected_and_its_bundles_verify(maven_run):
    out = maven_run["out"]
    assert maven_run["done"].returncode == 0, maven_run["done"].stderr
    data = json.loads((out / "summary.json").read_text())
    env = data["environment"]
    assert env["ecosystem"] == "maven" and env["toolchain"].startswith("mvn ") and data["selection"] == "full"
    assert data["baseline"]["stable"] == 8  # 6 + 2 tests, one surefire report a class
    done = run_gen09("verify", out, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] == report["total"] == data["exported"] >= 1
    assert all(b["nop"] == 0 and b["oracle"] == 1 for b in report["bundles"])


def test_maven_bundle_layout(maven_run):
    out = maven_run["out"]
    for line in (out / "instances.jsonl").read_text().splitlines():
        inst = json.loads(line)
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        assert not (snap / "target").exists() and (snap / "pom.xml").is_file()
        assert (snap / inst["entity"].split("::")[0]).is_file()
        for test_id in inst["FAIL_TO_PASS"]:
            source = "src/test/java/" + test_id.split("::")[0].replace(".", "/") + ".java"
            assert not (snap / source).exists() and (bundle / "tests" / "hidden" / source).is_file()
        tools = dict(json.loads((bundle / "environment" / "gen09.toolchain.json").read_text())["tools"])
        dockerfile = (bundle / "environment" / "Dockerfile").read_text()
        assert dockerfile.startswith(f"FROM maven:{tools['mvn']}-eclipse-temurin-{tools['java'].split('.')[0]}\n")
        assert "<localRepository>/opt/m2</localRepository>" in dockerfile
        assert "surefire-reports/TEST-*.xml" in (bundle / "tests" / "test.sh").read_text()


def test_a_mutant_that_does_not_compile_passes_no_test(tmp_path):
    """A job whose sources do not compile leaves no surefire report: a finished run where no
    test passed."""
    from gen09_core.mutate.environment_command import UNBOUNDED
    from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
    from gen09_core.testrun.jobs import TestJob

    if shutil.which("mvn") is None:
        pytest.skip("toolchain not installed: mvn")
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    words = repo / "src" / "main" / "java" / "calc" / "Words.java"
    words.write_text(words.read_text().replace("return n;", "return n"))
    recipe = maven.detect(repo)
    assert recipe.ecosystem in UNBOUNDED
    env = CommandEnv(recipe.test, recipe.report, str(install_runner(tmp_path / "runner")), "maven",
                     build_dirs=recipe.build_dirs, limit_memory=False)
    (tmp_path / "scratch").mkdir()
    run = run_command_job(env, TestJob(job_id="j", source_dir=str(repo), scratch=str(tmp_path / "scratch"),
                                       tests=("calc.WordsTest::counts",), timeout_sec=120.0))
    assert run.status == "ok" and run.outcomes == {} and run.detail == "maven exit 1", run
