"""``gen09 mcp``: gen09's tools (``gen09_core.mcp_tools``) over the Model Context Protocol,
on stdio, with the official ``mcp`` Python SDK (the optional extra ``gen09[mcp]``). The
registry — plugins, language packs — loads once when the server starts, so each tool call
costs only the work of the call.

A tool failure that the CLI reports with exit 2 or 3 (bad input, a file changed on disk, a
missing tool) is a tool result with ``isError`` and the CLI's one-line message, never a
protocol error; the result's structured content is the tool's JSON.
"""

from __future__ import annotations

import json

from gen09_core.errors import EnvironmentFailure, Gen09Error
from gen09_core.mcp_tools import DESCRIPTIONS, Tools


def _sdk():
    try:
        import mcp.types as types
        from mcp.server import Server
    except ImportError:
        raise EnvironmentFailure("gen09 mcp needs the MCP SDK: pip install 'gen09[mcp]'") from None
    return types, Server


def build_server(repo=".", registry=None):
    """The MCP server (an ``mcp.server.Server``) serving the tools on ``repo``."""
    types, Server = _sdk()
    from importlib.metadata import version

    tools = Tools(repo, registry)
    schemas = tools.schemas
    listed = [types.Tool(name=name, description=DESCRIPTIONS[name], input_schema=schema)
              for name, schema in schemas.items()]

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params):
        try:
            result = tools.call(params.name, params.arguments)
        except Gen09Error as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"gen09: error: {exc}")],
                                        is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(result))],
                                    structured_content=result)

    return Server("gen09", version=version("gen09"), instructions=__doc__.split("\n\n")[0],
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(repo=".") -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    _sdk()
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(repo)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
