"""Build SWE-bench-style instances from real bug-fix commits of public Python libraries.

For every entry of the manifest (``bench/swe_instances.toml``: the GitHub repository, the
fix commit, optionally which of its files are tests and the linked issue's text) this:

1. clones the repository from a local copy (never from the network: fetch or clone it
   first, see ``bench/README.md``) into ``bench/.cache/swe/src/``;
2. takes ``base_commit`` = the fix commit's parent and splits the fix commit's diff into
   ``patch`` (the other files, Python sources first: ``gen09 ab`` targets the first file
   of the patch) and ``test_patch`` (the test files);
3. extracts the checkout at ``base_commit`` to ``bench/.cache/swe/checkouts/<instance_id>``
   (no ``.git``) and builds its isolated venv with gen09's own test-environment modules
   (recipe detection, a venv from the package index, the lock), cached per repository and
   commit under ``bench/.cache/swe/envs/``;
4. runs the test modules ``test_patch`` touches twice, on base + ``test_patch`` and on
   base + ``patch`` + ``test_patch``: FAIL_TO_PASS are the tests that did not pass before
   (failed, error or missing) and pass after, PASS_TO_PASS those that pass both times;
5. checks the result with the listed ids only, as ``gen09 ab`` runs them: the nop check
   (base + ``test_patch``: no FAIL_TO_PASS test passes, every PASS_TO_PASS test does) and
   the gold check (base + ``patch`` + ``test_patch``: every listed test passes);
6. writes ``bench/.cache/swe/instances.jsonl`` with the instances that have FAIL_TO_PASS
   tests and pass both checks (FAIL_TO_PASS/PASS_TO_PASS as JSON-encoded strings, as the
   dataset has them), plus ``gen09_python`` (the venv's interpreter) and
   ``gen09_pythonpath`` (where the package is imported from, relative to the checkout).

Usage::

    .venv/bin/python bench/build_swe_instances.py --sources /work/.mirror   # or $GEN09_SWE_SOURCES
    .venv/bin/python bench/build_swe_instances.py --sources DIR --only pytoolz__toolz-5a7e078
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path, PurePosixPath

import attrs

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from gen09_core.errors import Gen09Error  # noqa: E402
from gen09_core.testrun.detect import detect  # noqa: E402
from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job  # noqa: E402
from gen09_core.testrun.outcomes import PASSED  # noqa: E402
from gen09_core.testrun.venv import READY, Lock, build_from_recipe  # noqa: E402

MANIFEST = BENCH / "swe_instances.toml"
CACHE = BENCH / ".cache" / "swe"
TEST_DIRS = {"test", "tests", "testing"}
TEST_MODULES = ("test_*.py", "*_test.py")
NOT_PASSING_BEFORE = {"failed", "error", "missing"}
ENTRY_KEYS = {"repo", "commit", "id", "test_files", "issue", "problem_statement"}
TRAILER = re.compile(r"^(Co-authored-by|Signed-off-by|Reviewed-by|Acked-by):.*$", re.M | re.I)
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


# -- the manifest and the sources -------------------------------------------------------


def load_manifest(path: Path) -> list[dict]:
    """The manifest's ``[[instance]]`` entries, checked, each with its ``instance_id``."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for number, entry in enumerate(data.get("instance") or [], 1):
        unknown = set(entry) - ENTRY_KEYS
        if unknown or not {"repo", "commit"} <= set(entry):
            raise SystemExit(f"{path}: entry {number}: needs repo and commit; unknown keys {sorted(unknown)}")
        owner, _, name = entry["repo"].partition("/")
        entry.setdefault("id", f"{owner}__{name}-{entry['commit'][:7]}")
        entries.append(entry)
    ids = [e["id"] for e in entries]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{path}: duplicate instance ids")
    return entries


def git(repo: Path, *args: str, text: bool = True):
    """Run ``git`` on ``repo`` (a bare clone) and return its output."""
    done = subprocess.run(["git", f"--git-dir={repo}", *args], capture_output=True, text=text, env=GIT_ENV)
    if done.returncode != 0:
        err = done.stderr if text else done.stderr.decode(errors="replace")
        raise RuntimeError(f"git {' '.join(args)}: {err.strip()}")
    return done.stdout


