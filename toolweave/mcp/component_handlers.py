"""The `prompts/*` and `resources/*` request handlers of the MCP adapter.

- lists are served from each compiled catalog's cached wire list, in pages;
- `prompts/get` and `resources/read` build the request `Context` and go through the catalog;
- errors map to JSON-RPC errors in one place (`toolweave.mcp.errors`): an unknown prompt or resource,
  or arguments / URI parameters that do not convert, are `-32602` (an unknown resource carries
  `{"uri": ...}` in `data`, per SEP-2164, in both protocol eras, as the SDK's own server does);
  a failing prompt or resource function is `-32603` with its (masked) message;
- a mounted remote's prompt or resource: an upstream that refused the request as invalid
  (`-32602`, e.g. a URI its template matches but it does not know) is `-32602` again, naming the
  upstream (with `{"uri": ...}` for a read); an upstream that is down, went away or failed
  otherwise is `-32603` with the `UpstreamError` message.

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> from toolweave.testing import connect
    >>> server = Server("notes")
    >>> @server.prompt
    ... def greet(name: str) -> str:
    ...     return f"Hello, {name}!"
    >>> async def rendered() -> str:  # `prompts/get`, answered by ComponentHandlers(adapter).get_prompt
    ...     async with connect(server) as client:
    ...         return (await client.get_prompt("greet", {"name": "Ada"})).messages[0].content.text
    >>> anyio.run(rendered)
    'Hello, Ada!'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import mcp.types as mt
from mcp.server import ServerRequestContext

from toolweave.core.context import Context
from toolweave.core.errors import (
    InputRequired,
    MissingCapability,
    ToolweaveError,
)
from toolweave.mcp import input_required
from toolweave.mcp.convert_components import (
    to_mcp_prompt,
    to_mcp_prompt_result,
    to_mcp_read_result,
    to_mcp_resource,
    to_mcp_resource_template,
)
from toolweave.mcp.errors import protocol_error
from toolweave.mcp.pages import cached_page
from toolweave.mcp.request import caller
from toolweave.server.catalog import Catalog
from toolweave.telemetry.spans import name_no_target

if TYPE_CHECKING:
    from toolweave.mcp.adapter import McpAdapter


T = TypeVar("T")


class ComponentHandlers:
    """Serves prompts and resources of the adapter's toolweave server."""

    def __init__(self, adapter: McpAdapter) -> None:
        self.adapter = adapter
        self.server = adapter.server

    async def list_prompts(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListPromptsResult:
        catalog = self.server.prompts.catalog
        items, next_cursor = self._page(ctx, catalog, "prompts", to_mcp_prompt, catalog.prompts, params)
        return mt.ListPromptsResult(prompts=items, next_cursor=next_cursor)

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: mt.GetPromptRequestParams
    ) -> mt.GetPromptResult | mt.InputRequiredResult:
        async def render(context: Context) -> mt.GetPromptResult:
            arguments = dict(params.arguments or {})
            return to_mcp_prompt_result(await self.server.prompts.catalog.render(params.name, arguments, context))

        if params.name not in self.server.prompts.catalog.entries:
            name_no_target("prompts/get")
        return await self._answer(ctx, params, render)

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListResourcesResult:
        catalog = self.server.resources.catalog
        items, next_cursor = self._page(ctx, catalog, "resources", to_mcp_resource, catalog.resources, params)
        return mt.ListResourcesResult(resources=items, next_cursor=next_cursor)

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListResourceTemplatesResult:
        catalog = self.server.resources.catalog
        templates = catalog.resource_templates
        items, next_cursor = self._page(ctx, catalog, "templates", to_mcp_resource_template, templates, params)
        return mt.ListResourceTemplatesResult(resource_templates=items, next_cursor=next_cursor)

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: mt.ReadResourceRequestParams
    ) -> mt.ReadResourceResult | mt.InputRequiredResult:
        async def read(context: Context) -> mt.ReadResourceResult:
            return to_mcp_read_result(await self.server.resources.catalog.read(str(params.uri), context))

        return await self._answer(ctx, params, read, str(params.uri))

    def _page(
        self,
        ctx: ServerRequestContext[Any],
        catalog: Catalog[Any],
        key: str,
        convert: Callable[[Any], T],
        components: Any,
        params: mt.PaginatedRequestParams | None,
    ) -> tuple[list[T], str | None]:
        """One page of the caller's cached wire list, at the request's cursor, in the server's page size."""
        key, visible = catalog.view(key, components, caller(ctx) if catalog.rules() else None)
        cursor = params.cursor if params else None
        return cached_page(catalog.cache, f"mcp.{key}", convert, visible, cursor, self.server.page_size)

    async def _answer(
        self,
        ctx: ServerRequestContext[Any],
        params: Any,
        produce: Callable[[Context], Awaitable[T]],
        uri: str | None = None,
    ) -> T | mt.InputRequiredResult:
        """Run `produce` in input rounds (`InputRequired`), mapping failures to protocol errors."""

        async def attempt(context: Context) -> T:
            try:
                return await produce(context)
            except (InputRequired, MissingCapability):
                raise
            except ToolweaveError as error:
                raise protocol_error(error, uri) from None

        try:
            return await input_required.with_input(ctx, params, self.adapter.request_context(ctx), attempt)
        except MissingCapability as error:
            raise protocol_error(error) from None
