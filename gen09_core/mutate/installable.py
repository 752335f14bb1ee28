"""Whether a task's image can be built: its Dockerfile installs the buggy tree, and where
installing runs scripts of the repository itself (node's ``prepare`` that compiles), a mutant
can break them though its tests ran (jshttp/content-disposition 3: vitest runs TypeScript
without checking types, its ``prepare`` runs ``tsc``; 2 of 12 bundles' images failed to
build). The export stage runs those scripts on each mutant's tree first and exports no
task whose scripts fail."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from gen09_core.testrun.ecosystems import node
from gen09_core.testrun.ecosystems.jobs import ERROR_LINE, copy_work
from gen09_core.testrun.process import clean_env, run_limited

INSTALL_TIMEOUT_SEC = 600.0


def install_command(ecosystem: str, repo: Path) -> str | None:
    """The command that runs the scripts of ``repo`` that installing it runs, for its
    ``ecosystem``; None when installing runs none (or gen09 knows of none)."""
    return node.install_scripts(repo) if ecosystem == "node" else None


def install_fails(command: str, pristine: Path, path: str, text: str, scratch: Path, env: dict,
                  linked=(), left_out=()) -> str | None:
    """Why ``command`` fails on the ``pristine`` tree with the file ``path`` holding ``text``
    (the ``linked`` folders shared, the ``left_out`` ones not copied), or None when it succeeds."""
    Path(scratch).mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="install-", dir=scratch))
    try:
        tree = folder / "tree"
        copy_work(Path(pristine), tree, linked, left_out)
        (tree / path).write_text(text, encoding="utf-8")
        (folder / "tmp").mkdir()
        output = folder / "output.txt"
        done = run_limited(["bash", "-c", command], tree, clean_env(None, TMPDIR=str(folder / "tmp"), **env),
                           INSTALL_TIMEOUT_SEC, output)
        if done.status == "ok" and done.returncode == 0:
            return None
        lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
        said = [ln.strip() for ln in lines if ln.strip()]
        first = next((ln for ln in said if ERROR_LINE.search(ln)), said[-1] if said else done.limit)
        ended = "ran out of time" if done.status == "timeout" else f"exits {done.returncode}"
        return f"installing the buggy tree fails: {command.rsplit('; ', 1)[-1]} {ended}: {first}"[:300]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
