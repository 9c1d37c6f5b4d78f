"""The edge: the only package that imports the `mcp` SDK (serving, client adapters)."""
