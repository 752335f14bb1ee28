"""Test environments: a virtual environment built from a recipe (packages from the index,
as any user's venv gets them) or rebuilt from a lock, and the lock that records exactly
what was installed.

Environment = recipe + lock. ``gen09 mutate`` builds the venv from the detected recipe and
records the lock; every bundle ships the lock; its Dockerfile and ``gen09 verify`` install
exactly the lock, then the repository itself the same way the validation did
(``pip install --no-deps``, the same build variables). The venv never sees gen09's own
packages: it only gets what the repository declares plus pytest and coverage, which
gen09's plugin needs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from attrs import evolve, field, frozen
from packaging.specifiers import SpecifierSet

from gen09_core.errors import EnvironmentFailure
from gen09_core.testrun.detect import DENIED_PLUGINS, RUNNER_PACKAGES, PythonRecipe, parsed_requirements
from gen09_core.testrun.outcomes import last_line
from gen09_core.testrun.process import clean_env, run_in_session, tail

LOCK_NAME = "gen09.lock"
LOCK_HEADER = "# gen09 environment lock, format 1: exactly what the validation ran with"
READY = ".gen09-ready"
PACKAGING_FILES = ("pyproject.toml", "setup.cfg", "setup.py")

_CAPTURE = r"""
import importlib.metadata as m, json, sys
dists, plugins = {}, []
for d in m.distributions():
    name = d.metadata["Name"]
    if not name or name.lower() in dists:
        continue
    direct = d.read_text("direct_url.json")
    dists[name.lower()] = [name, d.version, json.loads(direct) if direct else None]
for e in m.entry_points(group="pytest11"):
    plugins.append([e.name, e.dist.metadata["Name"] if e.dist else ""])
print(json.dumps({"python": sys.version.split()[0], "dists": sorted(dists.values()), "plugins": plugins}))
"""


@frozen
class Lock:
    """What a test environment holds: the Python version, every installed distribution
    pinned (``name==version``, or ``name @ URL`` for a VCS or archive install), the
    repository's own distribution(s) installed from its folder, the pytest plugins loaded
    by name, and the variables the repository's build needed."""

    python: str
    packages: tuple[str, ...]
    project: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    env: dict = field(factory=dict)

    @property
    def minor(self) -> str:
        """``3.11`` for Python 3.11.7."""
        return ".".join(self.python.split(".")[:2])

    def render(self) -> str:
        """The lock file: a pip requirements file whose header comments carry the rest."""
        head = [LOCK_HEADER, f"# python: {self.python}", f"# project: {' '.join(self.project)}",
                f"# pytest-plugins: {' '.join(self.plugins)}"]
        head += [f"# env: {k}={v}" for k, v in sorted(self.env.items())]
        return "\n".join(head + list(self.packages)) + "\n"

    def digest(self) -> str:
        """A short digest of the rendered lock (the verify cache key)."""
        return hashlib.sha256(self.render().encode("utf-8")).hexdigest()[:16]

    @classmethod
    def parse(cls, text: str) -> Lock:
        """Read a rendered lock; ``ValueError`` when it is not one."""
        lines = text.splitlines()
        if not lines or lines[0] != LOCK_HEADER:
            raise ValueError("not a gen09 environment lock")
        meta, env, packages = {}, {}, []
        for line in lines[1:]:
            if line.startswith("# env: "):
                key, _, value = line[len("# env: "):].partition("=")
                env[key] = value
            elif line.startswith("# ") and ": " in line:
                key, _, value = line[2:].partition(": ")
                meta[key] = value
            elif line.strip():
                packages.append(line.strip())
        if "python" not in meta:
            raise ValueError("the lock names no Python version")
        return cls(meta["python"], tuple(packages), tuple(meta.get("project", "").split()),
                   tuple(meta.get("pytest-plugins", "").split()), env)


