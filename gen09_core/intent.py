"""Stage (a), intent-package assembly: deterministic collection, never a model.

The input is the upstream-inputs file::

    {"version": 1,
     "localization": {"file", "span", "entity", "fault"},        # component 05
     "impact": {"obligations": [str], "dependencies": [dep]},      # component 06
     "plan": {"requirement", "acceptance_criteria": [str], "validation": [str]},  # 07
     "window": {"dependencies": [dep]}}                             # component 08

where ``dep`` is ``{"name", "signature"}`` (or a bare name in ``impact``). Every part is
optional; a missing part stays absent. The output is an ``IntentPackage``:

- ``target`` ← localization (file, span, entity — the span verbatim, checked against the file
  and, when the entity's language pack can locate entities, against the entity), plus
  ``target.code``: the span's exact text read from the file (the model needs it to write exact search blocks);
- ``requirement`` ← ``plan.requirement`` verbatim, then, when present, the tagged
  ``Acceptance criteria:`` list from ``plan.acceptance_criteria`` (≤ 1,024 chars);
- ``dependencies`` ← ``window.dependencies`` then the ``impact.dependencies`` not already
  named (a signature from the window wins); ≤ 16 entries, signature ≤ 512 chars;
- ``constraints`` ← ``impact.obligations`` (≤ 16, each ≤ 512 chars);
- ``validation`` ← ``plan.validation`` (≤ 16 ids, each ≤ 256 chars).

Caps: an over-long entry is truncated to its cap and flagged. The 17th and later entries of a
list cannot be kept without breaking the count cap, so they are left out of the package sent to
the model but never dropped silently: each one is flagged with its index and its full text in
``flags`` (the audit trail of what was cut or left out). ``provenance`` names the upstream
source of every field and entry; ``unmapped`` keeps upstream facts the package has no field for (``fault``).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from attrs import frozen

from gen09_core.errors import BadInput
from gen09_core.jsoninput import read_json, validate
from gen09_core.models import Span, Target

REQUIREMENT_CAP = 1024
MAX_DEPENDENCIES = 16
SIGNATURE_CAP = 512
MAX_CONSTRAINTS = 16
CONSTRAINT_CAP = 512
MAX_VALIDATION = 16
VALIDATION_CAP = 256
MAX_INPUT_BYTES = 4 * 1024 * 1024

_STR = {"type": "string"}
_STRS = {"type": "array", "items": _STR}
_DEP = {"type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"name": {"type": "string", "minLength": 1}, "signature": _STR}}
UPSTREAM_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "gen09 upstream inputs of stage (a)",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "version": {"const": 1},
        "localization": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "span": {"type": "array", "items": {"type": "integer", "minimum": 1},
                         "minItems": 2, "maxItems": 2},
                "entity": {"type": "string", "minLength": 1},
                "fault": _STR,
            },
        },
        "impact": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "obligations": _STRS,
                "dependencies": {"type": "array",
                                 "items": {"anyOf": [{"type": "string", "minLength": 1}, _DEP]}},
            },
        },
        "plan": {
            "type": "object", "additionalProperties": False,
            "properties": {"requirement": _STR, "acceptance_criteria": _STRS, "validation": _STRS},
        },
        "window": {
            "type": "object", "additionalProperties": False,
            "properties": {"dependencies": {"type": "array", "items": _DEP}},
        },
    },
}


@frozen
class Dependency:
    """A dependency of the change: its name and signature (never a body)."""

    name: str
    signature: str | None = None


@frozen
class CapFlag:
    """An entry that exceeded a cap of the package. ``action`` is ``truncated`` (kept, cut to ``cap``
    chars) or ``excluded`` (past the count cap: not sent to the model; ``text`` keeps it)."""

    field: str
    index: int | None
    action: str
    length: int
    cap: int
    text: str | None = None


@frozen
class IntentPackage:
    """The typed intent package plus its audit trail. A field is None when
    no upstream component produced it; nothing is invented."""

    target: Target | None = None
    code: str | None = None
    requirement: str | None = None
    dependencies: tuple[Dependency, ...] | None = None
    constraints: tuple[str, ...] | None = None
    validation: tuple[str, ...] | None = None
    provenance: tuple[tuple[str, str], ...] = ()
    flags: tuple[CapFlag, ...] = ()
    unmapped: tuple[tuple[str, str], ...] = ()

    def prompt_json(self) -> dict:
        """The package exactly as the generator sees it, absent fields omitted."""
        out: dict = {}
        if self.target is not None:
            target = {}
            if self.target.entity is not None:
                target["entity"] = self.target.entity
            if self.target.file is not None:
                target["file"] = self.target.file
            if self.target.span is not None:
                target["span"] = self.target.span.as_list()
            if self.code is not None:
                target["code"] = self.code
            out["target"] = target
        if self.requirement is not None:
            out["requirement"] = self.requirement
        if self.dependencies is not None:
            out["dependencies"] = [
                {"name": d.name, **({"signature": d.signature} if d.signature is not None else {})}
                for d in self.dependencies
            ]
        if self.constraints is not None:
            out["constraints"] = list(self.constraints)
        if self.validation is not None:
            out["validation"] = list(self.validation)
        return out

    def as_json(self) -> dict:
        """The package with its audit trail (``gen09 intent`` prints this)."""
        return {
            "version": 1,
            "package": self.prompt_json(),
            "provenance": dict(self.provenance),
            "flags": [{k: v for k, v in (("field", f.field), ("index", f.index), ("action", f.action),
                                         ("length", f.length), ("cap", f.cap), ("text", f.text))
                       if v is not None} for f in self.flags],
            "unmapped": dict(self.unmapped),
        }


def load_upstream(source: str) -> dict:
    """Read and validate an upstream-inputs file; any problem is ``BadInput``."""
    data = read_json(source, MAX_INPUT_BYTES)
    validate_upstream(data, source)
    return data


def validate_upstream(data, source: str = "upstream") -> None:
    """Check ``data`` against ``UPSTREAM_SCHEMA`` (unknown keys are rejected)."""
    validate(UPSTREAM_SCHEMA, data, source)


def assemble(upstream: dict, repo, registry=None, source: str = "upstream") -> IntentPackage:
    """Build the intent package from parsed upstream inputs, checking the target against the
    repository at ``repo`` (read only). Deterministic; no model is consulted."""
    validate_upstream(upstream, source)
    provenance: list[tuple[str, str]] = []
    flags: list[CapFlag] = []
    unmapped: list[tuple[str, str]] = []
    target, code = _target(upstream.get("localization"), repo, registry, provenance, unmapped, source)
    plan = upstream.get("plan") or {}
    requirement = _requirement(plan, provenance, flags)
    dependencies = _dependencies(upstream.get("window") or {}, upstream.get("impact") or {},
                                 provenance, flags)
    impact = upstream.get("impact") or {}
    constraints = _strings(impact.get("obligations"), "constraints", "impact.obligations",
                           MAX_CONSTRAINTS, CONSTRAINT_CAP, provenance, flags)
    validation = _strings(plan.get("validation"), "validation", "plan.validation",
                          MAX_VALIDATION, VALIDATION_CAP, provenance, flags)
    return IntentPackage(target, code, requirement, dependencies, constraints, validation,
                         tuple(provenance), tuple(flags), tuple(unmapped))


def _target(loc, repo, registry, provenance, unmapped, source):
    if loc is None:
        return None, None
    if loc.get("fault") is not None:
        unmapped.append(("localization.fault", loc["fault"]))
    if not ({"file", "span", "entity"} & loc.keys()):
        return None, None
    span = _span(loc, source)
    file = str(PurePosixPath(loc["file"])) if "file" in loc else None
    target = Target(file, span, loc.get("entity"))
    for name in ("file", "span", "entity"):
        if name in loc:
            provenance.append((f"target.{name}", f"localization.{name}"))
    code = None
    if file is not None:
        code = _check_target(target, repo, registry)
        if code is not None:
            provenance.append(("target.code", f"{file} lines {span.start}-{span.end} (read from the repo)"))
    return target, code


def _span(loc: dict, source) -> Span | None:
    """The localization's span, which needs a file and must not end before it starts."""
    if "span" not in loc:
        return None
    if "file" not in loc:
        raise BadInput(f"{source}: $.localization.span needs $.localization.file")
    start, end = loc["span"]
    if start > end:
        raise BadInput(f"{source}: $.localization.span [{start}, {end}] ends before it starts")
    return Span(start, end)


