"""Entity location across packs: a qualified name → a span in a file."""

from __future__ import annotations

from pathlib import PurePosixPath

from gen09_core.models import Entity


def module_name(path: str) -> str:
    """The dotted module of a repository file: ``shop/pricing.py`` → ``shop.pricing``,
    ``pkg/__init__.py`` → ``pkg``, ``src/pkg/mod.py`` → ``pkg.mod`` (a leading ``src`` is a
    layout folder, not a package)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    if parts and parts[0] == "src":
        parts.pop(0)
    return ".".join(parts) or path


def list_entities(registry, path: str, text: str) -> list[Entity] | None:
    """The entities a pack finds in ``text``, or None when no pack serves the file."""
    language = registry.language_of(path)
    if language is None:
        return None
    return registry.entities(language, path, text)


def match_entity(entities: list[Entity], name: str, path: str) -> Entity | None:
    """The entity named ``name``: an exact in-file name, else a module-qualified one whose
    prefix names the file or its folder (``calc.ops.Calc.add`` finds ``Calc.add`` in
    ``calc/ops.py``; ``server.Handle`` finds ``Handle`` in ``server/http.go``)."""
    module = PurePosixPath(path).with_suffix("")
    owners = {".".join(module.parts), ".".join(module.parent.parts)}
    for entity in entities:
        if entity.name == name:
            return entity
    for entity in entities:
        prefix = name[: -len(entity.name) - 1]
        if name.endswith("." + entity.name) and any(
            o == prefix or o.endswith("." + prefix) for o in owners
        ):
            return entity
    return None
