"""Resource subscriptions: who wants `notifications/resources/updated`, and delivering it.

- Handshake-era clients send `resources/subscribe` / `resources/unsubscribe` for a URI; the URIs
  are remembered per connection and forgotten when it closes.
- 2026-era clients name the URIs in `subscriptions/listen`; the SDK's listen handler filters the
  `ResourceUpdated` events published on the bus.

`server.resource_updated(uri)` reaches `deliver(uri)`, which does both.

Example:
    updates = ResourceUpdates(bus)
    LowLevelServer(...).add_request_handler("resources/subscribe", ..., updates.subscribe)
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp.types as mt
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import ResourceUpdated

logger = logging.getLogger("toolweave.mcp")


class ResourceUpdates:
    """The subscribed URIs of each handshake-era connection, and delivery of updates."""

    def __init__(self, bus: Any) -> None:
        self.bus = bus
        self._uris: dict[int, set[str]] = {}
        self._connections: dict[int, Any] = {}

    async def subscribe(self, ctx: ServerRequestContext[Any], params: mt.SubscribeRequestParams) -> mt.EmptyResult:
        """`resources/subscribe`: remember the URI for this connection."""
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            key = id(connection)
            if key not in self._uris:
                self._uris[key], self._connections[key] = set(), connection
                connection.exit_stack.callback(self._forget, key)
            self._uris[key].add(str(params.uri))
        return mt.EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: mt.UnsubscribeRequestParams) -> mt.EmptyResult:
        """`resources/unsubscribe`: forget the URI for this connection (unknown URIs are fine)."""
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            self._uris.get(id(connection), set()).discard(str(params.uri))
        return mt.EmptyResult()

    def _forget(self, key: int) -> None:
        self._uris.pop(key, None)
        self._connections.pop(key, None)

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
                self._forget(key)
            except Exception:
                logger.debug("could not send resources/updated", exc_info=True)
                self._forget(key)
