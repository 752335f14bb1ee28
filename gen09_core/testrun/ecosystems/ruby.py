"""Ruby: RSpec (``spec/`` or ``.rspec``) → ``rspec --format json``.

With a ``Gemfile`` the suite runs through bundler (``bundle install`` once, then
``bundle exec rspec``); without one, with the installed gems (Debian's ``ruby-rspec`` here).
Per-test outcomes from RSpec's JSON formatter (format ``rspec-json``), ids RSpec's own
(``./spec/a_spec.rb[1:2]``), files as it names them. Minitest suites have no machine-readable
report without an extra gem: give them a command profile.
"""

from __future__ import annotations

from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe


def detect(repo: Path) -> CommandRecipe | None:
    """The RSpec recipe of ``repo``, or None when it has no ``spec/`` folder or ``.rspec``."""
    repo = Path(repo)
    if not ((repo / ".rspec").is_file() or (repo / "spec").is_dir()):
        return None
    bundler = (repo / "Gemfile").is_file()
    rspec = "bundle exec rspec" if bundler else "rspec"
    provenance = [("rspec", ".rspec" if (repo / ".rspec").is_file() else "spec/")]
    if bundler:
        locked = " + Gemfile.lock" if (repo / "Gemfile.lock").is_file() else ""
        provenance.append(("bundle install", "Gemfile" + locked))
    return CommandRecipe(
        ecosystem="ruby", language="ruby", test=f'{rspec} --no-color --format json --out "$GEN09_REPORT"',
        report="rspec-json:$GEN09_REPORT", setup=("bundle install",) if bundler else (), image="ruby:{ruby}",
        image_setup=("bundle install",) if bundler else ("gem install rspec -v {rspec}",),
        tools=("ruby", "bundle") if bundler else ("ruby", "rspec"), lockfiles=("Gemfile.lock",),
        build_dirs=("vendor",) if bundler else (), provenance=tuple(provenance))