def find_source(sources: Path, repo: str) -> Path:
    """The local copy of ``owner/name`` under ``sources``: ``owner+name/repo`` (what the
    search tool's ``fetch`` makes), ``owner+name``, ``owner/name`` or ``name``; a clone or a
    bare repository."""
    owner, name = repo.split("/")
    for candidate in (f"{owner}+{name}/repo", f"{owner}+{name}", f"{owner}/{name}", name):
        path = sources / candidate
        if (path / ".git").exists() or (path / "HEAD").is_file():
            return path
    raise SystemExit(f"no local copy of {repo} under {sources}: fetch it (github:{repo}) or git clone it "
                     f"to {sources / (owner + '+' + name)}")


def clone(sources: Path, repo: str) -> Path:
    """A bare clone of ``repo`` under the cache, made once from its local copy."""
    target = CACHE / "src" / (repo.replace("/", "+") + ".git")
    if not (target / "HEAD").is_file():
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["git", "clone", "--quiet", "--bare", "--no-hardlinks",
                               str(find_source(sources, repo)), str(target)],
                              capture_output=True, text=True, env=GIT_ENV)
        if done.returncode != 0:
            raise SystemExit(f"git clone of {repo} failed: {done.stderr.strip()}")
    return target


# -- splitting the fix commit -----------------------------------------------------------


def is_test_file(path: str, patterns: list[str] | None) -> bool:
    """Whether ``path`` belongs to the tests: matches one of the manifest's ``test_files``
    patterns when given, else lies in a ``test``/``tests``/``testing`` folder or is a test
    module or ``conftest.py``."""
    if patterns is not None:
        return any(fnmatch.fnmatch(path, p) for p in patterns)
    pure = PurePosixPath(path)
    return bool(TEST_DIRS & set(pure.parts[:-1])) or pure.name == "conftest.py" or any(
        fnmatch.fnmatch(pure.name, p) for p in TEST_MODULES)


def split_commit(clone_dir: Path, entry: dict) -> dict:
    """``base_commit``, ``patch``, ``test_patch`` and the commit's facts for one entry."""
    sha = git(clone_dir, "rev-parse", f"{entry['commit']}^{{commit}}").strip()
    parents = git(clone_dir, "log", "-1", "--format=%P", sha).split()
    if len(parents) != 1:
        raise RuntimeError(f"{sha} has {len(parents)} parents; a fix commit must have exactly one")
    base = parents[0]
    changed = [line.split("\t") for line in git(clone_dir, "diff", "--no-renames", "--name-status", base,
                                                sha).splitlines()]
    files = [parts[-1] for parts in changed]
    tests = [f for f in files if is_test_file(f, entry.get("test_files"))]
    others = sorted((f for f in files if f not in tests), key=lambda f: (not f.endswith(".py"), f))
    if not tests or not others:
        raise RuntimeError(f"{sha} changes {len(others)} non-test and {len(tests)} test files; needs both")

    def diff(paths):
        return "".join(git(clone_dir, "diff", "--no-color", "--no-ext-diff", "--no-renames", "--binary",
                           base, sha, "--", p) for p in paths)

    added_or_kept = {parts[-1] for parts in changed if parts[0] != "D"}
    modules = [f for f in tests if f in added_or_kept and f.endswith(".py")
               and any(fnmatch.fnmatch(PurePosixPath(f).name, p) for p in TEST_MODULES)]
    message = git(clone_dir, "log", "-1", "--format=%B", sha)
    return {"fix_commit": sha, "base_commit": base, "patch": diff(others), "test_patch": diff(tests),
            "test_modules": modules, "message": TRAILER.sub("", message).strip() + "\n",
            "created_at": git(clone_dir, "log", "-1", "--format=%cI", sha).strip()}


# -- the checkout and its environment ---------------------------------------------------


