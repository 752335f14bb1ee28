"""The hooks a gen09 plugin may implement.

A plugin is a module (or object) registered under the ``gen09`` entry-point group whose
functions carry ``@gen09_core.hookimpl`` and are named after the specs below. Unknown hook
names are rejected at load time. Language hooks receive the ``language`` name and must
return None for languages the plugin does not serve; the core guarantees that one language
is served by exactly one pack, so the first non-None answer is the only one.

The core never calls these hooks directly: ``gen09_core.plugins.Registry`` has one typed
method per hook, and every stage goes through it. The objects the last four hooks return
are described by the protocols in ``gen09_core.interfaces``.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("gen09")


@hookspec
def gen09_languages():
    """The languages this pack serves.

    :returns: ``list[models.Language]`` (name and file extensions).

    Every plugin may answer; answers are collected. A language name or file extension
    claimed by two plugins is a load-time error naming both.
    """


@hookspec(firstresult=True)
def gen09_select_representation(target, change_files):
    """Stage (b): choose the edit representation for a target.

    :param target: ``models.Target | None`` — the localized file, span and entity.
    :param change_files: ``tuple[str, ...]`` — the sorted files the change touches.
    :returns: ``models.Representation`` (classification, format, reason).

    Stops at the first non-None result; the core's default (``gen09_core.represent``)
    runs last.
    """


@hookspec(firstresult=True)
def gen09_apply_edits(source, edits, span, tolerant):
    """Stage (d): apply one candidate's edits to one file.

    :param source: ``models.SourceFile`` — the file's snapshot.
    :param edits: ``tuple[models.Edit, ...]`` — the candidate's edits of that file (text
        edits only: file operations never reach it; an edit with its own ``span`` — a
        unified-diff or apply_patch hunk pinned to its lines — must match inside that span).
    :param span: ``models.Span | None`` — where search blocks must match, if anywhere.
    :param tolerant: ``bool`` — whether the opt-in tolerant matching tier is enabled.
    :returns: ``models.Patched`` (new text and each edit's match tier) or
        ``models.Rejection``.

    Stops at the first non-None result; the core's default (unique match,
    ``gen09_core.apply``) runs last.
    """


@hookspec(firstresult=True)
def gen09_parse(language, path, text, original):
    """Stage (e) syntax check: parse ``text`` of file ``path``.

    :param language: ``str`` — the language name.
    :param path: ``str`` — the repository-relative path.
    :param text: ``str`` — the text to check.
    :param original: ``str | None`` — the pre-edit text (None for a new file, or when the
        original itself is being checked), for packs that check only what changed.
    :returns: ``list[models.Finding]`` (empty when it parses), or None when ``language``
        is not this pack's.

    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def gen09_lint(language, sources, select):
    """Stage (e) hard lint: lint many files in one batch.

    :param language: ``str`` — the language name.
    :param sources: ``list[tuple[str, str]]`` — ``(path, text)`` pairs.
    :param select: ``tuple[str, ...]`` — the rule codes to report.
    :returns: ``list[list[models.Finding]]`` — one list per source, in order — or None
        when ``language`` is not this pack's (or it has no linter).

    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def gen09_lint_unchanged(language, path, text, original, select):
    """Stage (e) hard lint, a shortcut: whether linting ``text`` provably reports the same
    findings (by code and message) as linting its ``original``, so the edit cannot introduce
    one and the gate need not lint it.

    :param language: ``str`` — the language name.
    :param path: ``str`` — the repository-relative path.
    :param text: ``str`` — the candidate's text (it passed the syntax check).
    :param original: ``str`` — the pre-edit text.
    :param select: ``tuple[str, ...]`` — the rule codes to report.
    :returns: ``True`` when shown; ``False`` (then both are linted), or None when
        ``language`` is not this pack's.

    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def gen09_normalize(language, text, original):
    """Stage (f): the comparison form of ``text`` with comments removed by the language's
    own rules (a comment marker inside a string is not a comment).

    :param language: ``str`` — the language name.
    :param text: ``str`` — the candidate's text of one file.
    :param original: ``str | None`` — the pre-edit text, for packs that normalize only what
        changed; the result must equal normalizing ``text`` alone.
    :returns: ``str``, or None when ``language`` is not this pack's.

    Stops at the first non-None result; the core then collapses whitespace.
    """


@hookspec(firstresult=True)
def gen09_entities(language, path, text):
    """Entity location: the entities (functions, methods, classes) defined in a file.

    :param language: ``str`` — the language name.
    :param path: ``str`` — the repository-relative path.
    :param text: ``str`` — the file's text.
    :returns: ``list[models.Entity]`` whose ``name`` is qualified inside the file
        (``Class.method``), or None when ``language`` is not this pack's.

    Stops at the first non-None result.
    """


@hookspec
def gen09_mutators(language):
    """The procedural mutators this plugin offers for ``language``.

    :param language: ``str`` — the language name.
    :returns: ``list[interfaces.Mutator]`` (empty, or None, when it offers none).

    Every plugin may answer; answers are concatenated.
    """


@hookspec
def gen09_generator():
    """The candidate generator of stage (c), the only place a model is called.

    :returns: ``interfaces.Generator`` — ``name`` and ``complete(body, endpoint) -> dict``.

    Exactly one plugin implementing this hook is active per run: the core enforces it at
    load time and names the plugins involved; ``GEN09_GENERATOR`` chooses among several.
    Only the active plugin's implementation is called; its other hooks keep working.
    """


@hookspec
def gen09_recipes():
    """The ``repo_mutate`` recipes this plugin offers.

    :returns: ``list[interfaces.Recipe]``.

    Every plugin may answer; answers are collected. A recipe name offered twice is an error
    naming both plugins.
    """


@hookspec
def gen09_repo_profiles():
    """Repository profiles: how to install a repository and run its tests.

    :returns: ``list[interfaces.Profile]`` (the built-in shape is
        ``gen09_core.mutate.profiles.Profile``).

    Every plugin may answer; answers are collected; a profile named in the run's
    configuration file overrides a plugin's profile of the same name.
    """
