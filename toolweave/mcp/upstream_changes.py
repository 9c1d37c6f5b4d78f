"""An upstream's lists kept current: the lists it says changed are listed again (`ListChanges`).

- A handshake-era upstream says so on the connection, with `notifications/*/list_changed`
  (`on_message`, the handler of every session to it; its `notifications/resources/updated`
  become the remote's `resource_updated(uri)`).
- A 2026-era upstream says so in a `subscriptions/listen` stream (`listen`), opened for the lists
  its capabilities say change (`listChanged`) and the URIs subscribed to, and opened again
  whenever the set of subscribed URIs changes; its resource updates become the remote's too.
  A stream that ends or breaks (over HTTP, one silent for the transport's read timeout) is opened
  again after `REOPEN_FIRST` seconds (doubled, up to `REOPEN_MOST`, while it breaks at once) and
  its lists are listed again, for what changed while it was closed; one the upstream refuses is
  logged and left closed until the subscribed URIs change.
- `refresh_stale` lists what changed again, one refresh at a time, each bounded by the remote's
  `timeout` (a hung upstream cannot wedge later refreshes); a refresh that fails is logged, and
  the last known lists stay.

Example:
    >>> import anyio
    >>> from toolweave.mcp.upstream import Upstream
    >>> from toolweave.server.remote import RemoteServer
    >>> changes = Upstream(RemoteServer.stdio("github-mcp-server", ["stdio"], name="gh")).changes
    >>> anyio.run(changes.on_message, mt.ToolListChangedNotification())  # heard on the session
    >>> changes.stale  # listed again by `refresh_stale`, running while the session is up
    frozenset({'tools'})
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as mt
from mcp import ClientSession, MCPError
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import ResourceUpdated

from toolweave.mcp.upstream_components import KINDS, UpstreamComponents
from toolweave.mcp.upstream_errors import describe_failure
from toolweave.mcp.upstream_tools import UpstreamTools

if TYPE_CHECKING:
    from toolweave.server.remote import RemoteServer

logger = logging.getLogger("toolweave.upstream")
REOPEN_FIRST = 1.0
"""Seconds before a `subscriptions/listen` stream that ended or broke is opened again."""
REOPEN_MOST = 60.0
"""The longest wait before opening it again, reached while it keeps breaking at once."""
_REFUSED = (mt.METHOD_NOT_FOUND, mt.INVALID_PARAMS, mt.INVALID_REQUEST)
"""The JSON-RPC codes by which an upstream refuses the stream itself (opening it again cannot help)."""
_EVENT_KINDS = {"ToolsListChanged": "tools", "PromptsListChanged": "prompts", "ResourcesListChanged": "resources"}
_NOTIFIED: dict[type[Any], str] = {
    mt.ToolListChangedNotification: "tools",
    mt.PromptListChangedNotification: "prompts",
    mt.ResourceListChangedNotification: "resources",
}


class ListChanges:
    """Which of `remote`'s upstream lists changed, and the tasks that list them again (its
    `tools`, its prompts and resources in `components`)."""

    def __init__(self, remote: RemoteServer, tools: UpstreamTools, components: UpstreamComponents) -> None:
        self._remote = remote
        self._tools = tools
        self._components = components
        self._refresh = anyio.Event()
        self._stale: set[str] = set()

    @property
    def stale(self) -> frozenset[str]:
        """The kinds of list ("tools", "prompts", "resources") waiting to be listed again."""
        return frozenset(self._stale)

    def _changed(self, kind: str) -> None:
        self._stale.add(kind)
        self._refresh.set()

    async def refresh_stale(self, session: ClientSession) -> None:
        """List the stale kinds again over `session` as they go stale (for as long as it is up)."""
        while True:
            await self._refresh.wait()
            self._refresh = anyio.Event()
            stale, self._stale = self._stale, set()
            try:
                with anyio.fail_after(self._remote.timeout):  # a hung upstream cannot wedge later refreshes
                    if "tools" in stale:
                        await self._tools.refresh(session)
                    await self._components.refresh(session, tuple(kind for kind in KINDS if kind in stale))
            except Exception as error:
                reason = describe_failure(error)
                logger.warning(
                    "[%s] could not refresh the %s lists: %s", self._remote.name, "/".join(sorted(stale)), reason
                )

    async def on_message(self, message: Any) -> None:
        """The handler of what a session to the upstream hears unasked: notifications, transport errors."""
        kind = _NOTIFIED.get(type(message))
        if kind is not None:
            self._changed(kind)
        elif isinstance(message, mt.ResourceUpdatedNotification):
            self._remote.resource_updated(str(message.params.uri))
        elif isinstance(message, Exception):
            logger.debug("[%s] transport error: %r", self._remote.name, message)

    async def listen(self, session: ClientSession) -> None:
        """Follow a 2026-era upstream's `subscriptions/listen` stream: the lists it says changed are
        refreshed, its resource updates become the remote's; the stream is opened again whenever
        the set of subscribed URIs changes."""
        capabilities = session.server_capabilities

        def changes(kind: str) -> bool:
            return bool(getattr(getattr(capabilities, kind, None), "list_changed", False))

        flags = {"tools": changes("tools"), "prompts": changes("prompts"), "resources": changes("resources")}
        pause = REOPEN_FIRST / 2  # (doubled before the first wait)
        while True:
            uris = self._components.subscribed()
            if not (any(flags.values()) or uris):
                await self._components.subscriptions_changed()
                continue
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as tasks:

                    async def reopen() -> None:
                        await self._components.subscriptions_changed()
                        scope.cancel()

                    tasks.start_soon(reopen)
                    opened = anyio.current_time()
                    if not await self._follow(session, flags, uris):
                        await anyio.sleep_forever()  # refused: wait for a change of URIs
                    lasted = anyio.current_time() - opened
                    pause = REOPEN_FIRST if lasted > REOPEN_MOST else min(pause * 2, REOPEN_MOST)
                    await anyio.sleep(pause)
                    for kind, followed in flags.items():  # what changed while it was closed
                        if followed:
                            self._changed(kind)
                    scope.cancel()

    async def _follow(self, session: ClientSession, flags: dict[str, bool], uris: list[str]) -> bool:
        """Follow one `subscriptions/listen` stream until it ends; whether to open it again (it
        ended or broke, rather than being refused)."""
        try:
            async with listen(
                session,
                tools_list_changed=flags["tools"],
                prompts_list_changed=flags["prompts"],
                resources_list_changed=flags["resources"],
                resource_subscriptions=uris,
            ) as subscription:
                async for event in subscription:
                    kind = _EVENT_KINDS.get(type(event).__name__)
                    if kind is not None:
                        self._changed(kind)
                    elif isinstance(event, ResourceUpdated):
                        self._remote.resource_updated(str(event.uri))
        except MCPError as error:
            if error.error.code not in _REFUSED:
                logger.info("[%s] subscriptions/listen ended (%s): opened again", self._remote.name, error)
                return True
            logger.warning(
                "[%s] no list changes from the upstream: subscriptions/listen failed: %s", self._remote.name, error
            )
            return False
        except Exception as error:
            logger.info("[%s] subscriptions/listen broke (%s): opened again", self._remote.name, error)
        return True
