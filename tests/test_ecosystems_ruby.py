"""Ruby detection (RSpec, minitest, bundler or the installed gems), gen09's minitest runner
with the real ruby, and minitest end to end: mutate → bundles → ``gen09 verify``."""

import fnmatch
import json
import shutil
import tomllib

import pytest

from gen09_core.testrun import ecosystems, outcomes, reports
from gen09_core.testrun.ecosystems import ruby
from gen09_core.testrun.ecosystems.jobs import RUNNER_FILES
from tests.helpers import ROOT
from tests.test_langs_e2e import LANGS, instances, mutate, need, summary, verify_all

FIXTURE = LANGS / "ruby-minitest-calc"
RUNNER = RUNNER_FILES["gen09_minitest.rb"]


def copy_fixture(tmp_path):
    repo = tmp_path / "calc"
    shutil.copytree(FIXTURE, repo)
    return repo


def run_minitest(repo, tmp_path):
    """The runner over ``repo`` as the recipe runs it; ``(exit code, outcome record)``."""
    import subprocess

    report, record = tmp_path / "report.xml", tmp_path / "outcomes.jsonl"
    done = subprocess.run(["ruby", "-Ilib", "-Itest", str(RUNNER)], cwd=repo, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GEN09_REPORT": str(report), "HOME": str(tmp_path)})
    reports.convert("junit", str(report), str(record), str(repo), done.returncode)
    return done.returncode, outcomes.read(record)


def test_minitest_layout_is_detected_without_a_profile():
    recipe = ecosystems.detect(FIXTURE)
    assert recipe.ecosystem == "ruby" and recipe.report == "junit:$GEN09_REPORT"
    assert recipe.test == 'ruby -Ilib -Itest "$GEN09_RUNNER/gen09_minitest.rb"'
    assert recipe.tools == ("ruby",) and recipe.setup == ()
    assert recipe.provenance[0][1] == "3 test files in test/ + Rakefile"


def test_minitest_needs_test_files_and_a_project_file(tmp_path):
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "helper.rb").write_text("")
    (tmp_path / "Rakefile").write_text("")
    assert ruby.detect(tmp_path) is None  # no test_*.rb / *_test.rb
    (tmp_path / "test" / "a_test.rb").write_text("")
    assert ruby.detect(tmp_path).report_format == "junit"
    (tmp_path / "Rakefile").unlink()
    assert ruby.detect(tmp_path) is None  # a test/ folder alone is no Ruby project
    (tmp_path / "x.gemspec").write_text("")
    assert ruby.detect(tmp_path).provenance[0][1] == "1 test files in test/ + x.gemspec"
    (tmp_path / "spec").mkdir()
    assert ruby.detect(tmp_path).report_format == "rspec-json"  # RSpec wins


@pytest.fixture
def bundle_on_path(tmp_path, monkeypatch):
    """A ``bundle`` on PATH: the real one, or Debian's ``bundle3.1`` linked under that name."""
    real = shutil.which("bundle") or shutil.which("bundle3.1")
    if real is None:
        pytest.skip("toolchain not installed: bundler")
    if shutil.which("bundle") is None:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "bundle").symlink_to(real)
        monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")


def test_gemfile_of_installed_gems_runs_through_bundler(tmp_path, bundle_on_path):
    repo = copy_fixture(tmp_path)
    (repo / "Gemfile").write_text('source "https://rubygems.org"\ngem "minitest"\n')
    recipe = ruby.detect(repo)
    assert recipe.test == f"bundle exec {ruby.MINITEST}" and recipe.setup == ("bundle install --local",)
    assert recipe.tools == ("ruby", "bundle") and ("bundle install --local", "Gemfile") in recipe.provenance
    assert not (repo / "Gemfile.lock").exists()  # the check wrote nothing


def test_gemfile_with_gems_not_installed_falls_back_to_the_installed_gems(tmp_path, bundle_on_path):
    repo = copy_fixture(tmp_path)
    (repo / "Gemfile").write_text('source "https://rubygems.org"\ngem "minitest"\ngem "gen09-no-such-gem"\n')
    recipe = ruby.detect(repo)
    assert recipe.test == ruby.MINITEST and recipe.setup == () and recipe.tools == ("ruby",)
    where = dict(recipe.provenance)["the installed gems, not bundler"]
    assert where.startswith("Gemfile: bundle check: Bundler can't satisfy")
    (repo / "test").rename(repo / "spec")
    rspec = ruby.detect(repo)
    assert rspec.test == ruby.RSPEC and rspec.tools == ("ruby", "rspec")
    assert rspec.image_setup == ("gem install rspec -v {rspec}",)


def test_gemfile_without_bundler_on_path_uses_the_installed_gems(tmp_path, monkeypatch):
    repo = copy_fixture(tmp_path)
    (repo / "Gemfile").write_text('gem "minitest"\n')
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    recipe = ruby.detect(repo)
    assert dict(recipe.provenance)["the installed gems, not bundler"] == "Gemfile: bundle is not on PATH"
    assert recipe.image_setup == ()  # no ruby here to tell minitest's version


def test_runner_reports_every_test_with_its_file(tmp_path):
    need("ruby")
    code, record = run_minitest(copy_fixture(tmp_path), tmp_path)
    assert code == 0 and record.finished
    assert record.passed() == set(record.tests) and len(record.tests) == 9
    assert record.files["test/numbers_test.rb::NumbersTest#test_finds_the_gcd"] == "test/numbers_test.rb"
    assert "test/test_text.rb::Calc::TextTest#test_counts_vowels" in record.tests  # a namespaced class
    assert "test/test_text.rb::Calc::Text#test_0001_counts no vowels in consonants" in record.tests  # spec style
    assert ruby.minitest_version() and shutil.which("ruby")


