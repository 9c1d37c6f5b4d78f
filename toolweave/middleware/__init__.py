"""Middleware: the base class, selectors, and the built-ins (one per module).

Example:
    >>> from toolweave import Server
    >>> from toolweave.middleware import Logging, Progress, Timeout
    >>> server = Server("demo", middleware=[Logging(), Timeout(default=30), Progress(max_rate=5)])
    >>> [layer.name for layer in server.middleware]
    ['Logging', 'Timeout', 'Progress']
"""

from toolweave.middleware.base import CallNext, FunctionMiddleware, Middleware, ToolCall, middleware
from toolweave.middleware.cache import Cache
from toolweave.middleware.circuit import CircuitBreaker
from toolweave.middleware.concurrency import ConcurrencyLimit
from toolweave.middleware.hooks import GetPromptNext, PromptCall, ReadResourceNext, ResourceRead
from toolweave.middleware.log import Logging
from toolweave.middleware.progress import Progress
from toolweave.middleware.ratelimit import RateLimit
from toolweave.middleware.retry import Retry
from toolweave.middleware.selector import Selector
from toolweave.middleware.timeout import Timeout

__all__ = [
    "Cache",
    "CallNext",
    "CircuitBreaker",
    "ConcurrencyLimit",
    "FunctionMiddleware",
    "GetPromptNext",
    "Logging",
    "Middleware",
    "Progress",
    "PromptCall",
    "RateLimit",
    "ReadResourceNext",
    "ResourceRead",
    "Retry",
    "Selector",
    "Timeout",
    "ToolCall",
    "middleware",
]