def _pip(python: str, args: list, cwd, env: dict, what: str) -> None:
    cmd = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
           "--progress-bar", "off", *args]  # not quiet: its "Collecting NAME" lines say what failed to build
    try:
        done = run_in_session(cmd, cwd=cwd, env=env)
    except OSError as exc:
        raise EnvironmentFailure(f"could not {what}: {exc}") from None
    if done.returncode != 0:  # pip's warnings (an index location it ignores, ...) never say why
        lines = (done.stdout + done.stderr).splitlines()
        said = "\n".join(line for line in lines if not line.startswith("WARNING:"))
        unbuilt = _unbuilt(said)
        built = f"; it could not build {', '.join(unbuilt)}" if unbuilt else ""
        raise EnvironmentFailure(f"could not {what} (pip exit {done.returncode}{built}): "
                                 f"{tail(said, 12, 2000)}")


def _unbuilt(text: str) -> list[str]:
    """The packages pip's output ``text`` says it could not build: those it names as failed
    wheels, else the one it was collecting when a build step of it failed (pymemcache 4.0.0's
    test requirement ``pylibmc==1.6.1``, whose ``setup.py`` reads a file in mode ``'U'``); a
    folder it was processing (the repository itself) is none."""
    named = re.findall(r"Failed building wheel for ([\w.-]+)", text)
    if named or "subprocess-exited-with-error" not in text:
        return sorted(set(named))
    before = text[:text.index("subprocess-exited-with-error")].splitlines()
    started = (re.match(r"(Collecting|Processing|Obtaining) (\S+)", line) for line in reversed(before))
    last = next(filter(None, started), None)
    return [re.split(r"[=<>!~;\[ ]", last[2])[0]] if last and last[1] == "Collecting" else []


def create_venv(venv: Path, python: str | None = None) -> str:
    """A fresh venv (with pip) at ``venv``; returns its interpreter."""
    shutil.rmtree(venv, ignore_errors=True)
    done = run_in_session([python or sys.executable, "-m", "venv", str(venv)])
    if done.returncode != 0:
        raise EnvironmentFailure(f"could not create a venv at {venv}: {tail(done.stderr, 5)}")
    return str(venv / "bin" / "python")


_PROBE = "def test_probe():\n    assert [1] == [1]\n"


