"""Stage (c), candidate generation: the ONE learned call.

``generate`` fires iff the intent package has a non-empty requirement and a valid target
span; otherwise it returns a deterministic failure and no model is called. When it fires it
makes ONE call (temperature 0.8, max_completion_tokens 4096, N ≤ 10, default 4) whose output
is constrained by a JSON Schema, and turns the answer into a ``candidates.json`` batch
(``gen09_core.candidates``) that stages (d)–(f) consume.

N candidates come either as one response holding an array of N (``sampling="array"``, the
default: every OpenAI-compatible server can do it) or as the server's ``n`` choices, each
holding one candidate (``sampling="choices"``). Output modes: ``json_schema`` (structured
output, default), ``json_object`` (plain JSON, validated by gen09) and ``text`` (fenced
SEARCH/REPLACE blocks, or fenced whole files, parsed by gen09) for servers without
structured output.

A malformed response — not JSON, a schema violation, a malformed block — is a no-op: an empty
set with ``regenerate`` set (default), or, only when ``on_parse_failure="greedy"``, exactly
one more call at temperature 0 for a single candidate. Never a re-prompt loop.
"""

from __future__ import annotations

import json
import re

from attrs import frozen

from gen09_core import generate_patch, llm
from gen09_core.errors import BadInput, Gen09Error
from gen09_core.models import CandidateBatch, Representation

TEMPERATURE = 0.8
MAX_COMPLETION_TOKENS = 4096
DEFAULT_N = 4
MAX_N = 10
OUTPUT_MODES = ("json_schema", "json_object", "text")
SAMPLING_MODES = ("array", "choices")
PARSE_FAILURE_POLICIES = ("regenerate", "greedy")
SCHEMA_NAME = "gen09_candidates"
PATCH_FORMATS = generate_patch.PATCH_FORMATS


