"""The hooks a gen09 plugin may implement.

A plugin is a module (or object) registered under the ``gen09`` entry-point group whose
functions carry ``@gen09_core.hookimpl`` and are named after the specs below. Unknown hook
names are rejected at load time. Language hooks receive the ``language`` name and must
return None for languages the plugin does not serve; the core guarantees that one language
is served by exactly one pack, so the first non-None answer is the only one.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("gen09")


@hookspec
def gen09_languages():
    """Return the languages this pack serves, as a list of ``models.Language``.

    Every plugin may answer; answers are collected. A language name or file extension
    claimed by two plugins is a load-time error naming both.
    """


@hookspec(firstresult=True)
def gen09_select_representation(target, change_files):
    """Stage (b): choose the edit representation for a target.

    Receives the ``models.Target`` (or None) and the sorted tuple of files the change
    touches. Returns a ``models.Representation``. Stops at the first non-None result; the
    core's default implements Spec 09 §3.2 and runs last.
    """


@hookspec(firstresult=True)
def gen09_apply_edits(source, edits, span, tolerant):
    """Stage (d): apply one candidate's edits to one file.

    Receives the ``models.SourceFile`` snapshot, the tuple of ``models.Edit`` for that
    file, the ``models.Span`` the search blocks must match inside (or None), and whether
    the opt-in tolerant matching tier is enabled. Returns a ``models.Patched`` (new text +
    the tier each edit matched with) or a ``models.Rejection``. Stops at the first non-None
    result; the core's default (unique match) runs last.
    """


@hookspec(firstresult=True)
def gen09_parse(language, path, text, original):
    """Stage (e) syntax check: parse ``text`` of file ``path``.

    ``original`` is the file's pre-edit text (None for a new file, or when the original
    itself is being checked), for packs that check only what changed. Returns a list of
    ``models.Finding`` (empty when it parses), or None when ``language`` is not this pack's.
    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def gen09_lint(language, sources, select):
    """Stage (e) hard lint: lint many files in one batch.

    Receives a list of ``(path, text)`` pairs and the tuple of rule codes to report.
    Returns one list of ``models.Finding`` per source, in order, or None when ``language``
    is not this pack's (or it has no linter). Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def gen09_normalize(language, text, original):
    """Stage (f): the comparison form of ``text`` with comments removed by the language's
    own rules (a comment marker inside a string is not a comment).

    ``original`` is the pre-edit text (or None), for packs that normalize only what changed;
    the result must equal normalizing ``text`` alone. Returns a str, or None when
    ``language`` is not this pack's. Stops at the first non-None result; the core then
    applies Spec 09 §3.6's whitespace rules.
    """


@hookspec(firstresult=True)
def gen09_entities(language, path, text):
    """Entity location: list the entities (functions, methods, classes) defined in a file.

    Returns a list of ``models.Entity`` whose ``name`` is qualified inside the file
    (``Class.method``), or None when ``language`` is not this pack's. Stops at the first
    non-None result.
    """


@hookspec
def gen09_mutators(language):
    """Return the procedural mutators this plugin offers for ``language`` (a list).

    Every plugin may answer; answers are concatenated.
    """


@hookspec
def gen09_generator():
    """Return the candidate generator (stage (c), the only place a model is called).

    The generator is an object with ``name`` and ``complete(body, endpoint) -> dict``: one
    OpenAI chat-completions request body in, the response body out, raising
    ``gen09_core.llm.TransportError`` on failure (see ``gen09_core.llm.Generator``).
    Exactly one plugin implementing this hook may be active per run; the core enforces
    it at load time and names the plugins involved.
    """


@hookspec
def gen09_recipes():
    """Return the ``repo_mutate`` recipes this plugin offers (a list of recipe objects with
    ``name``, ``version``, ``options`` (an attrs class) and ``run(context)``).

    Every plugin may answer; answers are collected. A recipe name offered twice is an error
    naming both plugins.
    """


@hookspec
def gen09_repo_profiles():
    """Return repository profiles (a list of ``gen09_core.mutate.profiles.Profile``): how to
    install a repository, run its tests and read per-test outcomes.

    Every plugin may answer; answers are collected; a profile named in the run's
    configuration file overrides a plugin's profile of the same name.
    """
