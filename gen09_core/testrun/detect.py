"""How a Python repository installs and tests, detected from its own files: the recipe.

Every fact carries its provenance (file and key) so ``config.json``, the receipts and the
error messages can say where it came from. Detected, in this order:

- the project itself (``pyproject.toml`` ``[project]``/``[build-system]``, ``setup.cfg``,
  ``setup.py``): installed into the test venv, so ``src/`` layouts, entry points, package
  metadata and generated version files work; an SCM-versioned build (setuptools-scm,
  hatch-vcs, ...) gets ``SETUPTOOLS_SCM_PRETEND_VERSION`` since the work copy has no ``.git``;
- test dependencies: extras and PEP 735 dependency groups named ``test``/``tests``/
  ``testing``, setuptools' ``tests_require``, ``tests_require``-style requirement files (of
  files named for Python versions, the one for this Python), ``tox.ini`` ``[testenv]``
  ``deps``/``extras``; only when none of these exists, the ``dev`` ones; and only when no ``dev``
  one exists either, a root ``requirements.txt`` that names pytest;
- where the package is imported from (``src`` or the repository root);
- pytest's ``addopts``: options of plugins that would change how gen09 measures
  (coverage, xdist, reruns, random order, lint-as-test plugins) are dropped, those of
  plugins the tests may need (benchmark, timeout, asyncio, ...) get the plugin installed;
  those of pytest's cache plugin (``--lf``, ``--ff``, ``--sw``, ...), which gen09's runs turn
  off, are dropped too.

An unreadable ``pyproject.toml``, ``setup.cfg`` or requirements file is ``BadInput``
naming the file and line.
"""

from __future__ import annotations

import ast
import configparser
import contextlib
import fnmatch
import glob
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

from attrs import field, frozen

from gen09_core.errors import BadInput

TEST_NAMES = ("test", "tests", "testing")
DEV_NAMES = ("dev",)
TEST_REQUIREMENTS = ("requirements-test*.txt", "requirements_test*.txt", "test-requirements*.txt",
                     "test_requirements*.txt", "requirements-tests*.txt", "requirements/test*.txt",
                     "requirements/tests*.txt", "requirements/testing*.txt",
                     # a requirements file in the test folder (packaging 24.1's tests/requirements.txt)
                     "tests/requirements*.txt", "test/requirements*.txt", "testing/requirements*.txt")
DEV_REQUIREMENTS = ("requirements-dev*.txt", "requirements_dev*.txt", "dev-requirements*.txt",
                    "requirements/dev*.txt")
# build backends that take their version from the VCS through setuptools-scm, which honours
# SETUPTOOLS_SCM_PRETEND_VERSION (setuptools-git-versioning and versioningit do not: not listed)
SCM_BACKENDS = ("setuptools_scm", "setuptools-scm", "hatch-vcs", "hatch_vcs", "flit_scm", "flit-scm")
RUNNER_PACKAGES = ("pytest", "coverage")  # what gen09's own plugin needs in every test venv

# addopts options: (option, its plugin's distribution, "drop" | "install", takes a value)
OPTION_PLUGINS = (
    ("--cov", "pytest-cov", "drop", "optional"), ("--cov-report", "pytest-cov", "drop", True),
    ("--cov-config", "pytest-cov", "drop", True), ("--cov-fail-under", "pytest-cov", "drop", True),
    ("--cov-append", "pytest-cov", "drop", False), ("--cov-branch", "pytest-cov", "drop", False),
    ("--no-cov", "pytest-cov", "drop", False), ("--no-cov-on-fail", "pytest-cov", "drop", False),
    ("-n", "pytest-xdist", "drop", True), ("--numprocesses", "pytest-xdist", "drop", True),
    ("--dist", "pytest-xdist", "drop", True), ("--maxprocesses", "pytest-xdist", "drop", True),
    ("--reruns", "pytest-rerunfailures", "drop", True),
    ("--reruns-delay", "pytest-rerunfailures", "drop", True),
    ("--only-rerun", "pytest-rerunfailures", "drop", True),
    ("--randomly-seed", "pytest-randomly", "drop", True), ("--randomly-dont-reorganize", "pytest-randomly",
                                                           "drop", False),
    ("--mypy", "pytest-mypy", "drop", False), ("--flake8", "pytest-flake8", "drop", False),
    ("--black", "pytest-black", "drop", False), ("--isort", "pytest-isort", "drop", False),
    ("--pylint", "pytest-pylint", "drop", False), ("--ruff", "pytest-ruff", "drop", False),
    ("--ruff-format", "pytest-ruff", "drop", False), ("--pycodestyle", "pytest-pycodestyle", "drop", False),
    # dictdiffer 0.9.0's addopts: ``--pydocstyle``, whose plugin (pytest-pydocstyle 2.4) pytest 9 refuses
    ("--pydocstyle", "pytest-pydocstyle", "drop", False), ("--flakes", "pytest-flakes", "drop", False),
    ("--pep8", "pytest-pep8", "drop", False), ("--pep257", "pytest-pep257", "drop", False),
    ("--mccabe", "pytest-mccabe", "drop", False),
    # pytest's cache plugin's, which gen09's runs turn off (``-p no:cacheprovider``): pytest would stop
    # at them ("unrecognized arguments")
    *((flag, "pytest", "drop", False) for flag in ("--lf", "--last-failed", "--ff", "--failed-first", "--nf",
                                                    "--new-first", "--sw", "--stepwise", "--sw-skip",
                                                    "--stepwise-skip", "--cache-clear")),
    ("--lfnf", "pytest", "drop", True), ("--last-failed-no-failures", "pytest", "drop", True),
    ("--cache-show", "pytest", "drop", "optional"),
    ("--benchmark-", "pytest-benchmark", "install", None), ("--timeout", "pytest-timeout", "install", None),
    ("--asyncio-mode", "pytest-asyncio", "install", None), ("--mpl", "pytest-mpl", "install", None),
    ("--hypothesis-", "hypothesis", "install", None),
    ("--doctest-plus", "pytest-doctestplus", "install", None),
    ("--remote-data", "pytest-remotedata", "install", None),
)
# ini keys only a plugin reads: the suite needs that plugin (async-timeout 4.0.3's setup.cfg sets
# asyncio_mode and lists no test requirement; without pytest-asyncio 32 of its 33 tests fail)
INI_PLUGINS = (("asyncio_mode", "pytest-asyncio"), ("asyncio_default_fixture_loop_scope", "pytest-asyncio"),
               ("timeout", "pytest-timeout"), ("trio_mode", "pytest-trio"),
               ("mock_use_standalone_module", "pytest-mock"), ("doctest_plus", "pytest-doctestplus"))
