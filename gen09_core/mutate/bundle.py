"""Harbor bundle export (the leak scan is ``leaks``, the digests ``gen09_core.hashing``).

One folder per task::

    instruction.md            the issue (symptoms only)
    task.toml                 Harbor config + metadata (recipe, lineage, digests, task hash)
    environment/Dockerfile    builds the learner image from the snapshot
    environment/repo/         the learner-visible snapshot (mutated; F2P test files removed)
    solution/solve.sh         the oracle: restores the pristine source of the changed file
    environment/gen09.lock    the validated environment: Python version + every package pinned
    solution/solve.sh         the oracle: restores the pristine source of the changed file
    tests/test.sh             the verifier: restores hidden tests, runs F2P + P2P, writes
                              the reward to $GEN09_LOG_DIR (default /logs/verifier)/reward.txt
    tests/runner/             gen09's pytest plugin and the outcome reader that grades
    tests/tests.txt, tests/files.txt, tests/expected.json, tests/hidden/...

Every path in the scripts comes from an environment variable with the container default:
``GEN09_APP_DIR`` (/testbed), ``GEN09_TESTS_DIR`` (the script's folder), ``GEN09_LOG_DIR``
(/logs/verifier), ``GEN09_PYTHON`` (python). ``gen09 verify`` sets them to run locally.
Exported is not accepted: acceptance is ``gen09 verify``'s nop/oracle contrast.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shlex
import shutil
from pathlib import Path, PurePosixPath

from attrs import frozen

from gen09_core.hashing import sha256_bytes, sha256_file, sha256_tree, tree_hash
from gen09_core.mutate.leaks import is_credential, is_trace, scan_snapshot
from gen09_core.mutate.mutants import files_with_tests
from gen09_core.mutate.records import Instance
from gen09_core.testrun.jobs import TestEnv, install_plugin, ordered_files
from gen09_core.testrun.venv import LOCK_NAME, Lock

CONFIG_FILES = ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py")


@frozen
class TaskSpec:
    """Everything one accepted task needs for export."""

    task_id: str
    instance_id: str
    modifier: str
    entity: str
    path: str
    pristine_text: str
    mutant_text: str
    diff: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    issue: str
    seed: int
    complexity: int


@frozen
class BundleSettings:
    """Run-level facts every bundle records."""

    org: str
    recipe: str
    recipe_version: str
    mirrors: str
    upstream_release: str
    source_repo: str
    source_name: str
    revision: str
    lock: Lock
    test_env: TestEnv
    base_image: str | None
    image_install: tuple[str, ...] | None
    memory_mb: int
    verifier_timeout_sec: float
    agent_timeout_sec: float
    adaptations: tuple[str, ...]
    flavour: object = None  # another ecosystem's bundle parts (gen09_core.mutate.bundle_command)
    file_order: tuple[str, ...] = ()  # the test files in the order the whole suite met them


def hidden_test_files(spec: TaskSpec, files: list[str]) -> list[str]:
    """Files the verifier restores: every file holding an F2P or P2P test (a source module
    whose only tests are its doctests is code, not a test file), every ``conftest.py`` and
    the root test-configuration files."""
    wanted = files_with_tests(spec.fail_to_pass + spec.pass_to_pass)
    out = []
    for rel in files:
        name = PurePosixPath(rel).name
        if rel in wanted or name == "conftest.py" or (rel in CONFIG_FILES and "/" not in rel):
            out.append(rel)
    return sorted(out)


SUITE_FOLDERS = {"test", "tests", "testing", "testdata", "test_data", "fixtures"}


def _suite_file(rel: str) -> bool:
    """A file of the test suite's own: in a test folder, or a test module (PyJWT 2.9.0's
    ``tests/keys/testkey_rsa.priv``, ecdsa's ``test_keys.py``: keys made for the tests)."""
    path = PurePosixPath(rel)
    return bool(set(path.parts[:-1]) & SUITE_FOLDERS) or path.name.startswith("test")


