"""The local toolchain of command-recipe bundles (every ecosystem but Python's), for
``gen09 verify`` and ``gen09 ab`` without Docker.

The bundle's ``environment/gen09.toolchain.json`` names the toolchain the validation used.
The local one must have every tool (else ``EnvironmentFailure``, exit 3, naming what is
missing); a different version is run anyway and said in the result. Each trial (nop, then
oracle after ``solution/solve.sh``) runs the recipe's setup in its own copy of the snapshot
(the lock's ``replay`` steps, as the image build does: ``npm ci``, ``cargo fetch``), then
``tests/test.sh``. An install into folders the jobs link (``node_modules``) is made once per
lock and lockfiles and linked into each trial's copy, unless the install also runs the
package's own scripts (npm's ``prepare`` and the like), which build files of the trial's own
copy from its own code (koa: ``dist/koa.mjs``, which its tests import): then each trial
installs in full.
"""

from __future__ import annotations

from pathlib import Path

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.testrun.ecosystems import node
from gen09_core.testrun.ecosystems.toolchain import LOCK_NAME, ToolchainLock, missing_tools, tool_version


def is_command_bundle(bundle: Path) -> bool:
    """A bundle whose environment is a toolchain lock."""
    return (Path(bundle) / "environment" / LOCK_NAME).is_file()


def local_toolchain(lock: ToolchainLock) -> str:
    """``node 20.20.2, npm 11.19.1`` as found on ``PATH``, with the validated versions where
    they differ; ``EnvironmentFailure`` when a tool is missing."""
    names = [name for name, _ in lock.tools]
    missing = missing_tools(names)
    if missing:
        raise EnvironmentFailure(f"the bundle needs the {lock.ecosystem} toolchain ({lock.describe()}); "
                                 f"missing here: {', '.join(missing)}")
    out = []
    for name, wanted in lock.tools:
        found = tool_version(name)
        out.append(f"{name} {found}" + (f" (validated with {wanted})" if found != wanted else ""))
    return ", ".join(out)


def bundle_toolchain(bundle: Path, timeout_sec: float = 900.0):
    """``(toolchain description, setup)`` of a command-recipe bundle, ``setup(app)``
    replaying its install steps in an app folder; ``EnvironmentFailure`` when a tool is
    missing, ``BadInput`` for an unreadable lock."""
    from gen09_core.mutate.environment_command import run_setup

    path = Path(bundle) / "environment" / LOCK_NAME
    try:
        lock = ToolchainLock.parse(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BadInput(f"{path}: {exc}") from None
    toolchain = local_toolchain(lock)
    snapshot = Path(bundle) / "environment" / "repo"

    builds_itself = lock.ecosystem == "node" and node.runs_root_scripts(snapshot)

    def setup(app: Path) -> None:
        if lock.linked and lock.replay and not builds_itself:
            cached_install(lock, snapshot, app, timeout_sec)
        else:
            run_setup(lock.replay, app, dict(lock.env), app.parent / "setup-output.txt", timeout_sec)

    return toolchain, f"local {lock.ecosystem} toolchain", setup


def cached_install(lock: ToolchainLock, snapshot: Path, app: Path, timeout_sec: float) -> None:
    """The lock's install steps run once per lock and lockfiles (``npm ci`` of one repository's
    bundles is the same install); each app folder then links the installed folders
    (``node_modules``), as the validation's jobs did. Cached under ``$GEN09_CACHE_DIR``."""
    import fcntl
    import hashlib
    import shutil

    from gen09_core.mutate.environment_command import run_setup
    from gen09_core.testrun.venv import cache_root

    digest = hashlib.sha256(lock.render().encode())
    for name, _ in lock.lockfiles:
        if (snapshot / name).is_file():
            digest.update(name.encode() + b"\0" + (snapshot / name).read_bytes())
    folder = cache_root() / "toolchain-envs" / digest.hexdigest()[:20]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # another worker may be installing the same lock
        if not (folder / ".ready").exists():
            work = folder / "work"
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(snapshot, work, symlinks=True)
            run_setup(lock.replay, work, dict(lock.env), folder / "setup-output.txt", timeout_sec)
            (folder / ".ready").write_text("ok\n")
    for name in lock.linked:
        if (folder / "work" / name).exists() and not (app / name).exists():
            (app / name).symlink_to(folder / "work" / name, target_is_directory=True)