# pytest11 entry points never loaded: they change what or how gen09 measures
DENIED_PLUGINS = {"pytest_cov": "pytest-cov", "xdist": "pytest-xdist", "xdist.looponfail": "pytest-xdist",
                  "rerunfailures": "pytest-rerunfailures", "randomly": "pytest-randomly",
                  "mypy": "pytest-mypy", "flake8": "pytest-flake8", "black": "pytest-black",
                  "isort": "pytest-isort", "pylint": "pytest-pylint", "ruff": "pytest-ruff",
                  "pycodestyle": "pytest-pycodestyle", "sugar": "pytest-sugar",
                  "enabler": "pytest-enabler", "checkdocs": "pytest-checkdocs",
                  "pydocstyle": "pytest-pydocstyle", "flakes": "pytest-flakes", "pep8": "pytest-pep8",
                  "pytest_pep257": "pytest-pep257", "mccabe": "pytest-mccabe"}


@frozen
class PythonRecipe:
    """How the repository installs and tests (see the module docstring). ``requirements``
    are pip requirement lines; ``addopts`` is the repository's addopts with the dropped
    options removed (None when nothing was dropped); ``provenance`` pairs each fact with
    the file and key it came from; ``notes`` says what was ignored and why."""

    project: str | None = None
    installable: bool = False
    extras: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = (".",)
    addopts: str | None = None
    dropped_options: tuple[str, ...] = ()
    plugin_packages: tuple[str, ...] = ()
    required_plugins: tuple[str, ...] = ()
    env: dict = field(factory=dict)
    provenance: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    test_paths: tuple[str, ...] = ()  # what a whole-suite run names, when pytest would find no test file
    pytest_args: tuple[str, ...] = ()  # ``--doctest-modules`` where the modules' doctests are the only tests

    def summary(self) -> str:
        """One line saying what was detected and from where."""
        return "; ".join(f"{what} ({where})" for what, where in self.provenance) or "nothing detected"


class _Found:
    def __init__(self):
        self.extras: list[str] = []
        self.requirements: list[str] = []
        self.provenance: list[tuple[str, str]] = []
        self.notes: list[str] = []

    def add(self, what: str, where: str) -> None:
        self.provenance.append((what, where))


def detect(repo: Path) -> PythonRecipe:
    """The recipe of the Python repository at ``repo`` (only read)."""
    repo = Path(repo)
    pyproject = _toml(repo / "pyproject.toml")
    setup_cfg = _ini(repo / "setup.cfg", "setup.cfg")
    setup_py = _setup_py(repo / "setup.py")
    found = _Found()
    name = _project_name(pyproject, setup_cfg, setup_py)
    installable = bool(pyproject.get("project") or pyproject.get("build-system") or setup_cfg.has_section(
        "metadata") or (repo / "setup.py").is_file())
    if installable:
        found.add(f"install the project{f' {name}' if name else ''}",
                  "pyproject.toml" if (repo / "pyproject.toml").is_file() else "setup.py/setup.cfg")
    extras = _extras(pyproject, setup_cfg, setup_py)
    groups = {"pyproject.toml [dependency-groups] {name}": _groups(pyproject.get("dependency-groups") or {}),
              "pyproject.toml [tool.pdm.dev-dependencies] {name}":
                  ((pyproject.get("tool") or {}).get("pdm") or {}).get("dev-dependencies") or {},
              # uv's before PEP 735 (python-multipart 0.0.12: its tests import yaml, listed only there)
              "pyproject.toml [tool.uv] dev-dependencies": {"dev": uv} if (uv := (
                  (pyproject.get("tool") or {}).get("uv") or {}).get("dev-dependencies")) else {},
              **_poetry_groups(pyproject, found), **_tests_require(setup_cfg, setup_py)}
    for names, files in ((TEST_NAMES, TEST_REQUIREMENTS), (DEV_NAMES, DEV_REQUIREMENTS)):
        _collect(repo, names, files, extras, groups, found, installable)
        if found.extras or found.requirements:
            break
    else:
        _pytest_requirements(repo, found)
    tox_extras = _tox(repo, found, installable)
    _legacy_hooks(repo, found)
    _native_strings(repo, pyproject, found)
    pythonpath, where = _pythonpath(repo, pyproject, setup_cfg, setup_py, name)
    found.add(f"import from {', '.join(pythonpath)}", where)
    addopts, dropped, packages, required, ini = _pytest_options(repo, pyproject, setup_cfg)
    if dropped:
        found.add(f"drop addopts {' '.join(dropped)}", ini)
    if packages:
        found.add(f"install {', '.join(packages)} for its pytest options", ini)
    ini_values, pytest_args = pytest_ini(repo, pyproject, setup_cfg)[0], ()
    if ini == LEGACY_SECTION:
        pytest_args = _legacy_section(ini_values)
        found.add("read setup.cfg's [pytest] section as pytest options (-c /dev/null, -o)",
                  "pytest 4 and later refuse to start with that section")
    test_paths = _test_module(repo, pyproject, setup_cfg)
    if test_paths:
        found.add(f"run the tests in {', '.join(test_paths)}",
                  "no test_*.py or *_test.py file: pytest runs a module it is given")
    elif suite_modules := _suite_modules(repo, ini_values, setup_cfg, setup_py):
        declared, modules = suite_modules
        test_paths = tuple(sorted({*modules, *_default_named(repo, ini_values)}))
        found.add(f"run the tests in {', '.join(modules[:3])}{' …' * (len(modules) > 3)} too",
                  f"{declared}: its unittest suite runs test modules pytest's test_*.py misses")
    doctests = () if test_paths else _doctest_modules(repo, pyproject, setup_cfg)
    if doctests:
        found.add("run the doctests of its modules (--doctest-modules)",
                  f"no test file; doctest examples in {', '.join(doctests[:3])}{' …' * (len(doctests) > 3)}")
    pytest_args += ("--doctest-modules",) if doctests else ()
    suites = _walked(_suite_doctests(repo, pythonpath), ini_values, test_paths)
    if suites:
        found.add(f"run the doctests of {', '.join(sorted(suites))}", "; ".join(sorted(set(suites.values()))))
        builders = _suite_builders(repo, suites, pythonpath)
        pytest_args += tuple(f"--gen09-doctest={path}{builders.get(path, '')}" for path in sorted(suites))
        test_paths += tuple(sorted(suites)) if test_paths else ()
    namespaces = _namespace_roots(repo, pythonpath, test_paths)
    if namespaces:
        found.add("name test modules with their namespace package (-o consider_namespace_packages=true)",
                  f"{', '.join(namespaces)}: no __init__.py, and every test file lies in it")
        pytest_args += ("--override-ini=consider_namespace_packages=true",)
    env = _scm_env(repo, pyproject)
    if env:
        found.add(", ".join(f"{k}={v}" for k, v in env.items()),
                  "[build-system] requires an SCM version plugin and the work copy has no .git")
    return PythonRecipe(name, installable, tuple(dict.fromkeys(found.extras + tox_extras)),
                        tuple(dict.fromkeys(found.requirements)), pythonpath, addopts, tuple(dropped),
                        tuple(packages), tuple(required), env, tuple(found.provenance), tuple(found.notes),
                        test_paths, pytest_args)


