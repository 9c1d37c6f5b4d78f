"""`WaitingInput`: input asked for on behalf of a task that runs elsewhere and waits for it.

A gateway whose upstream's task turns `input_required` asks its own client for that input by
raising `InputRequired`; the upstream's task waits meanwhile. `WaitingInput` is that
`InputRequired` plus `abandon()`, which gives the waiting task up (`tasks/cancel` upstream, best
effort, bounded). Whoever would resume the call with the answers and will not — a gateway task
cancelled, or ended by its input timeout or a shutdown, between two rounds — calls it, so the
upstream's task does not wait out its own input timeout.

Example:
    >>> from toolweave import elicit
    >>> async def give_up() -> None: ...
    >>> waiting = WaitingInput({"who": elicit("Who?", {"type": "object"})}, state="s", abandon=give_up)
    >>> isinstance(waiting, InputRequired), waiting.state
    (True, 's')
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from toolweave.core.errors import InputRequired
from toolweave.core.input import InputRequest


class WaitingInput(InputRequired):
    """`InputRequired` for a task elsewhere that waits for the answers; `abandon()` gives it up."""

    def __init__(
        self, requests: Mapping[str, InputRequest], *, state: str | None, abandon: Callable[[], Awaitable[None]]
    ) -> None:
        super().__init__(requests, state=state)
        self.abandon = abandon


async def give_up(needed: InputRequired) -> None:
    """Give up what waits elsewhere for the answers to `needed` (an upstream's task), if anything:
    best effort, bounded and shielded by `WaitingInput.abandon` itself."""
    if isinstance(needed, WaitingInput):
        await needed.abandon()
