"""Typed configuration of a ``repo_mutate`` run (TOML or JSON), strict about unknown keys.

Example (``examples/mutate.toml`` has the full set)::

    [pipeline]
    name = "repo_mutate"
    recipe = "swe_smith"

    [source]
    repo = "path/to/repo"

    [limits]
    max_mutants = 40

The *resolved* configuration (absolute repo path, the resolved revision, every default and
the recipe's options filled in) is written to ``config.json`` in the run folder before any
work starts; re-running into the same folder must resolve to the same configuration.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import cattrs
from attrs import evolve, field, frozen

from gen09_core.errors import BadInput
from gen09_core.hashing import tree_hash

PIPELINE = "repo_mutate"
VCS_NAMES = {".git", ".hg", ".svn"}  # never source, whether a folder or a file (a submodule's gitdir link)
SKIP_DIRS = {*VCS_NAMES, "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
             ".eggs"}
# what a build or an install writes: skipped at the root and beside a project manifest only, since
# deeper down such a folder is source (pip's ``operations/build`` package; resolve 1.22.8's test
# fixtures under ``test/resolver/symlinked/_/node_modules``)
OUTPUT_DIRS = {"build", "dist", "node_modules", "venv", ".venv"}
MANIFESTS = ("package.json", "pyproject.toml", "setup.py", "setup.cfg", "Cargo.toml", "go.mod",
             "CMakeLists.txt", "pom.xml", "Gemfile")


@frozen
class Pipeline:
    """Which pipeline and recipe run."""

    name: str = PIPELINE
    recipe: str = "swe_smith"


@frozen
class Source:
    """The healthy repository: its folder, its resolved revision and a display name."""

    repo: str
    revision: str = ""  # resolved when empty: git HEAD, else a digest of the tree
    name: str = ""  # "org/name" for instance ids; the folder name when empty


@frozen
class Limits:
    """Bounds of the run."""

    max_mutants: int = 50  # mutants that pass the gate and go to validation
    max_tasks: int = 0  # stop after this many accepted tasks (0: no cap)
    timeout_sec: float | None = None  # one mutant's test run; None: derived from the pristine run
    baseline_timeout_sec: float = 1800.0  # one pristine whole-suite run
    memory_mb: int = 4096  # address-space limit of one test-runner process
    workers: int = 2  # parallel test jobs on the local executor
    runner: str = "warm"  # mutant runs: "warm" (a worker per job slot that forks per mutant) | "fresh"
    executor: str = "local"  # where jobs run: "local" (this machine) | "ray" (a Ray cluster)
    ray_address: str | None = None  # executor "ray": the cluster (None: RAY_ADDRESS, or a local one)
    max_retries: int = 2  # executor "ray": resubmissions of a job the cluster lost
    recheck: bool = True  # run every accepted task's tests once more (pristine, and F2P on the mutant)

    def __attrs_post_init__(self):
        for name in ("max_mutants", "baseline_timeout_sec", "memory_mb", "workers"):
            if getattr(self, name) <= 0:
                raise ValueError(f"limits.{name} must be > 0")
        if self.runner not in ("warm", "fresh"):
            raise ValueError(f"limits.runner must be 'warm' or 'fresh', not {self.runner!r}")
        if self.timeout_sec is not None and self.timeout_sec <= 0:
            raise ValueError("limits.timeout_sec must be > 0")
        if self.max_tasks < 0:
            raise ValueError("limits.max_tasks must be >= 0")
        if self.executor not in ("local", "ray"):
            raise ValueError(f"limits.executor must be 'local' or 'ray', not {self.executor!r}")
        if self.max_retries < 0:
            raise ValueError("limits.max_retries must be >= 0")


@frozen
class Seeds:
    """Random seeds: the same seed and configuration give the same mutants."""

    mutate: int = 0


@frozen
class ModelRole:
    """A model used for one role (e.g. ``issue_writer``), called through gen09's metered client."""

    model: str
    base_url: str | None = None


