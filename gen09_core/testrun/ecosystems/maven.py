"""Java: Maven (``pom.xml``) → ``mvn -o test``, per-test outcomes from surefire's XML reports.

Setup runs the suite once (``mvn test`` with test failures ignored), offline first and
online only when that fails: that resolves the dependencies, the plugins and surefire's
JUnit provider into the local repository (``~/.m2/repository``), which ``mvn
dependency:go-offline`` does not do completely (it misses surefire's provider, and offline
it cannot load its own dependencies). Offline first, because a local repository filled by
another machine or a mirror may lack a descriptor that only an online build asks for; the
build folders are then removed. Every test run is offline (``-o``), starts without stale reports
(each module's ``target/`` next to its ``pom.xml`` is removed) and ignores test failures,
so a failing test still leaves its report; a mutant that does not compile leaves none, so
none of its tests passes. Surefire writes one JUnit XML file a test class
(``**/target/surefire-reports/TEST-*.xml``, format ``junit``, every module's read); ids are
``package.Class::method`` (``Outer$Inner`` for a nested class), the report names no file,
so a bundle hides the test class's source found from its name.

Image: the official ``maven`` image at the validated Maven, on Eclipse Temurin at the
validated Java major (``maven:3.8.7-eclipse-temurin-17``), since the plain ``eclipse-temurin``
image has no Maven; its setup resolves into ``/opt/m2``, made the local repository of every
user through Maven's global settings.
"""

from __future__ import annotations

from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

FLAGS = "-B -q -Dstyle.color=never -DtrimStackTrace=true -Dmaven.test.failure.ignore=true " \
        "-Dsurefire.failIfNoSpecifiedTests=false"
CLEAN = r"find . -name pom.xml -not -path '*/src/*' -execdir rm -rf target \;"
REPORTS = "**/target/surefire-reports/TEST-*.xml"
SHARED = ("printf '<settings><localRepository>/opt/m2</localRepository></settings>\\n' "
          '> "$MAVEN_HOME/conf/settings.xml"')


def detect(repo: Path) -> CommandRecipe | None:
    """The Maven recipe of ``repo``, or None without a ``pom.xml``."""
    if not (Path(repo) / "pom.xml").is_file():
        return None
    setup = f"(mvn -o {FLAGS} test || mvn {FLAGS} test) && {CLEAN}"
    return CommandRecipe(
        ecosystem="maven", language="java", test=f"{CLEAN}; mvn -o {FLAGS} test", report=f"junit:{REPORTS}",
        setup=(setup,), image="maven:{mvn}-eclipse-temurin-{java.major}",
        image_setup=(SHARED, setup, "chmod -R a+rwX /opt/m2"), tools=("mvn", "java"),
        build_dirs=("target",), provenance=(("mvn -o test + surefire XML reports", "pom.xml"),))
