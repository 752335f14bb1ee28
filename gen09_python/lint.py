"""Ruff as the Python hard-lint surface: one subprocess lints a whole batch of files."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from gen09_core.errors import EnvironmentFailure
from gen09_core.models import Finding


def ruff_binary() -> str:
    """The ruff executable shipped by the ``ruff`` wheel."""
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        raise EnvironmentFailure("ruff is not installed (pip install ruff)") from None
    return find_ruff_bin()


def ruff_findings(sources: list[tuple[str, str]], select) -> list[list[Finding]]:
    """Lint each ``(path, text)`` with only the ``select`` rules; one list per source.
    Each source is written to its own folder under its own name, so file-name-dependent
    rules (``__init__.py``) behave as they would in the repository."""
    if not sources:
        return []
    with tempfile.TemporaryDirectory(prefix="gen09-lint-") as tmp:
        index = {}
        for i, (path, text) in enumerate(sources):
            file = Path(tmp, str(i), path)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8", newline="")
            index[str(file.resolve())] = i
        cmd = [ruff_binary(), "check", "--isolated", "--no-cache", "--exit-zero", "--quiet",
               "--output-format", "json", "--select", ",".join(select), *index]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, check=False)
        except OSError as exc:
            raise EnvironmentFailure(f"could not run ruff: {exc}") from None
        if done.returncode != 0:
            raise EnvironmentFailure(f"ruff failed ({done.returncode}): {done.stderr.strip()[:500]}")
        results: list[list[Finding]] = [[] for _ in sources]
        for item in json.loads(done.stdout or "[]"):
            code = item.get("code")
            if code:
                i = index[str(Path(item["filename"]).resolve())]
                results[i].append(Finding(code, item["message"], item["location"]["row"]))
        return results
