"""A composed server's tools for agent frameworks, in process, without MCP.

Each adapter hands a framework the tools a client of the server would list, and runs every call
through the same catalog a client's call goes through: argument validation, injection (from a
`Context` you provide, e.g. the verified user), middleware (rate limits, caches, logs), output
checks and error masking. One policy serves an MCP client and an in-process agent alike.

- `toolweave.adapters.pydantic_ai.ToolweaveToolset(server)`: a Pydantic AI toolset
  (extra `toolweave[pydantic-ai]`);
- `toolweave.adapters.langchain.structured_tools(server)`: LangChain `StructuredTool`s
  (extra `toolweave[langchain]`); `await astructured_tools(server)` for a server whose
  middleware filters its tool listings (`on_list_tools`);
- `toolweave.adapters.openai_agents.function_tools(server)`: OpenAI Agents SDK `FunctionTool`s
  (extra `toolweave[openai-agents]`).

`context=` is a `Context` (copied per call) or a function of the framework's own run context
returning one, so each call can carry its caller. Remote and OpenAPI tools need the server
started: `async with server:` around the agent run (the Pydantic AI toolset does it for you).
"""
