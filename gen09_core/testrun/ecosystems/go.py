"""Go: ``go.mod`` → ``go test -json -count=1 ./...``.

``go mod download`` runs once (a no-op for a module without requirements; elsewhere it needs
the module proxy, or a vendor folder); every test run then uses only the module cache, and
``GOTOOLCHAIN=local`` keeps go from fetching another toolchain. ``-count=1`` turns off go's
test-result cache, so each run runs. Per-test outcomes from ``go test -json`` (format
``go-json``, read from the command's output: build errors go there too). go's events name
the package, not the file, so a bundle hides the module's ``*_test.go`` files and
``testdata/`` folders.
"""

from __future__ import annotations

import re
from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

MODULE = re.compile(r"^module\s+(\S+)", re.M)


def detect(repo: Path) -> CommandRecipe | None:
    """The go recipe of ``repo``, or None without a ``go.mod``."""
    path = Path(repo) / "go.mod"
    if not path.is_file():
        return None
    match = MODULE.search(path.read_text(encoding="utf-8", errors="replace"))
    provenance = [(f"go test ./... (module {match.group(1) if match else '?'})", "go.mod")]
    if (Path(repo) / "go.sum").is_file():
        provenance.append(("locked module sums", "go.sum"))
    return CommandRecipe(
        ecosystem="go", language="go", test="go test -json -count=1 ./...", report="go-json:-",
        setup=("go mod download",), image="golang:{go}", tools=("go",), lockfiles=("go.mod", "go.sum"),
        test_globs=("*_test.go", "testdata/*", "*/testdata/*"),
        env={"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"},
        provenance=tuple(provenance))
