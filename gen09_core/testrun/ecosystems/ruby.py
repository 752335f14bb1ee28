"""Ruby: RSpec (``spec/`` or ``.rspec``) or minitest (``test/`` with ``test_*.rb`` /
``*_test.rb`` files, and a ``Gemfile``, gemspec or ``Rakefile``).

- RSpec → ``rspec --format json`` (format ``rspec-json``), ids RSpec's own
  (``./spec/a_spec.rb[1:2]``), files as it names them.
- minitest → gen09's runner ``gen09_minitest.rb`` (minitest has no machine-readable report
  without an extra gem): it loads every test file, runs them with minitest's autorun at a
  fixed seed and writes JUnit XML (format ``junit``), ids ``test/a_test.rb::Class#method``,
  the file being the one that defines the test method. A test file that does not load is a
  problem of the run and its tests are absent, so none of them passes.

Bundler: with a ``Gemfile``, the suite runs through ``bundle exec`` (``bundle install --local``
once) only when ``bundle`` is on ``PATH`` and ``bundle check --dry-run`` finds every gem of the
Gemfile installed; otherwise (a real Gemfile lists gems that cannot be installed offline,
such as linters and coverage tools) it runs with the installed gems, ``rspec`` or
``ruby -Ilib -Itest``, and the provenance says why. The image then installs the runner gem at
the validated version. Detection thus runs ``bundle check`` and asks ruby for minitest's
version.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

MINITEST = 'ruby -Ilib -Itest "$GEN09_RUNNER/gen09_minitest.rb"'
RSPEC = 'rspec --no-color --format json --out "$GEN09_REPORT"'


def detect(repo: Path) -> CommandRecipe | None:
    """The RSpec or minitest recipe of ``repo``, or None when it has neither layout."""
    repo = Path(repo)
    if (repo / ".rspec").is_file() or (repo / "spec").is_dir():
        return _recipe(repo, RSPEC, "rspec-json", "rspec", (("rspec", ".rspec" if (repo / ".rspec").is_file()
                                                             else "spec/"),))
    tests = sorted(p for p in (repo / "test").glob("**/*.rb") if p.name.startswith("test_")
                   or p.name.endswith("_test.rb")) if (repo / "test").is_dir() else []
    project = next((n for n in ("Gemfile", "Rakefile") if (repo / n).is_file()), None) or next(
        (p.name for p in sorted(repo.glob("*.gemspec"))), None)
    if not tests or project is None:
        return None
    where = f"{len(tests)} test files in test/ + {project}"
    return _recipe(repo, MINITEST, "junit", "minitest", (("minitest (gen09_minitest.rb, JUnit XML)", where),))


def _recipe(repo: Path, command: str, fmt: str, runner: str, provenance: tuple) -> CommandRecipe:
    gemfile = (repo / "Gemfile").is_file()
    why = bundler_problem(repo) if gemfile else ""
    common = dict(ecosystem="ruby", language="ruby", report=f"{fmt}:$GEN09_REPORT", image="ruby:{ruby}",
                  lockfiles=("Gemfile.lock",))
    if gemfile and not why:
        locked = " + Gemfile.lock" if (repo / "Gemfile.lock").is_file() else ""
        return CommandRecipe(test=f"bundle exec {command}", setup=("bundle install --local",),
                             image_setup=("bundle install",), tools=("ruby", "bundle"),
                             build_dirs=("vendor",), **common,
                             provenance=(*provenance, ("bundle install --local", "Gemfile" + locked)))
    if gemfile:
        provenance = (*provenance, ("the installed gems, not bundler", f"Gemfile: {why}"))
    if runner == "rspec":
        return CommandRecipe(test=command, image_setup=("gem install rspec -v {rspec}",),
                             tools=("ruby", "rspec"), provenance=provenance, **common)
    version = minitest_version()
    return CommandRecipe(test=command, image_setup=(f"gem install minitest -v {version}",) if version else (),
                         tools=("ruby",), provenance=provenance, **common)


def bundler_problem(repo: Path) -> str:
    """Why bundler cannot run ``repo``'s suite offline (empty when it can): ``bundle`` is not
    on ``PATH``, or ``bundle check --dry-run`` (which writes no lockfile) fails."""
    bundle = shutil.which("bundle")
    if bundle is None:
        return "bundle is not on PATH"
    try:
        done = subprocess.run([bundle, "check", "--dry-run"], cwd=repo, capture_output=True, text=True,
                              timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bundle check failed: {exc}"
    if done.returncode == 0:
        return ""
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return "bundle check: " + " ".join(lines[:3])[:300]


def minitest_version() -> str:
    """The version of the minitest ``ruby`` loads (empty without ruby or minitest)."""
    ruby = shutil.which("ruby")
    if ruby is None:
        return ""
    try:
        done = subprocess.run([ruby, "-e", 'require "minitest"; print Minitest::VERSION'],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
