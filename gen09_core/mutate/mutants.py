"""The mutant-generation stage of ``repo_mutate``, for every language the registry serves.

source files × their pack's entities × the pack's mutators (``gen09_mutators(language)``)
→ each eligible pair mutated with its own seeded generator → every mutant through
``pipeline.run_batch`` (apply, syntax gate, dedup) → frozen ``Mutant`` records plus
per-language, per-modifier counts. The stage knows no language: which files are tests or
vendored code is the packs' business (a mutator's ``features`` returns None there); it
applies only the recipe's include/exclude globs, the test files to skip, and never
mutates declaration-only files (``*.pyi``, ``*.d.ts``).

Same files + same seed + same modifiers → the same mutants, in the same order.
"""

from __future__ import annotations

import fnmatch
import hashlib
import random
from collections.abc import Callable, Iterable
from pathlib import Path

from attrs import field, frozen

from gen09_core.models import Candidate, CandidateBatch, Edit
from gen09_core.repo import decode

GATE_LINT = ("F821",)
CHUNK = 64
DECLARATION_ONLY = ("*.pyi", "*.d.ts", "*.d.mts", "*.d.cts")
COUNTS = ("generated", "duplicate", "gated")


@frozen
class Mutant:
    """A gated mutant ready for validation. ``text`` is the whole mutated file as it is
    written to disk (a byte-order mark kept as U+FEFF); ``diff`` is a unified diff against
    the pristine file with ``a/``/``b/`` paths."""

    mutant_id: str
    path: str
    entity: str
    kind: str
    span: tuple[int, int]
    modifier: str
    complexity: int
    text: str
    diff: str
    language: str = "python"


@frozen
class Generated:
    """The stage's result: the mutants (at most the cap), how many entity × mutator
    ``candidates`` and ``files`` it looked at, ``stats[language][modifier]`` counts:
    ``generated`` (mutated and sent to the gate), ``gate_<reason>`` (rejected),
    ``duplicate``, ``gated`` (kept), and how many files it left out as ``never_run``."""

    mutants: tuple[Mutant, ...]
    candidates: int
    files: int
    stats: dict = field(factory=dict)
    never_run: int = 0

    def per_modifier(self) -> dict[str, dict[str, int]]:
        """The counts summed over languages, by modifier name."""
        out: dict[str, dict[str, int]] = {}
        for by_modifier in self.stats.values():
            for name, counts in by_modifier.items():
                total = out.setdefault(name, {})
                for key, value in counts.items():
                    total[key] = total.get(key, 0) + value
        return out


def languages(registry) -> list[str]:
    """Every language some loaded pack serves, sorted."""
    return sorted({language for language, _plugin in registry.extensions.values()})


def mutators_by_language(registry, names: Iterable[str] = ()) -> dict[str, list]:
    """``{language: mutators sorted by name}`` from every pack's ``gen09_mutators`` hook,
    limited to ``names`` when given; languages without mutators are left out."""
    wanted = set(names)
    found = {}
    for language in languages(registry):
        mutators = [m for m in registry.mutators(language) if not wanted or m.name in wanted]
        if mutators:
            found[language] = mutators
    return found


def known_modifiers(registry) -> set[str]:
    """The names of every mutator any loaded pack offers, for any language."""
    return {m.name for mutators in mutators_by_language(registry).values() for m in mutators}


def wanted(rel: str, include: Iterable[str], exclude: Iterable[str]) -> bool:
    """True when ``rel`` passes the ``include``/``exclude`` globs (a glob matches the whole
    path or the file name) and is not a declaration-only file."""
    name = rel.rsplit("/", 1)[-1]
    if any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in (*exclude, *DECLARATION_ONLY)):
        return False
    include = tuple(include)
    return not include or any(fnmatch.fnmatch(rel, p) for p in include)


def files_with_tests(test_ids: Iterable[str]) -> set[str]:
    """The files that hold tests, from pytest node ids — leaving out source modules whose
    only tests are their doctests (``pkg/mod.py::pkg.mod.func``, ``mod.py::mod``): those
    are the code to mutate, and their doctests just more tests of it."""
    from gen09_core.entities import module_name

    found = set()
    for test_id in test_ids:
        path, _, rest = test_id.partition("::")
        name = rest.split("[", 1)[0].split("::", 1)[0]
        if "." in name or (path.endswith(".py") and name == module_name(path)):
            continue  # a doctest: a test function's or class's name has no dot
        found.add(path)
    return found