# hook arguments of the py.path era that pytest 9 removed (deprecated since 7.0): a conftest
# implementing a hook with one of them cannot even be registered by pytest 9
LEGACY_HOOK_ARGS = {"pytest_ignore_collect": "path", "pytest_collect_file": "path",
                    "pytest_pycollect_makemodule": "path", "pytest_report_header": "startdir",
                    "pytest_report_collectionfinish": "startdir"}


def _legacy_hooks(repo: Path, found: _Found) -> None:
    """Pin ``pytest<9`` when a ``conftest.py`` implements a hook with an argument pytest 9
    removed (wrapt 1.16.0's ``pytest_pycollect_makemodule(path, parent)``): the suite was
    written for a pytest that still passed it."""
    for rel in sorted(_own_files(repo, "conftest.py")):
        try:
            tree = ast.parse((repo / rel).read_bytes())
        except (SyntaxError, ValueError):
            continue  # pytest reports it when it loads the file
        for node in tree.body:
            legacy = LEGACY_HOOK_ARGS.get(getattr(node, "name", ""))
            if isinstance(node, ast.FunctionDef) and legacy in {a.arg for a in node.args.args}:
                found.requirements.append("pytest<9")
                found.add("pytest<9", f"{rel.as_posix()}: {node.name}({legacy}), "
                                      "an argument pytest 9 removed")
                return


# pytest 9's own pyproject table ``[tool.pytest]`` takes these options as TOML lists only
PYTEST9_LISTS = ("addopts", "testpaths", "python_files", "python_classes", "python_functions",
                 "norecursedirs", "markers", "filterwarnings", "required_plugins", "usefixtures",
                 "pythonpath", "doctest_optionflags")


def _native_table(pyproject: dict) -> dict:
    """What ``[tool.pytest]`` itself holds (pytest 9 reads it; earlier pytests did not), without
    its ``ini_options`` table."""
    table = (pyproject.get("tool") or {}).get("pytest")
    return {k: v for k, v in table.items() if k != "ini_options"} if isinstance(table, dict) else {}


def _native_strings(repo: Path, pyproject: dict, found: _Found) -> None:
    """Pin ``pytest<9`` when ``[tool.pytest]`` gives an option pytest 9 wants as a list as a
    string (pyee 12.0.0's ``addopts = "--verbose -s"``: pytest 9 stops at it; the pytest it was
    written for never read that table)."""
    if any((repo / name).is_file() for name in ("pytest.ini", ".pytest.ini")):
        return  # pytest reads that file, not pyproject.toml
    strings = [k for k, v in _native_table(pyproject).items() if k in PYTEST9_LISTS and isinstance(v, str)]
    if strings:
        found.requirements.append("pytest<9")
        found.add("pytest<9", f"pyproject.toml [tool.pytest] {strings[0]} is a string: pytest 9 reads that "
                              "table and wants a list there, the pytests before it ignored the table")


def _test_module(repo: Path, pyproject: dict, setup_cfg) -> tuple[str, ...]:
    """The modules unittest would run (``unittest_named_files``) of a repository with no file
    pytest would find itself: pytest only finds ``test_*.py`` and ``*_test.py`` files, but runs a
    module it is named. Empty when the repository sets ``python_files`` or has such a file."""
    if "python_files" in pytest_ini(repo, pyproject, setup_cfg)[0] or has_test_files(repo):
        return ()
    return tuple(unittest_named_files(repo))


def _suite_modules(repo: Path, ini: dict, setup_cfg, setup_py: dict) -> tuple[str, list[str]] | None:
    """Where setuptools' ``test_suite`` is declared, and the modules in test folders (``tests/``,
    ``test/``) that define ``TestCase`` classes under names pytest's ``test_*.py`` misses: the suite
    it names runs them (Genshi 0.7.9's ``genshi.tests.suite`` runs ``genshi/tests/core.py`` and
    15 more; pytest found 67 of its tests). None where nothing is declared, the repository sets
    ``python_files`` (in its pytest ``ini``) or no such module exists."""
    declared = ("setup.py test_suite" if isinstance(setup_py.get("test_suite"), str)
                else "setup.cfg [options] test_suite" if setup_cfg.get("options", "test_suite", fallback="")
                else None)
    if not declared or "python_files" in ini:
        return None
    modules = sorted(rel.as_posix() for rel in _own_files(repo, "*.py")
                     if {"test", "tests"} & set(rel.parts[:-1]) and not _pytest_named(rel.name)
                     and _TEST_CASE.search((repo / rel).read_text(encoding="utf-8", errors="replace")))
    return (declared, modules) if modules else None


def _pytest_named(name: str) -> bool:
    """Whether pytest's default ``python_files`` matches ``name``."""
    return any(fnmatch.fnmatch(name, pattern) for pattern in PYTEST_FILES)


def _default_named(repo: Path, ini: dict) -> list[str]:
    """The files pytest itself would collect by name: under the ``ini``'s ``testpaths`` where set."""
    roots = _testpaths(ini)
    return [rel.as_posix() for rel in _own_files(repo, "*.py") if _pytest_named(rel.name)
            and (not roots or any(root in PurePosixPath(rel).parents for root in roots))]


def _doctest_modules(repo: Path, pyproject: dict, setup_cfg) -> list[str]:
    """The modules holding doctest examples (``>>>`` lines) of a repository with no test file
    pytest or unittest would find, nor its own ``python_files``: its doctests are its tests
    (sexpdata 1.0.2's sdist: 74 examples in its one module, no test file)."""
    if "python_files" in pytest_ini(repo, pyproject, setup_cfg)[0] or has_test_files(repo) \
            or unittest_named_files(repo):
        return []
    return sorted(rel.as_posix() for rel in _own_files(repo, "*.py") if rel.name != "setup.py"
                  and _DOCTEST_EXAMPLE.search((repo / rel).read_text(encoding="utf-8", errors="replace")))


_DOCTEST_EXAMPLE = re.compile(r"^\s*>>> \S", re.M)
_SUITES = ("DocTestSuite", "DocFileSuite")


