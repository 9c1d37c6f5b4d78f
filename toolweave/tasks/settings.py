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
    """

    store: TaskStore = field(default_factory=MemoryTaskStore)
    keep: float = 3600.0
    poll_interval: float = 0.5
    input_timeout: float | None = None
    lease: float = 30.0
    answer_within: float = 0.0

    def __post_init__(self) -> None:
        for name in ("keep", "poll_interval", "lease", "input_timeout"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"TaskSettings.{name} must be a positive number of seconds, not {value!r}")
        if not self.answer_within >= 0:
            raise ValueError(f"TaskSettings.answer_within must be 0 or more seconds, not {self.answer_within!r}")
        if not isinstance(self.store, TaskStore):
            raise TypeError(f"TaskSettings.store must have async put() and get(), not {type(self.store).__name__}")
