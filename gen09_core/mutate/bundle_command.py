"""The parts of a Harbor bundle that differ for command recipes (every ecosystem but
Python's): which test files are hidden, the Dockerfile, the toolchain lock, ``tests/test.sh``
and the runner files. :func:`gen09_core.mutate.bundle.export` writes everything else the
same way for every ecosystem.

- hidden (restored by the verifier): the files the runner's report names for the F2P and
  P2P tests (jest, vitest, mocha, node's runner, RSpec; for cargo the integration-test
  targets ``tests/*.rs``), or where it names none the source file of a JUnit test class
  (``calc.CalcTest`` → ``.../calc/CalcTest.java``) and the files the recipe's
  ``test_globs`` match (ctest, go); never the mutated file; the F2P ones are left out of the learner
  snapshot;
- the build folders (``node_modules``, ``target``, ``build-gen09``) never ship;
- ``environment/Dockerfile`` starts from the official image at the validated toolchain's
  version (``node:20.20.2``, ``rust:1.95.0``, ``gcc:12``), copies the snapshot and runs the
  recipe's setup there (``npm ci`` from the shipped lockfile, ``cargo fetch``), so test
  runs need no network;
- ``tests/test.sh`` runs the recipe's test command (the whole suite, as the validation
  did), converts its report with ``gen09_reports.py`` and grades with ``gen09_outcomes.py``.
"""

from __future__ import annotations

import fnmatch
import shlex
from pathlib import PurePosixPath

from attrs import field, frozen

from gen09_core.mutate.baseline import FLAKY_RULE
from gen09_core.mutate.bundle import verifier_preamble
from gen09_core.testrun.ecosystems.jobs import install_runner
from gen09_core.testrun.ecosystems.toolchain import LOCK_NAME, ToolchainLock

PYTHON_STEP = ("command -v python3 >/dev/null 2>&1 || (apt-get update && apt-get install -y "
               "--no-install-recommends python3 && rm -rf /var/lib/apt/lists/*)")


