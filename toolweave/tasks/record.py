"""`TaskRecord`: what a server remembers about one task, as plain JSON-able data.

A record is what a `TaskStore` keeps and what `tasks/get` answers from: the task's status, its
timestamps, how long it is kept, the caller it belongs to and, once it ended, its result (a
`CallToolResult` in wire form) or its JSON-RPC error. Every field is a JSON value, so a store
that lives outside the process (Redis) can keep a record as one JSON document.

Example:
    >>> record = TaskRecord.new("local", keep=60.0, poll_interval=0.5, now=0.0)
    >>> record.status, record.terminal, len(record.task_id) >= 43
    ('working', False, True)
    >>> record.finish("completed", result={"content": []}, now=1.0).to_wire()["ttlMs"]
    61000
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


def progress_message(value: float, total: float | None, message: str | None) -> str:
    """A task's `statusMessage` for the progress its tool reported: `"1/2: compiling"`.

    Example:
        >>> progress_message(1, 2, "compiling"), progress_of("1/2: compiling")
        ('1/2: compiling', (1.0, 2.0, 'compiling'))
    """
    text = f"{value:g}/{total:g}" if total is not None else f"{value:g}"
    return f"{text}: {message}" if message else text


def progress_of(status_message: str) -> tuple[float, float | None, str | None] | None:
    """The progress a `statusMessage` made by `progress_message` reports (else `None`)."""
    count, _, message = status_message.partition(": ")
    value, _, total = count.partition("/")
    try:
        return float(value), float(total) if total else None, message or None
    except ValueError:
        return None


def new_task_id() -> str:
    """An unguessable task id (256 random bits, URL-safe): a task id is a bearer handle."""
    return secrets.token_urlsafe(32)


_TASK_ID = re.compile(r"[A-Za-z0-9_-]{43}")


def is_task_id(text: str) -> bool:
    """Whether `text` has the form of the ids `new_task_id` makes (43 URL-safe characters): any
    other text names no task and is never looked up (a store key is made of it).

    Example:
        >>> is_task_id(new_task_id()), is_task_id("generation"), is_task_id(new_task_id() + ":lease")
        (True, False, False)
    """
    return _TASK_ID.fullmatch(text) is not None


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRecord:
    """One task, as stored.

    Attributes:
        task_id: The unguessable id the client polls with.
        owner: Who may read, answer and cancel the task (`toolweave.middleware.keys.caller_key`).
        status: `working`, `input_required`, or a terminal `completed`, `failed`, `cancelled`.
        created_at: When the task was created (seconds since the epoch).
        updated_at: When its status last changed (seconds since the epoch).
        keep: How long the record is kept after its last change, in seconds.
        poll_interval: How often the client should poll, in seconds.
        status_message: What the task is doing (progress) or why it ended, for people.
        result: The final `CallToolResult` (wire form) of a `completed` task.
        error: The JSON-RPC error (wire form) of a `failed` task.
        input_requests: What an `input_required` task waits for (wire form, by key).
        tool: The tool the task runs (for logs and operators; never sent to another caller).
        worker: Which runner runs the task's work (a random id per running server).
        lease_until: Until when that runner vouches for the work (seconds since the epoch); a
            task still working past it lost its worker (see `lapsed`).
    """

    task_id: str
    owner: str
    status: TaskStatus = "working"
    created_at: float
    updated_at: float
    keep: float
    poll_interval: float
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None
    tool: str | None = None
    worker: str | None = None
    lease_until: float | None = None

    @classmethod
    def new(
        cls, owner: str, *, keep: float, poll_interval: float, tool: str | None = None, now: float | None = None
    ) -> TaskRecord:
        """A fresh `working` task for `owner`, with a new id."""
        now = time.time() if now is None else now
        return cls(
            task_id=new_task_id(),
            owner=owner,
            created_at=now,
            updated_at=now,
            keep=keep,
            poll_interval=poll_interval,
            tool=tool,
        )

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (`completed`, `failed` or `cancelled`)."""
        return self.status in TERMINAL

    def lapsed(self, now: float | None = None) -> bool:
        """Whether the task is unfinished but its worker stopped renewing its lease (it died)."""
        now = time.time() if now is None else now
        return not self.terminal and self.lease_until is not None and self.lease_until < now

    @property
    def expires_at(self) -> float:
        """When the record may be discarded (seconds since the epoch)."""
        return self.updated_at + self.keep

    def changed(self, now: float | None = None, **changes: Any) -> TaskRecord:
        """A copy with `changes`, stamped as updated at `now`."""
        return dataclasses.replace(self, updated_at=time.time() if now is None else now, **changes)

    def finish(self, status: TaskStatus, *, now: float | None = None, **changes: Any) -> TaskRecord:
        """The record of the task ended with `status` (no input outstanding any more)."""
        return self.changed(now, status=status, input_requests=None, **changes)

    def to_wire(self) -> dict[str, Any]:
        """The task as `tasks/get` answers it: the `Task` fields and the payload of its status."""
        wire: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.updated_at),
            "ttlMs": round((self.expires_at - self.created_at) * 1000),
            "pollIntervalMs": round(self.poll_interval * 1000),
        }
        if self.status_message is not None:
            wire["statusMessage"] = self.status_message
        if self.status == "completed":
            wire["result"] = self.result or {"content": []}
        elif self.status == "failed":
            wire["error"] = self.error or {"code": -32603, "message": "Internal error"}
        elif self.status == "input_required":
            wire["inputRequests"] = self.input_requests or {}
        return wire

    def to_dict(self) -> dict[str, Any]:
        """The record as one JSON object (what a store outside the process keeps)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskRecord:
        """The record `to_dict` produced."""
        return cls(**data)
