"""The tools ``gen09 mcp`` serves, as plain functions of JSON arguments (no MCP SDK here):
each returns the JSON result, or raises ``Gen09Error`` with the one-line message the CLI
would print. Input schemas are built from the candidates.json schema ``gen09 schema``
prints, so a tool call and a candidates file are validated by the same rules.

- ``apply_candidates``: a candidates.json document plus ``repo`` → the report of
  ``gen09 apply --json`` (a dry run: nothing is written);
- ``write_candidate``: the same plus ``id`` → the report, and that candidate written
  (journaled, atomic) when it is valid;
- ``check_file``: ``path`` (and optionally new ``content``) → the gate's verdict;
- ``list_languages``: the languages the loaded packs serve, with their extensions.
"""

from __future__ import annotations

import copy
from pathlib import Path

from gen09_core.errors import BadInput

_REPO = {"type": "string", "description": "The repository folder (default: the server's --repo)."}
_LINT = {"type": "array", "items": {"type": "string", "pattern": "^[A-Z]+[0-9]*$"},
         "description": "Lint codes that reject a candidate introducing them (default F821, F401)."}
_OPTIONS = {"repo": _REPO, "hard_lint": _LINT,
            "tolerant": {"type": "boolean", "description": "Enable the tolerant matching tier."}}


def input_schemas() -> dict[str, dict]:
    """The JSON Schema of each tool's arguments."""
    from gen09_core.candidates import SCHEMA

    batch = copy.deepcopy(SCHEMA)
    batch.pop("$schema", None)
    batch["properties"].update(copy.deepcopy(_OPTIONS))
    write = copy.deepcopy(batch)
    write["properties"]["id"] = {"type": "string", "description": "The candidate to write."}
    write["properties"]["force"] = {"type": "boolean", "description": "Also replace read-only files."}
    write["required"] = [*batch["required"], "id"]
    check = {"type": "object", "additionalProperties": False, "required": ["path"], "properties": {
        "repo": _REPO, "hard_lint": _LINT,
        "path": {"type": "string", "description": "A repo-relative file path."},
        "content": {"type": "string", "description": "New text for the file; without it the file "
                                                     "on disk is checked as it is."}}}
    return {"apply_candidates": batch, "write_candidate": write, "check_file": check,
            "list_languages": {"type": "object", "additionalProperties": False, "properties": {}}}


DESCRIPTIONS = {
    "apply_candidates": "Dry-run candidate edits (search_replace, whole_file, udiff, apply_patch or "
                        "editor) on the repository: apply each in memory, gate it (parse + hard lint) "
                        "and deduplicate; returns the same report as `gen09 apply --json`. Writes nothing.",
    "write_candidate": "Run the candidates like apply_candidates, then write the one named by `id` "
                       "if it is valid: all its files or none (journaled, atomic).",
    "check_file": "Check one file through gen09's syntax/lint gate: the file as it is, or new "
                  "`content` for it (then only findings the content introduces count).",
    "list_languages": "The languages gen09's loaded packs parse and lint, with their file extensions.",
}


class Tools:
    """The tool implementations over one default repository and one loaded registry (kept
    warm between calls)."""

    def __init__(self, repo=".", registry=None):
        from gen09_core.plugins import default_registry

        self.repo = Path(repo)
        self.registry = registry or default_registry()
        self.schemas = input_schemas()

    def call(self, name: str, arguments: dict | None) -> dict:
        """Run tool ``name``; ``BadInput`` for an unknown tool or invalid arguments."""
        from gen09_core.jsoninput import validate

        if name not in self.schemas:
            raise BadInput(f"unknown tool {name!r} (tools: {', '.join(self.schemas)})")
        arguments = arguments or {}
        validate(self.schemas[name], arguments, name)
        return getattr(self, name)(dict(arguments))

    def _run(self, args: dict):
        from gen09_core.candidates import parse
        from gen09_core.gate import DEFAULT_HARD_LINT
        from gen09_core.pipeline import run_batch

        repo = Path(args.pop("repo", None) or self.repo)
        codes = tuple(args.pop("hard_lint", DEFAULT_HARD_LINT))
        tolerant = bool(args.pop("tolerant", False))
        extra = {k: args.pop(k) for k in ("id", "force") if k in args}
        batch = parse(args, "arguments")
        return repo, batch, run_batch(batch, repo, self.registry, codes, tolerant), extra

    def apply_candidates(self, args: dict) -> dict:
        """The dry-run report, exactly as ``gen09 apply --json`` prints it."""
        from gen09_core.pipeline import report_json

        repo, _, report, _ = self._run(args)
        return report_json(report, repo)

    def write_candidate(self, args: dict) -> dict:
        """The report plus ``written``: the files of candidate ``id``, written atomically."""
        from gen09_core.pipeline import report_json
        from gen09_core.write import write_files

        repo, batch, report, extra = self._run(args)
        cid = extra["id"]
        if cid not in {c.id for c in batch.candidates}:
            raise BadInput(f"id {cid}: no candidate has that id")
        outcome = report.by_id(cid)
        result = report_json(report, repo)
        if outcome.status != "valid":
            why = outcome.rejection.detail if outcome.rejection else f"duplicate of {outcome.duplicate_of}"
            raise BadInput(f"not written: {cid} is {outcome.status} ({why})")
        write_files(repo, outcome.applied.files, force=bool(extra.get("force")))
        result["written"] = {"id": cid, "files": [f.path for f in outcome.applied.files]}
        return result

    def check_file(self, args: dict) -> dict:
        """The gate's verdict on one file: ``pass``, or the stage, reason and detail."""
        from gen09_core.gate import DEFAULT_HARD_LINT, gate
        from gen09_core.models import Applied, Candidate, ChangedFile, Edit, Rejection
        from gen09_core.repo import Snapshot, repo_root

        root = repo_root(args.get("repo") or self.repo)
        path = args["path"]
        source = Snapshot(root).read(path)
        if isinstance(source, Rejection):
            raise BadInput(f"{path}: {source.detail}")
        content = args.get("content")
        if source is None and content is None:
            raise BadInput(f"{path} does not exist in the repository (give content to check new text)")
        language = self.registry.language_of(path)
        if content is None:  # the file as it is: every finding counts
            changed = ChangedFile(path, None, source.text)
        else:
            changed = ChangedFile(path, source, content, source.bom if source else False)
        applied = Applied(Candidate("check", (Edit(path, content=changed.new_text),)), (changed,))
        (verdict,) = gate(self.registry, [applied], tuple(args.get("hard_lint", DEFAULT_HARD_LINT)))
        result = {"path": path, "language": language, "gated": language is not None}
        if verdict.rejection:
            result.update(verdict="rejected", stage=verdict.rejection.stage, reason=verdict.rejection.reason,
                          detail=verdict.rejection.detail)
        else:
            result["verdict"] = "pass"
        return result

    def list_languages(self, args: dict) -> dict:
        """Each language with its extensions and the pack that serves it."""
        found: dict[str, dict] = {}
        for ext, (language, plugin) in sorted(self.registry.extensions.items()):
            entry = found.setdefault(language, {"name": language, "extensions": [], "pack": plugin})
            entry["extensions"].append(ext)
        return {"languages": sorted(found.values(), key=lambda e: e["name"])}



