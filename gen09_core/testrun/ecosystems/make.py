"""C/C++ with make: an automake project (``Makefile.am`` + ``configure`` or ``configure.ac``)
→ ``./configure``, ``make check``, its ``.trs`` files; or a plain ``Makefile`` with
a ``check`` (else ``test``) rule → that target, TAP in its output.

- automake: the setup runs ``autoreconf -fi`` only when the repository has no
  ``configure`` (the generated files then ship in the snapshot, as a release tarball has
  them). Every test run configures and builds in its own fresh copy (a configured tree holds
  absolute paths, so it cannot move between copies; in the tree, since many projects do not
  build out of it) and runs ``make -k check``, with the autotools' regeneration rules
  disabled (a copy's file times are not the release's, and a mutant changes no build file).
  The parallel harness writes one ``.trs`` per test (format ``trs``), one result per TAP
  point under automake's TAP driver.
- plain Makefile: targets are found by reading the rule lines of the Makefile and of the
  files it ``include``s; ``make -k TARGET`` builds in the work copy of each job (jobs are
  fresh copies, and the setup builds nothing, so no object file or binary reaches a
  snapshot), and the TAP its test programs print is read from the output (format ``tap``).
  A target that prints neither TAP nor ``.trs`` files gives no per-test outcome, so the
  baseline has no stable test and says so: one pass/fail for the whole target could never
  leave a mutant a PASS_TO_PASS test (every caught mutant would be ``no_pass_to_pass``).

A mutant that does not compile leaves no ``.trs`` file (or prints no TAP point), so none of
its tests passes.
"""

from __future__ import annotations

import re
from pathlib import Path

from gen09_core.testrun.ecosystems import CommandRecipe

CONFIGURE = ("configure", "configure.ac", "configure.in")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
RULE = re.compile(r"^([^\s#:=][^#:=]*?)\s*::?(?![=])", re.M)
INCLUDE = re.compile(r"^-?include\s+(.+)$", re.M)
TEST_GLOBS = ("tests/*", "test/*", "t/*", "unittests/*")
IMAGE = "gcc:{gcc.major}"
# a copy's file times are not the release's: never let them re-run the autotools
NO_REGENERATION = "ACLOCAL=: AUTOCONF=: AUTOMAKE=: AUTOHEADER=:"


def detect(repo: Path) -> CommandRecipe | None:
    """The make recipe of ``repo``, or None without an automake project or a Makefile with a
    ``check`` / ``test`` rule."""
    repo = Path(repo)
    if (repo / "Makefile.am").is_file():
        configure = next((n for n in CONFIGURE if (repo / n).is_file()), None)
        if configure is not None:
            return _automake(repo, configure)
    makefile = next((n for n in MAKEFILES if (repo / n).is_file()), None)
    if makefile is None:
        return None
    targets = rule_targets(repo, makefile)
    target = next((t for t in ("check", "test") if t in targets), None)
    if target is None:
        return None
    language = _language(repo)
    return CommandRecipe(
        ecosystem="make", language=language, test=f"make -k {target}", report="tap:-", image=IMAGE,
        image_setup=(), replay=(), tools=_tools(language), test_globs=TEST_GLOBS,
        provenance=((f"make {target}, TAP in its output", f"{makefile} (rule {target})"),),
        notes=("per-test outcomes come from the TAP the target prints; a target that prints none gives "
               "no test",))


def _automake(repo: Path, configure: str) -> CommandRecipe:
    setup = () if configure == "configure" else ("autoreconf -fi && rm -rf autom4te.cache",)
    test = (f"./configure -q > /dev/null && make -j 2 {NO_REGENERATION} > /dev/null && "
            f"make -k -j 2 {NO_REGENERATION} check")
    language = _language(repo)
    return CommandRecipe(
        ecosystem="make", language=language, test=test, report="trs:**/*.trs", setup=setup,
        image=IMAGE, image_setup=(), replay=(), tools=_tools(language) + (("autoreconf",) if setup else ()),
        test_globs=TEST_GLOBS,
        provenance=(("automake make check, .trs files", f"Makefile.am + {configure}"),))


def rule_targets(repo: Path, makefile: str) -> set[str]:
    """The targets named on the rule lines of ``makefile`` and of the files it includes
    (those that exist; variables in their names are not expanded)."""
    targets, pending, seen = set(), [makefile], set()
    while pending:
        name = pending.pop()
        path = repo / name
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        text = path.read_text(encoding="utf-8", errors="replace").replace("\\\n", " ")
        for match in RULE.finditer(text):
            targets.update(match.group(1).split())
        for match in INCLUDE.finditer(text):
            pending.extend(w for w in match.group(1).split() if "$" not in w)
    return targets


def _tools(language: str) -> tuple[str, ...]:
    return ("make", "gcc", "g++" if language == "cpp" else "cc")


def _language(repo: Path) -> str:
    cpp = any(p.suffix in (".cc", ".cpp", ".cxx", ".hpp", ".hh") for p in repo.rglob("*") if p.is_file())
    return "cpp" if cpp else "c"
