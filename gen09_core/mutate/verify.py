"""``gen09 verify``: run a bundle's own verifier against its snapshot, locally, no Docker.

For each bundle: (nop) a fresh copy of ``environment/repo`` as the app folder, then
``tests/test.sh`` — the reward must be 0; (oracle) another fresh copy, ``solution/solve.sh``,
then ``tests/test.sh`` — the reward must be 1. The scripts' paths are redirected through
``GEN09_APP_DIR``, ``GEN09_TESTS_DIR``, ``GEN09_LOG_DIR`` and ``GEN09_PYTHON``. The bundle
itself is never modified (its tests folder is read, not written).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from attrs import frozen

from gen09_core.mutate.bundle import check_task_hash


@frozen
class Contrast:
    """One bundle's verification: the nop and oracle rewards and whether they contrast."""

    bundle: str
    nop: float | None
    oracle: float | None
    hash_ok: bool
    seconds: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        """Accepted: the hash matches, nop scores 0 and the oracle scores 1."""
        return self.hash_ok and self.nop == 0 and self.oracle == 1

    @property
    def failure_class(self) -> str | None:
        """``oracle`` when the reference solution does not score 1, ``verifier`` when the
        untouched snapshot does not score 0 or the bundle's hash is off, else None."""
        if self.oracle != 1:
            return "oracle"
        if self.nop != 0 or not self.hash_ok:
            return "verifier"
        return None

    def as_dict(self) -> dict:
        """JSON form."""
        return {"bundle": self.bundle, "nop": self.nop, "oracle": self.oracle,
                "hash_ok": self.hash_ok, "ok": self.ok, "failure_class": self.failure_class,
                "seconds": round(self.seconds, 3), "detail": self.detail}


def is_bundle(path: Path) -> bool:
    """A folder with the files a bundle needs."""
    return all((Path(path) / p).exists() for p in ("task.toml", "tests/test.sh", "environment/repo"))


def verify_bundle(bundle: Path, python: str, timeout_sec: float = 900.0,
                  plugin_autoload: bool = False) -> Contrast:
    """Run nop and oracle for one bundle. Without ``plugin_autoload`` the local pytest
    loads only the plugins the bundle's test.sh names (a container has nothing else)."""
    bundle = Path(bundle).resolve()
    start = time.perf_counter()
    hash_ok = check_task_hash(bundle)
    with tempfile.TemporaryDirectory(prefix="gen09-verify-") as tmp:
        nop, why_nop = _trial(bundle, Path(tmp) / "nop", python, False, timeout_sec, plugin_autoload)
        oracle, why_oracle = _trial(bundle, Path(tmp) / "oracle", python, True, timeout_sec,
                                    plugin_autoload)
    detail = "; ".join(d for d in (why_nop, why_oracle) if d)
    if not hash_ok:
        detail = "task hash does not match the bundle's files" + (f"; {detail}" if detail else "")
    return Contrast(str(bundle), nop, oracle, hash_ok, time.perf_counter() - start, detail)


def _trial(bundle: Path, root: Path, python: str, oracle: bool, timeout_sec: float, autoload: bool):
    app, logs = root / "app", root / "logs"
    shutil.copytree(bundle / "environment" / "repo", app, symlinks=True)
    logs.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEN09_", "PYTEST_"))}
    env.pop("PYTHONPATH", None)
    env.update(GEN09_APP_DIR=str(app), GEN09_TESTS_DIR=str(bundle / "tests"), GEN09_LOG_DIR=str(logs),
               GEN09_PYTHON=python)
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    kind = "oracle" if oracle else "nop"
    try:
        if oracle:
            done = subprocess.run(["bash", str(bundle / "solution" / "solve.sh")], cwd=root, env=env,
                                  capture_output=True, text=True, timeout=timeout_sec)
            if done.returncode != 0:
                return None, f"{kind}: solve.sh exit {done.returncode}: {done.stderr.strip()[-300:]}"
        subprocess.run(["bash", str(bundle / "tests" / "test.sh")], cwd=root, env=env,
                       capture_output=True, text=True, timeout=timeout_sec)
    except subprocess.TimeoutExpired:
        return None, f"{kind}: timed out"
    reward_file = logs / "reward.txt"
    if not reward_file.exists():
        return None, f"{kind}: no reward.txt"
    text = reward_file.read_text().strip()
    try:
        return float(text), ""
    except ValueError:
        return None, f"{kind}: reward.txt is not a number: {text[:50]!r}"


def find_bundles(paths) -> list[Path]:
    """Bundles named directly, or found one level below (a run's ``tasks`` folder or the
    run folder itself)."""
    out = []
    for raw in paths:
        path = Path(raw)
        if is_bundle(path):
            out.append(path)
            continue
        for folder in (path, path / "tasks"):
            if folder.is_dir():
                out.extend(sorted(p for p in folder.iterdir() if p.is_dir() and is_bundle(p)))
    return out
