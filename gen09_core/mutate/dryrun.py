"""``gen09 mutate REPO --dry-run [--json]``: the gated mutants a run would validate, for any
language a pack serves, without installing the repository or running a test.

It is the generate stage of the ``swe_smith`` recipe (``gen09_core.mutate.mutants``) on the
repository folder itself (only read), with the recipe's options, seed and cap from
``--config`` and the command line. Without a baseline there are no test ids to skip: test
files are left out by each pack's conventions and the recipe's ``exclude`` globs.
"""

from __future__ import annotations

import json
from pathlib import Path

import cattrs
import click

from gen09_core.errors import BadInput


def dry_run(repo: Path, data: dict, registry=None):
    """The ``mutants.Generated`` of the configuration ``data`` (the ``gen09 mutate`` tables)
    on the folder ``repo``."""
    from gen09_core.mutate import config as cfg
    from gen09_core.mutate.config import source_files
    from gen09_core.mutate.mutants import generate
    from gen09_core.mutate.recipes.swe_smith import RECIPE, SweSmithOptions
    from gen09_core.plugins import default_registry

    repo = Path(repo)
    if not repo.is_dir():
        raise BadInput(f"{repo}: repository folder does not exist")
    config = cfg.structure(cfg.merge(data, {"source": {"repo": str(repo)}}))
    try:
        options = cfg.CONVERTER.structure(config.recipe.get(RECIPE.name, {}), SweSmithOptions)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        raise BadInput(f"recipe.{RECIPE.name}: " + "; ".join(cfg._messages(exc))) from None
    registry = registry or default_registry()
    RECIPE.check(options, registry)
    return generate(registry, repo, source_files(repo), options.modifiers, options.include, options.exclude,
                    (), config.seeds.mutate, config.limits.max_mutants)


def mutant_json(mutant) -> dict:
    """One mutant as an object of the ``--dry-run --json`` array."""
    return {"id": mutant.mutant_id, "modifier": mutant.modifier, "language": mutant.language,
            "file": mutant.path, "entity": mutant.entity, "kind": mutant.kind, "span": list(mutant.span),
            "complexity": mutant.complexity, "diff": mutant.diff}


def report(result, as_json: bool) -> int:
    """Print the mutants (a JSON array, or a table per language and modifier — made, dropped
    by the gate, duplicates, gated, made but beyond the cap — followed by one line per
    mutant); the exit status: 0 with at least one mutant, else 1."""
    if as_json:
        click.echo(json.dumps([mutant_json(m) for m in result.mutants], indent=1))
        return 0 if result.mutants else 1
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table("language", "modifier", "made", "gate drop", "dup", "gated", "over cap")
    for language, by_modifier in sorted(result.stats.items()):
        for name, counts in sorted(by_modifier.items()):
            dropped = sum(v for k, v in counts.items() if k.startswith("gate_"))
            cut = counts["generated"] - dropped - counts["duplicate"] - counts["gated"]
            table.add_row(language, name, *map(str, (counts["generated"], dropped, counts["duplicate"],
                                                     counts["gated"], cut)))
    console.print(table)
    for m in result.mutants:
        click.echo(f"{m.path}:{m.span[0]}-{m.span[1]} {m.entity} {m.modifier} ({m.mutant_id})")
    click.echo(f"{len(result.mutants)} gated mutant(s) from {result.candidates} eligible entity x modifier "
               f"pair(s) in {result.files} file(s); nothing was run.")
    return 0 if result.mutants else 1
