"""Options that several commands share, each defined once.

An option here is a decorator; ``stack`` applies several in the order they are listed (the
order ``--help`` shows them in).
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from gen09_core.errors import BadInput

DEFAULT_HARD_LINT = ("F821", "F401")


def stack(*options):
    """One decorator applying ``options`` so that ``--help`` lists them in this order."""
    def apply(func):
        for option in reversed(options):
            func = option(func)
        return func
    return apply


def repo_option(help_text: str):
    """``--repo DIR`` (default ``.``), as a ``Path``."""
    return click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=".",
                        show_default=True, help=help_text)


def _lint_codes(ctx, param, value: str) -> tuple[str, ...]:
    """``--hard-lint``'s comma-separated text as a tuple of codes; a malformed code is bad input."""
    codes = tuple(c.strip() for c in value.split(",") if c.strip())
    for code in codes:
        if not re.fullmatch(r"[A-Z]+[0-9]*", code):
            raise BadInput(f"--hard-lint: {code!r} is not a lint code (like F821)")
    return codes


HARD_LINT = click.option(
    "--hard-lint", default=",".join(DEFAULT_HARD_LINT), show_default=True, callback=_lint_codes,
    help="Comma-separated lint codes that reject a candidate when it introduces them "
         "('' disables hard lint).")

N_CANDIDATES = click.option("--n", "n", type=int, default=4, show_default=True,
                            help="Candidates per generation (1-10).")


def output_option(dest: str = "output"):
    """``--output``: how the model is asked to answer."""
    return click.option("--output", dest, type=click.Choice(["json_schema", "json_object", "text"]),
                        default="json_schema", show_default=True,
                        help="Structured output, plain JSON, or fenced SEARCH/REPLACE text.")


def replay_option(must_exist: bool):
    """``--replay CASSETTE``: answer the calls from a recorded cassette, with no network."""
    return click.option("--replay", type=click.Path(dir_okay=False, exists=must_exist),
                        help="Answer calls from this cassette; no network.")


ENDPOINT = stack(
    click.option("--base-url", envvar="GEN09_BASE_URL", show_envvar=True,
                 help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    click.option("--model", envvar="GEN09_MODEL", show_envvar=True, help="Model name."),
    click.option("--api-key", envvar="GEN09_API_KEY", show_envvar=True,
                 help="API key (local servers usually need none)."),
    click.option("--prices", type=click.Path(dir_okay=False), envvar="GEN09_PRICES", show_envvar=True,
                 help="Price table JSON (model → USD per 1M tokens); without it cost is unknown."),
    click.option("--record", type=click.Path(dir_okay=False),
                 help="Append every call to this JSONL cassette."),
)
"""Where the model is and how its calls are priced and recorded."""

SAMPLING = stack(
    N_CANDIDATES,
    click.option("--temperature", type=float, default=0.8, show_default=True,
                 help="Sampling temperature of the one call."),
    click.option("--max-completion-tokens", type=int, default=4096, show_default=True,
                 help="Completion token cap (at most 4096)."),
    output_option(),
    click.option("--sampling", type=click.Choice(["array", "choices"]), default="array",
                 show_default=True,
                 help="N candidates as one response's array, or as the server's n choices."),
    click.option("--on-parse-failure", type=click.Choice(["regenerate", "greedy"]),
                 default="regenerate", show_default=True,
                 help="Malformed answer: empty set + regenerate flag, or one greedy call "
                      "at temperature 0."),
    click.option("--timeout", type=float, default=60.0, show_default=True,
                 help="Seconds per HTTP attempt."),
    click.option("--retries", type=int, default=2, show_default=True,
                 help="Resends after a timeout, 429 or 5xx (never a re-prompt)."),
)
"""How the one model call samples, answers and retries."""
