"""Frozen data that flows forward through the stages: input candidates to the final report."""

from __future__ import annotations

from attrs import field, frozen

from gen09_core.text import encode


@frozen
class Span:
    """An inclusive, 1-based line range ``[start, end]``. JSON's ``5.0`` is the integer 5
    (as JSON Schema has it)."""

    start: int = field(converter=int)
    end: int = field(converter=int)

    def __attrs_post_init__(self):
        if not 1 <= self.start <= self.end:
            raise ValueError(f"span [{self.start}, {self.end}] must satisfy 1 <= start <= end")

    @property
    def lines(self) -> int:
        """Number of lines the span covers."""
        return self.end - self.start + 1

    def as_list(self) -> list[int]:
        """The JSON form ``[start, end]``."""
        return [self.start, self.end]


@frozen
class Target:
    """Where the change is meant to happen (component 05's localization)."""

    file: str | None = None
    span: Span | None = None
    entity: str | None = None


@frozen
class Locate:
    """How a line-based format (unified diff, apply_patch, editor insert) pins its edit;
    ``gen09_core.locate`` turns it into an exact search/replace inside a ``span``.
    ``anchors``: lines that must each occur once, in order, before the match (V4A ``@@``);
    ``at_end``: the match must end the file; ``after_line``: insert ``replace`` after this
    line (0 = top); ``loose_eol``: lines carry no terminator of their own (V4A), so the
    file's final-newline state is kept."""

    anchors: tuple[str, ...] = ()
    at_end: bool = False
    after_line: int | None = None
    loose_eol: bool = False


@frozen
class Edit:
    """One edit to one file: a search/replace pair (matched once, inside ``span`` when
    given), the whole new file in ``content`` (``create``: refused when the file exists),
    a deletion (``delete``; ``search``, when given, is the content it must have) or a
    rename (``move_to``, after the candidate's other edits of the file). ``locate``
    marks a line-based edit still to be pinned to its lines."""

    file: str
    search: str | None = None
    replace: str | None = None
    content: str | None = None
    span: Span | None = None
    locate: Locate | None = None
    create: bool = False
    delete: bool = False
    move_to: str | None = None

    @property
    def whole_file(self) -> bool:
        """True when this edit replaces the complete file."""
        return self.content is not None


@frozen
class Candidate:
    """One candidate change: an ordered list of edits, possibly over several files.
    ``malformed`` is the rejection of a candidate whose patch text could not be parsed."""

    id: str
    edits: tuple[Edit, ...]
    malformed: Rejection | None = None


@frozen
class CandidateBatch:
    """The input of ``gen09 apply``: candidates over one target, in one optional format."""

    candidates: tuple[Candidate, ...]
    format: str | None = None
    target: Target | None = None


@frozen
class Representation:
    """Stage (b)'s decision: the scope classification, the chosen format and why."""

    classification: str  # "localized-edit" | "structural-rewrite"
    format: str  # "search_replace" | "whole_file"
    reason: str


@frozen
class Language:
    """A language a pack serves: its name and the file extensions that select it."""

    name: str
    extensions: tuple[str, ...]


@frozen
class Entity:
    """A named definition in a file: ``name`` is qualified inside the file (``Class.method``)."""

    name: str
    kind: str  # "function" | "method" | "class" | ...
    span: Span


@frozen
class Features:
    """What an entity contains, as procedural mutators see it: a cyclomatic-style
    ``complexity`` and the names of its properties (``loop``, ``if_else``, ...)."""

    complexity: int
    properties: frozenset[str]


@frozen(kw_only=True)
class Modifier:
    """What every procedural mutator declares, in any language pack: its ``name``, a one-line
    ``description``, the ``conditions`` (feature properties) and ``min_complexity`` an entity
    must meet, the entity ``kinds`` it acts on, and the ``likelihood`` that each eligible site
    is rewritten (at least one always is). Packs subclass it with the code that mutates."""

    name: str
    description: str
    conditions: tuple[str, ...]
    min_complexity: int
    likelihood: float
    kinds: tuple[str, ...] = ("function", "method")

    def eligible(self, features: Features | None, entity: Entity) -> bool:
        """True when the entity's kind, properties and complexity meet this mutator's needs."""
        return (features is not None and entity.kind in self.kinds
                and set(self.conditions) <= features.properties
                and features.complexity >= self.min_complexity)