def pytest_problem(python: str, env: dict, plugins: tuple = ()) -> str:
    """"" when the environment's pytest runs a test file with an ``assert`` (which it
    rewrites) on its interpreter, loading ``plugins``, else the tail of what it printed. pytest
    6.0.1, which hpack 4.0.0's tox.ini pins, cannot on Python 3.11: its rewritten code does not
    compile."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "test_gen09_probe.py").write_text(_PROBE, encoding="utf-8")
        loads = [arg for name in ("no:cacheprovider", *plugins) for arg in ("-p", name)]
        done = run_in_session([python, "-m", "pytest", *loads, "-q", "test_gen09_probe.py"], cwd=folder,
                              env={**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return "" if done.returncode == 0 else tail(done.stdout + done.stderr, 6, 1000)


_REFUSED = re.compile(r'Error (?:while loading|importing) plugin "([^"]+)"[.:]?\s+(?:[\w.]+: )?(.*)', re.S)


def _without_refused_plugins(python: str, env: dict, lock: Lock) -> tuple[Lock, list[str]]:
    """``lock`` without the pytest plugins its pytest refuses to load, and a note on each: isort
    5.13.2's dev dependency pylama declares ``pytest_collect_file(path, parent)``, which pytest 9
    no longer has, and every run of its suite failed before collecting a test."""
    plugins, notes = list(lock.plugins), []
    while plugins and (match := _REFUSED.search(pytest_problem(python, env, tuple(plugins)))) and (
            match[1] in plugins):
        plugins.remove(match[1])
        # an import error: its traceback's last line
        errors = [line[2:].strip() for line in match[2].splitlines() if line.startswith("E ")]
        said = errors[-1] if errors else " ".join(match[2].split())
        notes.append(f"pytest cannot load the plugin {match[1]} ({said[:300]}): left out of every run")
    return evolve(lock, plugins=tuple(plugins)), notes


def _pytest_pins(requirements) -> list[str]:
    """The requirement lines of ``requirements`` that constrain pytest itself."""
    return [line for line, requirement in parsed_requirements(requirements)
            if requirement.name.lower() == "pytest" and requirement.specifier]


COVERAGE_SINCE = "5.0"  # gen09's plugin records per-test contexts (``Coverage.switch_context``)


def _too_old_coverage(requirements) -> list[str]:
    """The lines of ``requirements`` that allow no coverage.py gen09's plugin runs with
    (pyparsing 3.1.4 pins ``coverage==4.4.2``: every pristine run failed inside gen09's plugin)."""
    from packaging.version import InvalidVersion, Version

    out = []
    for line, requirement in parsed_requirements(requirements):
        specifier = requirement.specifier
        if requirement.name.lower() != "coverage" or not specifier:
            continue
        candidates = [COVERAGE_SINCE, "9999"]
        for spec in specifier:
            version = spec.version.rstrip(".*")
            with contextlib.suppress(InvalidVersion):
                if Version(version) >= Version(COVERAGE_SINCE):
                    candidates.append(version)
        if not any(specifier.contains(version, prereleases=True) for version in candidates):
            out.append(line)
    return out


def _newer_coverage(python: str, project_dir: Path, env: dict) -> list[str]:
    """Replace a coverage.py older than gen09's plugin needs that the install left (what the
    project or its extras ask for: py-ubjson 0.16.1's ``[dev]`` extra holds it to
    ``>=4.5.3,<4.6``, and every pristine run failed inside gen09's plugin); the note says so."""
    from packaging.version import InvalidVersion, Version

    done = run_in_session([python, "-c", "import importlib.metadata as m; print(m.version('coverage'))"],
                          cwd=project_dir, env=env)
    with contextlib.suppress(InvalidVersion):
        if done.returncode == 0 and Version(done.stdout.strip()) >= Version(COVERAGE_SINCE):
            return []
    _pip(python, [f"coverage>={COVERAGE_SINCE}"], project_dir, env, "install a newer coverage")
    return [f"the install left coverage {done.stdout.strip() or '(none)'}, older than gen09's per-test "
            f"coverage needs ({COVERAGE_SINCE}): installed a newer coverage over it"]


def _install_recipe(python: str, recipe: PythonRecipe, reqs: Path, project_dir: Path, env: dict) -> list[str]:
    """Install the project (with its extras) and the recipe's requirements (written to
    ``reqs``) in one pip run. A requirement no index holds a version of (isort 5.13.2's Poetry
    dev-dependencies ask for ``types-pkg-resources>=0.1.2``, every release of which is yanked)
    is left out, and the run tried again. When pip finds the requirements' versions cannot go
    together (pyee 12.0.0's pip-compiled ``requirements_dev.txt`` pins twisted 24.7.0, which needs
    incremental >= 24.7, and incremental 22.10.0), they are installed again without their
    exact pins. A coverage.py the requirements pin older than gen09's plugin needs is left out.
    The notes returned say each of these."""
    old = _too_old_coverage(recipe.requirements)
    notes = [f"the repository pins {', '.join(old)}, older than gen09's per-test coverage needs "
             f"({COVERAGE_SINCE}): installed a newer coverage"] if old else []
    requirements = [line for line in recipe.requirements if line not in old]
    args = [f"{project_dir}[{','.join(recipe.extras)}]" if recipe.extras else str(project_dir)
            ] if recipe.installable else []
    if requirements:
        args += ["-r", str(reqs)]
    args += [*recipe.plugin_packages, *RUNNER_PACKAGES]
    what, relaxed = "install the repository and its test dependencies", False
    while True:
        reqs.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        try:
            _pip(python, args, project_dir, env, what)
            return notes
        except EnvironmentFailure as exc:
            if missing := _named_in(re.findall(r"No matching distribution found for ([\w.-]+)", str(exc)),
                                    requirements):
                requirements = [line for line in requirements if line not in missing]
                notes.append(f"no package index here has a version of the test requirement "
                             f"{', '.join(missing)}: installed the others without it")
                continue
            if (unbuilt := re.search(r"; it could not build ([^)]+)\)", str(exc))) and (
                    broken := _named_in(unbuilt[1].split(", "), requirements)):
                requirements = [line for line in requirements if line not in broken]
                notes.append(f"pip could not build the test requirement {', '.join(broken)} here: "
                             f"installed the others without it")
                continue
            loose = _without_versions(requirements)
            if relaxed or "ResolutionImpossible" not in str(exc) or loose == requirements:
                raise
            said = next((line for line in str(exc).splitlines() if "Cannot install" in line), "")
            # pip names a line of the file gen09 wrote: the requirement on it says more
            cause = re.sub(r"-r \S+ \(line (\d+)\)", lambda m, lines=requirements: lines[int(m[1]) - 1]
                           if int(m[1]) <= len(lines) else m[0], said[said.find("Cannot install"):])
            requirements, relaxed, what = loose, True, f"{what}, even without their exact pins"
            notes.append(f"the repository's pinned test requirements cannot be installed together "
                         f"(pip: {cause}): installed them without their exact pins")


def _named_in(names: list[str], requirements: list[str]) -> list[str]:
    """The lines of ``requirements`` that ask for a package of ``names`` (which pip said it found
    no version of, or could not build)."""
    from packaging.utils import canonicalize_name

    named = {canonicalize_name(name) for name in names}
    return [line for line, requirement in parsed_requirements(requirements)
            if canonicalize_name(requirement.name) in named]


def _without_versions(requirements) -> list[str]:
    """``requirements`` with each exact pin (``==``) dropped, its extras and markers kept;
    ranges (gen09's own ``pytest<9``, ``^6.1`` made ``>=6.1,<7.0``) stay."""
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for line in requirements:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            out.append(line)
            continue
        if any(spec.operator in ("==", "===") for spec in requirement.specifier):
            requirement.specifier = SpecifierSet()
            line = str(requirement)
        out.append(line)
    return out


def build_from_recipe(recipe: PythonRecipe, venv: Path, project_dir: Path, install: tuple | None = None,
                      plugins: tuple | None = None) -> tuple[Lock, tuple[str, ...]]:
    """Build the venv for ``project_dir`` (the work copy, which the project's build may
    write into, e.g. a generated ``_version.py``) from the recipe, or from the profile's
    own ``install`` shell commands when given; return its lock and what the build changed
    of the recipe. A pytest the repository pins that does not run on this interpreter is
    replaced by the newest one pip finds (said in the notes); ``EnvironmentFailure`` when
    pytest still does not run."""
    python = create_venv(venv)
    env = clean_env(venv, **recipe.env)
    had_build = (project_dir / "build").exists()
    notes = []
    if install is None:
        notes += _install_recipe(python, recipe, venv.parent / "gen09-requirements.txt", project_dir, env)
    else:
        for command in install:
            done = run_in_session(["bash", "-c", command], cwd=project_dir, env=env)
            if done.returncode != 0:
                raise EnvironmentFailure(f"install command failed (exit {done.returncode}): {command}: "
                                         f"{tail(done.stderr or done.stdout, 8, 1500)}")
        _pip(python, list(RUNNER_PACKAGES), project_dir, env, "install pytest and coverage")
    notes += _newer_coverage(python, project_dir, env)
    if not had_build:
        shutil.rmtree(project_dir / "build", ignore_errors=True)
    problem, why = pytest_problem(python, env), ""
    pins = _pytest_pins(recipe.requirements) if install is None else []
    if problem and pins:
        _pip(python, ["--upgrade", "pytest"], project_dir, env, "install a pytest that runs on this Python")
        errors = [line[1:].strip() for line in problem.splitlines() if line.startswith("E ")]
        problem, why = pytest_problem(python, env), errors[-1] if errors else last_line(problem)
    if problem:
        raise EnvironmentFailure(f"pytest does not run in the test environment (a test file with one assert "
                                 f"failed): {problem}")
    lock = capture(python, recipe, plugins)
    if plugins is None:
        lock, refused = _without_refused_plugins(python, env, lock)
        notes += refused
    if why:
        installed = next(p for p in lock.packages if p.lower().startswith("pytest=="))
        notes.append(f"the repository pins {', '.join(pins)}, which does not run on Python {lock.python} "
                     f"({why}): installed {installed} instead")
    return lock, tuple(notes)


def capture(python: str, recipe: PythonRecipe, plugins: tuple | None = None,
            require: tuple = RUNNER_PACKAGES) -> Lock:
    """Record what the environment of ``python`` holds; the pytest plugins to load are its
    ``pytest11`` entry points minus those gen09 never loads (or ``plugins`` when given).
    ``EnvironmentFailure`` when it lacks a package of ``require``."""
    done = run_in_session([python, "-c", _CAPTURE], env=clean_env(),
                          cwd=Path(python).parent)  # not this cwd: -c puts it on sys.path
    if done.returncode != 0:
        raise EnvironmentFailure(f"could not list the test environment's packages: {tail(done.stderr, 5)}")
    data = json.loads(done.stdout)
    packages, project = [], []
    for name, version, direct in data["dists"]:
        if direct and "dir_info" in direct:
            project.append(name)
        elif direct and "vcs_info" in direct:
            vcs = direct["vcs_info"]
            packages.append(f"{name} @ {vcs['vcs']}+{direct['url']}@{vcs.get('commit_id', '')}")
        elif direct and direct.get("url"):
            packages.append(f"{name} @ {direct['url']}")
        else:
            packages.append(f"{name}=={version}")
    missing = [p for p in require if p not in {n.lower() for n, _, _ in data["dists"]}]
    if missing:
        raise EnvironmentFailure(f"the test environment lacks {', '.join(missing)}")
    required = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower() for r in recipe.required_plugins}
    if plugins is None:
        plugins = tuple(sorted({name for name, dist in data["plugins"]
                                if name not in DENIED_PLUGINS or dist.lower() in required}))
    return Lock(data["python"], tuple(sorted(packages, key=str.lower)), tuple(sorted(project)),
                tuple(plugins), dict(recipe.env))


