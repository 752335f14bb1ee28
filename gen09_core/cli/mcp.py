"""``gen09 mcp``: gen09's tools over MCP on stdio (the SDK is imported only by this command)."""

from __future__ import annotations

import click

from gen09_core.cli.options import repo_option


@click.command("mcp")
@repo_option("The repository tools act on when a call names none.")
def mcp_command(repo):
    """Serve gen09's tools over MCP on stdio (needs the extra: pip install 'gen09[mcp]').

    Tools: apply_candidates (a dry run, the report of apply --json), write_candidate,
    check_file, list_languages.
    """
    from gen09_core.mcp_server import serve

    serve(repo)
