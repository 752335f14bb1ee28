"""Java: Gradle (``build.gradle`` or ``build.gradle.kts``) → ``gradle test --offline``, per-test
outcomes from its JUnit XML reports.

The project's wrapper (``./gradlew``) runs when the repository has one, else ``gradle`` from
``PATH``. Setup compiles the main and test classes once (``testClasses``: that resolves the
compile and test dependencies); every test run is ``--offline`` and ``--continue`` (a failing
test of one project does not stop the others), after removing the stale
``build/test-results`` folders. Gradle writes one JUnit XML file a test class
(``**/build/test-results/test/TEST-*.xml``, format ``junit``); ids are
``package.Class::method``, and a bundle hides the test class's source found from its name.
Image: the official ``gradle`` image at the validated Gradle and Java major
(``gradle:8.5-jdk17``), or ``eclipse-temurin`` at the Java major with a wrapper.

Only detection is tested here: Gradle is not installed on gen09's build machine, where
``gen09 mutate`` of a Gradle project stops with exit 3 naming the missing tool.
"""

from __future__ import annotations

from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

CLEAN = "find . -path '*/build/test-results' -prune -exec rm -rf {} +"
REPORTS = "**/build/test-results/test/TEST-*.xml"


def detect(repo: Path) -> CommandRecipe | None:
    """The Gradle recipe of ``repo``, or None without a ``build.gradle(.kts)``."""
    repo = Path(repo)
    build = next((n for n in ("build.gradle.kts", "build.gradle") if (repo / n).is_file()), None)
    if build is None:
        return None
    wrapper = (repo / "gradlew").is_file()
    gradle = "./gradlew" if wrapper else "gradle"
    return CommandRecipe(
        ecosystem="gradle", language="java",
        test=f"{CLEAN}; {gradle} test --offline --continue --console=plain -q", report=f"junit:{REPORTS}",
        setup=(f"{gradle} testClasses --console=plain -q",),
        image="eclipse-temurin:{java.major}" if wrapper else "gradle:{gradle}-jdk{java.major}",
        tools=("java",) if wrapper else ("gradle", "java"), build_dirs=("build", ".gradle"),
        env={"GRADLE_OPTS": "-Dorg.gradle.daemon=false"},
        provenance=((f"{gradle} test + JUnit XML reports", build + (" + gradlew" if wrapper else "")),))