@frozen
class CommandFlavour:
    """The command-recipe parts of a bundle; ``test_files`` maps test ids to the files the
    runner's report names."""

    lock: ToolchainLock
    test_files: dict = field(factory=dict)
    lock_name: str = LOCK_NAME

    @property
    def language(self) -> str:
        """The recipe's language (a keyword of ``task.toml``)."""
        return self.lock.language

    def _files(self, spec, ids, files=()) -> set:
        named = {self.test_files[t] for t in ids if t in self.test_files}
        unnamed = [t for t in ids if t not in self.test_files]
        if unnamed:  # the report names no file: a JUnit class's source, else the conventions
            named |= {rel for rel in files if any(fnmatch.fnmatchcase(rel, g) for g in self.lock.test_globs)}
            named |= class_files(unnamed, files)
        return named - {spec.path}

    def f2p_files(self, spec, files=()) -> list[str]:
        """The files of the F2P tests (left out of the learner snapshot)."""
        return sorted(self._files(spec, spec.fail_to_pass, files) & set(files))

    def hidden_files(self, spec, files) -> list[str]:
        """The files of the F2P and P2P tests that the repository has."""
        return sorted(self._files(spec, spec.fail_to_pass + spec.pass_to_pass, files) & set(files))

    def ships(self, rel: str) -> bool:
        """False for files inside a build folder."""
        return PurePosixPath(rel).parts[0] not in set(self.lock.build_dirs) | set(self.lock.linked)

    def lock_text(self) -> str:
        """The toolchain lock's text."""
        return self.lock.render()

    def install_runner(self, folder) -> None:
        """gen09's runner files into the bundle."""
        install_runner(folder)

    def dockerfile(self) -> str:
        """The learner image (see the module docstring)."""
        steps = [f"RUN {step}" for step in self.lock.image_setup]
        env = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in sorted(self.lock.env.items()))
        return (f"FROM {self.lock.image}\n"
                f"# validated with {self.lock.describe()}\n"
                f"RUN {PYTHON_STEP}\n"
                "WORKDIR /testbed\n"
                f"COPY {LOCK_NAME} /gen09/{LOCK_NAME}\n"
                "COPY repo/ /testbed/\n"
                + (f"ENV {env}\n" if env else "")
                + "".join(step + "\n" for step in steps)
                + "RUN (id -u learner >/dev/null 2>&1 || useradd --create-home learner) && "
                "chown -R learner /testbed\n")

    def test_sh(self) -> str:
        """The verifier entry point: the whole suite, its report into the outcome record, the
        reward from gen09's outcome reader."""
        fmt, _, path = self.lock.report.partition(":")
        report = '"$LOG_DIR/test-output.txt"' if path in ("", "-") else f'"{path}"'
        exports = "".join(f"export {k}={shlex.quote(str(v))}\n" for k, v in sorted(self.lock.env.items()))
        comment = (f"# Verifier: restore the hidden tests, run the whole suite ({self.lock.ecosystem}),\n"
                   f"# grade FAIL_TO_PASS + PASS_TO_PASS from its {fmt} report, write the reward (1 when\n"
                   "# all pass, else 0) to $LOG_DIR/reward.txt.\n")
        return verifier_preamble(comment, "python3") + f"""\
if [ -d "$TESTS_DIR/hidden" ]; then cp -R "$TESTS_DIR/hidden/." "$APP_DIR/"; fi
export GEN09_RUNNER="$TESTS_DIR/runner" GEN09_REPORT="$LOG_DIR/report"
{exports}rm -f "$GEN09_REPORT" "$LOG_DIR/outcomes.jsonl"
bash -c {shlex.quote(self.lock.test)} > "$LOG_DIR/test-output.txt" 2>&1
STATUS=$?
"$PYTHON" "$TESTS_DIR/runner/gen09_reports.py" {fmt} {report} "$LOG_DIR/outcomes.jsonl" \\
    --root "$APP_DIR" --exit "$STATUS"
"$PYTHON" "$TESTS_DIR/runner/gen09_outcomes.py" grade "$LOG_DIR/outcomes.jsonl" "$TESTS_DIR/expected.json" \\
    > "$LOG_DIR/reward.txt" 2>> "$LOG_DIR/test-output.txt" || echo 0 > "$LOG_DIR/reward.txt"
cat "$LOG_DIR/reward.txt"
"""


def class_files(ids, files) -> set:
    """The source files of JUnit test classes: ``calc.CalcTest::adds()`` is the file ending in
    ``calc/CalcTest.java`` (or ``.kt``, ``.scala``, ``.groovy``); a nested class
    (``Outer$Inner``) is its outer class's file."""
    wanted = set()
    for test_id in ids:
        classname = test_id.split("::", 1)[0].split("$", 1)[0]
        if "." in classname or classname[:1].isupper():
            wanted.add(classname.replace(".", "/"))
    out = set()
    for rel in files:
        stem, dot, suffix = rel.rpartition(".")
        if dot and suffix in ("java", "kt", "scala", "groovy") and any(
                stem == w or stem.endswith("/" + w) for w in wanted):
            out.add(rel)
    return out


def adaptations(lock: ToolchainLock) -> tuple[str, ...]:
    """What the bundles of a command recipe do differently from SWE-smith's."""
    return (
        f"{lock.ecosystem}: every mutant is validated with the whole suite (no per-test coverage)",
        FLAKY_RULE,
        "the F2P tests' files (as the runner's report names them) are removed from the learner snapshot "
        "and restored by the verifier",
        "mutants are gated by gen09 apply + gate (tree-sitter parse) before any test runs",
        f"the image starts from {lock.image} (validated with {lock.describe()}) and runs the recipe's "
        "setup from the shipped lockfile",
    )
