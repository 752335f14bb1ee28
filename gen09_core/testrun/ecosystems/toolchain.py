"""The lock of a command recipe: the toolchain versions the validation used, the digests of
the repository's lockfiles, and the commands themselves. A bundle ships it as
``environment/gen09.toolchain.json``; its Dockerfile starts from the official image at those
versions, and ``gen09 verify`` checks the local toolchain against it."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

from attrs import asdict, field, frozen

from gen09_core.errors import EnvironmentFailure

LOCK_NAME = "gen09.toolchain.json"
VERSION_ARGS = {"go": ("version",), "java": ("-version",), "javac": ("-version",)}
_VERSION = re.compile(r"\d+(?:\.\d+)+")


class Version(str):
    """A version string whose ``major`` is its first number (for ``{gcc.major}``)."""

    @property
    def major(self) -> str:
        """The first dotted number."""
        return self.split(".", 1)[0]


@frozen
class ToolchainLock:
    """What validated a command recipe: ``tools`` as ``(name, version)``, ``lockfiles`` as
    ``(file, sha256)`` and the recipe's commands, so the bundle runs exactly them."""

    ecosystem: str
    language: str
    tools: tuple[tuple[str, str], ...]
    lockfiles: tuple[tuple[str, str], ...]
    setup: tuple[str, ...]
    image_setup: tuple[str, ...]
    replay: tuple[str, ...]
    test: str
    report: str
    image: str
    env: dict = field(factory=dict)
    linked: tuple[str, ...] = ()
    build_dirs: tuple[str, ...] = ()
    test_globs: tuple[str, ...] = ()

    def render(self) -> str:
        """The lock file's text (canonical JSON)."""
        return json.dumps(asdict(self), indent=1, sort_keys=True) + "\n"

    @classmethod
    def parse(cls, text: str) -> ToolchainLock:
        """Read a rendered lock; ``ValueError`` when it is not one."""
        import cattrs

        try:
            return cattrs.structure(json.loads(text), cls)
        except (ValueError, TypeError, cattrs.BaseValidationError) as exc:
            raise ValueError(f"not a gen09 toolchain lock: {exc}") from None

    def digest(self) -> str:
        """``sha256:`` of the rendered lock."""
        return "sha256:" + hashlib.sha256(self.render().encode()).hexdigest()

    def describe(self) -> str:
        """``node 20.20.2, npm 11.19.1``."""
        return ", ".join(f"{name} {version}" for name, version in self.tools)


def tool_version(tool: str) -> str | None:
    """The version ``tool`` reports of itself, or None when it is not on ``PATH``."""
    path = shutil.which(tool)
    if path is None:
        return None
    try:
        done = subprocess.run([path, *VERSION_ARGS.get(tool, ("--version",))], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    match = _VERSION.search(done.stdout + done.stderr)
    return match.group(0) if match else "unknown"


def missing_tools(tools) -> list[str]:
    """The tools of ``tools`` that are not on ``PATH``."""
    return [tool for tool in tools if shutil.which(tool) is None]


def _fill(text: str, versions: dict) -> str:
    """``{TOOL}`` / ``{TOOL.major}`` in ``text`` filled with the toolchain's versions (a
    text with other braces, such as a shell ``${VAR}``, is left as it is)."""
    try:
        return text.format(**versions)
    except (KeyError, IndexError, AttributeError, ValueError):
        return text


def capture(recipe, repo: Path) -> ToolchainLock:
    """The lock of ``recipe`` as this machine runs it; ``EnvironmentFailure`` (exit 3) naming
    the missing tools."""
    missing = missing_tools(recipe.tools)
    if missing:
        raise EnvironmentFailure(f"the {recipe.ecosystem} toolchain is missing: {', '.join(missing)} "
                                 "not on PATH")
    tools = tuple((tool, tool_version(tool) or "unknown") for tool in recipe.tools)
    lockfiles = tuple((name, hashlib.sha256((Path(repo) / name).read_bytes()).hexdigest())
                      for name in recipe.lockfiles if (Path(repo) / name).is_file())
    versions = {name.replace("+", "p"): Version(version) for name, version in tools}
    image = _fill(recipe.image, versions)
    image_setup = recipe.setup if recipe.image_setup is None else tuple(_fill(step, versions)
                                                                        for step in recipe.image_setup)
    replay = recipe.setup if recipe.replay is None else recipe.replay
    return ToolchainLock(recipe.ecosystem, recipe.language, tools, lockfiles, tuple(recipe.setup),
                         tuple(image_setup), tuple(replay), recipe.test, recipe.report, image,
                         dict(recipe.env), tuple(recipe.linked), tuple(recipe.build_dirs),
                         tuple(recipe.test_globs))