def export(spec: TaskSpec, settings: BundleSettings, pristine_dir: Path, files: list[str],
           tasks_dir: Path, pristine_block: str) -> Path:
    """Write one bundle under ``tasks_dir/<task_id>`` (built aside, then renamed in).
    Raises ``ValueError`` listing the leaks when the snapshot would not be clean."""
    final = Path(tasks_dir) / spec.task_id
    tmp = Path(tasks_dir) / f".tmp-{spec.task_id}"
    shutil.rmtree(tmp, ignore_errors=True)
    repo = tmp / "environment" / "repo"
    flavour = settings.flavour
    if flavour is not None:
        hidden, f2p_files = flavour.hidden_files(spec, files), flavour.f2p_files(spec, files)
        files = [rel for rel in files if flavour.ships(rel)]
    else:
        hidden = hidden_test_files(spec, files)
        f2p_files = sorted(files_with_tests(spec.fail_to_pass))
    # the mutated file ships mutated and is never restored, even when it holds tests (doctests,
    # tests inline in the source): restoring it would undo the mutation and every nop would pass
    hidden = [rel for rel in hidden if rel != spec.path]
    f2p_files = [rel for rel in f2p_files if rel != spec.path]
    skipped_credentials, skipped_traces, test_keys = [], [], []
    for rel in files:
        if rel in f2p_files:
            continue
        source = Path(pristine_dir) / rel
        if source.is_symlink():  # a link inside the repository ships as the link
            _place(source, repo / rel)
            continue
        data = source.read_bytes()
        if rel == spec.path:
            data = spec.mutant_text.encode("utf-8")
        elif is_credential(rel, data):
            (test_keys if _suite_file(rel) else skipped_credentials).append(rel)
            continue
        elif is_trace(rel):  # a backup may hold the pristine code (uritemplate 4.1.1 ships a .swp)
            skipped_traces.append(rel)
            continue
        _place(source, repo / rel, data)
    problems = scan_snapshot(repo, {spec.path: spec.pristine_text}, [pristine_block], f2p_files,
                             Path(pristine_dir))
    if problems:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ValueError("; ".join(problems))
    hidden = sorted({*hidden, *test_keys})  # the suite's keys: out of the snapshot, there when it is graded
    for rel in hidden:
        _place(Path(pristine_dir) / rel, tmp / "tests" / "hidden" / rel)
    tests = sorted(spec.fail_to_pass) + sorted(spec.pass_to_pass)
    _write(tmp / "instruction.md", spec.issue)
    lock_name = flavour.lock_name if flavour is not None else LOCK_NAME
    _write(tmp / "environment" / "Dockerfile", flavour.dockerfile() if flavour else dockerfile(settings))
    _write(tmp / "environment" / lock_name, settings.lock.render())
    _write(tmp / "solution" / "solve.sh", solve_sh(spec), executable=True)
    _write(tmp / "tests" / "test.sh", flavour.test_sh() if flavour else test_sh(settings), executable=True)
    if flavour is not None:
        flavour.install_runner(tmp / "tests" / "runner")
    else:
        install_plugin(tmp / "tests" / "runner", coverage=False)  # a verifier measures no coverage
    _write(tmp / "tests" / "tests.txt", "".join(t + "\n" for t in tests))
    test_files = ordered_files(tests, settings.file_order)  # the order the validation ran them in
    _write(tmp / "tests" / "files.txt", "".join(f + "\n" for f in test_files))
    _write(tmp / "tests" / "expected.json", json.dumps({
        "count": len(tests), "FAIL_TO_PASS": sorted(spec.fail_to_pass),
        "PASS_TO_PASS": sorted(spec.pass_to_pass)}, indent=2) + "\n")
    adaptations = list(settings.adaptations)
    if skipped_credentials:
        adaptations.append(f"credential-like files left out of the snapshot: {len(skipped_credentials)}")
    if test_keys:
        adaptations.append(f"credential-like files of the test suite restored by the verifier, not in the "
                           f"snapshot: {len(test_keys)}")
    if skipped_traces:
        adaptations.append(f"backup or compiled files left out of the snapshot: {len(skipped_traces)}")
    digests = {
        "snapshot": sha256_tree(repo),
        "dockerfile": sha256_file(tmp / "environment" / "Dockerfile"),
        "instruction": sha256_file(tmp / "instruction.md"),
        "solve_sh": sha256_file(tmp / "solution" / "solve.sh"),
        "test_sh": sha256_file(tmp / "tests" / "test.sh"),
        "lock": sha256_file(tmp / "environment" / lock_name),
        "hidden_tests": sha256_tree(tmp / "tests" / "hidden") if hidden else "",
        "patch": sha256_bytes(spec.diff.encode("utf-8")),
    }
    body = task_toml(spec, settings, adaptations, digests, task_hash="")
    _write(tmp / "task.toml", task_toml(spec, settings, adaptations, digests, task_hash(tmp, body)))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    return final


