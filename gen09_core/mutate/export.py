"""The export stage of ``repo_mutate``: an issue and a Harbor bundle per accepted mutant,
and ``instances.jsonl`` for the run. A bundle already in the run folder is kept; one whose
snapshot would leak the fix is not written."""

from __future__ import annotations

import re

from attrs import evolve, frozen

from gen09_core.mutate.baseline import FLAKY_RULE
from gen09_core.mutate.installable import install_command, install_fails, setup_build, setup_imports

ADAPTATIONS = (
    "validation runs only the tests covering the mutated lines, then confirms with the full "
    "F2P + P2P set",
    FLAKY_RULE,
    "F2P test files are removed from the learner snapshot and restored by the verifier",
    "mutants are gated by gen09 apply + gate (parse, F821) before any test runs",
    "the image installs exactly the validated environment's lock (environment/gen09.lock)",
)


@frozen
class Exported:
    """The export stage's result: the exported tasks (``{"task", "mutant", "modifier"}``)
    and every accepted mutant's outcome (``{mutant id: (column, task id or reason)}``)."""

    tasks: tuple[dict, ...]
    outcomes: dict[str, tuple[str, str]]


def slug(text: str) -> str:
    """``text`` as a lowercase, dash-separated name (``repo`` when nothing is left)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "repo"


def settings_for(ctx, env, recipe: str, version: str, mirrors: str):
    """The run-level facts every bundle of this run records."""
    from gen09_core.mutate.bundle import BundleSettings

    profile, source, options = ctx.profile, ctx.config.source, ctx.options
    return BundleSettings(
        org=options.org, recipe=recipe, recipe_version=version, mirrors=mirrors,
        upstream_release=options.upstream_release, source_repo=source.repo, source_name=source.name,
        revision=source.revision, lock=env.lock, test_env=env.test_env, base_image=profile.base_image,
        image_install=profile.image_install, memory_mb=ctx.config.limits.memory_mb,
        verifier_timeout_sec=options.verifier_timeout_sec, agent_timeout_sec=options.agent_timeout_sec,
        adaptations=ADAPTATIONS)


def export_stage(ctx, work, settings, files, baseline, mutants, accepted) -> Exported:
    """Write the bundle of every ``accepted`` mutant (``{id: confirmed verdict}``) under
    ``<run>/tasks``, the snapshot taken from ``files`` of ``work.pristine``."""
    from gen09_core.entities import module_name
    from gen09_core.mutate.bundle import TaskSpec, export, instance_record
    from gen09_core.mutate.issue import write_issue
    from gen09_core.mutate.leaks import entity_block
    from gen09_core.mutate.records import write_instances

    journal, source = ctx.journal, ctx.config.source
    settings = evolve(settings, file_order=baseline.file_order)
    tasks_dir = ctx.out / "tasks"
    tasks_dir.mkdir(parents=True, exist_ok=True)
    rev = source.revision.split(":")[-1][:8]
    owner = source.name.replace("/", "__")
    all_tests = list(baseline.stable + baseline.flaky + baseline.failing)
    by_id = {m.mutant_id: m for m in mutants}
    test_env = settings.test_env
    ecosystem = getattr(test_env, "ecosystem", "python")
    install = install_command(ecosystem, work.pristine)
    linked, left_out = getattr(test_env, "linked", ()), getattr(test_env, "build_dirs", ())
    built = (setup_imports(test_env.python, work.pristine, work.scratch, test_env.env, linked, left_out)
             if ecosystem == "python" and accepted else frozenset())
    tasks, outcomes, instances = [], {}, []
    journal.event("export", "started", total=len(accepted), completed=0)
    for number, (mid, verdict) in enumerate(sorted(accepted.items()), 1):
        mutant = by_id[mid]
        pristine_text = (work.pristine / mutant.path).read_text(encoding="utf-8")
        # a Python file by its module (``shop.pricing``); another language's by its path (``lib/parse.js``)
        where = module_name(mutant.path) if mutant.path.endswith(".py") else mutant.path
        issue = write_issue(where, verdict.failures, list(verdict.fail_to_pass), all_tests,
                            mutant.diff, work.pristine)
        short = mid.rsplit("__", 1)[-1]
        task_id = f"{slug(source.name)}.{mutant.modifier.replace('_', '-')}-{short}"
        spec = TaskSpec(task_id, f"{owner}.{rev}.func_pm_{mutant.modifier}__{short}", mutant.modifier,
                        mutant.entity, mutant.path, pristine_text, mutant.text, mutant.diff,
                        tuple(verdict.fail_to_pass), tuple(verdict.pass_to_pass), issue,
                        ctx.config.seeds.mutate, mutant.complexity)
        final = tasks_dir / task_id
        if not (final / "task.toml").exists():
            command = install or (setup_build(test_env.python) if module_name(mutant.path) in built else None)
            if command and (broken := install_fails(command, work.pristine, mutant.path, mutant.text,
                                                    work.scratch, test_env.env, linked, left_out)):
                outcomes[mid] = ("export_failed", broken)
                journal.event("export", "failed", task_id, failure_class="verifier",
                              detail={"install": broken})
                continue
            try:
                export(spec, settings, work.pristine, files, tasks_dir,
                       entity_block(pristine_text, mutant.span))
            except ValueError as exc:
                outcomes[mid] = ("export_failed", f"leak scan: {exc}"[:300])
                journal.event("export", "failed", task_id, failure_class="verifier",
                              detail={"leaks": str(exc)})
                continue
            journal.receipt("export", final, {"mutant": mid})
        outcomes[mid] = ("exported", task_id)
        instances.append(instance_record(spec, settings, f"gen09/{slug(source.name)}:{rev}"))
        tasks.append({"task": task_id, "mutant": mid, "modifier": mutant.modifier})
        journal.event("export", "progress", task_id, total=len(accepted), completed=number)
    write_instances(ctx.out / "instances.jsonl", instances)
    journal.receipt("instances", ctx.out / "instances.jsonl")
    journal.event("export", "done", detail={"exported": len(tasks)})
    return Exported(tuple(tasks), outcomes)
