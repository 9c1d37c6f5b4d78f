"""The nouns: Tool, ToolResult, content, Context, errors, and building tools from functions."""