def task_hash(bundle: Path, toml_without_hash: str) -> str:
    """The hash of the complete task: every file but ``task.toml`` (path + bytes; a symbolic
    link: path + target), plus ``task.toml`` as rendered with an empty ``task_hash``."""
    paths = [p for p in Path(bundle).rglob("*") if p.is_file() or p.is_symlink()]
    files = [p.relative_to(bundle).as_posix() for p in paths]
    digest = tree_hash(bundle, [rel for rel in files if rel != "task.toml"])
    digest.update(b"task.toml\0" + hashlib.sha256(toml_without_hash.encode("utf-8")).digest())
    return "sha256:" + digest.hexdigest()


def check_task_hash(bundle: Path) -> bool:
    """Recompute a bundle's task hash and compare it with the one ``task.toml`` records."""
    text = (Path(bundle) / "task.toml").read_text(encoding="utf-8")
    match = re.search(r'^task_hash = "(sha256:[0-9a-f]+)"$', text, re.M)
    if not match:
        return False
    blank = text.replace(match.group(0), 'task_hash = ""', 1)
    return task_hash(Path(bundle), blank) == match.group(1)


def _place(source: Path, target: Path, data: bytes | None = None) -> None:
    """Write ``data`` (else ``source``'s bytes) to ``target``, executable when ``source`` is
    (a ``configure`` script, a test script); a symbolic link ``source`` becomes the same link."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        target.symlink_to(os.readlink(source))
        return
    target.write_bytes(source.read_bytes() if data is None else data)
    if source.stat().st_mode & 0o111:
        target.chmod(target.stat().st_mode | 0o755)


def _write(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    if executable:
        path.chmod(0o755)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(type(value))


def _table(name: str, values: dict) -> str:
    lines = [f"[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def task_toml(spec: TaskSpec, s: BundleSettings, adaptations: list[str], digests: dict,
              task_hash: str) -> str:
    """``task.toml`` (Harbor schema 1.1 layout) with gen09's metadata."""
    name = f"{s.org}/{spec.task_id}"
    parts = [
        'schema_version = "1.1"\n'
        "# the verifier runs in a fresh copy of the environment and receives only the learner's\n"
        "# /testbed (as an artifact), so nothing else the agent did can steer the grading\n"
        'artifacts = [{ source = "/testbed", exclude = ["__pycache__", ".pytest_cache"] }]\n',
        _table("task", {
            "name": name,
            "description": f"Fix the bug described in instruction.md ({s.source_name}).",
            "keywords": [s.flavour.language if s.flavour else "python", "bug-fix", "repo_mutate", s.recipe,
                         spec.modifier],
        }),
        _table("metadata", {
            "pipeline": "repo_mutate",
            "recipe": s.recipe,
            "recipe_version": s.recipe_version,
            "mirrors": s.mirrors,
            "upstream_release": s.upstream_release,
            "source_repo": s.source_name,
            "source_path": s.source_repo,
            "source_revision": s.revision,
            "instance_id": spec.instance_id,
            "modifier": spec.modifier,
            "entity": f"{spec.path}::{spec.entity}",
            "entity_complexity": spec.complexity,
            "seed": spec.seed,
            "fail_to_pass": len(spec.fail_to_pass),
            "pass_to_pass": len(spec.pass_to_pass),
            "adaptations": adaptations,
            "reward_scale": "binary: 1 when every FAIL_TO_PASS and PASS_TO_PASS test passes, else 0",
            "status": "exported (acceptance is the nop/oracle contrast of gen09 verify)",
            "task_hash": task_hash,
        }),
        _table("metadata.asset_digests", digests),
        _table("verifier", {"timeout_sec": float(s.verifier_timeout_sec), "environment_mode": "separate"}),
        _table("agent", {"timeout_sec": float(s.agent_timeout_sec), "user": "learner"}),
        _table("environment", {"build_timeout_sec": 900.0, "cpus": 1, "memory_mb": s.memory_mb,
                               "storage_mb": 10240}),
    ]
    return "\n".join(parts)


def _paths(s: BundleSettings, root: str) -> str:
    return ":".join(f"{root}/{p}".rstrip("/.") or root for p in s.test_env.pythonpath) or root


