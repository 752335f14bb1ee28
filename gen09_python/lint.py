"""Ruff as the Python hard-lint surface: one subprocess lints a whole batch of files.

Suppression comments (``# noqa``, ``# noqa: F821``, a file-level ``# ruff: noqa``) are
ignored (``--ignore-noqa``): a candidate cannot talk the gate out of a finding. One that the
original file already has is a finding of the original, which the gate's
introduced-findings rule discounts like any other.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.models import Finding

ENV_RUFF = "GEN09_RUFF"  # path of the ruff executable (default: the one of the ruff wheel)
ENV_TIMEOUT = "GEN09_LINT_TIMEOUT"  # seconds one ruff run may take (default 120)
DEFAULT_TIMEOUT = 120.0


def ruff_binary() -> str:
    """The ruff executable: ``$GEN09_RUFF``, else the one shipped by the ``ruff`` wheel."""
    if os.environ.get(ENV_RUFF):
        return os.environ[ENV_RUFF]
    try:
        from ruff.__main__ import find_ruff_bin

        return find_ruff_bin()
    except (ImportError, FileNotFoundError):
        raise EnvironmentFailure("ruff is not installed (pip install ruff)") from None


def ruff_findings(sources: list[tuple[str, str]], select) -> list[list[Finding]]:
    """Lint each ``(path, text)`` with only the ``select`` rules; one list per source.
    Each source is written to its own folder under its own name, so file-name-dependent
    rules (``__init__.py``) behave as they would in the repository."""
    if not sources:
        return []
    try:
        with tempfile.TemporaryDirectory(prefix="gen09-lint-", ignore_cleanup_errors=True) as tmp:
            index = {}
            for i, (path, text) in enumerate(sources):
                file = Path(tmp, str(i), path)
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_text(text, encoding="utf-8", newline="")
                index[str(file.resolve())] = i
            return _run(tmp, index, len(sources), select)
    except OSError as exc:
        raise EnvironmentFailure(f"cannot prepare the lint files in the temp folder: "
                                 f"{exc.strerror or exc}") from None


def _run(tmp: str, index: dict, count: int, select) -> list[list[Finding]]:
    ruff = ruff_binary()
    cmd = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--quiet", "--ignore-noqa",
           "--output-format", "json", "--select", ",".join(select), *index]
    try:
        timeout = float(os.environ.get(ENV_TIMEOUT) or DEFAULT_TIMEOUT)
    except ValueError:
        raise BadInput(f"${ENV_TIMEOUT} must be a number of seconds") from None
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=tmp,
                              check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise EnvironmentFailure(f"ruff ({ruff}) did not finish in {timeout:g} s "
                                 f"(${ENV_TIMEOUT} sets the limit)") from None
    except OSError as exc:
        raise EnvironmentFailure(f"could not run ruff ({ruff}): {exc.strerror or exc}") from None
    message = " ".join(done.stderr.split())[:300]
    if done.returncode != 0:
        if "Unknown rule selector" in done.stderr:
            raise BadInput(f"--hard-lint: {message.removeprefix('ruff failed Cause: ')}")
        raise EnvironmentFailure(f"ruff failed (exit {done.returncode}): {message}")
    results: list[list[Finding]] = [[] for _ in range(count)]
    try:
        for item in json.loads(done.stdout or "[]"):
            if item.get("code"):
                where = str(Path(item["filename"]).resolve())
                if where not in index:
                    raise EnvironmentFailure(f"ruff reported a file it was not given: {where}")
                results[index[where]].append(Finding(item["code"], item["message"],
                                                     item["location"]["row"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise EnvironmentFailure(f"ruff printed output gen09 cannot read: "
                                 f"{' '.join(done.stdout.split())[:200]!r}") from None
    return results
