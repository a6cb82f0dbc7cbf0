"""The MCP server: the four memory tools over stdio. `app` is the only module importing the `mcp` SDK."""