def dockerfile(s: BundleSettings) -> str:
    """The learner image: the validating Python's official image, exactly the locked
    packages, then the repository installed the way the validation installed it, the
    snapshot at /testbed."""
    image = s.base_image or f"python:{s.lock.minor}-slim"
    variables = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(s.lock.env.items()))
    if s.image_install is not None:
        steps = [f"RUN {' && '.join(s.image_install) or 'true'}"]
    else:
        steps = [f"COPY {LOCK_NAME} /gen09/{LOCK_NAME}",
                 f"RUN pip install --no-cache-dir --no-deps -r /gen09/{LOCK_NAME}"]
    steps.append("COPY repo/ /testbed/")
    if s.image_install is None and s.lock.project:
        prefix = f"{variables} " if variables else ""
        steps.append("RUN cp -R /testbed /tmp/gen09-build && \\\n    "
                     f"{prefix}pip install --no-cache-dir --no-deps /tmp/gen09-build "
                     "&& \\\n    rm -rf /tmp/gen09-build")
    return (f"FROM {image}\n"
            "WORKDIR /testbed\n"
            + "".join(step + "\n" for step in steps)
            + "RUN useradd --create-home --uid 1000 learner && chown -R learner /testbed\n"
            f"ENV PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0 PYTHONPATH={_paths(s, '/testbed')}\n")


def solve_sh(spec: TaskSpec) -> str:
    """The reference solution: write back the pristine bytes of the changed file."""
    payload = base64.encodebytes(spec.pristine_text.encode("utf-8")).decode("ascii")
    return ("#!/usr/bin/env bash\n"
            "# Reference solution: restore the original source of the changed file.\n"
            "set -eu\n"
            'APP_DIR="${GEN09_APP_DIR:-/testbed}"\n'
            f'base64 -d > "$APP_DIR/{spec.path}" <<\'GEN09_PAYLOAD\'\n'
            f"{payload}"
            "GEN09_PAYLOAD\n")


def verifier_preamble(comment: str, python: str) -> str:
    """The start of every ``tests/test.sh``: the paths (overridable through ``GEN09_*``), a
    reward of 0 until the grader says otherwise, and the app folder as working folder."""
    return f"""#!/usr/bin/env bash
{comment}set -u
APP_DIR="${{GEN09_APP_DIR:-/testbed}}"
TESTS_DIR="${{GEN09_TESTS_DIR:-$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)}}"
LOG_DIR="${{GEN09_LOG_DIR:-/logs/verifier}}"
PYTHON="${{GEN09_PYTHON:-{python}}}"
mkdir -p "$LOG_DIR"
echo 0 > "$LOG_DIR/reward.txt"
cd "$APP_DIR" || exit 0
"""


def test_sh(s: BundleSettings) -> str:
    """The verifier entry point: the same pytest options, plugins and selection the
    validation used (but a native traceback in the log, for whoever reads it); the reward
    comes from gen09's outcome reader."""
    options = " ".join(shlex.quote(o) for o in s.test_env.pytest_options(traceback="native"))
    exports = "".join(f"export {k}={shlex.quote(str(v))}\n" for k, v in sorted(s.test_env.env.items()))
    comment = ("# Verifier: restore the hidden tests, run FAIL_TO_PASS + PASS_TO_PASS, write the reward\n"
               "# (1 when all pass, else 0) to $LOG_DIR/reward.txt.\n")
    return verifier_preamble(comment, "python") + f"""\
# conftest files the learner may have added cannot steer the run; the originals come back
find . -name conftest.py -delete
cp -R "$TESTS_DIR/hidden/." "$APP_DIR/"
export PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
export PYTHONPATH="{_paths(s, "$APP_DIR")}:$TESTS_DIR/runner"
export GEN09_OUTCOMES="$LOG_DIR/outcomes.jsonl" GEN09_SELECT="$TESTS_DIR/tests.txt"
{exports}rm -f "$GEN09_OUTCOMES"
mapfile -t FILES < "$TESTS_DIR/files.txt"
"$PYTHON" -m pytest {options} --rootdir="$APP_DIR" "${{FILES[@]}}" > "$LOG_DIR/test-output.txt" 2>&1
"$PYTHON" "$TESTS_DIR/runner/gen09_outcomes.py" grade "$GEN09_OUTCOMES" "$TESTS_DIR/expected.json" \\
    > "$LOG_DIR/reward.txt" 2>> "$LOG_DIR/test-output.txt" || echo 0 > "$LOG_DIR/reward.txt"
cat "$LOG_DIR/reward.txt"
"""


def instance_record(spec: TaskSpec, s: BundleSettings, image_name: str) -> Instance:
    """The ``instances.jsonl`` line of one exported task."""
    return Instance(spec.instance_id, s.source_name, s.revision, spec.diff, sorted(spec.fail_to_pass),
                    sorted(spec.pass_to_pass), spec.issue, image_name, f"procedural/{spec.modifier}",
                    f"{spec.path}::{spec.entity}", f"tasks/{spec.task_id}")
