"""``gen09 mutate`` with no configuration on repositories shaped like real libraries: an
isolated venv built from the repository's own files, a lock that ships in every bundle,
``gen09 verify`` in that shipped environment, clear failures, derived timeouts and a
summary whose columns add up. One test uses a pinned real sdist from PyPI."""

import json
import shutil
import subprocess
import sys
import tarfile
import tomllib

import pytest

from gen09_core.testrun.venv import LOCK_NAME, Lock
from tests.helpers import ROOT, run_gen09

REALISTIC = ROOT / "tests" / "fixtures" / "realistic_repo"


@pytest.fixture(scope="module")
def realistic(tmp_path_factory):
    base = tmp_path_factory.mktemp("realistic")
    repo = base / "tally"
    shutil.copytree(REALISTIC, repo)
    done = run_gen09("mutate", repo, "--max-mutants", "6", "--seed", "1", "--out", base / "run", "--json")
    return {"repo": repo, "out": base / "run", "done": done}


def test_no_configuration_needed(realistic):
    done = realistic["done"]
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["exported"] >= 1
    detected = json.loads((realistic["out"] / "config.json").read_text())["detected"]
    assert detected["pythonpath"] == ["src", "."] and detected["extras"] == ["test"]
    assert detected["dropped_options"] == ["--cov=tally", "--cov-report", "term", "-n", "2"]
    assert ["extra [test]", "pyproject.toml [project.optional-dependencies] test"] in detected["provenance"]
    baseline = json.loads((realistic["out"] / "baseline.json").read_text())
    # subtests count by their parent; xfail is never a passing test; the version file was generated
    assert "tests/test_core.py::ClassifyTest::test_classify_each" in baseline["stable"]
    assert "tests/test_core.py::test_version_comes_from_the_generated_file" in baseline["stable"]
    assert "tests/test_core.py::test_six_is_installed_from_the_test_extra" in baseline["stable"]
    assert "tests/test_core.py::test_mean_of_strings" in baseline["failing"]
    assert "src/tally/core.py" in baseline["coverage"]  # the repository's .coveragerc did not get in the way


def test_summary_counts_every_mutant_once(realistic):
    summary = json.loads(realistic["done"].stdout)
    assert sum(summary["outcomes"].values()) == summary["mutants"]
    for row in summary["per_modifier"].values():
        outcome_total = sum(row[k] for k in summary["outcomes"])
        assert outcome_total == row["gated"]
    assert summary["timeout_source"].startswith("derived")
    baseline = json.loads((realistic["out"] / "baseline.json").read_text())
    # from the first pristine run, which traces no coverage, as no mutant's run does (emoji 2.14.0's
    # suite took 30 s without coverage, 167 s with it: the timeout was 512 s)
    assert summary["timeout_sec"] == round(10 + 3 * baseline["run_seconds"][0], 1)
    assert 0 < baseline["longest_phase"] < baseline["run_seconds"][0]
    assert summary["stall_sec"] == round(1 + 3 * baseline["longest_phase"], 1)


def test_the_venv_is_isolated_and_locked(realistic):
    work = realistic["out"] / "work"
    lock = Lock.parse(json.loads((work / "environment.json").read_text())["lock"])
    names = {p.split("==")[0].lower() for p in lock.packages}
    assert {"pytest", "coverage", "six"} <= names
    assert not names & {"attrs", "click", "libcst", "gen09"}  # gen09's own packages never leak in
    assert lock.project == ("tally",) and lock.env == {"SETUPTOOLS_SCM_PRETEND_VERSION": "0.0.0"}
    probe = subprocess.run([str(work / "venv" / "bin" / "python"), "-c", "import attrs"], capture_output=True)
    assert probe.returncode != 0