@frozen
class Settings:
    """How stage (c) samples. Defaults: 4 candidates (at most 10) at temperature 0.8, at most 4096
    completion tokens."""

    n: int = DEFAULT_N
    temperature: float = TEMPERATURE
    max_completion_tokens: int = MAX_COMPLETION_TOKENS
    output: str = "json_schema"
    sampling: str = "array"
    on_parse_failure: str = "regenerate"

    def __attrs_post_init__(self):
        if not 1 <= self.n <= MAX_N:
            raise BadInput(f"n must be between 1 and {MAX_N}, got {self.n}")
        if not 0 <= self.temperature <= 2:
            raise BadInput(f"temperature must be between 0 and 2, got {self.temperature}")
        if not 1 <= self.max_completion_tokens <= MAX_COMPLETION_TOKENS:
            raise BadInput(f"max_completion_tokens must be between 1 and {MAX_COMPLETION_TOKENS}, "
                           f"got {self.max_completion_tokens}")
        for name, allowed in (("output", OUTPUT_MODES), ("sampling", SAMPLING_MODES),
                              ("on_parse_failure", PARSE_FAILURE_POLICIES)):
            if getattr(self, name) not in allowed:
                raise BadInput(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")


@frozen
class Generation:
    """Stage (c)'s result. ``fired`` False means the firing condition failed (``reason``)
    and no call was made. ``batch`` is None when no candidate came back; then
    ``regenerate`` is set and ``failure`` says why."""

    fired: bool
    reason: str
    representation: Representation | None = None
    batch: CandidateBatch | None = None
    batch_json: dict | None = None
    regenerate: bool = False
    failure: str | None = None
    calls: tuple[llm.CallRecord, ...] = ()
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict:
        """The generation report: firing, failure, calls and usage totals."""
        return {
            "fired": self.fired, "reason": self.reason,
            "representation": None if self.representation is None else {
                "classification": self.representation.classification,
                "format": self.representation.format, "reason": self.representation.reason},
            "candidates": 0 if self.batch is None else len(self.batch.candidates),
            "regenerate": self.regenerate, "failure": self.failure, "notes": list(self.notes),
            "calls": [c.as_json() for c in self.calls],
            "usage": llm.usage_summary(self.calls),
        }


class ParseFailure(Exception):
    """The response is not a well-formed candidate set."""


def firing_condition(package, repo=None, registry=None, bare: bool = False) -> str | None:
    """None when stage (c) may fire, else the reason it must not: a requirement and a checked target
    span are needed. ``bare`` is
    the A/B baseline's bare target: no requirement is needed, a valid span still is."""
    if not bare and (package.requirement is None or not package.requirement.strip()):
        return "no_requirement: the intent package has no requirement (component 07's plan.requirement)"
    target = package.target
    if target is None or target.file is None or target.span is None:
        return "no_target_span: the intent package has no target span (component 05's localization)"
    if package.code is None:
        return "invalid_target_span: the target span was not checked against the repository"
    if repo is not None:
        from gen09_core.plugins import default_registry
        from gen09_core.repo import Snapshot
        from gen09_core.targets import check_target

        try:
            check_target(registry or default_registry(), Snapshot(repo), target)
        except Gen09Error as exc:
            return f"invalid_target_span: {exc}"
    return None


def generate(package, representation: Representation, client: llm.ModelClient | None,
             settings: Settings | None = None, repo=None, registry=None,
             bare: bool = False) -> Generation:
    """Run stage (c) for ``package`` in ``representation``'s format through ``client``.

    At most one call (two only with ``on_parse_failure="greedy"``); transport failures raise
    ``EnvironmentFailure`` after the client's bounded retries. ``client`` may be None when
    the caller already knows the firing condition fails. ``bare`` (the A/B baseline and the
    intent-package ablation) fires on a package holding only the target.
    """
    settings = settings or Settings()
    reason = firing_condition(package, repo, registry, bare)
    if reason is not None:
        return Generation(False, reason, representation)
    file_text = _file_text(repo, package, representation)
    body = build_request(package, representation, settings, client.endpoint.model, file_text)
    start = len(client.calls)
    with llm.generator_scope():
        reply = client.complete("generate", body)
    notes = []
    try:
        records = parse_response(reply.body, representation.format, settings)
        failure = None
    except ParseFailure as exc:
        records, failure = [], str(exc)
    if failure is not None and settings.on_parse_failure == "greedy":
        greedy = build_request(package, representation, Settings(
            n=1, temperature=0.0, max_completion_tokens=settings.max_completion_tokens,
            output=settings.output, sampling="array"), client.endpoint.model, file_text)
        with llm.generator_scope():
            reply = client.complete("greedy_fallback", greedy)
        notes.append(f"first response unusable ({failure}); one greedy call at temperature 0")
        try:
            records = parse_response(reply.body, representation.format,
                                     Settings(n=1, output=settings.output, sampling="array"))
            failure = None
        except ParseFailure as exc:
            records, failure = [], f"greedy fallback: {exc}"
    calls = tuple(client.calls[start:])
    if failure is not None:
        return Generation(True, "fired", representation, regenerate=True, failure=failure,
                          calls=calls, notes=tuple(notes))
    batch_json = candidates_json(package, representation, records)
    from gen09_core.candidates import parse

    batch = parse(batch_json, "generated candidates")
    if settings.sampling == "choices" and len(records) < settings.n and failure is None:
        notes.append(f"the server returned {len(records)} of {settings.n} requested choices")
    return Generation(True, "fired", representation, batch, batch_json, calls=calls, notes=tuple(notes))


def generate_from_upstream(upstream: dict, repo, client: llm.ModelClient | None,
                           settings: Settings | None = None, registry=None):
    """Library entry for (a) → (b) → (c): returns ``(intent_package, generation)``.

    ``client`` comes from ``make_client`` (live or ``replay=``); it is not touched when the
    firing condition fails. Feed ``generation.batch`` to ``pipeline.run_batch`` for (d)–(f).
    """
    from gen09_core import represent
    from gen09_core.intent import assemble
    from gen09_core.plugins import default_registry

    registry = registry or default_registry()
    package = assemble(upstream, repo, registry)
    representation = represent.select(registry, package.target)
    return package, generate(package, representation, client, settings, repo, registry)


def make_client(registry, endpoint: llm.Endpoint, prices=None, record=None, replay=None) -> llm.ModelClient:
    """The metered client over the registry's one active generator (or a cassette replay).

    Live use needs a base URL and a model; a replay takes the model from the cassette when
    none is given."""
    if replay is not None:
        if endpoint.model is None:
            models = llm.Cassette(replay).models()
            if len(models) != 1:
                raise BadInput(f"cassette {replay} records {len(models)} models; pass --model")
            endpoint = llm.Endpoint(endpoint.base_url, models.pop(), endpoint.api_key, endpoint.timeout,
                                    endpoint.retries, endpoint.retry_backoff)
        return llm.ModelClient(endpoint, None, prices, record=record, replay=replay)
    if registry.generator is None:
        raise BadInput("no generator plugin is installed (the gen09_generator hook); "
                       "the built-in one is entry point 'openai'")
    if not endpoint.base_url:
        raise BadInput(f"no model endpoint: pass --base-url or set {llm.ENV_BASE_URL}")
    if not endpoint.model:
        raise BadInput(f"no model: pass --model or set {llm.ENV_MODEL}")
    generator = registry.active_generator()
    return llm.ModelClient(endpoint, generator, prices, record=record)


# ---- prompt assembly: intent_package, edit_format, n_candidates, in this order

SYSTEM_PROMPT = (
    "You are the candidate generator of a code-editing pipeline. You receive an intent "
    "package (what to change, where, under which constraints, checked by which tests), the "
    "edit format, and how many candidates to emit. Emit exactly that many distinct candidate "
    "edits that make the target satisfy the requirement, in the edit format, and nothing else: "
    "no explanations, no tools, no tests. The harness applies the edits mechanically."
)


def build_request(package, representation: Representation, settings: Settings, model,
                  file_text: str | None = None) -> dict:
    """The chat-completions request body for one generation call."""
    per_response = settings.n if settings.sampling == "array" else 1
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_prompt(package, representation.format, settings.n,
                                                    per_response, settings.output, file_text)},
        ],
        "temperature": settings.temperature,
        "max_completion_tokens": settings.max_completion_tokens,
        "n": 1 if settings.sampling == "array" else settings.n,
    }
    if settings.output == "json_schema":
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": SCHEMA_NAME, "strict": True,
            "schema": output_schema(representation.format, per_response)}}
    elif settings.output == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def user_prompt(package, fmt: str, n: int, per_response: int, output: str,
                file_text: str | None = None) -> str:
    """The three prompt inputs in order (intent package, edit format, candidate count),
    then how to write the answer."""
    target = package.target
    parts = ["# 1. intent_package", json.dumps(package.prompt_json(), indent=2, ensure_ascii=False), ""]
    parts.append("# 2. edit_format")
    if fmt in PATCH_FORMATS:
        parts.append(generate_patch.describe(fmt, target))
        parts.append("```\n" + (file_text or "") + ("" if (file_text or "").endswith("\n") else "\n") + "```")
    elif fmt == "search_replace":
        parts.append(
            f"search_replace: each candidate is one {{search, replace}} pair. `search` is exact "
            f"source text present in {target.file} lines {target.span.start}-{target.span.end} "
            "(target.code), copied character for character including indentation, and matching "
            "there exactly once; `replace` is its corrected counterpart (empty for a deletion).")
    else:
        parts.append(
            f"whole_file: each candidate is the complete new text of {target.file}. Its current "
            "text follows.")
        parts.append("```\n" + (file_text or "") + ("" if (file_text or "").endswith("\n") else "\n") + "```")
    parts += ["", "# 3. n_candidates", str(n), "", "# answer"]
    many = "candidate" if per_response == 1 else f"{per_response} distinct candidates"
    if output == "text":
        if fmt in PATCH_FORMATS:
            parts.append(f"Write {many}, each as one " + (
                "patch from *** Begin Patch to *** End Patch." if fmt == "apply_patch"
                else "fenced ```diff code block holding the unified diff."))
        elif fmt == "search_replace":
            parts.append(f"Write {many}, each as one block exactly like this and nothing else:\n"
                         "<<<<<<< SEARCH\n(exact lines to find)\n=======\n(replacement lines)\n"
                         ">>>>>>> REPLACE")
        else:
            parts.append(f"Write {many}, each as one fenced code block holding the whole file.")
    else:
        shape = {"search_replace": '{"search": "...", "replace": "..."}', "whole_file": '{"content": "..."}'
                 }.get(fmt, '{"patch": "..."}')
        parts.append(f'Answer with one JSON object {{"candidates": [...]}} holding {many}, each '
                     f"{shape}, and no other keys.")
    return "\n".join(parts)


