"""`InFlight`: how many requests are under way through something, and a wait until none is.

What is closed only once its requests have their answers (an API's HTTP client replaced by a
live reload, an upstream's session at shutdown) counts them with it.

Example:
    >>> import anyio
    >>> async def demo() -> list[str]:
    ...     in_flight, seen = InFlight(), []
    ...     async def request() -> None:
    ...         with in_flight:
    ...             await anyio.sleep(0.01)
    ...             seen.append("answered")
    ...     async with anyio.create_task_group() as tasks:
    ...         tasks.start_soon(request)
    ...         await anyio.sleep(0)
    ...         await in_flight.settled()
    ...         seen.append("settled")
    ...     return seen
    >>> anyio.run(demo)
    ['answered', 'settled']
"""

from __future__ import annotations

import anyio


class InFlight:
    """The requests under way: each runs inside `with in_flight:`; `settled()` waits until none is."""

    __slots__ = ("_settled", "count")

    def __init__(self) -> None:
        self.count = 0
        self._settled: anyio.Event | None = None

    def __enter__(self) -> None:
        self.count += 1

    def __exit__(self, *exc: object) -> None:
        self.count -= 1
        if not self.count and self._settled is not None:
            self._settled.set()

    async def settled(self) -> None:
        """Wait until no request is under way."""
        while self.count:
            self._settled = anyio.Event()
            await self._settled.wait()
