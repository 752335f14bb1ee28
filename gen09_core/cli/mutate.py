"""``gen09 mutate`` and ``gen09 verify``: verified bug-fix tasks and their local check.

Heavy imports happen inside the commands, so ``gen09 apply`` starts as fast as before.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from gen09_core.testrun.process import children_end_with_us

PLAIN_EVERY = 10.0  # seconds: without a terminal, a stage's progress is printed at most this often


@click.command("mutate")
@click.argument("repo", required=False, type=click.Path(path_type=Path))
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="Configuration file (.toml or .json); options given here override it.")
@click.option("--recipe", default=None, help="Recipe name (pipeline.recipe); default swe_smith.")
@click.option("--max-mutants", "max_mutants", type=int, default=None,
              help="Mutants to validate (limits.max_mutants).")
@click.option("--n", "deprecated_n", type=int, default=None, hidden=True,
              help="Deprecated alias of --max-mutants (one release).")
@click.option("--seed", type=int, default=None, help="Random seed (seeds.mutate).")
@click.option("--selection", type=click.Choice(["coverage", "full"]), default=None,
              help="Tests per mutant: the covering ones (default) or the whole suite.")
@click.option("--confirm", type=click.Choice(["same_run", "separate", "coverage"]), default=None,
              help="How a mutant's PASS_TO_PASS is confirmed once a covering test failed: the other "
                   "stable tests in the same run (default), in a second run, or inferred from the "
                   "baseline's coverage without running them (the fastest).")
@click.option("--workers", type=int, default=None, help="Parallel test jobs (limits.workers).")
@click.option("--runner", type=click.Choice(["warm", "fresh"]), default=None,
              help="How Python mutant runs run (limits.runner): warm (default: a worker per job slot "
                   "collects the suite once and forks per mutant; what it cannot carry exactly runs "
                   "fresh, the reason kept per mutant) or fresh (a new interpreter every run).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default=None,
              help="Where test jobs run (limits.executor): this machine, or a Ray cluster (gen09[ray]).")
@click.option("--ray-address", default=None, help="The Ray cluster's address (limits.ray_address).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Run folder; re-running into it resumes (required unless --dry-run).")
@click.option("--dry-run", is_flag=True,
              help="Only list the gated mutants (any language; nothing is installed or run).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary (with --dry-run: the mutants) as JSON.")
@children_end_with_us()
def mutate_command(repo, config_file, recipe, max_mutants, deprecated_n, seed, selection, confirm, workers,
                   runner, executor, ray_address, out, dry_run, as_json):
    """Make verified bug-fix tasks from the healthy repository REPO (Harbor bundles).

    Exit status: 0 when at least one task was exported; 1 when none was (or the source has
    no stable tests); 2 for a bad configuration; 3 when the environment or runner fails.
    """
    from gen09_core.errors import BadInput
    from gen09_core.mutate import config as cfg
    from gen09_core.mutate.pipeline import run

    data: dict = cfg.load_file(config_file) if config_file else {}
    where = str(config_file) if config_file else "config"
    data = cfg.merge(data, _overrides(data, repo, recipe, _max_mutants(max_mutants, deprecated_n), seed,
                                      {"selection": selection, "confirm": confirm},
                                      {"workers": workers, "runner": runner, "executor": executor,
                                       "ray_address": ray_address}))
    if "source" not in data:
        raise BadInput("give the repository: gen09 mutate REPO ... (or source.repo in --config)")
    if dry_run:
        from gen09_core.mutate.dryrun import dry_run as list_mutants
        from gen09_core.mutate.dryrun import report

        sys.exit(report(list_mutants(Path(data["source"]["repo"]), data), as_json))
    if out is None:
        raise BadInput("give the run folder: --out DIR (or --dry-run to only list the mutants)")
    listener, progress = _progress_listener()
    try:
        summary = run(data, out, listener=listener, where=where)
    finally:
        if progress is not None:
            progress.stop()
    notes = summary.get("environment", {}).get("notes", ())
    for warning in [*notes, *baseline_warnings(summary["baseline"])]:
        click.echo(f"gen09 mutate: warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        _print_summary(summary, out)
    sys.exit(0 if summary["exported"] else 1)


def baseline_warnings(baseline: dict) -> list[str]:
    """What a user must know when the pristine suite ran only in part (``summary["baseline"]``):
    test files the runner could not collect (pytest, or another ecosystem's), whose tests never
    run, so a mutant only they would catch is ``uncovered``; more tests failing or skipped than
    passing, which most often means the environment lacks something the tests need."""
    warnings = []
    missed = baseline.get("uncollected") or []
    if missed:
        first = (baseline.get("collection_errors") or [""])[0]
        warnings.append(f"the test runner could not collect {len(missed)} test file(s) of the pristine suite "
                        f"({first}); their tests never run, so a mutant only they would catch counts as "
                        "'uncovered' (the list: baseline.uncollected in summary.json)")
    failing, stable = baseline.get("failing", 0), baseline.get("stable", 0)
    if failing > stable:
        total = failing + stable + len(baseline.get("flaky", []))
        warnings.append(f"{failing} of the pristine suite's {total} tests fail or are skipped, {stable} "
                        "pass: the environment may lack what they need (first: "
                        f"{baseline.get('first_failure', '')}); only passing tests can validate a bug")
    return warnings


def _overrides(data: dict, repo, recipe, max_mutants, seed, recipe_options: dict,
               limit_options: dict) -> dict:
    """The configuration that the command-line options given set, over ``data``
    (``recipe_options``: the recipe's own settings; ``limit_options``: ``limits`` beside
    ``max_mutants``; None: not given)."""
    from gen09_core.mutate import config as cfg

    overrides: dict = {}
    if repo is not None:
        overrides["source"] = {"repo": str(repo)}
    if recipe is not None:
        overrides["pipeline"] = {"name": data.get("pipeline", {}).get("name", cfg.PIPELINE), "recipe": recipe}
    limits = {k: v for k, v in {"max_mutants": max_mutants, **limit_options}.items() if v is not None}
    if limits:
        overrides["limits"] = limits
    if seed is not None:
        overrides["seeds"] = {"mutate": seed}
    chosen = {k: v for k, v in recipe_options.items() if v is not None}
    if chosen:
        name = recipe or data.get("pipeline", {}).get("recipe", "swe_smith")
        overrides["recipe"] = {name: chosen}
    return overrides


def _max_mutants(max_mutants: int | None, deprecated_n: int | None) -> int | None:
    """The mutant cap from ``--max-mutants`` or its deprecated alias ``--n`` (with a warning)."""
    from gen09_core.errors import BadInput

    if deprecated_n is None:
        return max_mutants
    click.echo("gen09: warning: mutate --n is deprecated; use --max-mutants", err=True)
    if max_mutants is not None and max_mutants != deprecated_n:
        raise BadInput(f"--n {deprecated_n} and --max-mutants {max_mutants} disagree; give --max-mutants")
    return deprecated_n


def _progress_listener():
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        shown: dict = {}  # stage -> when its last progress line was printed

        def plain(event):  # a stage's start too: a slow suite's baseline can take minutes
            if event.status in ("started", "done", "failed"):
                click.echo(f"gen09 mutate: {event.stage} {event.status} {event.subject}".rstrip(), err=True)
            elif event.status == "progress" and event.completed is not None:
                now, last = time.monotonic(), shown.get(event.stage, -PLAIN_EVERY)
                if now - last >= PLAIN_EVERY or event.completed == event.total:
                    shown[event.stage] = now
                    of = "" if event.total is None else f" of {event.total}"
                    line = f"gen09 mutate: {event.stage} {event.completed}{of} {event.subject}"
                    click.echo(line.rstrip(), err=True)
        return plain, None
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=False)
    progress.start()
    tasks: dict = {}

    def listener(event):
        if event.total is not None:
            if event.stage not in tasks:
                tasks[event.stage] = progress.add_task(event.stage, total=event.total or 1)
            progress.update(tasks[event.stage], completed=event.completed or 0,
                            total=event.total or 1)
        elif event.status in ("started", "done", "failed"):
            progress.console.print(f"{event.stage}: {event.status} {event.subject}".rstrip())

    return listener, progress


COLUMNS = (("generated", "generated"), ("gate_dropped", "gate dropped"), ("duplicate", "duplicate"),
           ("not_validated", "over max_mutants"), ("gated", "validated"), ("uncovered", "uncovered"),
           ("no_fail_to_pass", "no F2P"), ("no_pass_to_pass", "no P2P"), ("timeout", "timeout"),
           ("crash", "crash"), ("confirm_rejected", "confirm rejected"), ("over_task_cap", "over max_tasks"),
           ("export_failed", "export failed"), ("exported", "exported"))
OUTCOMES = COLUMNS[5:]  # every validated mutant is in exactly one of these


def _not_validated(row: dict) -> int:
    """Mutants that passed the gate after ``max_mutants`` was reached."""
    return row["generated"] - row["gate_dropped"] - row["duplicate"] - row["gated"]


def _nothing_to_mutate(generate: dict) -> str:
    """Why a run made no mutant, from its summary's ``generate`` counts."""
    files, never_run = generate["files"], generate["never_run_files"]
    where = (f"no modifier found code to change in the {files} source file(s) gen09 may mutate" if files
             else "no source file is left to mutate")
    if never_run:
        where += f", and {never_run} more were left out as no test ran a line of them"
    return (f"No mutant was made: {where} (after the include/exclude globs; test files and type declarations "
            "are never mutated). Code a build step generates, from templates for example, is not mutated: "
            "point include at the files the tests run.")


def _console():
    """A rich console for a table: a terminal's own width, else 200 columns (a log or a pipe,
    where rich's 80 columns cut a verify's failing test to ``tests/test_ut…``)."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=200)


def _print_summary(summary: dict, out: Path) -> None:
    from rich.table import Table

    console = _console()
    totals = dict(summary["totals"])
    totals["not_validated"] = _not_validated(totals)
    shown = [c for c in COLUMNS if c not in OUTCOMES or totals.get(c[0]) or c[0] == "exported"]
    table = Table("modifier", *(label for _, label in shown))
    for name, row in summary["per_modifier"].items():
        row = {**row, "gate_dropped": sum(v for k, v in row.items() if k.startswith("gate_"))}
        row["not_validated"] = _not_validated(row)
        table.add_row(name, *(str(row.get(key, 0)) for key, _ in shown))
    table.add_row("[bold]total[/]", *(f"[bold]{totals.get(key, 0)}[/]" for key, _ in shown))
    console.print(table)
    console.print(f"Each of the {summary['mutants']} validated mutant(s) is counted once, in one of the "
                  f"columns after 'validated' (columns with no mutant are left out). Per-run timeout "
                  f"{summary['timeout_sec']:g} s ({summary['timeout_source']}).")
    if summary.get("runs_by_runner"):
        console.print(_runs_line(summary["runs_by_runner"]), markup=False)
    for status, items in summary.get("failures", {}).items():
        console.print(f"{status}: " + "; ".join(f"{i['mutant']}: {i['reason']}" for i in items[:3]))
    if summary["exported"]:
        console.print(f"{summary['exported']} task(s) exported to {out / 'tasks'}; test-runner seconds "
                      f"{summary['cost']['test_runner_seconds']}. Check them with: gen09 verify {out}")
    else:
        console.print(f"No task was exported; test-runner seconds {summary['cost']['test_runner_seconds']}.")
    if not totals["generated"]:
        console.print(_nothing_to_mutate(summary["generate"]), markup=False)
    if summary["mutants"] >= 5 and totals.get("no_fail_to_pass") == summary["mutants"]:
        console.print(f"Not one of the {summary['mutants']} validated mutants made a test fail: the tests "
                      "may not run the files gen09 changes (a build step, such as npm's prepare or pretest "
                      "compiling to build/, that the test command does not repeat). Give a command profile "
                      "whose test command builds first, or check which files the tests exercise.",
                      markup=False)


def _runs_line(runs: dict) -> str:
    """How the mutant runs ran (``summary["runs_by_runner"]``): on warm workers, in fresh
    processes, and each reason a warm worker handed runs back (the most frequent first)."""
    plain = [f"{count} {kind}" for kind, count in runs.items() if ":" not in kind]
    back = sorted(((count, kind) for kind, count in runs.items() if ":" in kind), reverse=True)
    line = "Mutant runs: " + ", ".join(plain + ([f"{sum(c for c, _ in back)} handed back"] if back else []))
    if back:
        line += " (" + "; ".join(f"{count}x {kind}" for count, kind in back[:5])
        line += f"; {len(back) - 5} more reasons in summary.json)" if len(back) > 5 else ")"
    return line + "."


@click.command("verify")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--python", "python", default=None,
              help="Interpreter with the repository's test dependencies, instead of the default: a "
                   "fresh venv built from each bundle's own environment lock (cached per lock).")
@click.option("--timeout", "timeout_sec", type=float, default=900.0, show_default=True,
              help="Seconds per test.sh run; the whole process group is killed after it.")
@click.option("--workers", type=int, default=2, show_default=True, help="Bundles verified at once.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where bundles are verified: this machine, or a Ray cluster (gen09[ray]).")
@click.option("--ray-address", default=None, help="The Ray cluster's address (default: RAY_ADDRESS).")
@click.option("--runner", type=click.Choice(["warm", "fresh"]), default="warm", show_default=True,
              help="How the pytest run inside each Python bundle's test.sh runs: warm (a worker per "
                   "concurrent bundle that imported and collected the repository once forks per run; "
                   "a run it cannot carry exactly runs fresh, the reason kept per trial) or fresh (a new "
                   "interpreter every run). Ray and other ecosystems' bundles always run fresh.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--record", type=click.Path(dir_okay=False, path_type=Path),
              help="Append one JSON line per bundle to this file.")
@children_end_with_us()
def verify_command(bundles, python, timeout_sec, workers, executor, ray_address, runner, as_json, record):
    """Run each Harbor bundle's verifier locally, without Docker, in the environment the
    bundle ships: nop (reward must be 0) and oracle after solution/solve.sh (reward must
    be 1).

    BUNDLES are bundle folders, a run's tasks folder, or a run folder. Exit status: 0 when
    every bundle shows the contrast, 1 when one does not, 2 when no bundle is found, 3
    when an environment cannot be built.
    """
    from gen09_core.errors import BadInput
    from gen09_core.mutate.verify import find_bundles, verify_bundle

    found = find_bundles(bundles)
    if not found:
        raise BadInput("no Harbor bundle (task.toml + tests/test.sh + environment/repo) found in "
                       + ", ".join(map(str, bundles)))
    import functools

    from gen09_core.mutate.executors import make_executor

    if workers < 1:
        raise BadInput(f"--workers must be at least 1, got {workers}")
    by_bundle = {}
    pool = make_executor(executor, workers, ray_address)
    warm = None
    if runner == "warm":
        from gen09_core.mutate.verify_warm import WarmVerify, available

        why_not = available(executor)
        if not why_not:
            try:
                warm = WarmVerify(found, timeout_sec)
            except OSError as exc:  # e.g. a socket path too long under $TMPDIR
                why_not = f"the warm service cannot start: {exc}"
        if why_not:
            click.echo(f"gen09 verify: every pytest run is fresh: {why_not}", err=True)
    run_one = functools.partial(verify_bundle, python=python, timeout_sec=timeout_sec)
    if warm is not None:
        run_one = functools.partial(run_one, warm=warm)
    try:
        for number, result in enumerate(pool.run(run_one, found), 1):
            lost = " (infrastructure)" if result.failure_class == "infrastructure" else ""
            click.echo(f"gen09 verify: [{number}/{len(found)}] {Path(result.bundle).name}: "
                       f"{'ok' if result.ok else 'FAILED'}{lost}", err=True)
            by_bundle[result.bundle] = result
    finally:
        if warm is not None:
            warm.close()
    results = [by_bundle[str(Path(b).resolve())] for b in found]
    if pytest_runs := sum(r.pytest_runs for r in results):
        warm_runs = sum(r.warm_runs for r in results)
        click.echo(f"gen09 verify: {warm_runs} of {pytest_runs} pytest runs warm", err=True)
    if record:
        with open(record, "a", encoding="utf-8") as handle:
            for r in results:
                handle.write(json.dumps(r.as_dict(), sort_keys=True) + "\n")
    if as_json:
        click.echo(json.dumps({"bundles": [r.as_dict() for r in results],
                               "ok": sum(r.ok for r in results), "total": len(results)}, indent=2))
    else:
        from rich.table import Table

        table = Table("bundle", "nop", "oracle", "hash", "ok", "environment", "detail")
        for r in results:
            table.add_row(Path(r.bundle).name, str(r.nop), str(r.oracle), "ok" if r.hash_ok else "BAD",
                          "[green]yes[/]" if r.ok else "[red]no[/]", r.environment, r.detail[:600])
        _console().print(table)
    sys.exit(0 if all(r.ok for r in results) else 1)
