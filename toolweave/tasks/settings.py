"""`TaskSettings`: how a server keeps and runs its tasks (`configure_tasks` sets them).

Example:
    >>> TaskSettings(keep=600).keep
    600
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolweave.tasks.store import MemoryTaskStore, TaskStore


@dataclass(frozen=True, slots=True)
class TaskSettings:
    """How a server keeps and runs its tasks.

    Attributes:
        store: Where task records live (in memory by default).
        keep: Seconds a task's record is kept after its last change (its result's time to live).
        poll_interval: Seconds between polls the client is asked to keep to.
        input_timeout: Seconds an `input_required` task waits for its answers before it fails;
            `None`: as long as `keep`.
        lease: Seconds a running task's record stays vouched for without a renewal (renewed every
            third of it); past it, the task is taken for lost and ends `failed`.
        answer_within: Seconds a call may take to end, or to ask for input on its first round,
            and be answered as a plain call (no task, or input asked before any task exists);
            0 (the default): every call is a task at once.
        max_per_caller: The most task records one caller (the owner `tasks/get` answers to) may
            hold in the store: at that many, creating a task drops the caller's records that
            ended first; when all of them are still running, the call is refused (an `isError`
            result saying so). Enforced by stores that offer `create` (both built-in ones do).
    """

    store: TaskStore = field(default_factory=MemoryTaskStore)
    keep: float = 3600.0
    poll_interval: float = 0.5
    input_timeout: float | None = None
    lease: float = 30.0
    answer_within: float = 0.0
    max_per_caller: int = 1000

    def __post_init__(self) -> None:
        for name in ("keep", "poll_interval", "lease", "input_timeout"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"TaskSettings.{name} must be a positive number of seconds, not {value!r}")
        if not self.answer_within >= 0:
            raise ValueError(f"TaskSettings.answer_within must be 0 or more seconds, not {self.answer_within!r}")
        if isinstance(self.max_per_caller, bool) or not isinstance(self.max_per_caller, int) or self.max_per_caller < 1:
            raise ValueError(f"TaskSettings.max_per_caller must be a whole number >= 1, not {self.max_per_caller!r}")
        if not isinstance(self.store, TaskStore):
            raise TypeError(f"TaskSettings.store must have async put() and get(), not {type(self.store).__name__}")
