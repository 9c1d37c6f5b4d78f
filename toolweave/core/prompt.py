"""`Prompt`: a named, parameterised message template, usually built from a function.

A prompt is data (name, title, description, arguments, tags, meta) plus one coroutine
`run(arguments, ctx) -> PromptResult`, which receives arguments already converted to the
declared types by `validator` (on the wire, prompt arguments are always strings).

Example:
    >>> def review(code: str, strict: bool = False) -> str:
    ...     '''Ask for a code review.
    ...
    ...     Args:
    ...         code: the code to review
    ...     '''
    ...     return f"Review this{' strictly' if strict else ''}:\\n{code}"
    >>> prompt = Prompt.from_function(review)
    >>> prompt.name, prompt.description, [(a.name, a.required) for a in prompt.arguments]
    ('review', 'Ask for a code review.', [('code', True), ('strict', False)])
    >>> prompt.validator.validate({"code": "x = 1", "strict": "true"})
    {'code': 'x = 1', 'strict': True}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolweave.core.access import Access
from toolweave.core.context import Context
from toolweave.core.invoke import make_invoker
from toolweave.core.message import PromptResult, to_prompt_result
from toolweave.core.names import check_options, check_text, name_set
from toolweave.core.reading import (
    build_model,
    callable_name,
    check_defaults,
    has_default,
    model_schema,
    parameters,
)
from toolweave.core.string_arguments import StringArguments
from toolweave.core.tool import Origin
from toolweave.core.validation import ArgumentValidator, SchemaValidator

RenderPrompt = Callable[[dict[str, Any], Context], Awaitable[PromptResult]]
"""The call of a prompt: `async (validated_arguments, ctx) -> PromptResult`."""


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument a prompt accepts (MCP `PromptArgument`)."""

    name: str
    description: str | None = None
    required: bool = False
    title: str | None = None
    """A name for people (an upstream's argument keeps its own; a function's has none)."""


def _schema_of(arguments: Iterable[PromptArgument]) -> dict[str, Any]:
    args = list(arguments)
    return {
        "type": "object",
        "properties": {arg.name: {"type": "string"} for arg in args},
        "required": [arg.name for arg in args if arg.required],
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Prompt:
    """An immutable prompt. Build one from a function with `Prompt.from_function`.

    Attributes:
        name: The exposed name, within `[A-Za-z0-9_.-]{1,128}`.
        run: `async (validated_arguments, ctx) -> PromptResult`.
        arguments: The arguments, in signature order, as clients see them.
        validator: Converts the string arguments to the declared types; by default a schema
            check that every required argument is present and none is unknown.
        enabled: Whether the prompt starts visible (`server.enable(name)` shows it).
        access: Who may see and get the prompt (`Authorize`); `None`: every caller.
    """

    name: str
    run: RenderPrompt
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()
    tags: frozenset[str] = frozenset()
    meta: Mapping[str, Any] | None = None
    enabled: bool = True
    validator: ArgumentValidator = None  # type: ignore[assignment]
    origin: Origin | None = None
    access: Access | None = None
    fn: Callable[..., Any] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.validator is None:
            object.__setattr__(self, "validator", SchemaValidator(_schema_of(self.arguments)))
        if self.origin is None:
            object.__setattr__(self, "origin", Origin("schema", "hand-written prompt", self.name))
        if not isinstance(self.tags, frozenset):
            object.__setattr__(self, "tags", name_set(self.tags, "tags", "prompt", self.name))
        check_text(self.title, "title", "prompt", self.name)
        check_text(self.description, "description", "prompt", self.name)
        object.__setattr__(self, "arguments", tuple(self.arguments))

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **options: Any) -> Prompt:
        """A prompt from a Python function; see `prompt_from_function`."""
        check_options(options, prompt_from_function, "prompt", fn)
        return prompt_from_function(fn, **options)

    def replace(self, **changes: Any) -> Prompt:
        """A copy with some fields changed (`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)


def _renderer(fn: Callable[..., Any], context_param: str | None, run_in_thread: bool) -> RenderPrompt:
    call = make_invoker(fn, context_param, run_in_thread=run_in_thread)

    async def render(arguments: dict[str, Any], ctx: Context) -> PromptResult:
        return to_prompt_result(await call(arguments, ctx))

    return render


def prompt_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
    meta: Mapping[str, Any] | None = None,
    enabled: bool = True,
    run_in_thread: bool = True,
) -> Prompt:
    """A `Prompt` that calls `fn` and turns its return value into messages.

    Args:
        fn: A sync or async function (or callable object) with named parameters. A parameter
            annotated `Context` is injected; the others are the prompt's arguments (required
            when they have no default; described by `Field(description=)`, `Annotated[T, "..."]`
            or the docstring's `Args:` section).
        name: The prompt name; defaults to the function's name.
        title: A human-readable title.
        description: Defaults to the docstring text above its `Args:` section.
        tags: Labels for selecting prompts (`server.disable(tags=...)`, middleware).
        meta: Static `_meta` sent with the prompt definition.
        enabled: Whether the prompt starts enabled.
        run_in_thread: Run a sync function in a worker thread (default) or inline.

    Raises:
        TypeError: for `*args`/`**kwargs`, positional-only parameters, a lambda without a name,
            or parameter types pydantic cannot validate.
    """
    prompt_name = name or callable_name(fn, "prompt")
    params, context_param, doc_description = parameters(fn, prompt_name, "prompt")
    check_defaults(params, prompt_name, "prompt")
    model, renamed = build_model(prompt_name, params, what="prompt")
    described = model_schema(prompt_name, model).get("properties", {})
    arguments = tuple(
        PromptArgument(p.name, described.get(p.name, {}).get("description"), not has_default(p)) for p in params
    )
    return Prompt(
        name=prompt_name,
        run=_renderer(fn, context_param, run_in_thread),
        title=title,
        description=description if description is not None else doc_description,
        arguments=arguments,
        tags=name_set(tags, "tags", "prompt", prompt_name),
        meta=dict(meta) if meta else None,
        enabled=enabled,
        validator=StringArguments(model, renamed),
        origin=Origin("function", getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", prompt_name)),
        fn=fn,
    )
