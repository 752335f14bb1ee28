"""Bytecode for the pristine copy, made once per run, so no test process compiles or
assertion-rewrites an unchanged file again.

Every test process runs with bytecode writing off, so without this each one compiles every
module it imports and pytest re-rewrites the asserts of every test file it collects — on
toolz 1.0.0 that is 0.8 of the 1.1 CPU-seconds of collecting its suite. :func:`prime` does
it once, in a throwaway copy (collection runs the repository's conftest files, whose side
effects must not reach the pristine copy), and copies back only the ``__pycache__`` files
that stay exact:

- the repository's modules as *checked-hash* pycs (``compileall --invalidation-mode
  checked-hash``): the interpreter compares the source's hash before using one, so a job's
  changed file is never run from a stale pyc, whatever its size and time;
- pytest's rewritten test modules (``*-pytest-*.pyc``), which pytest checks against the
  source itself (by hash in pytest 9, by size and time before). A job's own files get their
  pycs removed from its copy (:func:`forget`), so a rewritten pyc is only ever used for a
  file whose bytes are the pristine ones. Only from pytest 9.2, which names a loaded test
  module's code by the file it loaded it for, as the interpreter does for other modules: an
  older one runs the code under the name of the throwaway copy it was rewritten in, and every
  failure's frames in the test file then name that copy (desert 2022.9.22 pins pytest 7.1.3,
  fire 0.7.1 installs 8.4.1: no issue text found the failing check).

Timestamp pycs the collection may have written are not copied. Snapshots and bundles list
their files from the source walk, which skips ``__pycache__``, so none of this ships.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from attrs import frozen

from gen09_core.testrun.process import run_limited

CHECKED_HASH = 0b11  # the pyc header's flags: hash-based, checked against the source
_PYTEST_PYC = re.compile(r"-pytest-(\d+)\.(\d+)")  # ``test_it.cpython-311-pytest-9.2.0.pyc``


@frozen
class Primed:
    """What :func:`prime` copied: module pycs, rewritten test pycs, and the reason when
    a step did not run (the runs then just compile as before)."""

    modules: int
    rewritten: int
    problem: str = ""


def _kept(pyc: Path) -> bool:
    if rewritten := _PYTEST_PYC.search(pyc.name):
        return (int(rewritten[1]), int(rewritten[2])) >= (9, 2)
    with open(pyc, "rb") as handle:
        header = handle.read(8)
    return len(header) == 8 and int.from_bytes(header[4:8], "little") == CHECKED_HASH


def prime(env, folder: Path, scratch: Path, timeout_sec: float = 600.0) -> Primed:
    """Write the exact bytecode of ``folder`` (a ``TestEnv``'s pristine copy) into its
    ``__pycache__`` folders, made in a copy under ``scratch``."""
    folder, work = Path(folder), Path(scratch) / "bytecode"
    shutil.rmtree(work, ignore_errors=True)
    work.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(folder, work, symlinks=True)
    variables = env.process_env(work)
    del variables["PYTHONDONTWRITEBYTECODE"]
    problems = []
    for name, cmd in (("compileall", [env.python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                                       "checked-hash", "."]),
                      ("collection", [env.python, "-m", "pytest", *env.pytest_options(), "--collect-only",
                                      f"--rootdir={work}", *env.test_paths])):
        done = run_limited(cmd, work, variables, timeout_sec, Path(scratch) / f"bytecode-{name}.txt")
        if done.status != "ok":
            problems.append(f"{name}: {done.status}")
    counts = {"modules": 0, "rewritten": 0}
    for pyc in work.rglob("__pycache__/*.pyc"):
        if not pyc.is_file() or not _kept(pyc):
            continue
        target = folder / pyc.relative_to(work)
        if not target.parent.parent.is_dir():
            continue  # a folder the collection made: not part of the pristine copy
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(pyc, target)
        counts["rewritten" if "-pytest-" in pyc.name else "modules"] += 1
    shutil.rmtree(work, ignore_errors=True)
    return Primed(counts["modules"], counts["rewritten"], "; ".join(problems))


def forget(folder: Path, rel: str) -> None:
    """Remove the pycs of the file ``rel`` from ``folder`` (its bytes are about to change)."""
    path = Path(folder) / rel
    cache = path.parent / "__pycache__"
    if cache.is_dir():
        for pyc in cache.glob(f"{path.stem}.*.pyc"):
            os.unlink(pyc)
