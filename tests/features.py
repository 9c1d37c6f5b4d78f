"""Which features from other branches this checkout has (for `skipif` on tests that need them)."""

from __future__ import annotations

import importlib


def has(module: str, *names: str) -> bool:
    """Whether `module` imports and defines every one of `names`."""
    try:
        found = importlib.import_module(module)
    except ImportError:
        return False
    return all(hasattr(found, name) for name in names)


TRANSFORMS = has(
    "toolweave.transforms",
    "Rename",
    "TransformArgs",
    "Arg",
    "ExcludeArgs",
    "InjectArgs",
    "FromEnv",
    "FromClaim",
    "FromHeader",
    "FromContext",
    "Annotate",
    "MaskErrors",
)
MIDDLEWARE = has(
    "toolweave.middleware",
    "Logging",
    "Timeout",
    "Progress",
    "Retry",
    "RateLimit",
    "ConcurrencyLimit",
    "CircuitBreaker",
    "Cache",
)
REMOTE = has("toolweave.server.remote", "RemoteServer")
IMPORT_TOOLS = has("toolweave.server.server", "Server") and hasattr(
    importlib.import_module("toolweave.server.server").Server, "import_tools"
)
PROMPTS = hasattr(importlib.import_module("toolweave.server.server").Server, "prompt")

NEEDS_TRANSFORMS = "needs the transforms branch (toolweave.transforms); lands when merged"
NEEDS_MIDDLEWARE = "needs the middleware branch (built-in middleware); lands when merged"
NEEDS_REMOTE = "needs the compose branch (toolweave.server.remote.RemoteServer); lands when merged"
NEEDS_IMPORT_TOOLS = "needs the compose branch (Server.import_tools); lands when merged"
NEEDS_PROMPTS = "needs the prompts branch (@server.prompt / list_prompts); lands when merged"
