"""Keeping the garbage collector off a large catalog: `gc.freeze()` after bulk registration.

Registering thousands of components allocates objects that live as long as the server (tools,
schemas, validators, wire forms). CPython's cyclic collector looks at every one of them again in
each full collection, and a burst of registrations triggers several: on a 10,000-tool server
they took a third of the start-up time. So a registry counts the registrations since it last
compiled (`Burst`): every `FREEZE_EVERY` of them, and when that burst (or the first build) ends
in a catalog that large, toolweave collects the young generations and moves what the process
holds into the collector's permanent generation (`gc.freeze()`), where full collections no
longer look.

This changes the process-wide collector, as `gc.freeze()` does, and only for large bursts: a
server that registers fewer components at a time never freezes anything. What is frozen is
still freed by reference counting when it is no longer used; only a reference cycle among
frozen objects is never collected (`gc.unfreeze()` hands them back). The collector itself stays
enabled throughout.

Example:
    >>> burst = Burst()
    >>> burst.registered()  # one registration: nothing happens below FREEZE_EVERY
    False
"""

from __future__ import annotations

import gc

FREEZE_EVERY = 1000
"""Registrations in one burst between two freezes; and the catalog size that freezes when built."""


class Burst:
    """The registrations of one registry since its catalog was last compiled."""

    __slots__ = ("built", "pending")

    def __init__(self) -> None:
        self.pending = 0
        self.built = False

    def registered(self, count: int = 1) -> bool:
        """Note `count` registrations; freeze the heap (True) each time the burst passes a multiple
        of `FREEZE_EVERY`."""
        before, self.pending = self.pending, self.pending + count
        if before // FREEZE_EVERY == self.pending // FREEZE_EVERY:
            return False
        freeze()
        return True

    def compiled(self, size: int) -> bool:
        """The catalog was compiled with `size` entries: freeze it (True) if a large burst or the
        first build made it; the burst ends."""
        large = size >= FREEZE_EVERY and (not self.built or self.pending >= FREEZE_EVERY)
        self.pending, self.built = 0, True
        if large:
            freeze()
        return large


def freeze() -> None:
    """Collect the young generations (their garbage must not be frozen), then `gc.freeze()`."""
    if gc.isenabled():
        gc.collect(1)
    gc.freeze()