@frozen
class ProfileSpec:
    """A repository profile given in the configuration file (see ``profiles.Profile``)."""

    base: str = "python-pytest"
    install: tuple[str, ...] | None = None
    test_paths: tuple[str, ...] | None = None
    pytest_args: tuple[str, ...] | None = None
    pythonpath: tuple[str, ...] | None = None
    env: dict[str, str] | None = None
    venv: bool | None = None
    plugins: tuple[str, ...] | None = None
    base_image: str | None = None
    image_install: tuple[str, ...] | None = None
    setup: tuple[str, ...] | None = None  # command profiles: run once in the work copy
    test: str | None = None  # command profiles: runs the whole suite
    report: str | None = None  # command profiles: "FORMAT:PATH" (PATH a glob, or - for the output)
    image: str | None = None  # command profiles: the bundle's base image


@frozen
class MutateConfig:
    """The whole configuration; ``recipe`` holds options per recipe name."""

    source: Source
    pipeline: Pipeline = field(factory=Pipeline)
    limits: Limits = field(factory=Limits)
    seeds: Seeds = field(factory=Seeds)
    models: dict[str, ModelRole] = field(factory=dict)
    profile: str = "python-pytest"
    profiles: dict[str, ProfileSpec] = field(factory=dict)
    recipe: dict[str, dict] = field(factory=dict)


CONVERTER = cattrs.Converter(forbid_extra_keys=True)
"""The one converter of mutate's data: the configuration, the baseline, the run records."""


def structure(data: dict, where: str = "config") -> MutateConfig:
    """Build a config from plain data; any unknown key or wrong type is ``BadInput``."""
    if not isinstance(data, dict):
        raise BadInput(f"{where}: the configuration must be a table/object")
    try:
        return CONVERTER.structure(data, MutateConfig)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        raise BadInput(f"{where}: " + "; ".join(_messages(exc))) from None


def _messages(exc) -> list[str]:
    if isinstance(exc, cattrs.BaseValidationError):
        from cattrs.v import format_exception

        def describe(err, type_):
            if type(err) is ValueError:
                return str(err)
            return format_exception(err, type_)

        return [m.replace("@ $", "at $", 1)
                for m in cattrs.transform_error(exc, path="$", format_exception=describe)]
    return [str(exc)]


def load_file(path: str | Path) -> dict:
    """Read a TOML (``.toml``) or JSON configuration file into plain data."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such configuration file")
    raw = path.read_bytes()
    try:
        if path.suffix == ".toml":
            return tomllib.loads(raw.decode("utf-8"))
        return json.loads(raw)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'JSON'}: {exc}") from None


def merge(base: dict, overrides: dict) -> dict:
    """``base`` with ``overrides`` laid over it, table by table."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def check(config: MutateConfig, recipes: dict, profiles: dict) -> None:
    """Semantic checks with one clear message each: the pipeline, the recipe, the profile,
    the model roles and the repository folder."""
    if config.pipeline.name != PIPELINE:
        raise BadInput(f"pipeline.name must be {PIPELINE!r}, not {config.pipeline.name!r}")
    if config.pipeline.recipe not in recipes:
        raise BadInput(f"pipeline.recipe {config.pipeline.recipe!r} is not a known recipe "
                       f"(known: {', '.join(sorted(recipes)) or 'none'})")
    unknown = sorted(set(config.recipe) - set(recipes))
    if unknown:
        raise BadInput(f"recipe options given for unknown recipe(s): {', '.join(unknown)}")
    if config.profile not in profiles and config.profile not in config.profiles:
        raise BadInput(f"profile {config.profile!r} is not defined (known: "
                       f"{', '.join(sorted(set(profiles) | set(config.profiles)))})")
    for name, spec in config.profiles.items():
        if spec.base not in profiles:
            raise BadInput(f"profiles.{name}.base {spec.base!r} is not a known profile")
    roles = sorted(config.models)
    unsupported = [r for r in roles if r != "issue_writer"]
    if unsupported:
        raise BadInput(f"models: unknown role(s) {', '.join(unsupported)} (known: issue_writer)")
    if "issue_writer" in config.models:
        raise BadInput("models.issue_writer: the model issue writer needs gen09's metered model "
                       "client, which this build does not include; remove the role to use the "
                       "deterministic writer")
    repo = Path(config.source.repo)
    if not repo.is_dir():
        raise BadInput(f"source.repo {config.source.repo!r} is not a folder")