def test_runner_failures_skips_and_errors(tmp_path):
    need("ruby")
    repo = copy_fixture(tmp_path)
    (repo / "test" / "odd_test.rb").write_text(
        'require "test_helper"\nclass OddTest < Minitest::Test\n'
        '  def test_fails; assert_equal 1, 2; end\n  def test_skips; skip "later"; end\n'
        '  def test_raises; raise ArgumentError, "boom"; end\nend\n')
    code, record = run_minitest(repo, tmp_path)
    assert code == 1
    assert record.outcome("test/odd_test.rb::OddTest#test_fails") == "failed"
    assert "Expected: 1" in record.tests["test/odd_test.rb::OddTest#test_fails"].message
    assert record.outcome("test/odd_test.rb::OddTest#test_skips") == "skipped"
    assert record.outcome("test/odd_test.rb::OddTest#test_raises") == "error"
    assert len(record.passed()) == 9


def test_a_file_that_does_not_load_leaves_its_tests_not_passing(tmp_path):
    """A syntax error in lib/ (a mutant that does not parse): every test file that requires it
    is a problem of the run, its tests are missing, and missing is not passing."""
    need("ruby")
    repo = copy_fixture(tmp_path)
    numbers = repo / "lib" / "calc" / "numbers.rb"
    numbers.write_text(numbers.read_text().replace("value < low", "value < low +", 1))
    code, record = run_minitest(repo, tmp_path)
    assert code == 1 and record.finished and record.tests == {}
    assert {where for where, _ in record.collect_errors} >= {"test/numbers_test.rb", "test/test_text.rb"}
    assert "SyntaxError" in record.first_problem() or "SyntaxError" in record.collect_errors[0][1]
    reward, bad = outcomes.grade(record, {"test/numbers_test.rb::NumbersTest#test_finds_the_gcd"})
    assert reward == 0 and bad == [("test/numbers_test.rb::NumbersTest#test_finds_the_gcd", "missing")]


def test_runner_ids_repeat_across_runs(tmp_path):
    need("ruby")
    first = run_minitest(copy_fixture(tmp_path / "a"), tmp_path / "a")[1]
    second = run_minitest(copy_fixture(tmp_path / "b"), tmp_path / "b")[1]
    assert list(first.tests) == list(second.tests)


def test_runner_ships_with_the_package():
    """Every runner file of the ecosystems package (the minitest runner, node's, old mocha's and
    jasmine's reporters, vitest's diff reporter) is package data, so an installed gen09 has it."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["gen09_core.testrun.ecosystems"]
    shipped = [path for path in RUNNER_FILES.values() if path.parent == RUNNER.parent]
    assert len(shipped) == 5 and all(path.is_file() for path in shipped)
    assert all(any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns) for path in shipped)


@pytest.fixture(scope="module")
def minitest_run(tmp_path_factory):
    need("ruby")
    return mutate(tmp_path_factory, "ruby-minitest-calc")


def test_minitest_mutants_bundle_and_verify(minitest_run):
    out = minitest_run["out"]
    assert minitest_run["done"].returncode == 0, minitest_run["done"].stderr
    data = summary(out)
    assert data["environment"]["ecosystem"] == "ruby" and data["environment"]["report"].startswith("junit:")
    assert data["baseline"]["stable"] == 9
    verify_all(out, data)
    for inst in instances(out):
        bundle = out / inst["task"]
        f2p_files = {t.split("::")[0] for t in inst["FAIL_TO_PASS"]}
        assert f2p_files and f2p_files <= {"test/numbers_test.rb", "test/test_text.rb"}
        for test_file in f2p_files:
            assert not (bundle / "environment" / "repo" / test_file).exists()
            assert (bundle / "tests" / "hidden" / test_file).is_file()
        assert (bundle / "environment" / "repo" / "test" / "test_helper.rb").is_file()
        assert (bundle / "tests" / "runner" / "gen09_minitest.rb").is_file()
        lock = json.loads((bundle / "environment" / "gen09.toolchain.json").read_text())
        dockerfile = (bundle / "environment" / "Dockerfile").read_text()
        assert dockerfile.startswith(f"FROM ruby:{dict(lock['tools'])['ruby']}\n")
        assert f"RUN gem install minitest -v {ruby.minitest_version()}" in dockerfile


def test_minitest_through_bundler_end_to_end(tmp_path, bundle_on_path):
    """A Gemfile whose gems are installed: ``bundle install --local`` once, ``bundle exec`` in
    every job and trial, bundler in the lock, and the bundles verify."""
    from tests.helpers import run_gen09

    repo = copy_fixture(tmp_path)
    (repo / "Gemfile").write_text('source "https://rubygems.org"\ngem "minitest"\n')
    out = tmp_path / "run"
    done = run_gen09("mutate", repo, "--n", "4", "--seed", "1", "--workers", "2", "--out", out)
    assert done.returncode == 0, done.stderr
    data = summary(out)
    assert data["environment"]["test"] == f"bundle exec {ruby.MINITEST}"
    assert data["environment"]["toolchain"].startswith("ruby ") and ", bundle " in data["environment"]["toolchain"]
    assert data["baseline"]["stable"] == 9 and not (repo / "Gemfile.lock").exists()
    verify_all(out, data)
    bundle = out / instances(out)[0]["task"]
    assert (bundle / "environment" / "repo" / "Gemfile.lock").is_file()  # written by the setup, shipped
    assert "RUN bundle install\n" in (bundle / "environment" / "Dockerfile").read_text()
