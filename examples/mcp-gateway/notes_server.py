"""A tiny MCP server to put behind the gateway: list, add and delete notes (in memory)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES: dict[str, str] = {}


@server.tool()
def add_note(title: str, body: str) -> str:
    """Add a note."""
    NOTES[title] = body
    return f"added {title!r}"


@server.tool()
def list_notes() -> list[str]:
    """The titles of every note."""
    return sorted(NOTES)


@server.tool()
def delete_note(title: str) -> str:
    """Delete a note."""
    NOTES.pop(title, None)
    return f"deleted {title!r}"


if __name__ == "__main__":
    server.run("stdio")