def extract(clone_dir: Path, commit: str, target: Path) -> None:
    """The tree of ``commit`` at ``target`` (no ``.git``)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tempfile.TemporaryFile() as archive:
        archive.write(git(clone_dir, "archive", "--format=tar", commit, text=False))
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(target, filter="data")


def scm_version(clone_dir: Path, commit: str) -> str | None:
    """The last release tag reachable from ``commit`` as a PEP 440 version, if any."""
    from packaging.version import InvalidVersion, Version

    try:
        tag = git(clone_dir, "describe", "--tags", "--abbrev=0", commit).strip()
        return str(Version(tag.lstrip("v")))
    except (RuntimeError, InvalidVersion):
        return None


def prepare(clone_dir: Path, entry: dict, facts: dict) -> tuple[TestEnv, dict]:
    """The instance's checkout at ``base_commit`` and its test environment (both made once;
    a new checkout gets its venv rebuilt, since the project's build may write into it)."""
    checkout = CACHE / "checkouts" / entry["id"]
    venv = CACHE / "envs" / f"{entry['repo'].replace('/', '+')}-{facts['base_commit'][:12]}"
    record = venv.parent / f"{venv.name}.json"
    fresh = not checkout.is_dir()
    if fresh:
        extract(clone_dir, facts["base_commit"], checkout)
    recipe = detect(checkout)
    if "SETUPTOOLS_SCM_PRETEND_VERSION" in recipe.env:  # no .git here: take the version from the clone
        version = scm_version(clone_dir, facts["base_commit"])
        if version:
            recipe = attrs.evolve(recipe, env={**recipe.env, "SETUPTOOLS_SCM_PRETEND_VERSION": version})
    summary = recipe.summary()
    if recipe.env:
        summary += "; build env " + " ".join(f"{k}={v}" for k, v in sorted(recipe.env.items()))
    if fresh or not (venv / READY).exists() or not record.exists():
        before = set(checkout.rglob("*.egg-info"))
        lock = build_from_recipe(recipe, venv, checkout)
        for leftover in set(checkout.rglob("*.egg-info")) - before:
            shutil.rmtree(leftover, ignore_errors=True)
        record.write_text(json.dumps({"lock": lock.render(), "recipe": summary}, indent=1) + "\n",
                          encoding="utf-8")
        (venv / READY).write_text("ok\n")
    lock = Lock.parse(json.loads(record.read_text(encoding="utf-8"))["lock"])
    plugin_dir = install_plugin(CACHE / "plugins")
    env = TestEnv(python=str(venv / "bin" / "python"), plugin_dir=str(plugin_dir), venv=str(venv),
                  pythonpath=recipe.pythonpath, plugins=lock.plugins, addopts=recipe.addopts,
                  env=dict(recipe.env))
    return env, {"recipe": summary, "checkout": checkout, "python": lock.python}


# -- running the tests ------------------------------------------------------------------


def patched_tree(checkout: Path, patches: list[str], into: Path) -> Path:
    """A copy of ``checkout`` with ``patches`` applied by ``git apply`` (outside any
    repository, so the paths are the patch's own)."""
    shutil.copytree(checkout, into, symlinks=True)
    for patch in patches:
        env = {**GIT_ENV, "GIT_CEILING_DIRECTORIES": str(into.parent)}
        done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], input=patch, text=True, cwd=into,
                              capture_output=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"patch does not apply: {done.stderr.strip()[:400]}")
    return into


def run_tests(env: TestEnv, tree: Path, scratch: Path, job_id: str, modules=None, ids=None) -> dict:
    """``{node id: outcome}`` of one pytest run over ``tree``: whole ``modules``, or ``ids``."""
    if modules is not None:
        env = attrs.evolve(env, test_paths=tuple(modules))
    job = TestJob(job_id, str(tree), str(scratch), tests=tuple(ids) if ids is not None else None,
                  timeout_sec=900.0)
    run = run_job(env, job)
    if run.status != "ok":
        raise RuntimeError(f"{job_id}: pytest run {run.status}: {run.detail[-600:]}")
    if not run.outcomes and run.problem:
        raise RuntimeError(f"{job_id}: no test ran: {run.problem}")
    return run.outcomes


