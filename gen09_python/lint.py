"""Ruff as the Python hard-lint surface: one subprocess lints a whole batch of files.

Suppression comments (``# noqa``, ``# noqa: F821``, a file-level ``# ruff: noqa``) are
ignored (``--ignore-noqa``): a candidate cannot talk the gate out of a finding. One that the
original file already has is a finding of the original, which the gate's
introduced-findings rule discounts like any other.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.models import Finding

ENV_RUFF = "GEN09_RUFF"  # path of the ruff executable (default: the one of the ruff wheel)
ENV_TIMEOUT = "GEN09_LINT_TIMEOUT"  # seconds one ruff run may take (default 120)
DEFAULT_TIMEOUT = 120.0


def ruff_binary() -> str:
    """The ruff executable: ``$GEN09_RUFF``, else the one shipped by the ``ruff`` wheel."""
    return os.environ.get(ENV_RUFF) or _wheel_ruff()


@functools.cache
def _wheel_ruff() -> str:
    try:
        from ruff.__main__ import find_ruff_bin

        return find_ruff_bin()
    except (ImportError, FileNotFoundError):
        raise EnvironmentFailure("ruff is not installed (pip install ruff)") from None


CACHE_SIZE = 64  # findings of this many (ruff, rules, path, text) sources are kept per process
_CACHE: dict[tuple, list[Finding]] = {}  # least recently used first
_LOCK = threading.Lock()  # one batch at a time uses the cache and the lint folder


def ruff_findings(sources: list[tuple[str, str]], select) -> list[list[Finding]]:
    """Lint each ``(path, text)`` with only the ``select`` rules; one list per source.
    Each source is written to its own folder under its own name, so file-name-dependent
    rules (``__init__.py``) behave as they would in the repository. Findings are cached by
    the ruff executable, the rules, the path and the text — content, never a file's name
    or age — so a long-lived process (``gen09 mcp``) lints the unchanged original of every
    batch once; the other sources go to one ruff process."""
    if not sources:
        return []
    ruff, rules = ruff_binary(), tuple(select)
    keys = [(ruff, rules, path, text) for path, text in sources]
    with _LOCK:
        todo = [key for key in dict.fromkeys(keys) if key not in _CACHE]
        if todo:
            _CACHE.update(zip(todo, _lint(ruff, [key[2:] for key in todo], rules), strict=True))
        results = []
        for key in keys:
            _CACHE[key] = _CACHE.pop(key)  # now the most recently used
            results.append(list(_CACHE[key]))
        while len(_CACHE) > CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
    return results


def _lint(ruff: str, sources: list[tuple[str, str]], select) -> list[list[Finding]]:
    written = []
    try:
        root = _folder(os.getpid())
        index = {}
        for i, (path, text) in enumerate(sources):
            file = root / str(i) / path
            file.parent.mkdir(parents=True, exist_ok=True)
            written.append(file)
            file.write_text(text, encoding="utf-8", newline="")
            index[str(file)] = i
        return _run(ruff, root, index, len(sources), select)
    except OSError as exc:
        raise EnvironmentFailure(f"cannot prepare the lint files in the temp folder: "
                                 f"{exc.strerror or exc}") from None
    finally:
        for file in written:
            with contextlib.suppress(OSError):
                file.unlink(missing_ok=True)


@functools.cache
def _folder(pid: int) -> Path:
    """The lint folder of process ``pid``: made on first use, removed when it exits. Between
    runs it holds no files (each run removes the ones it wrote), so a run sees only its own;
    the sub-folders stay for the next run, as making and removing them costs more than ruff
    on some disks."""
    root = Path(tempfile.mkdtemp(prefix="gen09-lint-")).resolve()
    atexit.register(_remove, root, pid)
    return root


def _remove(root: Path, pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child
        shutil.rmtree(root, ignore_errors=True)


def _run(ruff: str, root: Path, index: dict, count: int, select) -> list[list[Finding]]:
    cmd = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--quiet", "--ignore-noqa",
           "--output-format", "json", "--select", ",".join(select), *index]
    try:
        timeout = float(os.environ.get(ENV_TIMEOUT) or DEFAULT_TIMEOUT)
    except ValueError:
        raise BadInput(f"${ENV_TIMEOUT} must be a number of seconds") from None
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=root,
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
                where = item["filename"]
                where = where if where in index else str(Path(where).resolve())
                if where not in index:
                    raise EnvironmentFailure(f"ruff reported a file it was not given: {where}")
                results[index[where]].append(Finding(item["code"], item["message"],
                                                     item["location"]["row"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise EnvironmentFailure(f"ruff printed output gen09 cannot read: "
                                 f"{' '.join(done.stdout.split())[:200]!r}") from None
    return results
