"""`completion/complete`: the server's completer, in the SDK's types.

Example:
    LowLevelServer(..., on_completion=CompletionHandler(server))
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from mcp.server import ServerRequestContext

from toolweave.server.completion import CompletionRequest
from toolweave.server.server import Server


class CompletionHandler:
    """Answers `completion/complete` with `server.complete` (the owner of a mounted prompt or
    template answers; no values without a completer)."""

    def __init__(self, server: Server) -> None:
        self.server = server

    async def __call__(self, ctx: ServerRequestContext[Any], params: mt.CompleteRequestParams) -> mt.CompleteResult:
        ref = params.ref
        resolved = dict(params.context.arguments or {}) if params.context else {}
        argument, value = params.argument.name, params.argument.value
        if isinstance(ref, mt.PromptReference):
            request = CompletionRequest("prompt", ref.name, argument, value, resolved)
        else:
            request = CompletionRequest("resource", str(ref.uri), argument, value, resolved)
        found = await self.server.complete(request)
        return mt.CompleteResult(
            completion=mt.Completion(values=found.values, total=found.total, has_more=found.has_more)
        )
