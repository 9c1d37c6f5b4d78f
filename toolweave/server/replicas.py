"""`Replicas`: what one server shares with its replicas through a shared store.

Replicas of a server (processes serving the same server, one `store=` between them) share the
state of its middleware (rate limits, caches, circuits) under the server's *scope*, and tell each
other about `enable`, `disable` and `broadcast_changed` on the server's channel (a
`toolweave.store.Fanout`): every other replica applies the change to its own server, whose clients
then get `list_changed`.

- **Scope**: the server's name; a mounted server's is its place under the server it is mounted
  in (`gateway/billing/billing`, see `toolweave.server.mounting`), so two gateways
  sharing one store, each mounting a server of the same name, share nothing.
- **Stand-in**: a server served by a stand-in (`Server.stand_in_for`, e.g. a `LiveServer` for each
  build of its file) keeps the scope it has alone, and announces nothing: its stand-in does.

Example:
    >>> from toolweave.store import Store
    >>> replicas = Replicas(Store(), "gateway")   # the in-process store: nobody to tell
    >>> replicas.scope, replicas.layer_scope(0), replicas.fanout is None
    ('gateway', 'gateway:0', True)
    >>> replicas.announce("disable", ["search"])  # nothing to do, nothing raised
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from anyio.abc import TaskGroup

from toolweave.server.visibility import Visibility
from toolweave.store import Store
from toolweave.store.fanout import Fanout
from toolweave.store.lifespan import hold_store


class Replicas:
    """One server's link to its replicas: the scope of its shared state, and its channel.

    Args:
        store: The server's store (shared, or this process's only).
        name: The server's name: its first scope, and the name of its channel.
    """

    __slots__ = ("fanout", "scope", "stood_in_for", "store")

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.scope = name
        """What names the server's state in a shared store (its place under its mounts)."""
        self.fanout: Fanout | None = store.fanout(name)
        """The channel the server's changes are announced on (`None`: nobody to tell)."""
        self.stood_in_for = False
        """Served by a stand-in (`Server.stand_in_for`): the names and the channel are the stand-in's."""

    def layer_scope(self, position: int) -> str:
        """The scope of the server's middleware at `position` (outermost first)."""
        return f"{self.scope}:{position}"

    def rescope(self, scope: str, *, running: bool) -> None:
        """Name the server's shared state `scope`; its channel follows unless the server is `running`
        (the channel it listens on is kept until it stops)."""
        self.scope = scope
        if not running:
            self.fanout = self.store.fanout(scope)

    def stand_in(self) -> None:
        """Leave the scope and the channel to a stand-in (`Server.stand_in_for`)."""
        self.stood_in_for = True
        self.fanout = None

    def announce(self, op: str, names: Iterable[str] = (), tags: Iterable[str] = ()) -> None:
        """Tell the other replicas `op` (`"enable"`, `"disable"` of `names` and `tags`, or `"changed"`)."""
        if self.fanout is not None:
            self.fanout.announce({"op": op, "names": list(names), "tags": list(tags)})

    async def follow(self, tasks: TaskGroup, visibility: Visibility, changed: Callable[[], None]) -> None:
        """While `tasks` runs, apply what the other replicas announce to `visibility`, then call
        `changed()` (a shared store only; never announced again)."""
        if self.store.shared:
            await tasks.start(hold_store, self.store, self.fanout, partial(_apply, visibility, changed))


def _apply(visibility: Visibility, changed: Callable[[], None], message: dict[str, Any]) -> None:
    """Apply what another replica announced."""
    names, tags = message.get("names") or [], message.get("tags") or []
    if not all(isinstance(value, list) and all(isinstance(item, str) for item in value) for value in (names, tags)):
        raise TypeError("names and tags must be lists of strings")  # a string would be read letter by letter
    if message.get("op") == "disable":
        visibility.disable(names, tags)
    elif message.get("op") == "enable":
        visibility.enable(names, tags)
    changed()