@frozen
class SourceFile:
    """A repository file decoded for editing; ``encode`` restores its exact bytes."""

    path: str
    text: str
    bom: bool = False

    def encode(self, text: str | None = None) -> bytes:
        """Bytes of ``text`` (default: the original) with this file's encoding and BOM."""
        return encode(self.text if text is None else text, self.bom)


@frozen
class ChangedFile:
    """One file as a candidate leaves it; ``original`` is None for a newly created file.
    A ``deleted`` file has no new text; a renamed file is its source's deletion plus this
    file at the new path, with ``moved_from`` naming the source and ``original`` its text."""

    path: str
    original: SourceFile | None
    new_text: str
    bom: bool = False
    deleted: bool = False
    moved_from: str | None = None

    @property
    def created(self) -> bool:
        """True when the path does not exist before the write (a new or moved-in file)."""
        return self.original is None or self.moved_from is not None

    @property
    def old_text(self) -> str:
        """The pre-edit text, empty for a new file."""
        return self.original.text if self.original else ""

    def new_bytes(self) -> bytes:
        """The exact bytes to write."""
        return encode(self.new_text, self.bom)


@frozen
class Rejection:
    """Why a candidate was refused: the stage, a stable reason code and a human detail."""

    stage: str
    reason: str
    detail: str


@frozen
class Patched:
    """An applicator's result for one file: the new text and, per edit, the matching tier
    used (``exact``, ``tolerant`` or ``whole_file``)."""

    text: str
    tiers: tuple[str, ...]


@frozen
class Applied:
    """A candidate after stage (d): its changed files, in memory only, and the tier each
    edit matched with."""

    candidate: Candidate
    files: tuple[ChangedFile, ...]
    tiers: tuple[str, ...] = ()

    @property
    def match_tier(self) -> str:
        """``tolerant`` when any edit needed the tolerant tier, else ``exact``."""
        return "tolerant" if "tolerant" in self.tiers else "exact"


@frozen
class Finding:
    """One parser or linter finding at a line."""

    code: str
    message: str
    line: int = 0

    def describe(self) -> str:
        """``line N: CODE message``."""
        return f"line {self.line}: {self.code} {self.message}".strip()


@frozen
class Outcome:
    """The final word on one candidate, as the report shows it."""

    id: str
    status: str  # "valid" | "duplicate" | "rejected"
    rejection: Rejection | None = None
    applied: Applied | None = None
    digest: str | None = None
    duplicate_of: str | None = None
    diff: str | None = None
    ungated: tuple[str, ...] = field(default=())


@frozen
class Report:
    """Everything ``gen09 apply`` decided, in input order."""

    representation: Representation
    outcomes: tuple[Outcome, ...]

    def by_id(self, candidate_id: str) -> Outcome:
        """The outcome of one candidate; KeyError if absent."""
        for outcome in self.outcomes:
            if outcome.id == candidate_id:
                return outcome
        raise KeyError(candidate_id)

    def applied_and_parsed(self) -> int:
        """Candidates that applied and parsed (a lint rejection still parsed), Spec 09 §7.2."""
        return sum(o.status != "rejected" or o.rejection.reason == "lint_error" for o in self.outcomes)

    def summary(self) -> dict:
        """Counts per status and the edit-success rate (applied and parsed / all)."""
        total = len(self.outcomes)
        counts = {s: sum(o.status == s for o in self.outcomes) for s in ("valid", "duplicate", "rejected")}
        return {
            "total": total,
            **counts,
            "edit_success_rate": round(self.applied_and_parsed() / total, 4) if total else 0.0,
        }
