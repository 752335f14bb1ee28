"""Rust: ``Cargo.toml`` → ``cargo test --no-fail-fast``.

``cargo fetch`` runs once (it downloads the locked dependencies where a registry is
reachable, and writes ``Cargo.lock`` when the repository has none); every test run is then
``--offline``, so a run never reaches the network. Per-test outcomes come from libtest's
console output (format ``libtest``; its JSON output needs a nightly toolchain). A workspace
tests every member (``--workspace``). Doc-tests run too (``Doc-tests`` targets).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from gen09_core.errors import BadInput
from gen09_core.testrun.ecosystems import CommandRecipe


def detect(repo: Path) -> CommandRecipe | None:
    """The cargo recipe of ``repo``, or None without a ``Cargo.toml``."""
    path = Path(repo) / "Cargo.toml"
    if not path.is_file():
        return None
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not valid TOML: {exc}") from None
    workspace = " --workspace" if "workspace" in manifest else ""
    provenance = [("cargo test" + workspace, "Cargo.toml" + (" [workspace]" if workspace else ""))]
    if (Path(repo) / "Cargo.lock").is_file():
        provenance.append(("locked dependencies", "Cargo.lock"))
    return CommandRecipe(
        ecosystem="cargo", language="rust",
        test=f"cargo test --offline --no-fail-fast{workspace}", report="libtest:-",
        setup=("cargo fetch",), image="rust:{rustc}", tools=("cargo", "rustc"), lockfiles=("Cargo.lock",),
        build_dirs=("target",), env={"CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0"},
        provenance=tuple(provenance))
