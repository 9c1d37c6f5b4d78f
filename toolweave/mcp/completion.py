"""`completion/complete`: the server's completer, in the SDK's types.

A prompt or resource the caller may not see (`Authorize`) completes to nothing; so does one that
does not exist, on a server with such rules (a completer answering every name alike would
otherwise tell the two apart).

Example:
    >>> import anyio
    >>> from toolweave.testing import connect
    >>> server = Server("travel")
    >>> @server.prompt
    ... def trip(city: str) -> str:
    ...     return f"Plan a trip to {city}."
    >>> @server.completion
    ... def cities(request: CompletionRequest) -> list[str]:
    ...     return [city for city in ("Paris", "Parma", "Lima") if city.startswith(request.value)]
    >>> async def suggested() -> list[str]:  # `completion/complete`, answered by CompletionHandler(server)
    ...     async with connect(server) as client:
    ...         ref = mt.PromptReference(type="ref/prompt", name="trip")
    ...         return (await client.complete(ref, {"name": "city", "value": "Pa"})).completion.values
    >>> anyio.run(suggested)
    ['Paris', 'Parma']
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from mcp.server import ServerRequestContext

from toolweave.core.errors import UnknownResource
from toolweave.mcp.errors import requested_uri
from toolweave.mcp.request import caller
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
        catalog: Any
        if isinstance(ref, mt.PromptReference):
            request = CompletionRequest("prompt", ref.name, argument, value, resolved)
            catalog = self.server.prompts.catalog
            entry: Any = catalog.entries.get(ref.name)
        else:
            uri = requested_uri(ref.uri)
            request = CompletionRequest("resource", uri, argument, value, resolved)
            catalog = self.server.resources.catalog
            entry = self._resource(uri)
        if catalog.rules() and (entry is None or not catalog.admits(entry, caller(ctx))):
            return mt.CompleteResult(completion=mt.Completion(values=[]))
        found = await self.server.complete(request)
        return mt.CompleteResult(
            completion=mt.Completion(values=found.values, total=found.total, has_more=found.has_more)
        )

    def _resource(self, uri: str) -> Any:
        catalog = self.server.resources.catalog
        entry = catalog.entries.get(uri)  # a template by its own URI template, or a resource
        if entry is not None:
            return entry
        try:
            return catalog.resolve(uri)[0]
        except UnknownResource:
            return None
