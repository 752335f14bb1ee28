"""A deterministic, clearly labelled NON-MODEL generator: repair templates.

It answers the chat-completions requests stage (c) sends by rewriting single tokens of the
target code (``gen09_core.ab.templates``), so the A/B harness runs end to end on a CPU with no
network. It exercises the harness and is never reported as a model's result. Not registered
as an entry point: ``gen09 ab --generator template`` registers it for that run.

Token counts in its ``usage`` come from a regex word tokenizer over the prompt and answer —
a stand-in for a model tokenizer, labelled as such in reports.
"""

from __future__ import annotations

import json
import re

from gen09_core import hookimpl
from gen09_core.llm import Endpoint, TransportError, require_scope

NAME = "template"
LABEL = "template (deterministic repair templates, not a model)"
_WORDS = re.compile(r"\w+|[^\w\s]")
_FORMAT = re.compile(r"# 2\. edit_format\n(\w+):")
_FENCE = re.compile(r"^```[^\n`]*\n(.*?)^```[ \t]*$", re.S | re.M)


class TemplateGenerator:
    """Serves a chat-completions body from repair templates."""

    name = NAME

    def complete(self, body: dict, endpoint: Endpoint) -> dict:
        """One response: at temperature 0 the top template, otherwise the top ``n``."""
        require_scope("the template generator")
        from gen09_core.ab.templates import variants

        prompt = "\n".join(m.get("content", "") for m in body.get("messages", []))
        target = _target(prompt)
        if target is None:
            raise TransportError("template generator: no target code in the prompt", retryable=False)
        whole_file = '"content"' in json.dumps(body.get("response_format", {}))
        asked = _FORMAT.search(prompt)
        patch_format = asked.group(1) if asked and asked.group(1) in ("udiff", "apply_patch") else None
        wanted = 1 if body.get("temperature", 0) == 0 else _count(prompt, body)
        records = []
        file_text = next(iter(_FENCE.findall(prompt)), None) if whole_file else None
        for search, replace in variants(target["code"]):
            if len(records) == wanted:
                break
            if patch_format:
                records.append({"patch": _patch(patch_format, target["file"], search, replace)})
            elif whole_file:
                if file_text is None or file_text.count(search) != 1:
                    continue
                records.append({"content": file_text.replace(search, replace)})
            else:
                records.append({"search": search, "replace": replace})
        content = json.dumps({"candidates": records})
        return {
            "id": "template", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(_WORDS.findall(prompt)),
                      "completion_tokens": len(_WORDS.findall(content))},
        }


@hookimpl
def gen09_generator():
    """The template generator."""
    return TemplateGenerator()


def _target(prompt: str) -> dict | None:
    """The first JSON object in the prompt that carries ``target.code``."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", prompt):
        try:
            value, _ = decoder.raw_decode(prompt, match.start())
        except ValueError:
            continue
        target = value.get("target") if isinstance(value, dict) else None
        if isinstance(target, dict) and isinstance(target.get("code"), str):
            return target
    return None


def _patch(fmt: str, path: str, search: str, replace: str) -> str:
    """One line rewrite as a unified diff or a V4A patch (no context: the target span
    locates it)."""
    old, new = search.rstrip("\n"), replace.rstrip("\n")
    if fmt == "apply_patch":
        return f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
    eol = "" if search.endswith("\n") else "\n\\ No newline at end of file"
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}{eol}\n+{new}{eol}\n"


def _count(prompt: str, body: dict) -> int:
    found = re.search(r"# 3\. n_candidates\s+(\d+)", prompt)
    return int(found.group(1)) if found else int(body.get("n", 1))
