"""Procedural mutators for Python: small libcst transformers that plant a bug in one entity.

Each mutator is a frozen :class:`~gen09_python.mutators.base.Mutator` (a
:class:`gen09_core.models.Modifier`, as every pack's mutators are) with a ``name``, a
one-line ``description``, the ``conditions`` an entity must meet (``loop``, ``if_else``, ...),
a ``min_complexity`` and a ``likelihood`` (the chance that each eligible site inside the
entity is rewritten; at least one always is). The set mirrors SWE-smith's Python procedural
modifiers; the code is gen09's own.

The core reaches them through the ``gen09_mutators(language)`` hook of the Python pack and
calls only the protocol below, so another language pack can offer its own::

    mutator.features(path, text, entity) -> Features | None
    mutator.eligible(features, entity) -> bool
    mutator.mutate(path, text, entity, rng) -> str | None   # the whole new file text
"""

from __future__ import annotations

from gen09_python.mutators.base import Features, Mutator, entity_features
from gen09_python.mutators.classes import REMOVE_BASES, REMOVE_FUNCS, SHUFFLE_METHODS
from gen09_python.mutators.control import INVERT_IF, SHUFFLE_LINES
from gen09_python.mutators.operations import (
    BREAK_CHAINS,
    CHANGE_CONSTANTS,
    CHANGE_OPERATOR,
    FLIP_BOOLEAN,
    FLIP_COMPARISON,
    SWAP_OPERANDS,
)
from gen09_python.mutators.remove import REMOVE_ASSIGN, REMOVE_CONDITIONAL, REMOVE_LOOP, REMOVE_WRAPPER

MUTATORS: tuple[Mutator, ...] = (
    INVERT_IF,
    SHUFFLE_LINES,
    REMOVE_ASSIGN,
    REMOVE_CONDITIONAL,
    REMOVE_LOOP,
    REMOVE_WRAPPER,
    BREAK_CHAINS,
    CHANGE_CONSTANTS,
    CHANGE_OPERATOR,
    SWAP_OPERANDS,
    FLIP_COMPARISON,
    FLIP_BOOLEAN,
    REMOVE_BASES,
    REMOVE_FUNCS,
    SHUFFLE_METHODS,
)


def by_name(name: str) -> Mutator:
    """The built-in mutator called ``name``; KeyError when there is none."""
    for mutator in MUTATORS:
        if mutator.name == name:
            return mutator
    raise KeyError(name)


__all__ = ["MUTATORS", "Features", "Mutator", "by_name", "entity_features"]
