"""Whether a task's image can be built: its Dockerfile installs the buggy tree, and where
installing runs scripts of the repository itself (node's ``prepare`` that compiles), a mutant
can break them though its tests ran (jshttp/content-disposition 3: vitest runs TypeScript
without checking types, its ``prepare`` runs ``tsc``; 2 of 12 bundles' images failed to
build). The export stage runs those scripts on each mutant's tree first and exports no
task whose scripts fail. A Python project's ``setup.py`` build may run its own code too
(pyhcl 0.4.5's ``build_py`` builds its parser's tables with the vendored ply: 3 of its 13
tasks' mutants broke that build, and ``gen09 verify`` stopped at the first one's image): a
mutant of a module the pristine build imports is built before it is exported."""

from __future__ import annotations

import re
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


def setup_build(python: str) -> str:
    """The command that builds a Python project's modules by its ``setup.py``, as installing it
    does, with ``python`` (its imports printed: ``-X importtime``): ``build_py``, where a build
    runs the project's own code (pyhcl's parser tables), not ``build_ext``, which compiles."""
    return f'"{python}"{_SETUP_BUILD}'


_SETUP_BUILD = ' -X importtime setup.py -q build_py --build-lib "$TMPDIR/build"'


def setup_imports(python: str, pristine: Path, scratch: Path, env: dict, linked=(), left_out=()) -> frozenset:
    """The modules the ``setup.py`` build of the ``pristine`` tree imports (run once, with
    ``python``): a mutant of one of them may break the build. Empty without a ``setup.py``, or
    where the pristine build fails here (no mutant's build could be told from it)."""
    if not (Path(pristine) / "setup.py").is_file():
        return frozenset()
    failed, lines = _run_on_copy(setup_build(python), pristine, None, "", scratch, env, linked, left_out)
    return frozenset() if failed else frozenset(m.group(1) for ln in lines if (m := _IMPORTED.match(ln)))


_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s+([\w.]+)$")


def install_fails(command: str, pristine: Path, path: str, text: str, scratch: Path, env: dict,
                  linked=(), left_out=()) -> str | None:
    """Why ``command`` fails on the ``pristine`` tree with the file ``path`` holding ``text``
    (the ``linked`` folders shared, the ``left_out`` ones not copied), named by its last step
    (``setup.py build_py`` for ``setup_build``'s), or None when it succeeds."""
    failed, lines = _run_on_copy(command, pristine, path, text, scratch, env, linked, left_out)
    if not failed:
        return None
    said = [ln.strip() for ln in lines if ln.strip() and not _IMPORTED.match(ln)]
    first = next((ln for ln in said if ERROR_LINE.search(ln)), said[-1] if said else failed)
    step = "setup.py build_py" if _SETUP_BUILD in command else command.rsplit("; ", 1)[-1]
    return f"installing the buggy tree fails: {step} {failed}: {first}"[:300]


def _run_on_copy(command: str, pristine: Path, path: str | None, text: str, scratch: Path, env: dict,
                 linked, left_out) -> tuple[str | None, list[str]]:
    """``(how command failed or None, its output's lines)`` on a copy of ``pristine`` in
    ``scratch`` (with ``path`` holding ``text``), the copy removed after."""
    Path(scratch).mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="install-", dir=scratch))
    try:
        tree = folder / "tree"
        copy_work(Path(pristine), tree, linked, left_out)
        if path is not None:
            (tree / path).write_text(text, encoding="utf-8")
        (folder / "tmp").mkdir()
        output = folder / "output.txt"
        done = run_limited(["bash", "-c", command], tree, clean_env(None, TMPDIR=str(folder / "tmp"), **env),
                           INSTALL_TIMEOUT_SEC, output)
        lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
        if done.status == "ok" and done.returncode == 0:
            return None, lines
        return ("ran out of time" if done.status == "timeout" else f"exits {done.returncode}"), lines
    finally:
        shutil.rmtree(folder, ignore_errors=True)
