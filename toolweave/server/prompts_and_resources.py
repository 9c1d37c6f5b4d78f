"""The prompt and resource half of `Server`'s API (mixed into `Server`).

Example:
    >>> from toolweave import Message, Server
    >>> server = Server("docs")
    >>> @server.prompt
    ... def explain(topic: str, depth: int = 1) -> list:
    ...     '''Explain a topic.'''
    ...     return [f"Explain {topic} at depth {depth}.", Message("Sure.", role="assistant")]
    >>> @server.resource("docs://{page}")
    ... def page(page: str) -> str:
    ...     return f"# {page}"
    >>> import anyio
    >>> anyio.run(server.get_prompt, "explain", {"topic": "MCP", "depth": "2"}).messages[0].text
    'Explain MCP at depth 2.'
    >>> anyio.run(server.read_resource, "docs://intro").text
    '# intro'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolweave.core.context import Context, enter_context, exit_context
from toolweave.core.message import PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.server.prompts import PromptFunction, PromptRegistry

if TYPE_CHECKING:
    from toolweave.server.resources import ResourceRegistry


class PromptsAndResources:
    """`@server.prompt`, `@server.resource(uri)` and their in-process counterparts of the wire calls."""

    prompts: PromptRegistry
    resources: ResourceRegistry

    # -- prompts -------------------------------------------------------------------------------

    def prompt(self, fn: Any = None, /, **options: Any) -> Any:
        """Register a function as a prompt: `@server.prompt`, `@server.prompt()`, `@server.prompt(name=...)`.

        Options are those of `Prompt.from_function` (`name`, `title`, `description`, `tags`,
        `meta`, `enabled`). Returns the original function, still callable; `fn.prompt` is the
        `Prompt`, and `fn.enable()` / `fn.disable()` show or hide it.
        """
        return self.prompts.decorator(fn, options)

    def add_prompt(self, fn_or_prompt: Callable[..., Any] | Prompt, **options: Any) -> Prompt:
        """Register a function (with `Prompt.from_function` options) or a ready `Prompt`."""
        if isinstance(fn_or_prompt, Prompt):
            if options:
                raise TypeError("options apply when building a prompt from a function, not to a Prompt")
            return self.prompts.add(fn_or_prompt)
        fn = fn_or_prompt.__wrapped__ if isinstance(fn_or_prompt, PromptFunction) else fn_or_prompt
        return self.prompts.add(Prompt.from_function(fn, **options))

    def remove_prompt(self, name: str) -> Prompt:
        """Unregister a local prompt; `UnknownPrompt` if there is none by that name."""
        return self.prompts.remove(name)

    async def list_prompts(self) -> list[Prompt]:
        """The prompts a client would see, in order."""
        return list(self.prompts.catalog.prompts)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, *, ctx: Context | None = None
    ) -> PromptResult:
        """Render a prompt in-process, through the same catalog a client uses.

        Arguments may be strings (as on the wire) or values of the declared types.

        Raises:
            UnknownPrompt: no enabled prompt has that name.
            InvalidArguments: an argument is missing, unknown or does not convert.
            ToolError: the prompt failed (internal errors masked, as a client would see them).
        """
        ctx = ctx or Context(server=self)  # type: ignore[arg-type]
        token = enter_context(ctx)
        try:
            return await self.prompts.catalog.render(name, arguments, ctx)
        finally:
            exit_context(token)

    # -- resources -----------------------------------------------------------------------------

    def resource(self, uri: str, /, **options: Any) -> Callable[[Callable[..., Any]], Any]:
        """Register a function as a resource (`"resource://cities"`) or template (`"resource://{city}/weather"`).

        Options are those of `Resource.from_function` (`name`, `title`, `description`,
        `mime_type`, `tags`, `meta`, `enabled`). Returns the original function unchanged.

        Raises:
            TypeError: when the template's parameters and the function's parameters differ.
        """
        return self.resources.decorator(uri, options)

    def add_resource(
        self, fn_or_resource: Callable[..., Any] | Resource, uri: str | None = None, **options: Any
    ) -> Resource:
        """Register a function (with its `uri` and `Resource.from_function` options) or a ready `Resource`."""
        if isinstance(fn_or_resource, Resource):
            if uri is not None or options:
                raise TypeError("uri and options apply when building a resource from a function, not to a Resource")
            return self.resources.add(fn_or_resource)
        if uri is None:
            raise TypeError("add_resource(fn, uri): a resource made from a function needs its URI")
        return self.resources.add(Resource.from_function(fn_or_resource, uri, **options))

    def remove_resource(self, uri: str) -> Resource:
        """Unregister a local resource or template by URI; `UnknownResource` if there is none."""
        return self.resources.remove(uri)

    async def list_resources(self) -> list[Resource]:
        """The static resources a client would see, in order."""
        return list(self.resources.catalog.resources)

    async def list_resource_templates(self) -> list[Resource]:
        """The resource templates a client would see, in order."""
        return list(self.resources.catalog.resource_templates)

    async def read_resource(self, uri: str, *, ctx: Context | None = None) -> ResourceResult:
        """Read a resource in-process, through the same catalog a client uses.

        Raises:
            UnknownResource: no enabled resource or template matches `uri`.
            InvalidArguments: a template parameter does not convert to its declared type.
            ToolError: the resource failed (internal errors masked, as a client would see them).
        """
        ctx = ctx or Context(server=self)  # type: ignore[arg-type]
        token = enter_context(ctx)
        try:
            return await self.resources.catalog.read(uri, ctx)
        finally:
            exit_context(token)