def _suite_doctests(repo: Path, pythonpath: tuple[str, ...]) -> dict[str, str]:
    """The files whose doctests the repository's own unittest suites run (``doctest.DocTestSuite
    ('pkg.module')``, ``DocFileSuite('README.txt')`` in a ``test_suite()`` or ``load_tests``),
    which pytest never calls (zope.event 6.2 tests its class handlers only so), each with the
    call that names it. A name that is not a file of the repository is left out."""
    found = {}
    for rel in _own_files(repo, "*.py"):
        text = (repo / rel).read_text(encoding="utf-8", errors="replace")
        if not any(suite in text for suite in _SUITES):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        imported = _imported_names(tree)
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and (name := _called(call)) in _SUITES:
                said = f"{rel.as_posix()}: {name}({ast.unparse(call.args[0]) if call.args else ''})"
                for path in _suite_files(repo, rel, name, call, imported, pythonpath):
                    found.setdefault(path, said)
    return found


def _suite_builders(repo: Path, suites: dict[str, str], pythonpath: tuple[str, ...]) -> dict[str, str]:
    """``::MODULE`` for each suite file: the dotted module whose ``test_suite()`` or ``load_tests``
    builds the suite, which gen09's plugin calls to run those doctests as the suite would, with
    its ``setUp``, globs and option flags (zope.lifecycleevent 6.0's ``handling.rst`` needs its
    ``setUp``; a ``DocFileSuite`` gives no ``__name__``, and zope.testing 6.2's ``module.txt``
    checks that). None where the module is on no import root."""
    builders = {}
    for path, said in suites.items():
        caller = Path(said.partition(": ")[0])
        dotted = [".".join(caller.relative_to(root).with_suffix("").parts) for root in pythonpath
                  if Path(root) in caller.parents]
        if dotted:
            builders[path] = f"::{dotted[0]}"
    return builders


def _walked(files: dict[str, str], ini: dict, test_paths: tuple[str, ...]) -> dict[str, str]:
    """Those of ``files`` a whole-suite run reaches: all where gen09 names the paths to run (it
    names them too) or the repository names none; else those under its ini ``testpaths``."""
    roots = _testpaths(ini)
    if test_paths or not roots:
        return files
    return {f: said for f, said in files.items() if any(r in PurePosixPath(f).parents for r in roots)}


def _testpaths(ini: dict) -> list[PurePosixPath]:
    """The folders the ini ``testpaths`` names (a list, or one string of them)."""
    raw = ini.get("testpaths") or ""
    return [PurePosixPath(p) for p in (raw if isinstance(raw, list) else shlex.split(str(raw)))]


def _called(call: ast.Call) -> str:
    """The name a call calls: ``DocTestSuite`` of ``doctest.DocTestSuite(...)``."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """What each name a module's absolute imports bind stands for, dotted."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update({a.asname: a.name for a in node.names if a.asname})  # ``import a.b`` binds ``a``
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return names


