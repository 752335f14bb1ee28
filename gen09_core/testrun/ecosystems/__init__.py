"""How a non-Python repository builds and tests: one recipe per ecosystem, detected from its
own files, or given in the configuration as a ``command`` profile.

A :class:`CommandRecipe` says which shell commands prepare the work copy once (``setup``),
which one command runs the whole suite (``test``) and where the runner leaves its
machine-readable report (``report = "FORMAT:PATH"``, read by
:mod:`gen09_core.testrun.reports` into the one outcome record). Two variables reach every
test command: ``GEN09_REPORT`` (a fresh path for the report) and ``GEN09_RUNNER`` (the folder
of gen09's runner files, such as its reporter for node's test runner).

Detected (first match wins; each module is one ecosystem):

- :mod:`.maven`: ``pom.xml`` → ``mvn -o test`` (after one online ``mvn test`` that fills the
  local repository), surefire's JUnit XML reports;
- :mod:`.gradle`: ``build.gradle`` or ``build.gradle.kts`` → ``./gradlew`` (or ``gradle``)
  ``test --offline``, its JUnit XML reports;
- :mod:`.node`: ``package.json`` → ``npm ci`` (``npm install`` without a lockfile); the
  runner from ``scripts.test`` or the dev dependencies: node's ``node --test``, jest,
  vitest, mocha;
- :mod:`.cargo`: ``Cargo.toml`` → ``cargo test --no-fail-fast`` (offline after a
  ``cargo fetch``), libtest's console output;
- :mod:`.go`: ``go.mod`` → ``go test -json -count=1 ./...``;
- :mod:`.ruby`: ``spec/`` or ``.rspec`` → ``rspec --format json``; else ``test/`` with
  ``test_*.rb`` / ``*_test.rb`` files and a ``Gemfile``, gemspec or ``Rakefile`` → minitest
  through gen09's runner ``gen09_minitest.rb`` (JUnit XML); through bundler when a
  ``Gemfile``'s gems are all installed, else with the installed gems;
- :mod:`.cmake`: ``CMakeLists.txt`` with tests → configure, build and
  ``ctest --output-junit``;
- :mod:`.make`: an automake project (``Makefile.am`` + ``configure``) → ``./configure`` and
  ``make check`` in each job's copy, automake's ``.trs`` files; or a ``Makefile`` with a
  ``check`` / ``test`` rule → that target, the TAP its tests print.

A Java build comes first: Java projects often carry a ``package.json`` for their tooling.

Selection: none of these runners records which tests execute which lines, so every mutant
is validated with the whole suite (SWE-smith's way), and that run is its confirmation.
"""

from __future__ import annotations

from pathlib import Path

from attrs import field, frozen

from gen09_core.errors import BadInput


class NoRunner(BadInput):
    """The repository's project files are found but not its test runner; ``recipe`` is the
    rest of what was detected (its ``test`` and ``report`` empty), for a profile that gives them."""

    def __init__(self, message: str, recipe: CommandRecipe):
        super().__init__(message)
        self.recipe = recipe


@frozen
class CommandRecipe:
    """How one repository installs and tests through shell commands.

    ``image`` is the bundle's base image; ``{TOOL}`` and ``{TOOL.major}`` in it are filled
    with the validated toolchain's versions (``node:{node}`` → ``node:20.20.2``).
    ``image_setup`` are the Dockerfile's RUN steps after the snapshot is copied (None: the
    ``setup`` commands); ``replay`` rebuilds the environment in a copy of a shipped snapshot
    (``gen09 verify`` without Docker; None: the ``setup`` commands). ``tools`` must be on
    ``PATH`` (their versions are the lock); ``linked`` folders of the prepared work copy are
    linked, not copied, into each test job (``node_modules``); ``build_dirs`` never reach a
    job or a learner snapshot; ``test_globs`` name the test sources where the runner's
    report names no file (ctest), for the bundle to hide."""

    ecosystem: str
    language: str
    test: str
    report: str
    setup: tuple[str, ...] = ()
    image: str = ""
    image_setup: tuple[str, ...] | None = None
    replay: tuple[str, ...] | None = None
    tools: tuple[str, ...] = ()
    lockfiles: tuple[str, ...] = ()
    linked: tuple[str, ...] = ()
    build_dirs: tuple[str, ...] = ()
    test_globs: tuple[str, ...] = ()
    env: dict = field(factory=dict)
    provenance: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def report_format(self) -> str:
        """The ``FORMAT`` of ``report``."""
        return self.report.split(":", 1)[0]

    @property
    def report_path(self) -> str:
        """The ``PATH`` of ``report`` (``-``: the command's output)."""
        return self.report.split(":", 1)[1] if ":" in self.report else "-"

    def summary(self) -> str:
        """One line saying what was detected and from where."""
        return "; ".join(f"{what} ({where})" for what, where in self.provenance) or "nothing detected"

    def no_stable_tests(self, baseline, profile_name: str) -> str:
        """Why a baseline with no stable test can validate nothing, and what to set."""
        counts = f"{len(baseline.failing)} failing or skipped, {len(baseline.flaky)} flaky"
        problem = next(iter(baseline.problems), "")
        first = f" First error: {problem[:400]}." if problem else ""
        noted = f" Noted: {'; '.join(self.notes)}." if self.notes else ""
        return (f"the repository has no stable passing tests ({counts}), so nothing can validate a bug."
                f"{first}{noted} Detected: {self.summary()}. To fix: give profile = \"mine\" and "
                f"[profiles.mine] base = \"{self.ecosystem}\" with setup / test / report in a --config file "
                f"(profile {profile_name!r} ran: {self.test})")


def detect(repo: Path) -> CommandRecipe | None:
    """The recipe of the first ecosystem whose files ``repo`` has, or None."""
    from gen09_core.testrun.ecosystems import cargo, cmake, go, gradle, make, maven, node, ruby

    for module in (maven, gradle, node, cargo, go, ruby, cmake, make):
        recipe = module.detect(Path(repo))
        if recipe is not None:
            return recipe
    return None


def script_parts(script: str) -> list[str]:
    """The parts of a shell script, split at ``&&``, ``||`` and ``;``."""
    import re

    return re.split(r"&&|\|\||;", script or "")


def script_segment(script: str, word: str) -> list[str] | None:
    """The words of the part of a shell script (``script_parts``) that runs ``word`` (a
    program name, matched by its base name), or None."""
    import shlex

    for part in script_parts(script):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if any(Path(w).name == word for w in words):
            return words
    return None
