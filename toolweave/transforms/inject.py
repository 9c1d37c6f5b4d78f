"""`InjectArgs`: hide arguments and fill them per call, from a constant or a source.

Example:
    >>> from toolweave import Tool
    >>> from toolweave.transforms import FromContext, FromEnv, InjectArgs
    >>> def weather(city: str, user_id: str, api_key: str, units: str) -> str:
    ...     return f"{city} for {user_id}"
    >>> tool = Tool.from_function(weather).with_transforms(
    ...     InjectArgs(user_id=FromContext("auth.subject"), api_key=FromEnv("WEATHER_KEY"), units="metric"))
    >>> list(tool.input_schema["properties"])
    ['city']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import InjectionError, TransformError
from toolweave.core.reads import read_once
from toolweave.core.tool import Tool
from toolweave.transforms.argmap import Injected, callable_source
from toolweave.transforms.plan import Fill, remap, require_args
from toolweave.transforms.signature import Signature
from toolweave.transforms.sources import Secret, Source


def _label(value: Any) -> str:
    if isinstance(value, Source):
        return value.label
    if isinstance(value, Secret):
        return "a secret constant"
    if callable(value):
        return f"the function {getattr(value, '__qualname__', type(value).__name__)}"
    return "a constant"


def source_fill(tool: Tool, arg: str, value: Any) -> Fill:
    """The `Fill` of one injected argument; source errors are re-raised naming the argument (the
    failure's log line names the tool, as the client called it)."""
    prefix = f"argument {arg!r}"
    if isinstance(value, Source):
        get = value.get

        def from_source(ctx: Context) -> Any:
            try:
                return get(ctx)
            except InjectionError as error:
                raise InjectionError(f"{prefix}: {error}") from None

        # a plain read of the request is computed once per call: `Cache` keys on the same value
        fn = read_once(from_source) if value.varies else from_source
        read = Injected(fn, False, value.label, arity=1, varies=value.varies, source=value)
        return Fill("source", read, secret=value.secret)
    if isinstance(value, Secret):
        return Fill("constant", value.value, secret=True)
    if callable(value):
        try:
            injected = callable_source(value, _label(value))
        except TypeError as error:
            raise TransformError(f"tool {tool.name!r}, {prefix}: {error}") from None
        return Fill("source", injected, secret=True)
    return Fill("constant", value)


@dataclass(frozen=True, init=False)
class InjectArgs:
    """Hide arguments and fill them at call time; a client can neither see nor set them.

    Each keyword names an argument; its value is a constant, a sync or async callable (given
    nothing, the `Context`, or the `Context` and the validated visible arguments), or a source:
    `FromContext`, `FromHeader`, `FromClaim`, `FromEnv`. Values from the environment, from your
    callables and `Secret("...")` constants are secrets: redacted from anything the tool returns
    (`toolweave.transforms.redact`); values from the caller's own request are not.

    Example:
        >>> from toolweave.transforms import FromHeader
        >>> scoped = InjectArgs(tenant=FromHeader("x-tenant"), region="eu",
        ...                     request_ts=lambda ctx: ctx.request_id)
        >>> scoped
        InjectArgs(tenant=the HTTP header 'x-tenant', region=a constant, request_ts=the function <lambda>)
    """

    sources: Mapping[str, Any]

    def __init__(self, **sources: Any) -> None:
        if not sources:
            raise ValueError("InjectArgs needs at least one argument to inject")
        object.__setattr__(self, "sources", MappingProxyType(dict(sources)))

    def __repr__(self) -> str:  # constants may be secrets: show where values come from, never them
        return f"InjectArgs({', '.join(f'{k}={_label(v)}' for k, v in self.sources.items())})"

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return "inject " + ", ".join(f"{k} from {_label(v)}" for k, v in self.sources.items())

    def apply(self, tool: Tool) -> Tool:
        """`tool` without the injected arguments in its schema; they are filled per call."""
        sig = Signature.of(tool)
        require_args(tool, sig, self.sources, "InjectArgs")
        fills = {name: source_fill(tool, name, value) for name, value in self.sources.items()}
        visible = [(arg.name, arg) for arg in sig.args if arg.name not in fills]
        return remap(tool, self, sig, visible, fills)
