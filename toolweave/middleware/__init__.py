"""Middleware: the base class, selectors, and the built-ins (one per module)."""

from toolweave.middleware.base import CallNext, FunctionMiddleware, Middleware, ToolCall, middleware
from toolweave.middleware.hooks import GetPromptNext, PromptCall, ReadResourceNext, ResourceRead
from toolweave.middleware.selector import Selector

__all__ = [
    "CallNext",
    "FunctionMiddleware",
    "GetPromptNext",
    "Middleware",
    "PromptCall",
    "ReadResourceNext",
    "ResourceRead",
    "Selector",
    "ToolCall",
    "middleware",
]