def test_bundles_ship_the_lock_and_verify_in_it(realistic):
    out = realistic["out"]
    for bundle in sorted((out / "tasks").iterdir()):
        lock = Lock.parse((bundle / "environment" / LOCK_NAME).read_text())
        docker = (bundle / "environment" / "Dockerfile").read_text()
        assert docker.startswith(f"FROM python:{lock.minor}-slim\n")
        assert f"pip install --no-cache-dir --no-deps -r /gen09/{LOCK_NAME}" in docker
        assert "SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0 pip install --no-cache-dir --no-deps" in docker
        assert (bundle / "environment" / "repo" / "src" / "tally" / "_version.py").is_file()
        meta = tomllib.loads((bundle / "task.toml").read_text())["metadata"]
        assert meta["asset_digests"]["lock"].startswith("sha256:")
    done = run_gen09("verify", out, "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["ok"] == report["total"] == json.loads(realistic["done"].stdout)["exported"]
    assert all(b["environment"].startswith("lock ") and "/envs/" in b["python"] for b in report["bundles"])


def test_verify_python_override_resolves_relative_paths(realistic, tmp_path):
    bundle = sorted((realistic["out"] / "tasks").iterdir())[0]
    venv_python = realistic["out"] / "work" / "venv" / "bin" / "python"
    relative = venv_python.relative_to(realistic["out"].parent)
    done = run_gen09("verify", bundle, "--json", "--python", relative, cwd=realistic["out"].parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["bundles"][0]["environment"] == "--python"
    missing = run_gen09("verify", bundle, "--python", "no/such/python")
    assert missing.returncode == 2 and "no such interpreter" in missing.stderr


def test_a_failing_oracle_shows_the_test_output(realistic, tmp_path):
    bundle = tmp_path / "broken"
    shutil.copytree(sorted((realistic["out"] / "tasks").iterdir())[0], bundle)
    (bundle / "solution" / "solve.sh").write_text("#!/usr/bin/env bash\ntrue\n")
    done = run_gen09("verify", bundle, "--json")
    assert done.returncode == 1
    result = json.loads(done.stdout)["bundles"][0]
    assert result["oracle"] == 0 and result["failure_class"] == "oracle"
    assert "oracle: reward 0" in result["detail"] and "did not pass" in result["detail"]


def test_undeclared_dependency_is_one_clear_message(tmp_path):
    """A test importing a package the repository never declared fails in the isolated venv
    (even though gen09's own environment has it), and the message says what to do."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "mod.py").write_text("def one():\n    return 1\n")
    (repo / "tests" / "test_mod.py").write_text("import attrs\nfrom mod import one\n\n\ndef test_one():\n"
                                                "    assert one() == 1\n")
    done = run_gen09("mutate", repo, "--out", tmp_path / "run")
    assert done.returncode == 1, done.stderr
    message = [line for line in done.stderr.splitlines() if line.startswith("gen09: error:")]
    assert len(message) == 1 and "Traceback" not in done.stderr
    assert "No module named 'attrs'" in message[0]
    assert "Detected:" in message[0] and "profiles.repo.install" in message[0]


def test_a_bad_pyproject_is_exit_2_naming_the_file(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text("[project]\nname = \"x\"\nversion = \n")
    done = run_gen09("mutate", repo, "--out", tmp_path / "run")
    assert done.returncode == 2
    assert "pyproject.toml: not valid TOML" in done.stderr and "line 3" in done.stderr
    assert not (tmp_path / "run").exists()


def test_a_real_sdist_with_no_configuration(tmp_path):
    """humanize 4.12.3 from PyPI: src/ layout, hatch-vcs version file, a `tests` extra with
    freezegun, pytest-cov in that extra. No configuration."""
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                          "humanize==4.12.3", "-d", str(tmp_path)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    with tarfile.open(next(tmp_path.glob("humanize-*.tar.gz"))) as archive:
        archive.extractall(tmp_path, filter="data")
    repo = tmp_path / "humanize-4.12.3"
    done = run_gen09("mutate", repo, "--max-mutants", "3", "--seed", "0", "--out", tmp_path / "run", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["exported"] >= 1 and summary["baseline"]["stable"] > 100
    verified = run_gen09("verify", tmp_path / "run", "--json")
    assert verified.returncode == 0, verified.stdout[-3000:]


def test_mutate_first_completes_an_interrupted_write_of_the_source(tmp_path, registry):
    """A ``gen09 apply --write`` killed mid-way leaves a journal; ``gen09 mutate`` on that
    repository rolls it back before it reads a single file."""
    from gen09_core.candidates import parse
    from gen09_core.journal import journal_dir
    from gen09_core.pipeline import run_batch
    from gen09_core.write import write_files
    from tests.test_write import _crash_at
    from tests.writes import batch, expected_new, make_repo, targets_state

    root = tmp_path / "repo"
    original = make_repo(root)
    new = expected_new(original)
    files = run_batch(parse(batch(original)), root, registry).outcomes[0].applied.files
    for step in range(1, 200):
        assert _crash_at(step, lambda: write_files(root, files)) == 9
        if (journal_dir(root.resolve()) / "journal.json").exists() and targets_state(root, original, new) not in (
                "old", "new"):
            break  # died with some files new and some old
        from gen09_core.journal import recover

        recover(root)
    done = run_gen09("mutate", root, "--out", tmp_path / "run")
    assert "completed the rollback of an interrupted --write" in done.stderr
    assert targets_state(root, original, new) == "old"


@pytest.mark.skipif(sys.version_info < (3, 10), reason="pytest 6.0.1 runs on Pythons before 3.10")
def test_a_pinned_pytest_that_cannot_run_here_is_replaced_and_said(tmp_path):
    # hpack 4.0.0's tox.ini pins pytest==6.0.1: on Python 3.11 its assertion rewriting makes code
    # that does not compile, and the run ended in 'no stable passing tests' for want of a pytest
    from gen09_core.errors import EnvironmentFailure
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import build_from_recipe

    repo = tmp_path / "old"
    repo.mkdir()
    (repo / "tox.ini").write_text("[testenv]\ndeps =\n    pytest==6.0.1\ncommands = pytest\n")
    (repo / "old.py").write_text("X = 1\n")
    recipe = detect(repo)
    assert recipe.requirements == ("pytest==6.0.1",)
    lock, notes = build_from_recipe(recipe, tmp_path / "venv", repo)
    pytest_line = next(p for p in lock.packages if p.lower().startswith("pytest=="))
    assert pytest_line != "pytest==6.0.1"
    assert len(notes) == 1 and notes[0].startswith("the repository pins pytest==6.0.1, which does not run on Python")
    assert 'required field "lineno" missing' in notes[0] and notes[0].endswith(f"installed {pytest_line} instead")
    # a profile's own install commands are not second-guessed: the failure is said instead
    with pytest.raises(EnvironmentFailure, match="pytest does not run in the test environment"):
        build_from_recipe(recipe, tmp_path / "venv2", repo, install=("python -m pip install -q pytest==6.0.1",))


def test_exact_pins_that_cannot_go_together_are_installed_without_them_and_said(tmp_path):
    # pyee 12.0.0's pip-compiled requirements_dev.txt pins twisted 24.7.0 and incremental 22.10.0,
    # which that twisted refuses: pip stopped at ResolutionImpossible and so did the run
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import build_from_recipe

    repo = tmp_path / "pinned"
    repo.mkdir()
    (repo / "requirements-test.txt").write_text("attrs==19.3.0\ncattrs==23.2.3\npytest<10\n")
    (repo / "pinned.py").write_text("X = 1\n")
    recipe = detect(repo)
    lock, notes = build_from_recipe(recipe, tmp_path / "venv", repo)
    assert len(notes) == 1 and notes[0].startswith("the repository's pinned test requirements cannot be installed")
    assert "Cannot install" in notes[0] and "attrs==19.3.0" in notes[0] and "-r " not in notes[0]
    versions = dict(p.split("==") for p in lock.packages if "==" in p)
    assert versions["attrs"] != "19.3.0" and versions["cattrs"]  # both installed, attrs new enough
    assert int(versions["pytest"].split(".")[0]) < 10  # a range is kept


def test_a_test_requirement_no_index_has_or_pip_cannot_build_is_left_out_and_said(tmp_path):
    # isort 5.13.2's Poetry dev-dependencies ask for types-pkg-resources>=0.1.2, every release of
    # which is yanked: pip found no version; pymemcache 4.0.0's test-requirements.txt pins pylibmc==1.6.1,
    # whose setup.py opens a file in mode 'U' (gone in Python 3.11): pip could not build it. Either way
    # the run ended before its tests could
    from gen09_core.errors import EnvironmentFailure
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import build_from_recipe

    repo = tmp_path / "wants"
    repo.mkdir()
    (repo / "requirements-test.txt").write_text("iniconfig==2.0.0\ngen09-no-such-package[x]>=0.1.2\npylibmc==1.6.1\n")
    (repo / "wants.py").write_text("X = 1\n")
    lock, notes = build_from_recipe(detect(repo), tmp_path / "venv", repo)
    assert dict(p.split("==") for p in lock.packages if "==" in p)["iniconfig"] == "2.0.0"
    assert notes == ("no package index here has a version of the test requirement "
                     "gen09-no-such-package[x]>=0.1.2: installed the others without it",
                     "pip could not build the test requirement pylibmc==1.6.1 here: installed the others without it")
    # the project's own dependency is not the tests', nor is the project: their failures are said, not
    # worked around
    (repo / "requirements-test.txt").unlink()
    (repo / "pyproject.toml").write_text('[project]\nname = "wants"\nversion = "1"\n'
                                         'dependencies = ["gen09-no-such-package"]\n')
    with pytest.raises(EnvironmentFailure, match="No matching distribution found for gen09-no-such-package"):
        build_from_recipe(detect(repo), tmp_path / "venv2", repo)
    (repo / "pyproject.toml").unlink()
    (repo / "setup.py").write_text("raise SystemExit('the repository does not build here')\n")
    with pytest.raises(EnvironmentFailure, match="the repository does not build here") as raised:
        build_from_recipe(detect(repo), tmp_path / "venv3", repo)
    assert "it could not build" not in str(raised.value)


def test_a_pytest_plugin_pytest_cannot_load_is_left_out_and_said(tmp_path):
    # isort 5.13.2's dev dependency pylama declares pytest_collect_file(path, parent), which pytest 9
    # refuses: every run of its suite failed before collecting a test ("no stable passing tests")
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import build_from_recipe

    plugin = tmp_path / "plugins"
    (plugin / "src").mkdir(parents=True)
    (plugin / "src" / "refused.py").write_text("def pytest_collect_file(path, parent):\n    return None\n")
    (plugin / "src" / "broken.py").write_text("import gen09_no_such_module\n")
    (plugin / "src" / "fine.py").write_text("def pytest_configure(config):\n    pass\n")
    (plugin / "pyproject.toml").write_text(
        '[project]\nname = "three-plugins"\nversion = "1"\n[project.entry-points.pytest11]\n'
        'refused = "refused"\nbroken = "broken"\nfine = "fine"\n'
        '[tool.setuptools]\npackage-dir = {"" = "src"}\npy-modules = ["refused", "broken", "fine"]\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "repo.py").write_text("X = 1\n")
    lock, notes = build_from_recipe(detect(repo), tmp_path / "venv", repo,
                                    install=(f"python -m pip install -q {plugin}",))
    assert lock.plugins == ("fine",)
    assert sorted(notes) == [
        "pytest cannot load the plugin broken (ModuleNotFoundError: No module named 'gen09_no_such_module'): left out of every run",
        "pytest cannot load the plugin refused (Plugin 'refused' for hook 'pytest_collect_file' hookimpl "
        "definition: pytest_collect_file(path, parent) Argument(s) {'path'} are declared in the hookimpl but "
        "can not be found in the hookspec): left out of every run"]


def test_pytests_own_warnings_do_not_end_a_suite_that_errors_on_warnings(tmp_path):
    # aiosignal 1.3.1: setup.cfg sets asyncio_mode (gen09 installs the newest pytest-asyncio) and
    # filterwarnings = error; pytest-asyncio 0.24 and later warn at start that
    # asyncio_default_fixture_loop_scope is unset, and every run ended in an INTERNALERROR.
    # plumbum 2.0.2's conftest reads config.inicfg, which pytest 9.2 deprecates: the same; and an
    # ini key of a lint plugin gen09 leaves out is an unknown option: no test ran.
    from gen09_core.mutate.environment import prepare
    from gen09_core.mutate.profiles import Profile
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.jobs import TestJob, run_job

    repo = tmp_path / "sig"
    (repo / "tests").mkdir(parents=True)
    (repo / "setup.cfg").write_text("[tool:pytest]\nfilterwarnings = error\nasyncio_mode = strict\n"
                                    "flake8-max-line-length = 100\n")  # a key of a plugin gen09 leaves out
    (repo / "sig.py").write_text("async def double(x):\n    return 2 * x\n")
    (repo / "conftest.py").write_text("def pytest_configure(config):\n    config.inicfg.get('x')\n")
    (repo / "tests" / "test_sig.py").write_text(
        "import warnings\n\nimport pytest\n\nimport sig\n\n\n@pytest.mark.asyncio\nasync def test_double():\n"
        "    assert await sig.double(2) == 4\n\n\ndef test_warnings_still_fail():\n"
        "    warnings.warn(DeprecationWarning('x'))\n")
    env = prepare(Profile("python-pytest"), detect(repo), tmp_path / "work", repo)
    assert "asyncio" in env.test_env.plugins
    run = run_job(env.test_env, TestJob("sig", str(repo), str(tmp_path / "jobs")))
    assert run.outcomes == {"tests/test_sig.py::test_double": "passed",  # the repository's filter holds:
                            "tests/test_sig.py::test_warnings_still_fail": "failed"}, run.detail


def test_a_coverage_pinned_older_than_gen09s_plugin_needs_is_replaced_and_said(tmp_path):
    # pyparsing 3.1.4's tests/requirements.txt pins coverage==4.4.2, which has no switch_context: every
    # pristine run failed inside gen09's plugin, and the run said "no stable passing tests (1727 flaky)"
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import _too_old_coverage, build_from_recipe

    assert _too_old_coverage(["coverage==4.4.2", "coverage<5", "coverage~=4.5", "coverage[toml]==6.5.0",
                              "coverage>=4", "coverage", "coverage==5.*", "pytest==7.4.4"]) == [
        "coverage==4.4.2", "coverage<5", "coverage~=4.5"]
    repo = tmp_path / "pinned"
    repo.mkdir()
    (repo / "requirements-test.txt").write_text("coverage==4.4.2\niniconfig==2.0.0\n")
    (repo / "pinned.py").write_text("X = 1\n")
    lock, notes = build_from_recipe(detect(repo), tmp_path / "venv", repo)
    versions = dict(p.split("==") for p in lock.packages if "==" in p)
    assert int(versions["coverage"].split(".")[0]) >= 5 and versions["iniconfig"] == "2.0.0"  # other pins kept
    assert notes == ("the repository pins coverage==4.4.2, older than gen09's per-test coverage needs (5.0): "
                     "installed a newer coverage",)


def test_a_coverage_an_extra_holds_older_than_gen09s_plugin_needs_is_replaced_and_said(tmp_path):
    # py-ubjson 0.16.1's [dev] extra asks for coverage>=4.5.3,<4.6: every pristine run failed inside
    # gen09's plugin ('Coverage' object has no attribute 'switch_context'), "116 flaky"
    from gen09_core.testrun.detect import detect
    from gen09_core.testrun.venv import build_from_recipe

    repo = tmp_path / "held"
    (repo / "held").mkdir(parents=True)
    (repo / "held" / "__init__.py").write_text("X = 1\n")
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "held"\nversion = "1.0"\n\n'
        '[project.optional-dependencies]\ntest = ["coverage>=4.5.3,<4.6"]\n')
    recipe = detect(repo)
    assert recipe.extras == ("test",)
    lock, notes = build_from_recipe(recipe, tmp_path / "venv", repo)
    versions = dict(p.split("==") for p in lock.packages if "==" in p)
    assert int(versions["coverage"].split(".")[0]) >= 5, lock.packages
    assert notes == ("the install left coverage 4.5.4, older than gen09's per-test coverage needs (5.0): "
                     "installed a newer coverage over it",)
