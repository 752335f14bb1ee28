"""C/C++: ``CMakeLists.txt`` with tests → configure, build, ``ctest --output-junit``.

A project counts as tested when its CMake files call ``enable_testing()``,
``include(CTest)``, ``add_test`` or ``gtest_discover_tests``. Every test run configures
and builds into its own ``build-gen09`` folder (a CMake cache holds absolute paths, so a
build folder cannot move between copies), with ``BUILD_TESTING=ON``; a mutant that does
not compile leaves no report, so none of its tests passes. ctest's JUnit output (CMake ≥
3.21) gives one test per ``add_test`` (a gtest suite registered through
``gtest_discover_tests`` gives one per gtest case).
"""

from __future__ import annotations

import re
from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

TESTED = re.compile(
    r"^\s*(enable_testing\s*\(|include\s*\(\s*CTest\b|add_test\s*\(|gtest_discover_tests\s*\()", re.M | re.I)
BUILD = "build-gen09"


def detect(repo: Path) -> CommandRecipe | None:
    """The CMake recipe of ``repo``, or None without a tested ``CMakeLists.txt``."""
    repo = Path(repo)
    if not (repo / "CMakeLists.txt").is_file():
        return None
    cmake_files = [repo / "CMakeLists.txt", *repo.glob("*/CMakeLists.txt"), *repo.glob("*/*/CMakeLists.txt"),
                   *repo.glob("cmake/*.cmake")]
    where = next((p.relative_to(repo).as_posix() for p in cmake_files
                  if TESTED.search(p.read_text(encoding="utf-8", errors="replace"))), None)
    if where is None:
        return None
    cpp = any(p.suffix in (".cc", ".cpp", ".cxx", ".hpp", ".hh") for p in repo.rglob("*") if p.is_file())
    test = (f"cmake -S . -B {BUILD} -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON > /dev/null && "
            f"cmake --build {BUILD} -j 2 && ctest --test-dir {BUILD} --output-junit \"$GEN09_REPORT\" "
            "--timeout 120")
    return CommandRecipe(
        ecosystem="cmake", language="cpp" if cpp else "c", test=test, report="junit:$GEN09_REPORT",
        image="gcc:{gcc.major}", image_setup=(
            "apt-get update && apt-get install -y --no-install-recommends cmake "
            "&& rm -rf /var/lib/apt/lists/*",), replay=(),
        tools=("cmake", "ctest", "gcc", "g++" if cpp else "cc"), build_dirs=(BUILD, "build"),
        test_globs=("tests/*", "test/*", "unittests/*"),
        provenance=(("cmake + ctest --output-junit", f"{where} (tests)"),))