def find_python(minor: str) -> str:
    """An interpreter of Python ``minor`` (``3.11``): this one when it matches, else
    ``python3.11`` on ``PATH``; ``EnvironmentFailure`` when there is none."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == minor:
        return sys.executable
    found = shutil.which(f"python{minor}")
    if found is None:
        raise EnvironmentFailure(f"the bundle's environment needs Python {minor}, which is not on PATH "
                                 "(install it, or pass --python)")
    return found


def build_from_lock(lock: Lock, venv: Path, project_dir: Path) -> str:
    """Rebuild a venv exactly from ``lock``, then install the repository in
    ``project_dir`` the way the validation did (``--no-deps``, from a scratch copy so the
    folder stays as it was); returns its interpreter."""
    python = create_venv(venv, find_python(lock.minor))
    env = clean_env(venv, **lock.env)
    lock_file = venv / LOCK_NAME
    lock_file.write_text(lock.render(), encoding="utf-8")
    _pip(python, ["--no-deps", "-r", str(lock_file)], venv, env, "install the locked packages")
    if lock.project:
        with tempfile.TemporaryDirectory(prefix="gen09-build-") as tmp:
            copy = Path(tmp) / "project"
            shutil.copytree(project_dir, copy, symlinks=True)
            _pip(python, ["--no-deps", str(copy)], copy, env, "install the repository")
    return python


def cache_root() -> Path:
    """Where rebuilt environments are kept: ``$GEN09_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/gen09`` (``~/.cache/gen09``)."""
    if os.environ.get("GEN09_CACHE_DIR"):
        return Path(os.environ["GEN09_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gen09"


def cached_env(lock: Lock, project_dir: Path, root: Path | None = None) -> str:
    """The interpreter of a venv built from ``lock`` and the repository in ``project_dir``,
    once per lock digest and packaging metadata (bundles of one repository share it;
    concurrent callers wait for one build)."""
    root = Path(root or cache_root()) / "envs"
    root.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(lock.render().encode())
    for name in PACKAGING_FILES:  # what the repository's own install makes of it (scripts, metadata)
        path = Path(project_dir) / name
        key.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"-"))
    venv = root / key.hexdigest()[:16]
    with open(root / f"{venv.name}.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not (venv / READY).exists():
            python = build_from_lock(lock, venv, project_dir)
            (venv / READY).write_text("ok\n")
            return python
    return str(venv / "bin" / "python")
