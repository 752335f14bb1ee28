"""Entity location across packs: a qualified name → a span in a file."""

from __future__ import annotations

from pathlib import PurePosixPath

from gen09_core.models import Entity


def list_entities(registry, path: str, text: str) -> list[Entity] | None:
    """The entities a pack finds in ``text``, or None when no pack serves the file."""
    language = registry.language_of(path)
    if language is None:
        return None
    return registry.hook.gen09_entities(language=language, path=path, text=text)


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
