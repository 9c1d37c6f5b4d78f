"""The prompt registry of a server and its compiled prompt catalog.

The registry holds the prompts registered on the server itself; its catalog adds the prompts of
mounted servers (named `{prefix}{separator}{name}`), drops hidden ones, resolves name clashes by
`on_duplicate` and folds each prompt's middleware chain once. `prompts/list` is a cached tuple;
`prompts/get` is one dict lookup, one argument conversion and one awaited chain.

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> @server.prompt
    ... def greet(name: str) -> str:
    ...     '''Greet someone.'''
    ...     return f"Say hello to {name}."
    >>> [prompt.name for prompt in server.prompts.catalog.prompts]
    ['greet']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import wrapt

from toolweave.core.context import Context
from toolweave.core.decorator import call_through
from toolweave.core.errors import PROTOCOL_ANSWERS, InvalidArguments, ToolError, UnknownPrompt
from toolweave.core.masking import ErrorPolicy, is_cancellation
from toolweave.core.message import PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.validation import ArgumentErrors
from toolweave.middleware.hooks import PromptCall, PromptHandler, build_prompt_chain, prompt_runner
from toolweave.server.components import is_visible, keep_new, masked_failure
from toolweave.server.registry import Registry

if TYPE_CHECKING:
    from toolweave.middleware.base import Middleware
    from toolweave.server.mount import Mount



@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One exposed prompt: the prompt, where it came from, and its prebuilt chain."""

    prompt: Prompt
    origin: str
    handler: PromptHandler

    @classmethod
    def build(cls, prompt: Prompt, origin: str, middleware: tuple[Middleware, ...]) -> PromptEntry:
        """Fold the middleware that applies to `prompt` into its render path, once."""
        chain = [layer for layer in middleware if layer.applies_to_prompt(prompt)]
        inner = prompt_runner(prompt)
        return cls(prompt, origin, build_prompt_chain(chain, inner) if chain else inner)


@dataclass(slots=True)
class PromptCatalog:
    """The compiled view of a server's prompts."""

    entries: dict[str, PromptEntry]
    prompts: tuple[Prompt, ...]
    reject_extra: bool = True
    errors: ErrorPolicy = field(default_factory=ErrorPolicy)
    cache: dict[str, Any] = field(default_factory=dict)
    """Scratch space for adapters (the wire form of `prompts/list`), dropped with the catalog."""

    def get(self, name: str) -> PromptEntry:
        """The entry of an enabled prompt, or `UnknownPrompt`."""
        entry = self.entries.get(name)
        if entry is None:
            raise UnknownPrompt(name)
        return entry

    async def render(self, name: str, arguments: dict[str, Any] | None, ctx: Context) -> PromptResult:
        """Convert the arguments and render the prompt through its chain.

        Raises:
            UnknownPrompt: no enabled prompt has that name.
            InvalidArguments: an argument is missing, unknown or does not convert.
            ToolError: the prompt failed (an internal error arrives masked).
        """
        entry = self.get(name)
        try:
            validated = entry.prompt.validator.validate(arguments or {}, reject_extra=self.reject_extra)
        except ArgumentErrors as problems:
            raise InvalidArguments(name, problems.problems, kind="prompt") from None
        try:
            result = await entry.handler(PromptCall(entry.prompt, validated, ctx))
        except ToolError as error:
            error.quoting(name)  # a message of a mounted prompt names it as the client does
            raise
        except PROTOCOL_ANSWERS:  # the prompt asks the client for something: the edge answers it
            raise
        except BaseException as error:  # SystemExit, KeyboardInterrupt... from a prompt: masked too
            if is_cancellation(error):
                raise
            raise masked_failure(self.errors, "prompt", name, error) from error
        if result.description is None and entry.prompt.description is not None:
            result = PromptResult(result.messages, entry.prompt.description, result.meta)
        return result


