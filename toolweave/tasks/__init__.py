"""Long-running tool calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension).

A tool says how it relates to tasks (`task_support="none" | "optional" | "required"`, set with
`@server.tool(task_support=...)`, the `RunAsTask` transform or a config file); a served server
answers a call to such a tool from a client that accepts tasks with a task at once and runs the
call in the background (`toolweave.tasks.serving`). `TaskStore` is where task records live
(`MemoryTaskStore` by default, `RedisTaskStore` when the server's store is Redis);
`TasksExtension` lets an `mcp.Client` call tools that answer with tasks.

Example:
    >>> from toolweave import Server
    >>> server = Server("ci")
    >>> @server.tool(task_support="optional")
    ... async def build(ref: str) -> str:
    ...     return f"built {ref}"
    >>> server.catalog.get("build").tool.task_support
    'optional'
"""

from toolweave.tasks.client import TasksExtension
from toolweave.tasks.record import TaskRecord, TaskStatus
from toolweave.tasks.redis_store import RedisTaskStore
from toolweave.tasks.serving import EXTENSION, configure_tasks, tasks_settings
from toolweave.tasks.settings import TaskSettings
from toolweave.tasks.store import MemoryTaskStore, TaskStore
from toolweave.tasks.transform import RunAsTask

__all__ = [
    "EXTENSION",
    "MemoryTaskStore",
    "RedisTaskStore",
    "RunAsTask",
    "TaskRecord",
    "TaskSettings",
    "TaskStatus",
    "TaskStore",
    "TasksExtension",
    "configure_tasks",
    "tasks_settings",
]
