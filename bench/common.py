"""Shared helpers for the benchmarks: fetching real code, timing, machine description."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CACHE = BENCH / ".cache"
RESULTS = BENCH / "results"


def fetch_sdist(name: str, version: str) -> Path:
    """Download (once) the pinned sdist of ``name==version`` with pip and unpack it under
    ``bench/.cache``; return the unpacked source folder (sdist file names may spell the
    name with ``_`` for ``-``)."""
    CACHE.mkdir(exist_ok=True)
    spellings = dict.fromkeys((name, name.replace("-", "_"), name.replace("_", "-")))
    for spelling in spellings:
        if (CACHE / f"{spelling}-{version}").is_dir():
            return CACHE / f"{spelling}-{version}"
    def archives():
        return [p for p in (CACHE / f"{s}-{version}.tar.gz" for s in spellings) if p.is_file()]

    found = archives()
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               f"{name}=={version}", "-d", str(CACHE)]
        print("fetching:", " ".join(cmd[2:]), file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        found = archives()
    if not found:
        raise SystemExit(f"pip download did not produce an sdist of {name} {version}")
    archive = found[0]
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    folder = CACHE / archive.name.removesuffix(".tar.gz")
    if not folder.is_dir():
        raise SystemExit(f"{archive} did not unpack to {folder}")
    return folder


def add_wait_idle(parser) -> None:
    """The ``--wait-idle SECONDS`` option of every benchmark."""
    parser.add_argument("--wait-idle", type=float, default=180, metavar="SECONDS",
                        help="wait up to this long for the 1-minute load average to drop below "
                             "half the CPU count before measuring (0: do not wait)")


def wait_idle(seconds: float) -> None:
    """Wait up to ``seconds`` for the 1-minute load average to fall below half the CPUs."""
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] >= (os.cpu_count() or 1) / 2 and time.monotonic() < deadline:
        print(f"waiting for an idle machine (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
        time.sleep(15)


def save_results(results: dict, name: str) -> None:
    """Write ``results`` to ``bench/results/NAME-<UTC time>.json`` and say where."""
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / time.strftime(f"{name}-%Y%m%dT%H%M%SZ.json", time.gmtime())
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out.relative_to(ROOT)}")


def timed(fn, *args):
    """``(seconds, result)`` of one call."""
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def median_ms(samples: list[float]) -> float:
    """Median of second samples, in milliseconds."""
    return round(statistics.median(samples) * 1000, 1)


def spread_ms(samples: list[float]) -> list[float]:
    """``[min, max]`` of second samples, in milliseconds."""
    return [round(min(samples) * 1000, 1), round(max(samples) * 1000, 1)]


def cpu_model() -> str:
    """The CPU model name from ``/proc/cpuinfo`` when available."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine(ruff: str) -> dict:
    """What the figures were measured on."""
    ruff_version = subprocess.run([ruff, "--version"], capture_output=True, text=True,
                                  check=True).stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
        "cpu": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "ruff": ruff_version,
    }