class PromptFunction(wrapt.FunctionWrapper):  # type: ignore[misc,type-arg]
    """The original function, still callable as itself, with its prompt and `enable`/`disable`.

    Example:
        @server.prompt
        def review(code: str) -> str: ...
        review.disable()
    """

    def __init__(self, fn: Callable[..., Any], registry: PromptRegistry, made: Prompt) -> None:
        super().__init__(fn, call_through)
        self._self_registry = registry
        self._self_prompt = made

    @property
    def prompt(self) -> Prompt:
        """The registered `Prompt` (as it is now)."""
        made: Prompt = self._self_prompt
        current: Prompt = self._self_registry.local.get(made.name, made)
        return current

    def enable(self) -> None:
        """Show the prompt again (listed and gettable)."""
        self._self_registry.set_enabled(self._self_prompt.name, True)

    def disable(self) -> None:
        """Hide the prompt: not listed, and getting it is "Unknown prompt"."""
        self._self_registry.set_enabled(self._self_prompt.name, False)


class PromptRegistry(Registry[Prompt, "PromptCatalog"]):
    """The prompts of one server: registered locally, listed by an upstream, or exposed by mounts."""

    kind = "prompt"
    unknown = UnknownPrompt
    exposed = "exposed_prompts"

    def key(self, component: Prompt) -> str:
        return component.name

    def check(self, component: Prompt) -> None:
        from toolweave.server.server import check_name

        check_name(component.name, "prompt")

    def decorator(self, fn: Any, options: dict[str, Any]) -> Any:
        """The body of `@server.prompt`, `@server.prompt()` and `@server.prompt(name=...)`."""

        def decorate(func: Callable[..., Any]) -> Any:
            inner = func.__wrapped__ if isinstance(func, PromptFunction) else func
            made = self.add(Prompt.from_function(inner, **options))
            return PromptFunction(inner, self, made)

        if fn is None:
            return decorate
        if isinstance(fn, str):  # @server.prompt("name")
            options["name"] = fn
            return decorate
        return decorate(fn)

    def _compile(self) -> PromptCatalog:
        from toolweave.server.server import check_name

        server = self.server
        middleware = server.middleware
        entries: dict[str, PromptEntry] = {}
        for prompt, origin in self._candidates():
            if not is_visible(server, prompt.enabled, prompt.tags, (prompt.name,)):
                continue
            check_name(prompt.name, "prompt")
            if prompt.name in entries:
                message = (
                    f"server {server.name!r}: prompt name {prompt.name!r} is claimed twice: "
                    f"by {entries[prompt.name].origin} and by {origin}"
                )
                if not keep_new(server, message):
                    continue
            entries[prompt.name] = PromptEntry.build(prompt, origin, middleware)
        return PromptCatalog(
            entries=entries,
            prompts=tuple(entry.prompt for entry in entries.values()),
            reject_extra=server.extra_args == "reject",
            errors=server.error_policy,
        )


def mounted_prompts(mounted: Mount) -> list[tuple[Prompt, str]]:
    """The prompts of `mounted.child` as the parent sees them: renamed, run through the child's chain."""
    child = getattr(mounted.child, "prompts", None)
    if not isinstance(child, PromptRegistry):
        return []
    found = []
    for entry in child.catalog.entries.values():
        prompt = entry.prompt.replace(name=mounted.rename.name(entry.prompt.name), run=_through_chain(entry))
        origin = f"{mounted.label} prompt {entry.prompt.name!r} (server {mounted.child.name!r})"
        found.append((prompt, origin))
    return found


def _through_chain(entry: PromptEntry) -> Callable[[dict[str, Any], Context], Any]:
    """The child's whole render path (its middleware, then the prompt) as a prompt `run`."""
    handler, prompt = entry.handler, entry.prompt

    async def run(arguments: dict[str, Any], ctx: Context) -> PromptResult:
        return await handler(PromptCall(prompt, arguments, ctx))

    return run
