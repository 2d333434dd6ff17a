"""`outrider mcp-gateway`: an MCP server in front of MCP servers that asks the sidecar before every tool call.

An adapter process: it speaks to the sidecar only through the Python client, never to its services.
"""