def eligible_pairs(registry, pristine: Path, files: Iterable[str], by_language: dict,
                   include: Iterable[str] = (), exclude: Iterable[str] = (),
                   skip: Iterable[str] = ()) -> tuple[dict, list[tuple]]:
    """``(sources, pairs)``: the decoded text files worth mutating and every eligible
    ``(path, language, entity, mutator, features)`` among them, in file order."""
    from gen09_core.entities import list_entities

    skip = set(skip)
    sources, pairs = {}, []
    for rel in files:
        language = registry.language_of(rel)
        if language not in by_language or rel in skip or not wanted(rel, include, exclude):
            continue
        if (pristine / rel).is_symlink():  # its target is mutated as itself (writing a link writes through)
            continue
        try:
            source = decode(rel, (pristine / rel).read_bytes())
        except OSError:
            continue
        if not hasattr(source, "text"):
            continue
        sources[rel] = source
        for entity in list_entities(registry, rel, source.text) or []:
            for mutator in by_language[language]:
                features = mutator.features(rel, source.text, entity)
                if mutator.eligible(features, entity):
                    pairs.append((rel, language, entity, mutator, features))
    return sources, pairs


class _Tally:
    """The counts ``stats[language][modifier][key]`` of one generation, and what it kept."""

    def __init__(self, cap: int):
        self.cap, self.stats, self.kept, self.digests = cap, {}, [], set()

    def count(self, language: str, modifier: str, key: str) -> None:
        counts = self.stats.setdefault(language, {}).setdefault(modifier, dict.fromkeys(COUNTS, 0))
        counts[key] = counts.get(key, 0) + 1

    def full(self) -> bool:
        return len(self.kept) >= self.cap


def _gate(registry, pristine: Path, sources: dict, pending: list[tuple], tally: _Tally) -> None:
    """Send ``pending`` mutants through apply + gate + dedup as one batch; keep the distinct
    survivors (up to the cap) and count every outcome."""
    from gen09_core.pipeline import run_batch, unified_diff

    if not pending:
        return
    batch = CandidateBatch(tuple(Candidate(mid, (Edit(rel, content=new),)) for mid, rel, *_, new in pending))
    report = run_batch(batch, pristine, registry=registry, hard_lint=GATE_LINT)
    for item, outcome in zip(pending, report.outcomes, strict=True):
        mid, rel, language, entity, mutator, features, new = item
        tally.count(language, mutator.name, "generated")
        if outcome.status == "rejected":
            tally.count(language, mutator.name, "gate_" + outcome.rejection.reason)
        elif outcome.status == "duplicate" or outcome.digest in tally.digests:
            tally.count(language, mutator.name, "duplicate")
        else:
            tally.digests.add(outcome.digest)
            if not tally.full():
                text = ("\ufeff" if sources[rel].bom else "") + new
                span = (entity.span.start, entity.span.end)
                tally.kept.append(Mutant(mid, rel, entity.name, entity.kind, span, mutator.name,
                                         features.complexity, text, unified_diff(outcome.applied), language))
    pending.clear()


def generate(registry, pristine, files: Iterable[str], modifiers: Iterable[str] = (),
             include: Iterable[str] = (), exclude: Iterable[str] = (), skip: Iterable[str] = (),
             seed: int = 0, cap: int = 50,
             on_start: Callable[[dict], None] | None = None) -> Generated:
    """Mutants of the files ``files`` (repo-relative) of the folder ``pristine``, which is
    only read; ``skip`` lists files never to mutate (the tests a baseline ran), ``cap`` the
    most mutants to keep. ``on_start`` receives ``{"candidates", "files"}`` once the
    entity × mutator pairs are known, before any mutant is made."""
    pristine = Path(pristine)
    sources, pairs = eligible_pairs(registry, pristine, files, mutators_by_language(registry, modifiers),
                                    include, exclude, skip)
    random.Random(f"{seed}:order").shuffle(pairs)
    if on_start is not None:
        on_start({"candidates": len(pairs), "files": len(sources)})
    tally, seen, pending = _Tally(cap), set(), []
    for rel, language, entity, mutator, features in pairs:
        if tally.full():
            break
        rng = random.Random(f"{seed}:{rel}:{entity.name}:{entity.span.start}:{mutator.name}")
        new = mutator.mutate(rel, sources[rel].text, entity, rng)
        if new is None:
            continue
        mid = f"{mutator.name}__{hashlib.sha256((rel + chr(0) + new).encode()).hexdigest()[:8]}"
        if mid in seen:  # the same text from another entity (a nested definition)
            tally.count(language, mutator.name, "generated")
            tally.count(language, mutator.name, "duplicate")
            continue
        seen.add(mid)
        pending.append((mid, rel, language, entity, mutator, features, new))
        if len(pending) >= CHUNK:
            _gate(registry, pristine, sources, pending, tally)
    _gate(registry, pristine, sources, pending, tally)
    for mutant in tally.kept:
        tally.count(mutant.language, mutant.modifier, "gated")
    return Generated(tuple(tally.kept), len(pairs), len(sources), tally.stats)
