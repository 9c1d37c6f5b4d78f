"""Resource subscriptions: who wants `notifications/resources/updated`, and delivering it.

- Handshake-era clients send `resources/subscribe` / `resources/unsubscribe` for a URI; the URIs
  are remembered per connection and forgotten when it closes.
- 2026-era clients name the URIs in `subscriptions/listen`; the SDK's listen handler filters the
  `ResourceUpdated` events published on the bus.
- A connection, or a listen stream, holds at most `MAX_SUBSCRIPTIONS` URIs; past it a subscription
  is refused (-32602), whether or not the URI is served.

`server.resource_updated(uri)` reaches `deliver(uri)`, which does both. The first subscriber of
a URI (either era), and the last one leaving (by `resources/unsubscribe` or by closing its
connection), are passed on to `server.subscribe_resource` / `unsubscribe_resource`, which reach a
mounted or remote server that owns the resource.

Example:
    >>> from toolweave import Server
    >>> from toolweave.testing import connect
    >>> server = Server("notes")
    >>> @server.resource("notes://today")
    ... def today() -> str:
    ...     return "nothing yet"
    >>> async def heard() -> str:  # a 2026-era client names the URIs it listens to
    ...     async with connect(server) as client, client.listen(resource_subscriptions=["notes://today"]) as events:
    ...         server.resource_updated("notes://today")  # reaches ResourceUpdates.deliver
    ...         with anyio.fail_after(5):
    ...             async for event in events:
    ...                 return event.uri
    >>> anyio.run(heard)
    'notes://today'
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp.types as mt
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import ResourceUpdated

from toolweave.core.errors import ArgumentProblem, InvalidArguments, UnknownResource
from toolweave.mcp.errors import protocol_error, requested_uri
from toolweave.mcp.request import caller, connection_of

logger = logging.getLogger("toolweave.mcp")

MAX_SUBSCRIPTIONS = 1024
"""The most URIs one connection (or one `subscriptions/listen` stream) is subscribed to at once.
Each is kept until unsubscribed (and may hold a subscription at an upstream): without a cap, one
client subscribing to URIs a template serves grew the server by ~100 MiB a second."""


def _too_many(uri: str) -> Exception:
    """The -32602 error of a subscription to `uri` past `MAX_SUBSCRIPTIONS`."""
    problem = f"already subscribed to {MAX_SUBSCRIPTIONS} URIs, the most one client may be (MAX_SUBSCRIPTIONS)"
    return protocol_error(InvalidArguments(uri[:60], [ArgumentProblem("uri", problem)], kind="resource"))


class ResourceUpdates:
    """The subscribed URIs of each handshake-era connection, and delivery of updates."""

    def __init__(self, bus: Any, server: Any = None) -> None:
        self.bus = bus
        self.server = server
        self._uris: dict[int, set[str]] = {}
        self._connections: dict[int, Any] = {}
        self._subscribers: dict[str, int] = {}

    async def subscribe(self, ctx: ServerRequestContext[Any], params: mt.SubscribeRequestParams) -> mt.EmptyResult:
        """`resources/subscribe`: remember the URI for this connection."""
        uri = requested_uri(params.uri)
        connection = connection_of(ctx.session)
        if connection is not None:
            key = id(connection)
            if key not in self._uris:
                self._uris[key], self._connections[key] = set(), connection
                connection.exit_stack.push_async_callback(self._forget, key)
            uris = self._uris[key]
            if uri not in uris:
                if len(uris) >= MAX_SUBSCRIPTIONS:
                    raise _too_many(uri)
                if not self._forbidden(ctx, uri):  # the same answer either way
                    uris.add(uri)
                    await self._counted(uri, +1)
        return mt.EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: mt.UnsubscribeRequestParams) -> mt.EmptyResult:
        """`resources/unsubscribe`: forget the URI for this connection (unknown URIs are fine)."""
        connection = connection_of(ctx.session)
        uri = requested_uri(params.uri)
        uris = self._uris.get(id(connection), set()) if connection is not None else set()
        if uri in uris:
            uris.discard(uri)
            await self._counted(uri, -1)
        return mt.EmptyResult()

    def counting(self, handler: Any) -> Any:
        """`handler` (the SDK's `subscriptions/listen` handler), counting the URIs each 2026-era
        stream asks for as subscribers for as long as the stream lasts."""

        async def listen(ctx: ServerRequestContext[Any], params: mt.SubscriptionsListenRequestParams) -> Any:
            named = [requested_uri(uri) for uri in params.notifications.resource_subscriptions or ()]
            if len(set(named)) > MAX_SUBSCRIPTIONS:
                raise _too_many(named[MAX_SUBSCRIPTIONS])
            allowed = [uri for uri in named if not self._forbidden(ctx, uri)]
            if len(allowed) < len(named):  # the stream filters its events by these URIs
                notifications = params.notifications.model_copy(update={"resource_subscriptions": allowed})
                params = params.model_copy(update={"notifications": notifications})
            for uri in allowed:
                await self._counted(uri, +1)
            try:
                return await handler(ctx, params)
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    for uri in allowed:
                        await self._counted(uri, -1)

        return listen

    def _forbidden(self, ctx: ServerRequestContext[Any], uri: str) -> bool:
        """Whether `uri` is served only by resources the caller may not read (`Authorize`): its
        updates would reveal that it exists. An unknown URI is not forbidden (it may appear)."""
        catalog = self.server.resources.catalog if self.server is not None else None
        if catalog is None or not catalog.rules():
            return False
        try:
            return catalog.readable(uri, caller(ctx)) is None  # served, but only by what it may not read
        except UnknownResource:
            return False

    async def _counted(self, uri: str, change: int) -> None:
        """Count subscribers of `uri`; tell the server about the first and about the last leaving."""
        count = self._subscribers.get(uri, 0) + change
        if count > 0:
            self._subscribers[uri] = count
        else:
            self._subscribers.pop(uri, None)
        if self.server is None or not ((count == 1 and change > 0) or count == 0):
            return
        try:
            if change > 0:
                await self.server.subscribe_resource(uri)
            else:
                await self.server.unsubscribe_resource(uri)
        except Exception:
            logger.warning("could not pass on the subscription change for %r", uri, exc_info=True)

    async def _forget(self, key: int) -> None:
        self._connections.pop(key, None)
        for uri in self._uris.pop(key, set()):
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await self._counted(uri, -1)

    async def deliver(self, uri: str) -> None:
        """Tell every subscriber of `uri`, in both eras, that it changed."""
        await self.bus.publish(ResourceUpdated(uri=uri))
        for key, uris in list(self._uris.items()):
            connection = self._connections.get(key)
            if connection is None or uri not in uris:
                continue
            try:
                await connection.send_resource_updated(uri)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await self._forget(key)
            except Exception:
                logger.debug("could not send resources/updated", exc_info=True)
                await self._forget(key)
