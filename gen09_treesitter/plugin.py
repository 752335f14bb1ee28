"""``TreeSitterPack``: the gen09 hooks for any set of ``LanguageSpec``s.

An instance is a complete plugin: register it under the ``gen09`` entry-point group
(``lua = "gen09_lua:pack"``) and it serves its languages. Grammars load on first use.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from gen09_core import hookimpl
from gen09_core.models import Language
from gen09_treesitter import engine


class TreeSitterPack:
    """Syntax gate, comment-aware normalizer, entity location and (for the built-in
    languages) procedural mutators for ``specs``."""

    def __init__(self, specs, incremental: bool = True):
        """Serve ``specs`` (an iterable of ``LanguageSpec``); ``incremental`` reparses
        candidates from a cached tree of a similar text."""
        self.specs = {spec.name: spec for spec in specs}
        self.grammars = {name: engine.Grammar(spec, incremental) for name, spec in self.specs.items()}
        self.__name__ = f"TreeSitterPack({', '.join(self.specs)})"  # shown by `gen09 plugins`

    def __repr__(self):
        return self.__name__

    @hookimpl
    def gen09_languages(self):
        """One ``Language`` per spec, with its file extensions."""
        return [Language(spec.name, tuple(spec.extensions)) for spec in self.specs.values()]

    @hookimpl
    def gen09_parse(self, language, path, text):
        """ERROR and MISSING nodes as findings (``line N: MISSING missing '}' in block``). A file
        whose extension has a fallback grammar (``.h`` → C++) is judged by the fallback
        when only it parses cleanly."""
        grammar = self.grammars.get(language)
        if grammar is None:
            return None
        data = text.encode("utf-8")
        problems = grammar.parsed(data, path).findings
        other = grammar.spec.fallback.get(PurePosixPath(path).suffix.lower())
        fallback = self.grammars.get(other) if problems else None
        if fallback is not None and not fallback.parse(data, path).root_node.has_error:
            return []
        return problems

    @hookimpl
    def gen09_normalize(self, language, text):
        """The text without the comment nodes the parser found."""
        grammar = self.grammars.get(language)
        return None if grammar is None else engine.strip_comments(grammar, text)

    @hookimpl
    def gen09_entities(self, language, path, text):
        """Functions, methods, classes and other definitions, qualified inside the file."""
        grammar = self.grammars.get(language)
        return None if grammar is None else engine.entities(grammar, text, path)

    @hookimpl
    def gen09_mutators(self, language):
        """The procedural mutators of ``gen09_treesitter.mutators`` for ``language`` (imported
        on first use); None for a language they have no dialect for."""
        grammar = self.grammars.get(language)
        if grammar is None:
            return None
        from gen09_treesitter.mutators import for_grammar

        return for_grammar(grammar)
