"""Requests about one component that go to the server owning it: completion, resource subscriptions.

A prompt or resource template a server exposes may come from a mount (at any depth) or, in a
`RemoteServer`, from its upstream. `owner` finds the mounted child that exposes it and the name
(or URI) it has there, so the request reaches the server that knows the component:

- `completion/complete` for a mounted prompt or template is answered by the child (a remote
  child asks its upstream); a server's own completer answers for its own components, and for
  mounted ones whose owner has nothing to suggest; one the server hides (`disable`) is not
  routed, nor is a subscription to a resource it hides;
- `resources/subscribe` for a resource a remote server serves, at any depth of mounts, subscribes
  at its upstream; the remote is found by following the entry `resources/read` finds down the
  mounts it came through, so a subscription reaches exactly what a read reads (never a resource a
  server on the way hides), and its unsubscribe goes where it went (`Subscriptions`). A local
  child's `resource_updated(uri)` reaches the parent's clients under the parent's URI whatever is
  subscribed (see `Mount.follow_updates`).

Example:
    >>> from toolweave import Server
    >>> child, parent = Server("child"), Server("parent")
    >>> @child.prompt
    ... def greet(name: str) -> str:
    ...     return f"Hello {name}"
    >>> _ = parent.mount(child, prefix="kid")
    >>> found = owner(parent, "prompt", "kid_greet")
    >>> found[0] is child, found[1]
    (True, 'greet')
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

from toolweave.core.errors import ToolweaveError
from toolweave.server.completion import Completion, CompletionRequest, complete
from toolweave.server.uri_prefix import UriPrefix

if TYPE_CHECKING:
    from toolweave.server.server import Server

Kind = Literal["prompt", "resource"]


def owner(server: Server, kind: Kind, name: str) -> tuple[Server, str] | None:
    """The mounted child of `server` exposing the prompt (or resource/template URI) `name`, and
    its name there; None when `server` has it itself, or does not expose it (disabled, or no
    mount exposes it: its child is not asked about what its clients cannot see). A resource's
    child is the one the entry `resources/read` finds (`_serving`) came from."""
    if kind == "resource":
        key = _serving(server, name)
        hop = None if key is None else _next_hop(server, name, key)
        return None if hop is None else (hop[0], hop[1])
    if name in server.prompts.local or name in server.prompts.upstream or name not in server.prompts.catalog.entries:
        return None
    for mounted in server.mounts:
        child_name = _unprefixed(name, mounted.prefix, mounted.rename.separator)
        if child_name is not None and child_name in mounted.child.prompts.catalog.entries:
            return mounted.child, child_name
    return None


def _serving(server: Server, uri: str) -> str | None:
    """The key (URI or URI template) of the entry of `server` that serves `uri`, or `None`: the
    entry `resources/read` resolves, or the template `uri` names by its own text (a completion's
    reference); a hidden resource is never it."""
    catalog = server.resources.catalog
    if uri in catalog.entries:
        return uri
    try:
        return catalog.resolve(uri)[0].component.uri
    except (ToolweaveError, ValueError):
        return None


def _remote_owner(server: Server, uri: str) -> tuple[Server, str] | None:
    """The remote server, at any depth of mounts, whose own resource or template serves `uri` as
    `server` reads it, and the URI there; `None` when a local server's serves it, or nothing.

    Each step follows the entry found in `server` down the mount it came through, by its key:
    the child is not asked to look `uri` up again, as it could find a resource `server` hides."""
    key = _serving(server, uri)
    while key is not None and (hop := _next_hop(server, uri, key)) is not None:
        server, uri, key = hop
    return (server, uri) if key is not None and server.is_remote else None


def _next_hop(server: Server, uri: str, key: str) -> tuple[Server, str, str] | None:
    """The mounted child through which the resource or template `key` of `server` came, with the
    child's `uri` and `key`; `None` when it is `server`'s own."""
    registry = server.resources
    if key in registry.local or key in registry.upstream:
        return None
    for mounted in server.mounts:
        child_key = _child_uri(mounted.uris, key)
        if child_key is not None and child_key in mounted.child.resources.catalog.entries:
            return mounted.child, mounted.uris.strip(uri), child_key
    return None


async def complete_at_owner(server: Server, request: CompletionRequest) -> Completion:
    """`server`'s suggestions for `request` (`Server.complete`): the mounted child's that owns the
    prompt or template, else — or when it suggests nothing — those of `server`'s own completer."""
    found = owner(server, request.kind, request.name)
    if found is not None:
        child, name = found
        completed = await child.complete(dataclasses.replace(request, name=name))
        if completed.values or server.completer is None:
            return completed
    return await complete(server.completer, request)


class Subscriptions:
    """Where `server`'s subscriptions were made (`Server.subscribe_resource`): the remote server
    that owns each subscribed URI, at any depth of mounts, and the URI there. An unsubscribe goes
    where its subscribe went, even when the resource was hidden, or left its upstream's list,
    meanwhile: the upstream would otherwise keep the subscription for good.

    A local owner needs no subscription: its `resource_updated` reaches its parents whatever is
    subscribed."""

    def __init__(self, server: Server) -> None:
        self._server = server
        self._made: dict[str, list[tuple[Server, str]]] = {}

    async def subscribe(self, uri: str) -> None:
        """Subscribe at the remote server that owns `uri`, if any."""
        found = _remote_owner(self._server, uri)
        if found is not None:
            self._made.setdefault(uri, []).append(found)
            remote, remote_uri = found
            await remote.subscribe_resource(remote_uri)

    async def unsubscribe(self, uri: str) -> None:
        """Undo the latest `subscribe(uri)` that reached a remote server, at that server."""
        made = self._made.get(uri)
        if not made:
            return
        remote, remote_uri = made.pop()
        if not made:
            del self._made[uri]
        await remote.unsubscribe_resource(remote_uri)


def _child_uri(uris: UriPrefix, uri: str) -> str | None:
    """The child's URI for `uri`, or `None` when `uri` is not under the mount's prefix (another
    mount's child may serve `uri` as it is, by a template: it does not own it)."""
    try:
        return uris.under(uri)
    except ValueError:  # not a URI (only split when there is a prefix): nothing is under it
        return None


def _unprefixed(name: str, prefix: str | None, separator: str) -> str | None:
    if prefix is None:
        return name
    head = f"{prefix}{separator}"
    return name[len(head) :] if name.startswith(head) else None
