"""Prompts in the generic pipeline: what differs from tools and resources.

- the key is the name (checked like a tool name);
- a mounted child's prompt is renamed `{prefix}{separator}{name}` and renders through the child's chain;
  the URIs of the resource links and embedded resources in its messages are renamed like the
  child's resources (`toolweave.server.links`);
- the chain folds `on_get_prompt` (middleware whose `prompts` selector matches);
- arguments (strings on the wire) are converted once; a failure is a `ToolError` (internal
  ones masked) that the edge serves as a JSON-RPC error; an unknown prompt is `UnknownPrompt`.

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
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import InvalidArguments, UnknownPrompt
from toolweave.core.message import PromptResult
from toolweave.core.names import check_name
from toolweave.core.prompt import Prompt
from toolweave.core.validation import ArgumentErrors
from toolweave.middleware.hooks import PromptCall, build_prompt_chain, prompt_runner
from toolweave.server.catalog import Catalog, Entry, guarded, raising
from toolweave.server.functions import PromptFunction, original
from toolweave.server.links import Links
from toolweave.server.mount import Mount
from toolweave.server.registry import Registry
from toolweave.telemetry.spans import PROMPT_NAME


@dataclass(frozen=True, slots=True)
class PromptEntry(Entry[Prompt]):
    """One exposed prompt."""

    @property
    def prompt(self) -> Prompt:
        """The exposed prompt."""
        return self.component


@dataclass(slots=True)
class PromptCatalog(Catalog[PromptEntry]):
    """The compiled view of a server's prompts."""

    unknown = UnknownPrompt

    prompts: tuple[Prompt, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.prompts = tuple(entry.component for entry in self.entries.values())

    async def render(self, name: str, arguments: dict[str, Any] | None, ctx: Context) -> PromptResult:
        """Convert the arguments and render the prompt through its chain.

        Raises:
            UnknownPrompt: no enabled prompt has that name.
            InvalidArguments: an argument is missing, unknown or does not convert.
            ToolError: the prompt failed (an internal error arrives masked).
        """
        entry = self.for_caller(name, ctx)
        prompt = entry.component
        try:
            validated = prompt.validator.validate(arguments or {}, reject_extra=self.reject_extra)
        except ArgumentErrors as problems:
            raise InvalidArguments(name, problems.problems, kind="prompt") from None
        assert entry.handler is not None
        rendering = entry.handler(PromptCall(prompt, validated, ctx))
        result: PromptResult = await guarded(rendering, raising(entry, "prompt", name, ctx))
        if result.description is None and prompt.description is not None:
            result = PromptResult(result.messages, prompt.description, result.meta)
        return result


def _prompt_links(links: Links) -> Callable[[PromptResult], PromptResult]:
    return links.prompt_result


class PromptRegistry(Registry[Prompt, PromptCatalog]):
    """The prompts of one server: registered locally, listed by an upstream, or exposed by mounts."""

    kind = "prompt"
    unknown = UnknownPrompt

    def key(self, component: Prompt) -> str:
        return component.name

    def check(self, component: Prompt) -> None:
        check_name(component.name, "prompt")

    def exposed(self, entry: Entry[Prompt], mount: Mount[Any]) -> Prompt:
        handler, prompt = entry.handler, entry.component
        assert handler is not None

        async def run(arguments: dict[str, Any], ctx: Context) -> PromptResult:
            result: PromptResult = await handler(PromptCall(prompt, arguments, ctx))
            return result

        linked = mount.linked(run, _prompt_links)
        return prompt.replace(name=mount.rename.name(prompt.name), run=mount.traced(linked, (PROMPT_NAME, prompt.name)))

    def build_entry(self, component: Prompt, origin: str) -> PromptEntry:
        chain = tuple(layer for layer in self.owner.middleware if layer.applies_to_prompt(component))
        inner = prompt_runner(component)
        handler = build_prompt_chain(chain, inner) if chain else inner
        return PromptEntry(component, origin, chain, handler, self.owner.error_policy)

    def build_catalog(self, entries: dict[str, Entry[Prompt]]) -> PromptCatalog:
        return PromptCatalog(
            entries=entries,  # type: ignore[arg-type]
            reject_extra=self.owner.extra_args == "reject",
            errors=self.owner.error_policy,
        )

    def add_from(self, fn_or_prompt: Callable[..., Any] | Prompt, options: dict[str, Any]) -> Prompt:
        """The body of `server.add_prompt`: registers a ready `Prompt`, or one made from a function."""
        if isinstance(fn_or_prompt, Prompt):
            if options:
                raise TypeError("options apply when building a prompt from a function, not to a Prompt")
            return self.add(fn_or_prompt)
        return self.add(Prompt.from_function(original(fn_or_prompt), **options))

    def decorator(self, fn: Any, options: dict[str, Any]) -> Any:
        """The body of `@server.prompt`, `@server.prompt()` and `@server.prompt(name=...)`."""

        def decorate(func: Callable[..., Any]) -> Any:
            inner = original(func)
            made = self.add(Prompt.from_function(inner, **options))
            return PromptFunction(inner, self, made.name)

        if fn is None:
            return decorate
        if isinstance(fn, str):  # @server.prompt("name")
            options["name"] = fn
            return decorate
        return decorate(fn)