def build_instance(sources: Path, entry: dict) -> tuple[dict | None, dict]:
    """One instance (None when it is dropped) and what its runs showed."""
    clone_dir = clone(sources, entry["repo"])
    facts = split_commit(clone_dir, entry)
    env, info = prepare(clone_dir, entry, facts)
    report = {"id": entry["id"], "repo": entry["repo"], "fix_commit": facts["fix_commit"],
              "recipe": info["recipe"]}
    if not facts["test_modules"]:
        return None, {**report, "dropped": "test_patch touches no test module"}
    with tempfile.TemporaryDirectory(prefix="gen09-swe-") as tmp:
        tmp = Path(tmp)
        nop = patched_tree(info["checkout"], [facts["test_patch"]], tmp / "nop")
        gold = patched_tree(info["checkout"], [facts["patch"], facts["test_patch"]], tmp / "gold")
        before = run_tests(env, nop, tmp / "runs", "before", modules=facts["test_modules"])
        after = run_tests(env, gold, tmp / "runs", "after", modules=facts["test_modules"])
        f2p = sorted(t for t, o in after.items()
                     if o == PASSED and before.get(t, "missing") in NOT_PASSING_BEFORE)
        p2p = sorted(t for t, o in after.items() if o == PASSED and before.get(t) == PASSED)
        report.update(f2p=len(f2p), p2p=len(p2p), before=_count(before), after=_count(after))
        if not f2p:
            return None, {**report, "dropped": "no FAIL_TO_PASS test"}
        listed = f2p + p2p
        nop_run = run_tests(env, nop, tmp / "runs", "nop-check", ids=listed)
        gold_run = run_tests(env, gold, tmp / "runs", "gold-check", ids=listed)
    nop_ok = all(nop_run.get(t) != PASSED for t in f2p) and all(nop_run.get(t) == PASSED for t in p2p)
    gold_ok = all(gold_run.get(t) == PASSED for t in listed)
    report.update(nop_check="ok" if nop_ok else "FAILED", gold_check="ok" if gold_ok else "FAILED")
    if not (nop_ok and gold_ok):
        return None, {**report, "dropped": "nop or gold check failed"}
    problem = entry.get("problem_statement") or facts["message"]
    instance = {
        "instance_id": entry["id"], "repo": entry["repo"], "base_commit": facts["base_commit"],
        "patch": facts["patch"], "test_patch": facts["test_patch"], "problem_statement": problem,
        "hints_text": "", "created_at": facts["created_at"],
        "FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": json.dumps(p2p),
        "environment_setup_commit": facts["base_commit"],
        "gen09_fix_commit": facts["fix_commit"], "gen09_issue": entry.get("issue", ""),
        "gen09_python": env.python, "gen09_pythonpath": list(env.pythonpath),
        "gen09_test_files": facts["test_modules"],
    }
    return instance, report


def _count(outcomes: dict) -> dict:
    counts: dict = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    return dict(sorted(counts.items()))


def main(argv=None) -> int:
    """Build the instances of the manifest; print one line per instance and a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=os.environ.get("GEN09_SWE_SOURCES"),
                        help="folder of local copies: owner+name/repo (fetch), owner+name or name "
                             "(default: $GEN09_SWE_SOURCES)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--only", nargs="*", default=None, help="instance ids to build (default: all)")
    parser.add_argument("--out", type=Path, default=CACHE / "instances.jsonl")
    args = parser.parse_args(argv)
    if args.sources is None:
        parser.error("--sources (or $GEN09_SWE_SOURCES) is required: the folder of local copies")
    entries = [e for e in load_manifest(args.manifest) if args.only is None or e["id"] in args.only]
    start = time.monotonic()
    instances, reports = [], []
    for entry in entries:
        began = time.monotonic()
        try:
            instance, report = build_instance(args.sources.resolve(), entry)
        except (RuntimeError, OSError, Gen09Error) as exc:
            instance, report = None, {"id": entry["id"], "repo": entry["repo"],
                                      "dropped": f"{type(exc).__name__}: {exc}"}
        report["seconds"] = round(time.monotonic() - began, 1)
        reports.append(report)
        if instance is not None:
            instances.append(instance)
        print(json.dumps(report), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(i) + "\n" for i in instances), encoding="utf-8")
    (args.out.parent / "build-report.json").write_text(json.dumps(reports, indent=1) + "\n", encoding="utf-8")
    print("\n| instance | F2P | P2P | nop check | gold check | seconds | dropped |")
    print("|---|---|---|---|---|---|---|")
    for r in reports:
        print(f"| {r['id']} | {r.get('f2p', '-')} | {r.get('p2p', '-')} | {r.get('nop_check', '-')} | "
              f"{r.get('gold_check', '-')} | {r['seconds']} | {r.get('dropped', '')} |")
    print(f"\n{len(instances)} of {len(entries)} instances written to {args.out} "
          f"in {time.monotonic() - start:.0f} s; checkouts in {CACHE / 'checkouts'}")
    return 0 if instances else 1


if __name__ == "__main__":
    sys.exit(main())
