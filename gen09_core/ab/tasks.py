"""The task sample: Harbor bundles made by ``gen09 mutate`` (fresh, never published: a
held-out, out-of-benchmark sample), or SWE-bench-style JSONL
with local checkouts. The target entity and span come from the task — the oracle
localization Spec 09 takes as given from component 05."""

from __future__ import annotations

import json
import random
import re
import tomllib
from pathlib import Path

from attrs import frozen

from gen09_core.entities import list_entities, match_entity, module_name
from gen09_core.errors import BadInput
from gen09_core.models import Span
from gen09_core.repo import Snapshot

SWE_BENCH_FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch", "FAIL_TO_PASS",
                    "PASS_TO_PASS", "problem_statement")


@frozen
class Task:
    """One task: the learner-visible repository, the target, the issue and its tests."""

    id: str
    repo: Path
    file: str
    entity: str | None
    span: Span
    problem: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    bundle: Path | None = None  # Harbor bundle: validated by its own tests/test.sh
    test_patch: str | None = None  # SWE-bench: applied before the tests run
    gold_patch: str | None = None  # SWE-bench: the reference fix (the self-check's gold run)
    python: str | None = None  # SWE-bench: this instance's own interpreter (field gen09_python)

    def upstream(self, with_requirement: bool = True) -> dict:
        """The upstream-inputs file of stage (a): localization from the task, the issue
        text as the requirement (omitted for a bare target); nothing else is known."""
        loc = {"file": self.file, "span": self.span.as_list()}
        if self.entity:
            loc["entity"] = self.entity
        data = {"version": 1, "localization": loc}
        if with_requirement:
            data["plan"] = {"requirement": self.problem}
        return data


def load(source, registry, checkouts=None) -> tuple[list[Task], list[dict]]:
    """Tasks from a ``gen09 mutate`` run folder (or its ``tasks`` folder) or a SWE-bench
    JSONL, and the records that could not be used (``{"id", "reason"}``: a missing checkout,
    a patch with no source file, ...), which are reported and skipped, never fatal."""
    source = Path(source).resolve()
    if source.is_dir():
        run = source if (source / "instances.jsonl").exists() else source.parent
        if not (run / "instances.jsonl").exists():
            raise BadInput(f"{source}: not a gen09 mutate run folder (no instances.jsonl)")
        return [_from_bundle(run, record, registry) for record in _jsonl(run / "instances.jsonl")], []
    if not source.is_file():
        raise BadInput(f"{source}: no such file or folder")
    if checkouts is None:
        raise BadInput("a SWE-bench JSONL needs --checkouts DIR holding one checkout per instance_id")
    tasks, skipped = [], []
    for record in _jsonl(source):
        try:
            tasks.append(_from_swe_bench(record, Path(checkouts).resolve(), registry))
        except BadInput as exc:
            skipped.append({"id": str(record.get("instance_id", "?")), "reason": str(exc)})
    if not tasks:
        raise BadInput(f"{source}: no usable record (" + "; ".join(s["reason"] for s in skipped[:3]) + ")")
    return tasks, skipped


def sample(tasks: list[Task], k: int, seed: int) -> list[Task]:
    """A seeded sample of ``k`` tasks (all when fewer), in a stable order."""
    if k < 1:
        raise BadInput(f"--k must be at least 1, got {k}")
    ordered = sorted(tasks, key=lambda t: t.id)
    chosen = random.Random(seed).sample(ordered, min(k, len(ordered)))
    return sorted(chosen, key=lambda t: t.id)


def _jsonl(path: Path) -> list[dict]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise BadInput(f"{path}:{number}: invalid JSON: {exc.msg}") from None
    if not records:
        raise BadInput(f"{path}: no tasks")
    return records


