"""`Upkeep`: how a task runner keeps the records of its running tasks in the store.

- Every third of a lease the runner writes each running task's record again, its lease extended
  (`renew`). The whole record is written, so a store that lost it gets it back; after a round
  that could not save, the next one comes within a second, so records are back soon after the
  store. `renew_soon()` asks for a round at once.
- Saves that fail for a store outage are logged once, saying why, not once per save and without a
  traceback; and once more when a save works again (`failed`, `saved`). Any other failure is a
  bug to see: logged with its traceback, every time.
- A store may say when it found it had lost its records (`emptied_at()`: `RedisTaskStore`, after
  Redis restarted empty or was flushed). For one lease after that, `restoring()` is true: a task
  the store lacks may still be running, its record not written again yet (every runner has
  renewed within a lease). A loss not seen before asks for a round at once.

Example:
    >>> from toolweave.tasks.settings import TaskSettings
    >>> Upkeep(TaskSettings()).restoring()  # (memory cannot lose its records)
    False
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import anyio

from toolweave.store.base import StoreUnavailable, reason_of
from toolweave.tasks.settings import TaskSettings

logger = logging.getLogger("toolweave.tasks")
_RETRY_SECONDS = 1.0


class Upkeep:
    """Keeps a runner's records in its store (see the module docstring)."""

    def __init__(self, settings: TaskSettings) -> None:
        self.settings = settings
        self._emptied_at: Callable[[], float | None] | None = getattr(settings.store, "emptied_at", None)
        self._restored_after: float | None = None  # the loss this runner last wrote its records again for
        self._renew_now: anyio.Event | None = None
        self._unsaved = False  # saves fail (an outage, logged once)

    async def renew(self, renewal: Callable[[float], Awaitable[bool]]) -> None:
        """Call `renewal(lease_until)` (write every running task's record with that lease; whether
        all were saved) every third of a lease, or sooner (see the module docstring), until
        cancelled. First the store notes its state, if it can (`open()`)."""
        opening = getattr(self.settings.store, "open", None)
        if opening is not None:
            with contextlib.suppress(Exception):  # an outage: the store logs it; noticed at the next use
                await opening()
        third = self.settings.lease / 3
        pause, self._renew_now = third, anyio.Event()
        while True:
            with anyio.move_on_after(pause):
                await self._renew_now.wait()
            self._renew_now = anyio.Event()  # (asked again during this round: one more round)
            saved = await renewal(time.time() + self.settings.lease)
            pause = third if saved else min(third, _RETRY_SECONDS)

    def renew_soon(self) -> None:
        """Ask for a round of renewals at once (a replica found a record missing)."""
        if self._renew_now is not None:
            self._renew_now.set()

    def restoring(self) -> bool:
        """Whether the store lost its records less than a lease ago (a loss not seen before asks
        for a round of renewals at once)."""
        emptied = self._emptied_at() if self._emptied_at is not None else None
        if emptied is None:
            return False
        if emptied != self._restored_after:
            self._restored_after = emptied
            logger.warning(
                "the task store lost its records: for %gs a task it lacks is answered 'try again shortly'"
                " while the replicas write those of their running tasks again",
                self.settings.lease,
            )
            self.renew_soon()
        return time.monotonic() - emptied < self.settings.lease

    def failed(self, error: Exception) -> None:
        """A save failed. A store outage (`StoreUnavailable`, a lost connection) is logged at its
        first failed save, saying why (no traceback); anything else (a store's bug, a record it
        cannot take) with its traceback, every time."""
        if not isinstance(error, StoreUnavailable | OSError):
            logger.error("could not save a task record", exc_info=error)
            return
        if not self._unsaved:
            self._unsaved = True
            cause = error.__cause__ if isinstance(error, StoreUnavailable) and error.__cause__ else error
            logger.warning(
                "could not save task records (%s): the tasks go on; saved again once the store takes them",
                reason_of(cause),
            )

    def saved(self) -> None:
        """A save worked: the end of an outage is logged; a write may be what finds the store emptied."""
        if self._unsaved:
            self._unsaved = False
            logger.warning("task records are saved again")
        self.restoring()
