"""`ArgMap`: the one argument rewrite a stack of argument transforms costs per call.

Argument transforms (`TransformArgs`, `ExcludeArgs`, `InjectArgs`, `InjectContext`) do not wrap
a tool's `run` in a new layer each. Each describes one *step* (exposed names → the names of the
tool it is applied to, plus the values of the arguments it hides), and a step applied to a tool
whose `run` is already a `MappedRun` is *fused* with that tool's map: the result maps the newest
exposed names straight to the un-mapped base tool. Five stacked argument transforms therefore
cost one dict rewrite per call, done by the one function `compile.py` generates from the map.
The forward map (exposed → base) and the reverse map (base → exposed) live side by side.

Validation stays at the boundary: the derived tool gets a validator for its exposed schema
(values of retyped arguments are then coerced to the base's types there, see
`CoercingValidator`), and `MappedRun` only renames and fills in hidden values.

Example:
    >>> step = ArgMap(forward={"query": "q"}, constants={"debug": False})
    >>> step.renames, step.reverse
    ({'query': 'q'}, {'q': 'query'})
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolweave.core.errors import ArgumentProblem, TransformError
from toolweave.core.tool import Run, Tool
from toolweave.core.validation import ArgumentErrors, ArgumentValidator

Coerce = Callable[[Any], Any]
"""Turns a validated exposed value into the value the next tool down expects (may raise)."""


@dataclass(frozen=True, slots=True)
class Injected:
    """A hidden argument filled per call by a source (a callable, the context, a header, ...).

    Attributes:
        fn: `fn()`, `fn(ctx)` or `fn(ctx, visible_arguments)` (by `arity`) -> value, or an
            awaitable of it when `is_async`.
        is_async: Whether `fn` returns an awaitable.
        label: What `explain` and error messages call the source (never its value).
        view: {exposed name: name the source was given it under}, when renames came later.
        coerce: Converts the value to the argument's type (its errors never show the value).
        arity: How many of `(ctx, visible_arguments)` `fn` takes.
        exact: A type whose values need no conversion (`coerce` is skipped for them).
        varies: How the value depends on the request: `True` for a plain read of it (a header,
            a claim, the context: `Cache` keys on it), `False` when it does not (the
            environment, a constant-like function), `None` when no one can tell (a function of
            the request: such a tool is never cached).
        source: The `Source` object the value is read from (for checks such as a missing
            environment variable), when it is one.
    """

    fn: Callable[..., Any]
    is_async: bool
    label: str
    view: Mapping[str, str] | None = None
    coerce: Coerce | None = None
    arity: int = 2
    exact: type | None = None
    varies: bool | None = None
    source: Any = None

    def replace(self, **changes: Any) -> Injected:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def converted_by(self, chain: tuple[Coerce, ...] | None) -> Injected:
        """This source with its values also converted by `chain` (the layers it skips)."""
        if not chain:
            return self
        first = self.coerce

        def coerce(value: Any) -> Any:
            if first is not None:
                value = first(value)
            for step in chain:
                value = step(value)
            return value

        return self.replace(coerce=coerce, exact=None)

    def seen_through(self, forward: Mapping[str, str]) -> Injected:
        """This source as seen after a later step that maps new names → current ones."""
        old = self.view
        view = {new: (old.get(cur, cur) if old else cur) for new, cur in forward.items()}
        same = all(new == cur for new, cur in view.items())
        return self.replace(view=None if same else view)


@dataclass(frozen=True, slots=True)
class ArgMap:
    """How exposed arguments become the base tool's arguments.

    Attributes:
        forward: {exposed name: base name} for every exposed argument (identity included).
        constants: {base name: value} for hidden arguments with a fixed value.
        defaults: {base name: value} set when the argument was not sent (schema tools' new defaults).
        factories: {base name: zero-argument factory} called per call.
        context: Base names that receive the request `Context`.
        sources: (base name, `Injected`) pairs resolved per call, in order.
        coercions: {exposed name: converters}, applied at the boundary by `CoercingValidator`.
        secret: Base names whose values the server supplies and keeps secret (the environment,
            your functions, `Secret` constants): redacted from what the tool returns.

    Example:
        >>> newest = ArgMap(forward={"text": "query"})
        >>> fused = newest.then(ArgMap(forward={"query": "q"}, constants={"limit": 5}))
        >>> fused.forward, fused.constants, fused.reverse
        ({'text': 'q'}, {'limit': 5}, {'q': 'text'})
    """

    forward: Mapping[str, str] = field(default_factory=dict)
    constants: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    factories: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    context: tuple[str, ...] = ()
    sources: tuple[tuple[str, Injected], ...] = ()
    coercions: Mapping[str, tuple[Coerce, ...]] = field(default_factory=dict)
    secret: frozenset[str] = frozenset()
    renames: Mapping[str, str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        renamed = {new: old for new, old in self.forward.items() if new != old}
        object.__setattr__(self, "renames", renamed or None)

    def __repr__(self) -> str:  # constants may be secrets: only their names are shown
        parts = [f"forward={dict(self.forward)!r}"]
        if self.constants:
            parts.append(f"constants={sorted(self.constants)!r}")
        if self.defaults:
            parts.append(f"defaults={sorted(self.defaults)!r}")
        if self.factories:
            parts.append(f"factories={sorted(self.factories)!r}")
        if self.context:
            parts.append(f"context={list(self.context)!r}")
        if self.sources:
            parts.append(f"sources={[f'{name} from {src.label}' for name, src in self.sources]!r}")
        if self.coercions:
            parts.append(f"coercions={sorted(self.coercions)!r}")
        return f"ArgMap({', '.join(parts)})"

    @property
    def reverse(self) -> dict[str, str]:
        """{base name: exposed name}: where each base argument is exposed."""
        return {old: new for new, old in self.forward.items()}

    def then(self, inner: ArgMap) -> ArgMap:
        """This step (newest) fused with `inner` (the map already under the tool): one map."""
        to_base = inner.forward

        def down(name: str) -> str:
            return to_base.get(name, name)

        coercions = {}
        for new, cur in self.forward.items():
            chain = self.coercions.get(new, ()) + inner.coercions.get(cur, ())
            if chain:
                coercions[new] = chain
        # values this step fills skip the layers below, so they get those layers' conversions here
        below = inner.coercions
        return ArgMap(
            forward={new: down(cur) for new, cur in self.forward.items()},
            constants={**inner.constants, **{down(k): _converted(v, below.get(k)) for k, v in self.constants.items()}},
            defaults={**inner.defaults, **{down(k): _converted(v, below.get(k)) for k, v in self.defaults.items()}},
            factories={**inner.factories, **{down(k): _chained(f, below.get(k)) for k, f in self.factories.items()}},
            context=inner.context + tuple(down(k) for k in self.context),
            sources=tuple((name, src.seen_through(self.forward)) for name, src in inner.sources)
            + tuple((down(k), src.converted_by(below.get(k))) for k, src in self.sources),
            coercions=coercions,
            secret=inner.secret | frozenset(down(name) for name in self.secret),
        )


def _converted(value: Any, chain: tuple[Coerce, ...] | None) -> Any:
    """A fixed value converted (once, now) by the layers it skips."""
    for step in chain or ():
        try:
            value = step(value)
        except ArgumentErrors:
            raise TransformError("a hidden value does not fit the type of the tool below") from None
    return value


def _chained(factory: Callable[[], Any], chain: tuple[Coerce, ...] | None) -> Callable[[], Any]:
    if not chain:
        return factory

    def made() -> Any:
        value = factory()
        for step in chain:
            value = step(value)
        return value

    return made


class MappedRun:
    """What the `run` of a tool made by argument transforms does: one rewrite, then the base run.

    The `run` itself is the function `compiled()` generates from this (see
    `toolweave.transforms.compile`); `MappedRun.of(tool.run)` gets this description back.

    Attributes:
        argmap: The fused map.
        inner: The base tool's `run`.
        base: The base tool (whose arguments `argmap` produces), for `forward_raw` and `explain`.

    Example:
        >>> from toolweave import Tool
        >>> from toolweave.transforms import ExcludeArgs, TransformArgs
        >>> def search(q: str, debug: bool = False) -> str:
        ...     return q
        >>> base = Tool.from_function(search)
        >>> tool = base.with_transforms(TransformArgs({"q": "query"}), ExcludeArgs("debug"))
        >>> mapped = MappedRun.of(tool.run)
        >>> mapped.base is base, mapped.argmap.forward
        (True, {'query': 'q'})
    """

    __slots__ = ("argmap", "base", "inner")

    def __init__(self, argmap: ArgMap, inner: Run, base: Tool) -> None:
        self.argmap = argmap
        self.inner = inner
        self.base = base

    def __repr__(self) -> str:
        return f"MappedRun({self.argmap!r} over {self.base.name!r})"

    @staticmethod
    def of(run: Any) -> MappedRun | None:
        """The `MappedRun` behind a tool's `run` (the function compiled from it), or `None`."""
        found = getattr(run, "mapped_run", None)
        return found if isinstance(found, MappedRun) else None

    def compiled(self, tool_name: str) -> Run:
        """The `run` doing what this map describes: one generated function."""
        from toolweave.transforms.compile import compile_run

        function: Run = compile_run(self, tool_name)
        return function


class CoercingValidator:
    """The exposed validator, then each retyped argument converted to the type below it."""

    __slots__ = ("allowed", "coercions", "forbidden", "inner")

    def __init__(self, inner: ArgumentValidator, coercions: Mapping[str, tuple[Coerce, ...]]) -> None:
        self.inner = inner
        self.allowed = inner.allowed
        self.forbidden: frozenset[str] = getattr(inner, "forbidden", frozenset())
        self.coercions = dict(coercions)

    def validate(self, arguments: Mapping[str, Any], *, reject_extra: bool = True) -> dict[str, Any]:
        values = self.inner.validate(arguments, reject_extra=reject_extra)
        problems: list[ArgumentProblem] = []
        for name, chain in self.coercions.items():
            if name not in values:
                continue
            try:
                value = values[name]
                for step in chain:
                    value = step(value)
                values[name] = value
            except ArgumentErrors as error:
                problems.extend(
                    ArgumentProblem(f"{name}.{p.path}" if p.path else name, p.message) for p in error.problems
                )
        if problems:
            raise ArgumentErrors(problems)
        return values


def callable_source(fn: Callable[..., Any], label: str) -> Injected:
    """An `Injected` from `fn()`, `fn(ctx)` or `fn(ctx, arguments)`, sync or async; `TypeError`
    if `fn` requires more arguments than those (every call would fail)."""
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        arity = len(params)
    except (TypeError, ValueError):
        arity = 2
    if arity > 2:
        raise TypeError(f"{label} requires {arity} arguments; it is called with (), (ctx) or (ctx, arguments)")
    target = inspect.unwrap(fn)
    is_async = inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004 - async callable objects
    )
    return Injected(fn, is_async, label, arity=min(arity, 2), varies=False if arity == 0 else None)