def _check_target(target: Target, repo, registry) -> str | None:
    """Raise ``BadInput`` unless the file exists as text, the span fits in it and lies inside
    the named entity; return the span's exact text."""
    from gen09_core.plugins import default_registry
    from gen09_core.repo import Snapshot
    from gen09_core.targets import check_target
    from gen09_core.text import line_offsets

    repo = Path(repo)
    if not repo.is_dir():
        raise BadInput(f"{repo}: repository folder does not exist")
    snapshot = Snapshot(repo)
    check_target(registry or default_registry(), snapshot, target)
    if target.span is None:
        return None
    text = snapshot.read(target.file).text
    offsets = line_offsets(text)
    return text[offsets[target.span.start - 1]:offsets[target.span.end]]


def _requirement(plan, provenance, flags) -> str | None:
    if "requirement" not in plan:
        return None
    text, origin = plan["requirement"], "plan.requirement"
    criteria = plan.get("acceptance_criteria")
    if criteria:
        text = text + "\n\nAcceptance criteria:\n" + "\n".join(f"- {c}" for c in criteria)
        origin += " + plan.acceptance_criteria (tagged)"
    provenance.append(("requirement", origin))
    return _cap(text, "requirement", None, REQUIREMENT_CAP, flags)


def _dependencies(window, impact, provenance, flags):
    if "dependencies" not in window and "dependencies" not in impact:
        return None
    merged: list[tuple[Dependency, str]] = []
    index_of: dict[str, int] = {}
    for k, dep in enumerate(window.get("dependencies") or []):
        if dep["name"] in index_of:
            continue
        index_of[dep["name"]] = len(merged)
        merged.append((Dependency(dep["name"], dep.get("signature")), f"window.dependencies[{k}]"))
    for k, dep in enumerate(impact.get("dependencies") or []):
        dep = {"name": dep} if isinstance(dep, str) else dep
        where = f"impact.dependencies[{k}]"
        if dep["name"] in index_of:
            at = index_of[dep["name"]]
            old, origin = merged[at]
            if old.signature is None and dep.get("signature") is not None:
                merged[at] = (Dependency(old.name, dep["signature"]), f"{origin} + {where} (signature)")
            else:
                merged[at] = (old, f"{origin} + {where}")
            continue
        index_of[dep["name"]] = len(merged)
        merged.append((Dependency(dep["name"], dep.get("signature")), where))
    kept = []
    for k, (dep, origin) in enumerate(merged):
        if k >= MAX_DEPENDENCIES:
            text = dep.name if dep.signature is None else f"{dep.name}: {dep.signature}"
            flags.append(CapFlag("dependencies", k, "excluded", len(merged), MAX_DEPENDENCIES, text))
            continue
        provenance.append((f"dependencies[{k}]", origin))
        signature = dep.signature
        if signature is not None:
            signature = _cap(signature, "dependencies.signature", k, SIGNATURE_CAP, flags)
        kept.append(Dependency(dep.name, signature))
    return tuple(kept)


def _strings(values, field, origin, max_count, cap, provenance, flags):
    if values is None:
        return None
    kept = []
    for k, value in enumerate(values):
        if k >= max_count:
            flags.append(CapFlag(field, k, "excluded", len(values), max_count, value))
            continue
        provenance.append((f"{field}[{k}]", f"{origin}[{k}]"))
        kept.append(_cap(value, field, k, cap, flags))
    return tuple(kept)


def _cap(text: str, field: str, index, cap: int, flags) -> str:
    if len(text) <= cap:
        return text
    flags.append(CapFlag(field, index, "truncated", len(text), cap))
    return text[:cap]