def _suite_files(repo: Path, rel: Path, name: str, call: ast.Call, imported: dict, pythonpath) -> list[str]:
    """The repository files one ``DocTestSuite`` / ``DocFileSuite`` call of the file ``rel`` names."""
    if name == "DocTestSuite":
        if not call.args:
            return [rel.as_posix()]  # the module that builds the suite
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            dotted = arg.value
        elif isinstance(arg, ast.Attribute) and arg.attr == "__module__" and isinstance(arg.value, ast.Name) \
                and "." in imported.get(arg.value.id, ""):
            dotted = imported[arg.value.id].rpartition(".")[0]  # Genshi 0.7.9: DocTestSuite(T.__module__)
        elif isinstance(arg, ast.Name | ast.Attribute):
            head, _, tail = ast.unparse(arg).partition(".")
            dotted = ".".join(filter(None, (imported.get(head, head), tail)))
        else:
            return []
        return [path for root in pythonpath for path in (
            Path(root, *dotted.split(".")).with_suffix(".py").as_posix(),
            Path(root, *dotted.split("."), "__init__.py").as_posix()) if (repo / path).is_file()][:1]
    keywords = {k.arg: k.value for k in call.keywords}
    relative = keywords.get("module_relative")
    base = Path() if isinstance(relative, ast.Constant) and relative.value is False else rel.parent
    files = [Path(os.path.normpath(base / arg.value)) for arg in call.args
             if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return [f.as_posix() for f in files if (repo / f).is_file() and not f.as_posix().startswith("..")]


def _namespace_roots(repo: Path, pythonpath: tuple[str, ...], test_paths: tuple[str, ...]) -> list[str]:
    """The namespace packages (PEP 420) whose packages hold every test file and ``conftest.py``: a
    folder at the top of an import root with no ``__init__.py`` and no module, holding packages
    (zope.datetime 6.0's ``src/zope``). pytest names such a package's modules without the
    namespace unless told to look for it: ``src/zope/datetime/tests/test_datetime.py`` became
    ``datetime.tests.test_datetime``, which the standard library's ``datetime`` hides, and no test
    ran. Empty where some test file lies elsewhere: there the option would name a test folder
    without ``__init__.py`` as a package, and its modules would no longer import their neighbours."""
    roots = {(repo / root).resolve() for root in pythonpath}
    found = [folder for root in sorted(roots) if root.is_dir() for folder in sorted(root.iterdir())
             if folder.is_dir() and folder not in roots and folder.name.isidentifier()
             and not any(folder.glob("*.py")) and any(folder.glob("*/__init__.py"))]
    tests = [rel for name in (*PYTEST_FILES, "conftest.py") for rel in _own_files(repo, name)]
    tests += [Path(path) for path in test_paths]
    homes = [[folder for folder in found if folder in (repo / rel).resolve().parents] for rel in tests]
    if not tests or not all(homes):
        return []
    return sorted({home[0].relative_to(repo.resolve()).as_posix() for home in homes})


def _own_files(repo: Path, name: str):
    """The repository's files called ``name`` (relative paths), outside hidden folders and
    installed packages."""
    for path in Path(repo).rglob(name):
        rel = path.relative_to(repo)
        if path.is_file() and not any(part.startswith(".") or part in ("site-packages", "node_modules")
                                      for part in rel.parts):
            yield rel


PYTEST_FILES = ("test_*.py", "*_test.py")  # pytest's default ``python_files``


def has_test_files(repo: Path) -> bool:
    """Whether any file under ``repo`` is named as pytest finds tests by default."""
    return any(True for pattern in PYTEST_FILES for _ in Path(repo).rglob(pattern))


def unittest_named_files(repo: Path) -> list[str]:
    """The repository's ``test*.py`` and ``Test*.py`` files (anywhere, outside hidden folders) that
    pytest's default ``test_*.py`` misses: jsonpointer 3.0.0's sdist keeps its tests in a root
    ``tests.py``, decorator 5.1.1's in ``src/tests/test.py``, ply 3.11's in ``test/testlex.py``,
    parsedatetime 2.6's in ``tests/TestDelta.py`` and the like; and the ``*tests.py`` scripts that
    define ``TestCase`` classes (feedparser 6.0.14's ``tests/runtests.py``)."""
    named = {rel for pattern in ("test*.py", "Test*.py") for rel in _own_files(repo, pattern)
             if not rel.name.startswith("test_")}
    scripts = {rel for rel in _own_files(repo, "*tests.py") if rel not in named
               and _TEST_CASE.search((repo / rel).read_text(encoding="utf-8", errors="replace"))}
    return sorted(rel.as_posix() for rel in named | scripts)


_TEST_CASE = re.compile(r"^class \w+\([\w.]*TestCase\)", re.M)


# -- reading files ----------------------------------------------------------------------


def _toml(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path.name}: not valid TOML: {exc}") from None


def _ini(path: Path, label: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    if path.is_file():
        try:
            parser.read_string(path.read_text(encoding="utf-8"), source=label)
        except (configparser.Error, UnicodeDecodeError) as exc:
            raise BadInput(f"{label}: not a valid INI file: {exc}".replace("\n", " ")) from None
    return parser


def _setup_py(path: Path) -> dict:
    """Literal keyword arguments of the ``setup(...)`` call (nothing is executed); an argument
    that names a module-level variable gets the literal that variable was assigned
    (textdistance 4.6.3: ``extras = {...}`` … ``setup(extras_require=extras)``)."""
    if not path.is_file():
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    assigned = {node.targets[0].id: node.value for node in tree.body
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            out = {}
            for kw in node.keywords:
                value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
                try:
                    out[kw.arg] = ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
            return out
    return {}


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in str(text).splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _cfg_requirements(text: str) -> list[str]:
    """A setup.cfg requirement list as setuptools reads it: one a line, or on one line separated by
    semicolons (stack-data 0.6.3: ``tests_require = pytest; typeguard; pygments; littleutils`` was
    refused as one invalid requirement), unless what follows a semicolon is an environment marker."""
    from packaging.markers import InvalidMarker, Marker

    text = str(text)
    if "\n" in text.strip() or ";" not in text:
        return _lines(text)
    pieces = [piece.strip() for piece in text.split(";")]
    for piece in pieces[1:]:
        try:
            Marker(piece)
            return _lines(text)  # ``name; marker``: one requirement
        except InvalidMarker:
            pass
    return [piece for piece in pieces if piece and not piece.startswith("#")]


# -- the project, its extras and groups -------------------------------------------------


def _project_name(pyproject, setup_cfg, setup_py) -> str | None:
    name = (pyproject.get("project") or {}).get("name") or setup_cfg.get("metadata", "name", fallback=None) \
        or setup_py.get("name") or ((pyproject.get("tool") or {}).get("poetry") or {}).get("name")
    return str(name) if isinstance(name, str) and name.strip() else None


def _extras(pyproject, setup_cfg, setup_py) -> dict:
    extras = {}
    for key, value in ((pyproject.get("project") or {}).get("optional-dependencies") or {}).items():
        extras[key] = ("pyproject.toml [project.optional-dependencies]", value)
    if setup_cfg.has_section("options.extras_require"):
        for key, value in setup_cfg.items("options.extras_require"):
            extras.setdefault(key, ("setup.cfg [options.extras_require]", _cfg_requirements(value)))
    for key, value in (setup_py.get("extras_require") or {}).items():
        extras.setdefault(key, ("setup.py extras_require", value))
    for key, value in (((pyproject.get("tool") or {}).get("poetry") or {}).get("extras") or {}).items():
        extras.setdefault(key, ("pyproject.toml [tool.poetry.extras]", value))
    return extras


def _tests_require(setup_cfg, setup_py) -> dict:
    """setuptools' ``tests_require`` (setup.py's literal, setup.cfg's ``[options]``) as the
    ``test`` group: num2words 0.5.13 names ``delegator.py`` there and nowhere else."""
    out = {}
    listed = setup_py.get("tests_require")
    if isinstance(listed, str | list | tuple) and listed:
        out["setup.py tests_require"] = {"test": _lines(listed) if isinstance(listed, str) else list(listed)}
    listed = _cfg_requirements(setup_cfg.get("options", "tests_require", fallback=""))
    if listed:
        out["setup.cfg [options] tests_require"] = {"test": listed}
    return out


def _groups(groups: dict) -> dict:
    """PEP 735 dependency groups, each with the groups it includes resolved."""
    return {name: _group(groups, name) for name in groups}


def _group(groups: dict, name: str, seen=()) -> list[str]:
    out = []
    for item in groups.get(name) or []:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and item.get("include-group") and item["include-group"] not in seen:
            out += _group(groups, item["include-group"], (*seen, name))
    return out


def _poetry_groups(pyproject: dict, found: _Found) -> dict:
    """Poetry's dependency groups (``[tool.poetry.group.<name>.dependencies]``, and the older
    ``[tool.poetry.dev-dependencies]`` as ``dev``) as requirement lines, by where they are:
    poetry-core turns each of its constraints (``^1.2``, ``~2.0``, ``*``, tables with extras
    and ``python``) into the PEP 508 line pip reads. A path dependency (a local checkout the
    source does not hold) is left out, and a constraint with no PEP 508 form loses its
    constraint, each with a note."""
    poetry = (pyproject.get("tool") or {}).get("poetry") or {}
    group_table = "pyproject.toml [tool.poetry.group.{name}.dependencies]"
    tables = {(group_table, name): (group or {}).get("dependencies")
              for name, group in (poetry.get("group") or {}).items()}
    tables["pyproject.toml [tool.poetry.dev-dependencies]", "dev"] = poetry.get("dev-dependencies")
    out: dict = {}
    for (where, name), deps in tables.items():
        for package, constraints in (deps or {}).items():
            for constraint in constraints if isinstance(constraints, list) else [constraints]:
                if package.lower() != "python":
                    line = _poetry_line(package, constraint, where.format(name=name), found)
                    out.setdefault(where, {}).setdefault(name, []).extend([line] if line else [])
    return out


def _poetry_line(package: str, constraint, where: str, found: _Found) -> str | None:
    from packaging.requirements import InvalidRequirement, Requirement
    from poetry.core.factory import Factory

    if isinstance(constraint, dict) and "path" in constraint:
        found.notes.append(f"{where}: a path dependency, ignored: {package}")
        return None
    try:
        line = Factory.create_dependency(package, constraint).to_pep_508()
        Requirement(line)
        return line
    except (InvalidRequirement, ValueError, TypeError, RuntimeError) as exc:
        found.notes.append(f"{where}: {package} = {constraint!r} has no PEP 508 form ({exc}); "
                           "installed without its constraint")
        return package


def _collect(repo, names, files, extras, groups, found, installable) -> None:
    for name in names:
        if name in extras and installable:
            found.extras.append(name)
            found.add(f"extra [{name}]", f"{extras[name][0]} {name}")
        for where, tables in groups.items():
            if name in tables:
                found.requirements += _checked(tables[name], where.format(name=name))
                found.add(f"dependency group {name}" if "{name}" in where else "requirements",
                          where.format(name=name))
    paths = dict.fromkeys(path for pattern in files for path in sorted(glob.glob(str(repo / pattern))))
    for path in _for_this_python(list(paths), found):  # (two patterns may match one file)
        rel = Path(path).relative_to(repo).as_posix()
        extras_here, reqs = requirement_file(repo, Path(path))
        found.requirements += reqs
        if installable:
            found.extras += extras_here
        found.add("requirements", rel)


def _pytest_requirements(repo: Path, found: _Found) -> None:
    """The root ``requirements.txt`` when it names pytest and nothing else names test or dev
    requirements: it lists the test environment, not only what the package needs (thefuzz
    0.22.1's tests import pycodestyle, named only there). One gen09 cannot read is noted and
    left out: the project never named it as its tests' file."""
    path = repo / "requirements.txt"
    if not path.is_file():
        return
    try:
        _, reqs = requirement_file(repo, path)
    except BadInput as exc:
        found.notes.append(f"requirements.txt left out: {exc}")
        return
    if any(requirement.name.lower() == "pytest" for _, requirement in parsed_requirements(reqs)):
        found.requirements += reqs
        found.add("requirements", "requirements.txt (it names pytest)")


def parsed_requirements(requirements):
    """``(line, Requirement)`` of each line of ``requirements`` that is a valid requirement
    (options, URLs and paths are left out)."""
    from packaging.requirements import InvalidRequirement, Requirement

    for line in requirements:
        with contextlib.suppress(InvalidRequirement):
            yield line, Requirement(line)


_PYTHON_IN_NAME = re.compile(r"^(.*?)[-_.]?(?:py)?([23])\.?(\d{1,2})$")


def _for_this_python(paths: list[str], found: _Found) -> list[str]:
    """``paths`` without the requirement files written for another Python version: of files
    whose names differ only by one (``requirements-tests37.txt``, ``-tests39.txt``; pinned
    locks that conflict with each other), the one for the newest version not above the
    running interpreter's (else the oldest) is kept; the others are noted as skipped."""
    groups: dict = {}
    for path in paths:
        versioned = _PYTHON_IN_NAME.match(Path(path).stem)
        if versioned:
            head, major, minor = versioned.groups()
            groups.setdefault((str(Path(path).parent), head), []).append(((int(major), int(minor)), path))
    skipped = set()
    for group in groups.values():
        if len(group) > 1:
            fitting = [entry for entry in group if entry[0] <= sys.version_info[:2]]
            kept = max(fitting) if fitting else min(group)
            skipped |= {path for _, path in group if path != kept[1]}
    if skipped:
        names = ", ".join(sorted(Path(p).name for p in skipped))
        found.notes.append(f"requirement files for other Python versions skipped: {names}")
    return [path for path in paths if path not in skipped]


def _checked(items, where: str) -> list[str]:
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for item in items:
        try:
            Requirement(str(item))
        except InvalidRequirement as exc:
            raise BadInput(f"{where}: not a valid requirement {item!r}: {exc}") from None
        out.append(str(item))
    return out


# the project named by its path, maybe with pip options after it (frozenlist 1.4.1's
# `-e . --config-settings=pure-python=false`) or its name before it (referencing 0.37.0's
# uv-compiled `referencing @ file:.`): gen09 installs the project itself
_SELF = re.compile(r"^(?:-e\s+|--editable[=\s]+|[A-Za-z0-9][\w.-]*(?:\[(?P<named>[^\]]*)\])?\s*@\s*)?"
                   r"(?:file:)?(?P<path>\.[./]*?)/?(?:\[(?P<extras>[^\]]*)\])?(?:\s+-.*)?$")


def _self_extras(line: str, folder: Path, repo: Path) -> list[str] | None:
    """The extras of a requirement line naming the project itself — a path that is the
    repository from ``folder`` (``-e .[test]``; ``-e ..`` in ``tests/requirements.txt``) or
    from the repository, where pip run from there resolves it (croniter 3.0.3's ``-e .`` in
    ``requirements/base.txt``) — else None."""
    match = _SELF.match(line)
    if not match or repo.resolve() not in {(base / match["path"]).resolve() for base in (folder, repo)}:
        return None
    return [e.strip() for e in (match["extras"] or match["named"] or "").split(",") if e.strip()]


def _logical_lines(text: str):
    """``(number, line)`` of a requirements file's lines, a line ending in a backslash joined with
    the next, as pip reads them (numbered by their first)."""
    joined, first = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        first = first or number
        if raw.endswith("\\"):
            joined += raw[:-1] + " "
            continue
        yield first, joined + raw
        joined, first = "", 0
    if joined:
        yield first, joined


def requirement_file(repo: Path, path: Path, seen=()) -> tuple[list[str], list[str]]:
    """``(extras of the project itself, requirement lines)`` of a pip requirements file,
    following ``-r``; ``-c`` paths become absolute; a line naming the project itself
    (``-e .[test]``, ``.``) contributes its extras. An invalid line is ``BadInput``."""
    from packaging.requirements import InvalidRequirement, Requirement

    rel = path.relative_to(repo).as_posix() if path.is_relative_to(repo) else str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{rel}: cannot read the requirements file: {exc}") from None
    extras, reqs = [], []
    for number, raw in _logical_lines(text):
        # a requirement's own ``--hash`` options (pip-compile's, desert 2022.9.22) are left out: gen09
        # installs its own packages in the same pip run, and pip's hash-checking mode would refuse them
        line = re.sub(r"\s--hash[=\s]\S+", "", raw.split(" #", 1)[0]).strip()
        if not line or line.startswith("#"):
            continue
        self_extras = _self_extras(line, path.parent, repo)
        if self_extras is not None:
            extras += self_extras
            continue
        if line.startswith(("-r", "--requirement")):
            target = (path.parent / line.split(None, 1)[-1].removeprefix("-r").strip()).resolve()
            if target not in seen and target.is_file():
                more_extras, more = requirement_file(repo, target, (*seen, path.resolve()))
                extras, reqs = extras + more_extras, reqs + more
            continue
        if line.startswith(("-c", "--constraint")):
            target = (path.parent / line.split(None, 1)[-1].removeprefix("-c").strip()).resolve()
            reqs.append(f"-c {target}")
            continue
        if line.startswith("-"):
            reqs.append(line)  # pip options (index URLs, hashes) pass through
            continue
        try:
            Requirement(line)
        except InvalidRequirement as exc:
            if "://" in line or line.startswith((".", "/")):
                reqs.append(line)  # a URL or a path: pip's business
                continue
            raise BadInput(f"{rel}:{number}: not a valid requirement {line!r}: {exc}") from None
        reqs.append(line)
    return extras, reqs


def _tox_expand(text: str, repo: Path) -> str:
    """``text`` with tox's substitutions that need no tox expanded: the project folder, and
    ``{env:NAME:default}`` as its default (natsort 8.4.0's ``extras = {env:WITH_EXTRAS:}``):
    what gen09 installs never depends on the caller's environment variables."""
    text = text.replace("{toxinidir}", str(repo)).replace("{tox_root}", str(repo))
    return re.sub(r"\{env:[^:{}]+:([^{}]*)\}", r"\1", text)


def _tox_names(text: str) -> list[str]:
    """tox's comma- or space-separated names with their ``{a,b}`` alternatives expanded, in
    order: ``py{38,39}-x, lint`` is ``py38-x``, ``py39-x``, ``lint``."""
    names = []
    for item in re.findall(r"(?:[^,\s{}]|\{[^{}]*\})+", text):
        group = re.search(r"\{([^{}]*)\}", item)
        names += _tox_names(",".join(item[:group.start()] + alt.strip() + item[group.end():]
                                     for alt in group.group(1).split(","))) if group else [item]
    return names


def _tox_env(tox) -> str:
    """The tox environment for this Python: the first of ``envlist`` with its factor
    (``py311``), else that factor alone — what ``tox -e py311`` would run."""
    here = f"py{sys.version_info[0]}{sys.version_info[1]}"
    envs = _tox_names(tox.get("tox", "envlist", fallback="")) if tox.has_section("tox") else []
    return next((env for env in envs if here in env.split("-")), here)


def _tox_applies(line: str, env: str) -> bool | None:
    """Whether a ``deps``/``extras`` line is for the environment ``env``: None when it has no
    factor condition (``py{38,39}-x, !lint: ...``: one alternative whose factors all hold)."""
    condition = re.match(r"^([\w!,.{}-]+):(\s|$)", line)
    if condition is None:
        return None
    factors = set(env.split("-"))
    return any(all((f[1:] not in factors) if f.startswith("!") else (f in factors) for f in alt.split("-"))
               for alt in _tox_names(condition.group(1)))


def _tox(repo: Path, found: _Found, installable: bool) -> list[str]:
    path = repo / "tox.ini"
    if not path.is_file():
        return []
    tox = _ini(path, "tox.ini")
    if not tox.has_section("testenv"):
        return []
    env = _tox_env(tox)
    extras = []
    for line in _lines(_tox_expand(tox.get("testenv", "extras", fallback=""), repo)):
        applies = _tox_applies(line, env)
        if applies is False or not installable or found.extras:
            continue  # not for this Python's environment; extras only when the project names none itself
        for extra in re.split(r"[\s,]+", line.split(":", 1)[1] if applies else line):
            if not extra:
                continue
            if not re.fullmatch(r"[A-Za-z0-9][\w.-]*", extra):
                found.notes.append(f"tox.ini [testenv] extras: not an extra name, ignored: {extra}")
                continue
            extras.append(extra)
            found.add(f"extra [{extra}]", "tox.ini [testenv] extras")
    from packaging.requirements import InvalidRequirement, Requirement

    used = False
    for line in _lines(tox.get("testenv", "deps", fallback="")):
        applies = _tox_applies(line, env)
        if applies is False:
            found.notes.append(f"tox.ini [testenv] deps: a line for other environments than {env}, "
                               f"ignored: {line}")
            continue
        line = line.split(":", 1)[1].strip() if applies else line
        line = _tox_expand(line, repo)
        if "{" in line:
            found.notes.append(f"tox.ini [testenv] deps: substitution not expanded, line ignored: {line}")
            continue
        if line.startswith("-r"):
            target = Path(line[2:].strip())
            target = target if target.is_absolute() else repo / target
            if target.is_file():
                more_extras, more = requirement_file(repo, target)
                found.requirements += more
                extras += more_extras if installable else []
                used = True
            continue
        self_extras = _self_extras(line, repo, repo)
        if self_extras is not None:
            extras += self_extras if installable else []
            continue
        try:
            Requirement(line)
        except InvalidRequirement:
            found.notes.append(f"tox.ini [testenv] deps: not a requirement, ignored: {line}")
            continue
        found.requirements.append(line)
        used = True
    if used:
        found.add("tox deps", f"tox.ini [testenv] deps (environment {env})")
    return extras


# -- import roots ------------------------------------------------------------------------


def _pythonpath(repo, pyproject, setup_cfg, setup_py, name) -> tuple[tuple[str, ...], str]:
    tool = pyproject.get("tool") or {}
    setuptools = tool.get("setuptools") or {}
    candidates = []
    where = ((setuptools.get("packages") or {}) if isinstance(setuptools.get("packages"), dict) else {}) \
        .get("find", {}).get("where")
    if where:
        candidates.append((where[0] if isinstance(where, list) else where,
                           "pyproject.toml [tool.setuptools.packages.find] where"))
    package_dir = setuptools.get("package-dir") or {}
    if isinstance(package_dir, dict) and package_dir.get(""):
        candidates.append((package_dir[""], "pyproject.toml [tool.setuptools] package-dir"))
    wheel = ((tool.get("hatch") or {}).get("build") or {}).get("targets", {}).get("wheel", {})
    for package in wheel.get("packages") or []:
        parent = Path(package).parent.as_posix()
        candidates.append((parent, "pyproject.toml [tool.hatch.build.targets.wheel] packages"))
    for entry in (tool.get("poetry") or {}).get("packages") or []:
        if isinstance(entry, dict) and entry.get("from"):
            candidates.append((entry["from"], "pyproject.toml [tool.poetry] packages"))
    pdm_dir = ((tool.get("pdm") or {}).get("build") or {}).get("package-dir")
    if pdm_dir:
        candidates.append((pdm_dir, "pyproject.toml [tool.pdm.build] package-dir"))
    cfg_dir = setup_cfg.get("options", "package_dir", fallback="")
    match = re.search(r"^\s*=\s*(\S+)", cfg_dir, re.M)
    if match:
        candidates.append((match.group(1), "setup.cfg [options] package_dir"))
    py_dir = setup_py.get("package_dir") or {}
    if isinstance(py_dir, dict) and py_dir.get(""):
        candidates.append((py_dir[""], "setup.py package_dir"))
    for folder, source in candidates:
        folder = str(folder).strip("/") or "."
        if folder != "." and (repo / folder).is_dir():
            return (folder, "."), source
    inside_src = _packages(repo / "src") if (repo / "src").is_dir() else set()
    if inside_src and not inside_src & _packages(repo):
        return ("src", "."), "a src/ folder holds the package"
    if home := _home_of_listed(repo, setup_py):
        return (home, "."), f"setup.py packages: {home}/ holds them"
    return (".",), "the repository root holds the package"


def _home_of_listed(repo: Path, setup_py: dict) -> str | None:
    """The one top folder holding the packages setup.py's ``packages`` lists, where the root holds
    none of them and ``package_dir`` is no literal: httplib2 0.22.0 keeps a ``python2/`` and a
    ``python3/`` copy and picks one by the running Python (a folder ending in ``2`` is left out
    where another holds them too); its tests had imported the installed copy, and every mutant
    was uncovered."""
    listed = {p.split(".")[0] for p in setup_py.get("packages") or () if isinstance(p, str)}
    if not listed or listed & _packages(repo):
        return None
    homes = [folder.name for folder in sorted(repo.iterdir())
             if folder.is_dir() and folder.name[:1] not in "._"
             and any((folder / name / "__init__.py").is_file() for name in listed)]
    homes = [home for home in homes if not home.endswith("2")] if len(homes) > 1 else homes
    return homes[0] if len(homes) == 1 else None


def _packages(folder: Path) -> set[str]:
    """Importable names directly in ``folder``: package folders and modules."""
    skip = {"setup", "conftest", "noxfile", "__pycache__"}
    names = {e.name for e in folder.iterdir() if e.is_dir() and not e.name.endswith(".egg-info")
             and (any(e.glob("*.py")) or any(e.glob("*/*.py")))}
    names |= {e.stem for e in folder.glob("*.py")}
    return names - skip


# -- pytest options and SCM versions -----------------------------------------------------


def pytest_ini(repo: Path, pyproject: dict, setup_cfg) -> tuple[dict, str]:
    """The ini values pytest itself would use (its own precedence), and the file."""
    for name in ("pytest.ini", ".pytest.ini"):
        ini = _ini(repo / name, name)
        if ini.has_section("pytest"):
            return dict(ini.items("pytest")), name
        if (repo / name).is_file():
            return {}, name
    tool = pyproject.get("tool") or {}
    table = (tool.get("pytest") or {}).get("ini_options") if isinstance(tool.get("pytest"), dict) else None
    if table is not None:
        return dict(table), "pyproject.toml [tool.pytest.ini_options]"
    tox = _ini(repo / "tox.ini", "tox.ini")
    if tox.has_section("pytest"):
        return dict(tox.items("pytest")), "tox.ini [pytest]"
    if setup_cfg.has_section("tool:pytest"):
        return dict(setup_cfg.items("tool:pytest")), "setup.cfg [tool:pytest]"
    if setup_cfg.has_section("pytest"):
        return dict(setup_cfg.items("pytest")), LEGACY_SECTION
    return {}, ""


# the section pytest 3 read and pytest 4 and later refuse to start with ("[pytest] section in setup.cfg
# files is no longer supported"): gen09 gives pytest no ini file and these of its options with ``-o``
LEGACY_SECTION = "setup.cfg [pytest]"
LEGACY_CARRIED = ("testpaths", "python_files", "python_classes", "python_functions", "norecursedirs",
                  "markers", "filterwarnings", "usefixtures", "doctest_optionflags", "xfail_strict")


def _legacy_section(ini: dict) -> tuple[str, ...]:
    """The pytest arguments that stand for setup.cfg's ``[pytest]`` section (``ini``), which pytest
    refuses (Whoosh 2.7.4: no test ran): no ini file (``-c /dev/null``; every run names its
    ``--rootdir``) and the section's options pytest knows, each with ``-o``."""
    return ("-c", os.devnull, *(f"--override-ini={key}={str(ini[key]).strip()}" for key in LEGACY_CARRIED
                                if key in ini))


def _pytest_options(repo, pyproject, setup_cfg):
    ini, where = pytest_ini(repo, pyproject, setup_cfg)
    raw = ini.get("addopts", "")
    try:
        args = list(raw) if isinstance(raw, list) else shlex.split(str(raw))
    except ValueError as exc:
        raise BadInput(f"{where}: addopts cannot be parsed: {exc}") from None
    kept, dropped, packages = [], [], []
    index = 0
    while index < len(args):
        arg = args[index]
        rule = _option_rule(arg, args[index + 1] if index + 1 < len(args) else None)
        index += 1
        if rule is None:
            kept.append(arg)
            continue
        option, package, action, takes = rule
        if action == "install":
            kept.append(arg)
            packages.append(package)
            continue
        dropped.append(arg)
        value_attached = "=" in arg or (option == "-n" and arg != "-n")
        if not value_attached and index < len(args) and (
                takes is True or (takes == "optional" and not args[index].startswith("-"))):
            dropped.append(args[index])
            index += 1
    packages += [package for key, package in INI_PLUGINS if key in ini]
    required = ini.get("required_plugins", "")
    required = required if isinstance(required, list) else str(required).split()
    addopts = " ".join(shlex.quote(a) for a in kept) if dropped or where == LEGACY_SECTION else None
    return addopts, dropped, sorted(set(packages)), tuple(required), where


def _option_rule(arg: str, following: str | None):
    if arg in ("-p",) and following:
        return None
    for option, package, action, takes in OPTION_PLUGINS:
        if option.endswith("-") and arg.startswith(option):
            return option, package, action, takes
        glued = option == "-n" and re.fullmatch(r"-n\d+|-nauto", arg)
        if arg == option or arg.startswith(option + "=") or glued:
            return option, package, action, takes
    return None


def _scm_env(repo: Path, pyproject: dict) -> dict:
    requires = " ".join((pyproject.get("build-system") or {}).get("requires") or []).lower()
    tool = pyproject.get("tool") or {}
    uses_scm = any(b in requires for b in SCM_BACKENDS) or "setuptools_scm" in tool \
        or ((tool.get("hatch") or {}).get("version") or {}).get("source") == "vcs"
    if ((tool.get("pdm") or {}).get("version") or {}).get("source") == "scm":
        return {"PDM_BUILD_SCM_VERSION": _version_of(repo)}  # pdm-backend's own variable
    if not uses_scm:
        return {}
    return {"SETUPTOOLS_SCM_PRETEND_VERSION": _version_of(repo)}


def _version_of(repo: Path) -> str:
    from packaging.version import InvalidVersion, Version

    pkg_info = repo / "PKG-INFO"
    if pkg_info.is_file():
        match = re.search(r"^Version:\s*(\S+)", pkg_info.read_text(encoding="utf-8", errors="replace"), re.M)
        if match:
            return match.group(1)
    if (repo / ".git").exists():
        try:
            tag = subprocess.run(["git", "-C", str(repo), "describe", "--tags", "--abbrev=0"],
                                 capture_output=True, text=True, timeout=30).stdout.strip()
            Version(tag.lstrip("v"))
            return tag.lstrip("v")
        except (OSError, subprocess.SubprocessError, InvalidVersion):
            pass
    return "0.0.0"
