"""Middleware for prompts and resources: the request objects and how their chains are built.

`Middleware.on_get_prompt(call, call_next)` wraps `prompts/get` and
`Middleware.on_read_resource(read, call_next)` wraps `resources/read`, with the same onion rule
as tools: each exposed prompt or resource gets its chain folded once, at compile time, from the
middleware that overrides the hook and whose `prompts` / `resources` selector matches it;
**the first middleware added is the outermost**.

Example:
    >>> from toolweave.middleware.base import Middleware
    >>> class Audit(Middleware):
    ...     async def on_get_prompt(self, call, call_next):
    ...         result = await call_next(call)
    ...         return result
    >>> Audit().applies_to_prompt(Prompt(name="p", run=None))
    True
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from toolweave.core.context import Context
from toolweave.core.message import PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.middleware.chain import as_layer, fold
from toolweave.middleware.selector import Selector

if TYPE_CHECKING:
    from toolweave.middleware.base import Middleware

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class PromptCall:
    """One `prompts/get` on its way through the chain: the prompt, converted arguments, context."""

    prompt: Prompt
    arguments: dict[str, Any]
    ctx: Context

    def replace(self, **changes: Any) -> PromptCall:
        """A copy with some fields changed, e.g. `call.replace(arguments={...})`."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ResourceRead:
    """One `resources/read` on its way through the chain.

    Attributes:
        resource: The exposed resource or template that matched.
        uri: The URI being read.
        params: The template's parameters, converted to the declared types (empty if static).
        ctx: The request context.
    """

    resource: Resource
    uri: str
    params: dict[str, Any]
    ctx: Context

    def replace(self, **changes: Any) -> ResourceRead:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


class GetPromptNext(Protocol):
    """The rest of a prompt chain."""

    def __call__(self, call: PromptCall, /) -> Awaitable[PromptResult]: ...


class ReadResourceNext(Protocol):
    """The rest of a resource chain."""

    def __call__(self, read: ResourceRead, /) -> Awaitable[ResourceResult]: ...


PromptHandler = Callable[[PromptCall], Awaitable[PromptResult]]
ResourceHandler = Callable[[ResourceRead], Awaitable[ResourceResult]]


def selects(selector: Selector | str | Sequence[str] | None, component: Prompt | Resource) -> bool:
    """Whether a prompt/resource selector matches `component`: any name glob on its name (a
    resource's URI too), any tag, and the `where` predicate (`[]` is one that selects none).

    Annotation hints are about tools: on prompts and resources they are not checked.
    """
    chosen = Selector.coerce(selector)
    if chosen is None:
        return True
    names = (component.name, component.uri) if isinstance(component, Resource) else (component.name,)
    if chosen.names and not any(fnmatch.fnmatchcase(n, p) for n in names for p in chosen.names):
        return False
    if chosen.tags and not chosen.tags & component.tags:
        return False
    return chosen.where is None or bool(chosen.where(component))  # type: ignore[arg-type]


def prompt_runner(prompt: Prompt) -> PromptHandler:
    """The innermost prompt handler: render the prompt."""
    run = prompt.run

    async def innermost(call: PromptCall) -> PromptResult:
        return await run(call.arguments, call.ctx)

    return innermost


def resource_runner(resource: Resource) -> ResourceHandler:
    """The innermost resource handler: read the resource."""
    run = resource.run

    async def innermost(read: ResourceRead) -> ResourceResult:
        return await run(read.uri, read.params, read.ctx)

    return innermost


def build_prompt_chain(middleware: Sequence[Middleware], inner: PromptHandler) -> PromptHandler:
    """Fold the `on_get_prompt` hooks around `inner`: `middleware[0]` ends up outermost."""
    return fold([as_layer(layer.on_get_prompt) for layer in middleware], inner)


def build_resource_chain(middleware: Sequence[Middleware], inner: ResourceHandler) -> ResourceHandler:
    """Fold the `on_read_resource` hooks around `inner`: `middleware[0]` ends up outermost."""
    return fold([as_layer(layer.on_read_resource) for layer in middleware], inner)
