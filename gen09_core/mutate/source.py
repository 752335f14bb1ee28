"""The source stage of ``repo_mutate``: copy the repository's source files into the run's
pristine work copy (once; a resumed run reuses it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from gen09_core.mutate.config import source_files


def copy_source(ctx, work) -> tuple[str, ...]:
    """Copy the source files of ``ctx.config.source.repo`` to ``work.pristine``; returns
    their repo-relative paths."""
    marker = work.work / ".pristine-ready"
    repo = Path(ctx.config.source.repo)
    files = source_files(repo)
    if not marker.exists():
        shutil.rmtree(work.pristine, ignore_errors=True)
        for rel in files:
            target = work.pristine / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            # with its mode (an executable configure) and times; a symbolic link as a link
            shutil.copy2(repo / rel, target, follow_symlinks=False)
        marker.write_text("ok\n")
        ctx.journal.receipt("source", work.pristine, {"revision": ctx.config.source.revision})
    ctx.journal.event("source", "done", ctx.config.source.name, detail={"files": len(files)})
    return tuple(files)
