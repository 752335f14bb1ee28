"""Procedural mutators for the tree-sitter languages: byte-exact edits of one entity's node.

Each mutator is a frozen :class:`~gen09_treesitter.mutators.base.TreeMutator` described as
the Python ones are (both are :class:`gen09_core.models.Modifier`): a ``name``, a one-line
``description``, the ``conditions`` an entity must meet (properties listed in
``gen09_treesitter.mutators.features``), a ``min_complexity`` and a ``likelihood``;
``languages`` says which languages it serves. They are written once against the roles of a
``syntax.Dialect`` (an ``if``, a loop, a statement list, ...), so a language gets every
mutator whose constructs it has by having a dialect. Module by family: ``control``,
``remove``, ``operations``, ``literals``, ``ruby``, ``go``; ``safety`` keeps removals
compiling; ``features`` measures entities; ``base`` is the site machinery.

The tree-sitter pack offers them through ``gen09_mutators(language)``, one copy bound to the
language's grammar each. Test and vendored code is never mutated
(``gen09_treesitter.conventions``). The set follows SWE-smith's tree-sitter modifiers
(JavaScript, Java, Go, Rust, C++, Ruby) and extends them to every language here, C
included; the code is gen09's own.
"""

from __future__ import annotations

import functools

from gen09_treesitter.mutators.base import Features, TreeMutator
from gen09_treesitter.mutators.control import (
    BREAK_CONTINUE,
    INVERT_IF,
    LOOP_OFF_BY_ONE,
    SHUFFLE_LINES,
    TERNARY_SWAP,
)
from gen09_treesitter.mutators.go import FLIP_ERR_CHECK, REMOVE_ERR_GUARD
from gen09_treesitter.mutators.literals import NEGATE_BOOLEAN, RETURN_NULL, STRING_TYPO
from gen09_treesitter.mutators.operations import (
    BREAK_CHAINS,
    CHANGE_AUGMENTED_OPERATOR,
    CHANGE_CONSTANTS,
    CHANGE_OPERATOR,
    FLIP_BOOLEAN,
    FLIP_COMPARISON,
    SWAP_ARGUMENTS,
    SWAP_OPERANDS,
)
from gen09_treesitter.mutators.remove import (
    REMOVE_ASSIGN,
    REMOVE_CONDITIONAL,
    REMOVE_LOOP,
    REMOVE_NULL_CHECK,
    REMOVE_TERNARY,
    REMOVE_TRY_CATCH,
)
from gen09_treesitter.mutators.ruby import (
    REMOVE_NIL_GUARD,
    REMOVE_OR_ASSIGN,
    REMOVE_OR_DEFAULT,
    REMOVE_SAFE_NAVIGATION,
    STRIP_BANG,
)
from gen09_treesitter.mutators.syntax import DIALECTS

MUTATORS: tuple[TreeMutator, ...] = (
    INVERT_IF, SHUFFLE_LINES, TERNARY_SWAP, BREAK_CONTINUE, LOOP_OFF_BY_ONE,
    REMOVE_ASSIGN, REMOVE_CONDITIONAL, REMOVE_LOOP, REMOVE_TERNARY, REMOVE_TRY_CATCH, REMOVE_NULL_CHECK,
    BREAK_CHAINS, CHANGE_CONSTANTS, CHANGE_OPERATOR, CHANGE_AUGMENTED_OPERATOR, SWAP_OPERANDS,
    FLIP_COMPARISON, FLIP_BOOLEAN, SWAP_ARGUMENTS,
    STRING_TYPO, NEGATE_BOOLEAN, RETURN_NULL,
    REMOVE_SAFE_NAVIGATION, REMOVE_OR_DEFAULT, REMOVE_OR_ASSIGN, STRIP_BANG, REMOVE_NIL_GUARD,
    REMOVE_ERR_GUARD, FLIP_ERR_CHECK,
)


def by_name(name: str) -> TreeMutator:
    """The (unbound) mutator called ``name``; KeyError when there is none."""
    for mutator in MUTATORS:
        if mutator.name == name:
            return mutator
    raise KeyError(name)


@functools.cache
def for_grammar(grammar) -> list[TreeMutator] | None:
    """The mutators serving ``grammar``'s language, bound to it; None for a language
    without a dialect (a third-party pack's)."""
    language = grammar.spec.name
    if language not in DIALECTS:
        return None
    return [m.bind(language, grammar) for m in MUTATORS if language in m.languages]


__all__ = ["MUTATORS", "Features", "TreeMutator", "by_name", "for_grammar"]
