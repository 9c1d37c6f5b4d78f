"""Requests about one component that go to the server owning it: completion, resource subscriptions.

A prompt or resource template a server exposes may come from a mount (at any depth) or, in a
`RemoteServer`, from its upstream. `owner` finds the mounted child that exposes it and the name
(or URI) it has there, so the request reaches the server that knows the component:

- `completion/complete` for a mounted prompt or template is answered by the child (a remote
  child asks its upstream); a server's own completer answers for its own components, and for
  mounted ones whose owner has nothing to suggest; one the server hides (`disable`) is not
  routed, nor is a subscription to a resource it hides;
- `resources/subscribe` for a mounted resource subscribes at the child (a remote child subscribes
  at its upstream), and the child's `resource_updated(uri)` reaches the parent's clients under the
  parent's URI (see `Mount.follow_updates`).

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
    mount exposes it: its child is not asked about what its clients cannot see)."""
    registry = server.prompts if kind == "prompt" else server.resources
    if name in registry.local or name in registry.upstream:
        return None
    if not (name in registry.catalog.entries if kind == "prompt" else _exposes(server, name)):
        return None
    for mounted in server.mounts:
        if kind == "prompt":
            child_name = _unprefixed(name, mounted.prefix, mounted.rename.separator)
            if child_name is not None and child_name in mounted.child.prompts.catalog.entries:
                return mounted.child, child_name
        elif (child_uri := _child_uri(mounted.uris, name)) is not None and _exposes(mounted.child, child_uri):
            return mounted.child, child_uri
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


async def subscribe_at_owner(server: Server, uri: str, *, subscribe: bool = True) -> None:
    """Subscribe (`subscribe=False`: unsubscribe) to the resource `uri` at the mounted child of
    `server` that owns it, if any (`Server.subscribe_resource`)."""
    found = owner(server, "resource", uri)
    if found is not None:
        child, child_uri = found
        await (child.subscribe_resource if subscribe else child.unsubscribe_resource)(child_uri)


def _child_uri(uris: UriPrefix, uri: str) -> str | None:
    """The child's URI for `uri`, or `None` when `uri` is not under the mount's prefix (another
    mount's child may serve `uri` as it is, by a template: it does not own it)."""
    try:
        return uris.under(uri)
    except ValueError:  # not a URI (only split when there is a prefix): nothing is under it
        return None


def _exposes(child: Server, uri: str) -> bool:
    """Whether `child` lists the resource or template `uri`, or reads `uri` through a template."""
    catalog = child.resources.catalog
    if uri in catalog.entries:
        return True
    try:
        catalog.resolve(uri)
    except (ToolweaveError, ValueError):
        return False
    return True


def _unprefixed(name: str, prefix: str | None, separator: str) -> str | None:
    if prefix is None:
        return name
    head = f"{prefix}{separator}"
    return name[len(head) :] if name.startswith(head) else None