def output_schema(fmt: str, count: int) -> dict:
    """The JSON Schema the answer must satisfy: ``{"candidates": [record × 1..count]}``."""
    if fmt in PATCH_FORMATS:
        record = generate_patch.record_schema()
    elif fmt == "search_replace":
        record = {"type": "object", "additionalProperties": False, "required": ["search", "replace"],
                  "properties": {"search": {"type": "string"}, "replace": {"type": "string"}}}
    else:
        record = {"type": "object", "additionalProperties": False, "required": ["content"],
                  "properties": {"content": {"type": "string"}}}
    return {"type": "object", "additionalProperties": False, "required": ["candidates"],
            "properties": {"candidates": {"type": "array", "items": record,
                                          "minItems": 1, "maxItems": count}}}


# ---- response parsing

def parse_response(body: dict, fmt: str, settings: Settings) -> list[dict]:
    """The candidate records of a chat-completions response body, in choice order, or
    ``ParseFailure``. Any unusable part makes the whole response unusable (all or nothing)."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise ParseFailure("the response has no choices")
    per_response = settings.n if settings.sampling == "array" else 1
    wanted = 1 if settings.sampling == "array" else settings.n
    if len(choices) > wanted:
        raise ParseFailure(f"the response has {len(choices)} choices, {wanted} requested")
    records = []
    for number, choice in enumerate(sorted(choices, key=_choice_index)):
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            raise ParseFailure(f"choice {number}: no text content"
                               + (f" (refusal: {str(refusal)[:200]})" if refusal else ""))
        try:
            if settings.output == "text":
                found = parse_text(content, fmt)
            else:
                found = parse_json_candidates(content, fmt)
        except ParseFailure as exc:
            cut = " (the answer was cut at max_completion_tokens)" \
                if choice.get("finish_reason") == "length" else ""
            raise ParseFailure(f"choice {number}: {exc}{cut}") from None
        if len(found) > per_response:
            raise ParseFailure(f"choice {number}: {len(found)} candidates, at most {per_response} "
                               "allowed")
        records.extend(found)
    return records


def parse_json_candidates(content: str, fmt: str) -> list[dict]:
    """Records from a JSON answer ``{"candidates": [...]}`` (one surrounding code fence is
    tolerated); any schema violation is a ``ParseFailure``."""
    text = content.strip()
    fence = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, re.S)
    if fence:
        text = fence.group(1)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ParseFailure(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or set(data) != {"candidates"}:
        raise ParseFailure('schema violation: expected exactly {"candidates": [...]}')
    items = data["candidates"]
    if not isinstance(items, list) or not items:
        raise ParseFailure("schema violation: candidates must be a non-empty array")
    keys = {"search", "replace"} if fmt == "search_replace" else {"patch"} if fmt in PATCH_FORMATS \
        else {"content"}
    records = []
    for k, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != keys:
            have = sorted(item) if isinstance(item, dict) else type(item).__name__
            raise ParseFailure(f"schema violation: candidates[{k}] must have exactly "
                               f"{sorted(keys)}, has {have}")
        if not all(isinstance(v, str) for v in item.values()):
            raise ParseFailure(f"schema violation: candidates[{k}] values must be strings")
        records.append(_checked(item, fmt, f"candidates[{k}]"))
    return records


_BLOCK = re.compile(
    r"^<{5,9} SEARCH[ \t]*\n(.*?)^={5,9}[ \t]*\n(.*?)^>{5,9} REPLACE[ \t]*$", re.S | re.M)
_MARKER = re.compile(r"^(?:<{5,9} SEARCH|={5,9}|>{5,9} REPLACE)[ \t]*$", re.M)
_FENCE = re.compile(r"^```[^\n`]*\n(.*?)^```[ \t]*$", re.S | re.M)


def parse_text(content: str, fmt: str) -> list[dict]:
    """Records from a text answer: fenced SEARCH/REPLACE blocks (search_replace) or fenced
    code blocks holding whole files (whole_file). A stray or unbalanced marker is a
    malformed block (``ParseFailure``)."""
    if fmt in PATCH_FORMATS:
        return generate_patch.from_text(content, fmt, ParseFailure)
    if fmt != "search_replace":
        files = [m.group(1) for m in _FENCE.finditer(content)]
        if not files:
            raise ParseFailure("no fenced code block holding a whole file")
        return [_checked({"content": f}, fmt, f"block {k}") for k, f in enumerate(files)]
    records, rest = [], []
    last = 0
    for match in _BLOCK.finditer(content):
        rest.append(content[last:match.start()])
        last = match.end()
        records.append(_checked({"search": match.group(1), "replace": match.group(2)}, fmt,
                                f"block {len(records)}"))
    rest.append(content[last:])
    if _MARKER.search("".join(rest)):
        raise ParseFailure("malformed SEARCH/REPLACE block (a marker outside a complete block)")
    if not records:
        raise ParseFailure("no SEARCH/REPLACE block")
    return records


def _checked(record: dict, fmt: str, where: str) -> dict:
    for value in record.values():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ParseFailure(f"malformed block: {where} holds a lone surrogate") from None
    if fmt in PATCH_FORMATS:
        return generate_patch.check(record, fmt, where, ParseFailure)
    if fmt == "search_replace" and not record["search"]:
        raise ParseFailure(f"malformed block: {where} has an empty search")
    if fmt == "whole_file" and not record["content"]:
        raise ParseFailure(f"malformed block: {where} has an empty file")
    return record


def _choice_index(choice) -> int:
    index = choice.get("index") if isinstance(choice, dict) else None
    return index if isinstance(index, int) else 0


def candidates_json(package, representation: Representation, records: list[dict]) -> dict:
    """The ``candidates.json`` batch (version 1) that ``gen09 apply`` consumes."""
    target = package.target
    target_json = {"file": target.file, "span": target.span.as_list()}
    if target.entity is not None:
        target_json["entity"] = target.entity
    return {
        "version": 1,
        "format": representation.format,
        "target": target_json,
        "candidates": [{"id": f"c{k}", **record} for k, record in enumerate(records, 1)],
    }


def _file_text(repo, package, representation) -> str | None:
    if representation.format not in ("whole_file", *PATCH_FORMATS) or repo is None:
        return None
    from gen09_core.repo import Snapshot

    source = Snapshot(repo).read(package.target.file)
    return getattr(source, "text", None)