def _from_bundle(run: Path, record: dict, registry) -> Task:
    bundle = run / record["task"]
    meta = tomllib.loads((bundle / "task.toml").read_text(encoding="utf-8"))["metadata"]
    path, _, name = meta["entity"].partition("::")
    repo = bundle / "environment" / "repo"
    span, entity = _locate(registry, repo, path, name)
    return Task(record["instance_id"], repo, path, entity, span, record["problem_statement"],
                tuple(record["FAIL_TO_PASS"]), tuple(record["PASS_TO_PASS"]), bundle=bundle)


def _from_swe_bench(record: dict, checkouts: Path, registry) -> Task:
    task_id = str(record.get("instance_id", "?"))
    missing = [f for f in SWE_BENCH_FIELDS if f not in record]
    if missing:
        raise BadInput(f"SWE-bench record {task_id}: missing {', '.join(missing)}")
    repo = checkouts / task_id
    if not repo.is_dir():
        raise BadInput(f"no checkout for {task_id} at {repo}")
    path, span = source_target(record["patch"], registry)
    text = Snapshot(repo).read(path)
    if text is None or not hasattr(text, "text"):
        raise BadInput(f"{task_id}: {path} from the gold patch is not in the checkout")
    entities = list_entities(registry, path, text.text) or []
    inside = [e for e in entities if e.span.start <= span.start and span.end <= e.span.end]
    entity = None
    if inside:
        best = min(inside, key=lambda e: e.span.lines)
        span, entity = best.span, _dotted(path, best.name)
    try:
        f2p, p2p = tuple(_ids(record["FAIL_TO_PASS"])), tuple(_ids(record["PASS_TO_PASS"]))
    except (ValueError, TypeError):
        raise BadInput(f"{task_id}: FAIL_TO_PASS / PASS_TO_PASS are neither lists nor JSON lists") from None
    if not f2p:
        raise BadInput(f"{task_id}: FAIL_TO_PASS is empty")
    python = record.get("gen09_python")
    return Task(task_id, repo, path, entity, span, record["problem_statement"], f2p, p2p,
                test_patch=record["test_patch"], gold_patch=record["patch"],
                python=str(python) if python else None)


def _locate(registry, repo: Path, path: str, name: str) -> tuple[Span, str]:
    source = Snapshot(repo).read(path)
    entities = list_entities(registry, path, source.text) if hasattr(source, "text") else None
    found = match_entity(entities or [], name, path)
    if found is None:
        raise BadInput(f"{repo}: entity {name} not found in {path}")
    return found.span, _dotted(path, found.name)


def _dotted(path: str, name: str) -> str:
    return f"{module_name(path)}.{name}"


_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)(test_[^/]*|[^/]*_test\.py|conftest\.py)$")


def source_target(patch: str, registry) -> tuple[str, Span]:
    """The first *source* file the gold patch changes — an existing file a language pack
    serves, not a test, not a changelog, not a new file — and the pre-image lines its first
    hunk changes (context lines left out; a pure insertion spans the line before it)."""
    for section in re.split(r"^(?=diff --git |--- )", patch, flags=re.M):
        old = re.search(r"^--- (?:a/)?(\S+)", section, re.M)
        hunk = re.search(r"^@@ -(\d+)(?:,\d+)? [^\n]*\n((?:[ +\\-][^\n]*(?:\n|$))*)", section, re.M)
        if not old or not hunk or old.group(1) == "/dev/null":
            continue
        path = old.group(1)
        if registry.language_of(path) is None or _TEST_PATH.search(path):
            continue
        return path, _changed_span(int(hunk.group(1)), hunk.group(2))
    raise BadInput("the gold patch changes no existing source file a language pack serves")


def _changed_span(start: int, body: str) -> Span:
    line, changed = start, []
    for text in body.splitlines():
        if text.startswith("-"):
            changed.append(line)
            line += 1
        elif text.startswith("+"):
            changed.append(max(line - 1, 1))
        elif text.startswith(" "):
            line += 1
    changed = changed or [max(start, 1)]
    return Span(max(min(changed), 1), max(changed))


def _ids(value) -> list[str]:
    return json.loads(value) if isinstance(value, str) else list(value)
