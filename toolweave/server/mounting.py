"""`Mounts`: the servers one server takes in — mounted (live) and imported from (once).

`Server.mount`, `import_tools` and `unmount` land here. Both kinds of child are the server's
`children()`, started and stopped with it. Taking a child in:

- refuses a cycle (a server containing itself), naming the chain of servers;
- names the child's shared state under the parent's (see `toolweave.server.replicas`),
  unless a stand-in holds it;
- compiles the parent's catalog at once, so a clash, or a transform that does not fit one of the
  child's tools, is refused by the `mount` itself (the parent left as it was), not by a request;
- bumps the `Topology` version, so an in-process use finds again whether a remote is held.

Example:
    >>> from toolweave import Server
    >>> billing, gateway = Server("billing"), Server("gateway")
    >>> _ = gateway.mount(billing, prefix="billing")
    >>> billing.mount(gateway)
    Traceback (most recent call last):
        ...
    ValueError: cannot mount server 'gateway' into 'billing': it would contain itself (... -> 'billing')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from toolweave.core.errors import DuplicateError
from toolweave.core.tool import Tool
from toolweave.server.lifespan import Lifespan, Topology
from toolweave.server.mount import Mount

if TYPE_CHECKING:
    from toolweave.server.server import Server


class Mounts:
    """The servers one server takes in: mounted (live, in the order added) and imported from.

    Args:
        parent: The server taking them in.
        life: Its lifespan, which starts and stops them with it.
        all_changed: Tells the listeners of every kind that the parent's components changed.
    """

    def __init__(self, parent: Server, life: Lifespan, all_changed: Callable[[], None]) -> None:
        self.parent = parent
        self.live: list[Mount[Server]] = []
        self.imported_from: list[Server] = []
        self._life = life
        self._all_changed = all_changed

    def children(self) -> list[Server]:
        """The mounted servers, then the imported-from ones not mounted too."""
        children = [mounted.child for mounted in self.live]
        return children + [child for child in self.imported_from if child not in children]

    def mount(self, mounted: Mount[Server]) -> Mount[Server]:
        """Follow `mounted` (see `Server.mount`); nothing is kept if the parent's catalog refuses it."""
        parent, child = self.parent, mounted.child
        _refuse_cycle(parent, child)
        if mounted.prefix is not None:
            child.named_by_mount(mounted.prefix)
        if parent.store.shared and not child.replicas.stood_in_for:
            _share_scope(child, parent.replicas.scope, mounted.prefix)
        Topology.changed()
        self.live.append(mounted)
        parent.changed()
        try:  # report clashes, and transforms that do not fit the child's tools, now: not at the first request
            parent.tools.keep(parent.tools.fit())
            parent.catalog  # noqa: B018
        except Exception:
            self.live.remove(mounted)
            parent.changed()
            raise
        mounted.follow("tool", parent.changed)
        mounted.follow("prompt", parent.prompts.changed)
        mounted.follow("resource", parent.resources.changed)
        mounted.follow("resource", parent.tools.invalidate)  # whether results' links are renamed
        mounted.follow("resource", parent.prompts.invalidate)  # depends on the child's resources
        mounted.follow_updates(parent.resource_updated)
        parent.prompts.changed()
        parent.resources.changed()
        self._life.start(child)
        return mounted

    def import_tools(self, child: Server, prefix: str | None, separator: str) -> list[Tool]:
        """Copy `child`'s current tools into the parent (see `Server.import_tools`)."""
        parent = self.parent
        _refuse_cycle(parent, child)
        renaming = Mount(child, prefix=prefix, separator=separator)
        copies = [parent.tools.exposed(entry, renaming) for entry in child.catalog.entries.values()]
        local = parent.tools.local
        taken = [tool.name for tool in copies if tool.name in local]
        if taken and parent.on_duplicate == "error":
            raise DuplicateError(
                f"server {parent.name!r} already has tools named {taken}; importing them from "
                f"server {child.name!r} would replace them"
            )
        for tool in copies if parent.transforms else ():
            parent.tools.prepared(tool)  # (a transform that does not fit one: refused before any is added)
        for tool in copies:
            parent.tools.add(tool, against_mounts=False)
        parent.tools.refuse_mount_clashes([tool.name for tool in copies])  # one compile for them all
        if child not in self.imported_from:
            Topology.changed()
            self.imported_from.append(child)
        return copies

    def unmount(self, mounted: Mount[Server]) -> None:
        """Stop following `mounted`, and stop its child unless another mount holds it too;
        `ValueError` if it is not one of the parent's mounts (unmounted already, or another's)."""
        if mounted not in self.live:
            raise ValueError(f"{mounted!r} is not mounted on server {self.parent.name!r}")
        Topology.changed()
        self.live.remove(mounted)
        mounted.close()
        self._all_changed()
        if all(other.child is not mounted.child for other in self.live):
            self._life.stop(mounted.child)


def _refuse_cycle(parent: Server, child: Server) -> None:
    """`ValueError` if taking `child` into `parent` would make `parent` contain itself."""
    found = _path(child, parent)
    if found is not None:
        chain = " -> ".join(repr(server.name) for server in [parent, *found])
        raise ValueError(f"cannot mount server {child.name!r} into {parent.name!r}: it would contain itself ({chain})")


def _path(start: Server, target: Server) -> list[Server] | None:
    """The chain of mounts (and imports) from `start` down to `target`, both included, if any."""
    if start is target:
        return [start]
    for child in start.children():
        below = _path(child, target)
        if below is not None:
            return [start, *below]
    return None


def _share_scope(server: Server, parent: str, prefix: str | None) -> None:
    """Scope `server`'s shared state under `parent` (it is mounted there, under `prefix`)."""
    if server.store.shared:
        _scope_under(server, "/".join(part for part in (parent, prefix, server.name) if part))


def _scope_under(server: Server, scope: str) -> None:
    """Name `server`'s shared state `scope` (its place under the server it is mounted in), and that
    of the servers mounted in it below it, so two gateways sharing one store, each mounting a
    server of the same name, share nothing."""
    server.replicas.rescope(scope, running=server.running)
    for position, layer in enumerate(server.middleware):
        layer.use_store(server.store, server.replicas.layer_scope(position))
    for mounted in server.mounts:
        _share_scope(mounted.child, scope, mounted.prefix)
    server.changed()
