"""What the MCP gateway keeps in the shared database: the pinned definition of each upstream tool."""
