"""Stage (e), the syntax/lint gate: parse, then hard-lint, per language pack.

A finding rejects only when the candidate introduces it: the same checks run on the
original file, and findings already there (compared by code and message, since lines
move) do not count; a file whose pack shows it has the original's findings
(``gen09_lint_unchanged``) is not linted. All candidate files of one language are linted
in one batch.
"""

from __future__ import annotations

from collections import Counter

from attrs import frozen

from gen09_core.models import Applied, ChangedFile, Finding, Rejection

DEFAULT_HARD_LINT = ("F821", "F401")


@frozen
class GateResult:
    """The gate's word on one applied candidate; ``ungated`` lists files no pack serves."""

    rejection: Rejection | None
    ungated: tuple[str, ...]


def gate(registry, applied: list[Applied], hard_lint=DEFAULT_HARD_LINT) -> list[GateResult]:
    """Gate every applied candidate; results align with ``applied``."""
    rejections: list[Rejection | None] = [None] * len(applied)
    ungated = [tuple(f.path for f in a.files if not f.deleted and not registry.language_of(f.path))
               for a in applied]
    originals: dict[str, list[Finding]] = {}
    for i, candidate in enumerate(applied):
        for changed in candidate.files:
            if changed.deleted:
                continue
            rejection = _syntax(registry, changed, originals)
            if rejection:
                rejections[i] = rejection
                break
    if hard_lint:
        _lint(registry, applied, rejections, tuple(hard_lint))
    return [GateResult(r, u) for r, u in zip(rejections, ungated, strict=True)]


def _syntax(registry, changed: ChangedFile, originals: dict) -> Rejection | None:
    language = registry.language_of(changed.path)
    if language is None:
        return None
    problems = registry.parse(language, changed.path, changed.new_text, changed.original and changed.old_text)
    if not problems:
        return None
    if changed.original is not None and changed.path not in originals:
        originals[changed.path] = registry.parse(language, changed.path, changed.old_text, None) or []
    introduced = _introduced(problems, originals.get(changed.path, []))
    if not introduced:
        return None
    return Rejection("gate", "parse_error",
                     f"{changed.path}: " + "; ".join(f.describe() for f in introduced))


def _lint(registry, applied, rejections, select) -> None:
    by_language: dict[str, list[tuple[int, ChangedFile]]] = {}
    for i, candidate in enumerate(applied):
        if rejections[i] is None:
            for changed in candidate.files:
                language = registry.language_of(changed.path)
                if language and not changed.deleted and not (
                        changed.original is not None and registry.lint_unchanged(
                            language, changed.path, changed.new_text, changed.old_text, select)):
                    by_language.setdefault(language, []).append((i, changed))
    for language, items in by_language.items():
        originals = {c.path: c.old_text for _, c in items if c.original is not None}
        sources = list(originals.items()) + [(c.path, c.new_text) for _, c in items]
        results = registry.lint(language, sources, select)
        if results is None:
            continue
        before = dict(zip(originals, results, strict=False))
        for (i, changed), findings in zip(items, results[len(originals):], strict=True):
            introduced = _introduced(findings, before.get(changed.path, []))
            if introduced and rejections[i] is None:
                rejections[i] = Rejection("gate", "lint_error", f"{changed.path}: " + "; ".join(
                    f.describe() for f in introduced))


def _introduced(findings: list[Finding], baseline: list[Finding]) -> list[Finding]:
    """Findings beyond those the baseline already had, matched by (code, message)."""
    budget = Counter((f.code, f.message) for f in baseline)
    introduced = []
    for finding in findings:
        key = (finding.code, finding.message)
        if budget[key]:
            budget[key] -= 1
        else:
            introduced.append(finding)
    return introduced
