"""What `@server.prompt` and `@server.resource(...)` return: the function, still itself.

Like `@server.tool`, they return a wrapt proxy of the original function — calling it,
`inspect.signature`, `__name__` and `__doc__` behave exactly as the function's — that carries
the registered component (as it is now) and can `enable()` / `disable()` it.

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("docs")
    >>> @server.resource("docs://index")
    ... def index() -> str:
    ...     return "# Index"
    >>> index(), index.resource.uri
    ('# Index', 'docs://index')
    >>> index.disable(); server.resources.catalog.resources
    ()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import wrapt

from toolweave.core.decorator import call_through


class RegisteredFunction(wrapt.FunctionWrapper):  # type: ignore[misc,type-arg]
    """The original function, carrying the component it registered and `enable`/`disable`."""

    def __init__(self, fn: Callable[..., Any], registry: Any, key: str) -> None:
        super().__init__(fn, call_through)
        self._self_registry = registry
        self._self_key = key

    @property
    def component(self) -> Any:
        """The registered component, as it is now."""
        return self._self_registry.local.get(self._self_key)

    def enable(self) -> None:
        """Show the component again (listed and usable)."""
        self._self_registry.set_enabled(self._self_key, True)

    def disable(self) -> None:
        """Hide the component: not listed, and using it is the kind's "unknown" error."""
        self._self_registry.set_enabled(self._self_key, False)


class PromptFunction(RegisteredFunction):
    """A function registered as a prompt (`fn.prompt`)."""

    @property
    def prompt(self) -> Any:
        """The registered `Prompt`."""
        return self.component


class ResourceFunction(RegisteredFunction):
    """A function registered as a resource or resource template (`fn.resource`)."""

    @property
    def resource(self) -> Any:
        """The registered `Resource`."""
        return self.component


def original(fn: Any) -> Any:
    """The plain function behind a registered or decorated function."""
    return fn.__wrapped__ if isinstance(fn, wrapt.ObjectProxy) else fn