def resolve(config: MutateConfig, recipe_options: dict) -> MutateConfig:
    """Fill in the absolute repo path, the revision, the display name and the recipe's
    options (with defaults), so the written config says everything the run used."""
    repo = Path(config.source.repo).resolve()
    revision = config.source.revision or resolve_revision(repo)
    name = config.source.name or default_name(repo)
    return evolve(
        config,
        source=Source(str(repo), revision, name),
        recipe={config.pipeline.recipe: recipe_options},
    )


def default_name(repo: Path) -> str:
    """The repository's name when the configuration gives none: its folder's name, except an
    npm tarball's root folder (always ``package``), named by its ``package.json``
    (``@scope/name`` becomes ``scope/name``)."""
    if repo.name == "package":
        try:
            declared = json.loads((repo / "package.json").read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            declared = None
        if isinstance(declared, str) and declared.strip("@/"):
            return declared.strip("@/")
    return repo.name


def resolve_revision(repo: Path) -> str:
    """The git commit of ``repo`` when it is a clean git checkout (``git rev-parse``, read
    only); otherwise a digest of its source tree (``tree-sha256:...``)."""
    if (repo / ".git").exists():
        try:
            head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                                  text=True, check=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True,
                                   text=True, check=True).stdout.strip()
            if head and not dirty:
                return head
        except (OSError, subprocess.CalledProcessError):
            pass
    return "tree-sha256:" + tree_digest(repo)


def source_files(repo: Path):
    """Every file of the repository outside VCS/cache/build folders, sorted, as relative paths;
    no VCS file either (tomlkit 0.13.2's sdist ships a submodule's ``.git`` file, which the
    leak scan refused in every bundle). A symbolic link that stays inside the repository is
    listed (not followed); one that leads out of it is not."""
    repo = Path(repo)
    out = []
    stack = [repo]
    while stack:
        folder = stack.pop()
        for entry in sorted(folder.iterdir()):
            if entry.name in VCS_NAMES:  # a folder, or a submodule's `.git` file
                continue
            if entry.is_symlink():  # kept as a link when it points inside (resolve 1.22.8's fixtures)
                if _points_inside(repo, entry):
                    out.append(entry.relative_to(repo).as_posix())
                continue
            if entry.is_dir():
                if not _skipped(repo, entry):
                    stack.append(entry)
            elif entry.is_file() and not entry.name.endswith((".pyc", ".pyo")):
                out.append(entry.relative_to(repo).as_posix())
    return sorted(out)


def _points_inside(repo: Path, link: Path) -> bool:
    """A relative symbolic link whose target, read as written, stays inside ``repo``."""
    target, root = os.readlink(link), os.path.normpath(repo)
    where = os.path.normpath(os.path.join(link.parent, target))
    return not os.path.isabs(target) and os.path.commonpath([where, root]) == root


def _skipped(repo: Path, folder: Path) -> bool:
    """Not source: a cache or metadata folder, or one a build or an install wrote (an output
    name at the root or beside a project manifest, or a virtual environment anywhere)."""
    if folder.name in SKIP_DIRS or folder.name.endswith(".egg-info") or (folder / "pyvenv.cfg").is_file():
        return True
    return folder.name in OUTPUT_DIRS and (folder.parent == repo
                                           or any((folder.parent / m).is_file() for m in MANIFESTS))


def tree_digest(repo: Path) -> str:
    """Hex SHA-256 over the repository's source files (paths and bytes)."""
    return tree_hash(repo, source_files(repo)).hexdigest()


def to_json(config: MutateConfig, detected: dict | None = None) -> str:
    """The canonical JSON form written to ``config.json``: the resolved configuration and,
    under ``detected``, what environment detection found (with provenance)."""
    data = CONVERTER.unstructure(config)
    if detected is not None:
        data["detected"] = detected
    return json.dumps(data, indent=2, sort_keys=True) + "\n"
