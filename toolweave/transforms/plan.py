"""`remap`: apply one argument step to a tool, checking it and fusing it with the tool's map.

Every argument transform reads the tool's `Signature`, decides which arguments stay visible
(with their new name, description, default or type) and how each hidden one is filled
(`Fill`), and hands that to `remap`, which checks it (clear `TransformError`s naming the tool and
the argument), builds the exposed schema and validator, and fuses the step into one `ArgMap`.

Example:
    >>> from toolweave.core.tool import Tool
    >>> def search(q: str, debug: bool = False) -> str:
    ...     return q
    >>> tool = Tool.from_function(search)
    >>> sig = Signature.of(tool)
    >>> quiet = remap(tool, "ExcludeArgs('debug')", sig, [("q", sig.args[0])], {"debug": Fill("default")})
    >>> list(quiet.input_schema["properties"]), sorted(quiet.hidden)
    (['q'], ['debug'])
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from toolweave.core.errors import InjectionError, TransformError
from toolweave.core.schema_check import json_schema_validator
from toolweave.core.tool import Tool
from toolweave.transforms.argmap import ArgMap, Coerce, CoercingValidator, Injected, MappedRun
from toolweave.transforms.redact import MIN_SECRET_LENGTH
from toolweave.transforms.redact import wrap as redacting
from toolweave.transforms.signature import NOT_SET, ArgSpec, Signature

FillKind = Literal["default", "constant", "factory", "source", "context"]


@dataclass(frozen=True, slots=True)
class Fill:
    """How a hidden argument gets its value: its own default, a constant, a factory, a source, the context.

    `secret` marks a value the server supplies and the client must never read back: it is
    redacted from whatever the tool returns (`toolweave.transforms.redact`).
    """

    kind: FillKind
    value: Any = None
    secret: bool = False

    def __repr__(self) -> str:  # never show a constant: it may be a secret
        return f"Fill({self.kind!r})"


def where(tool: Tool, arg: str | None = None) -> str:
    """`tool 'x'` or `tool 'x', argument 'y'`, for error messages."""
    return f"tool {tool.name!r}" + (f", argument {arg!r}" if arg is not None else "")


def refusal(tool: Tool, arg: str, problem: str, detail: str) -> TransformError:
    """The `TransformError` refusing argument `arg` of `tool` (`problem`: its kind; `detail`: why)."""
    return TransformError(f"{where(tool, arg)}: {detail}", argument=arg, problem=problem, detail=detail)


def require_args(tool: Tool, sig: Signature, names: Iterable[str], what: str) -> None:
    """`TransformError` unless every name is an exposed argument of `tool`."""
    exposed = [arg.name for arg in sig.args]
    for name in names:
        if sig.get(name) is None:
            hidden = name.casefold() in {h.casefold() for h in tool.hidden}
            why = "it is already hidden" if hidden else f"its arguments are {exposed}"
            raise TransformError(f"{where(tool, name)}: {what} names an argument the tool does not expose ({why})")


def _adapter(annotation: Any) -> TypeAdapter[Any] | None:
    if annotation is NOT_SET or annotation is Any or annotation is object:
        return None
    return TypeAdapter(annotation)


def fixed_value(tool: Tool, spec: ArgSpec, value: Any, what: str = "value") -> Any:
    """A constant (or a new default: `what`) checked once, now, against the argument's type and
    converted to it; the error never shows the value (it may be a secret)."""
    adapter = _adapter(spec.annotation)
    try:
        if adapter is not None:
            return adapter.validate_python(value)
    except ValidationError:
        pass
    else:
        if _fits_schema(value, spec.schema):  # a tool known by its JSON Schema only (remote, OpenAPI)
            return value
    raise refusal(tool, spec.name, f"{what}_mismatch", f"the {what} given for it does not fit its type")


def _fits_schema(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether `value` matches an argument's JSON Schema (one that refers elsewhere, `$ref`, is
    left to the tool: it cannot be read alone)."""
    if not schema or "$ref" in json.dumps(schema, default=str):
        return True
    return bool(json_schema_validator(schema).is_valid(value))


def _exact(spec: ArgSpec) -> type | None:
    """The argument's type when values of exactly that type need no conversion."""
    return spec.annotation if spec.annotation in (str, int, float, bool) else None


def _source_coercer(tool: Tool, spec: ArgSpec, label: str) -> Coerce | None:
    adapter = _adapter(spec.annotation)
    if adapter is None:
        return None
    validate = adapter.validate_python
    message = f"argument {spec.name!r}: the value injected from {label} does not fit the argument's type"

    def coerce(value: Any) -> Any:
        try:
            return validate(value)
        except ValidationError:
            raise InjectionError(message) from None

    return coerce


def _check_names(tool: Tool, visible: list[tuple[str, ArgSpec]]) -> None:
    seen: dict[str, str] = {}
    hidden = {name.casefold() for name in tool.hidden}
    for current, spec in visible:
        if spec.name in seen:
            other = seen[spec.name]
            moved = current if current != spec.name else other
            raise refusal(
                tool,
                moved,
                "rename",
                f"cannot be renamed to {spec.name!r}: the tool already exposes an argument named {spec.name!r}",
            )
        seen[spec.name] = current
        if spec.name != current and spec.name.casefold() in hidden:
            detail = f"cannot be renamed to {spec.name!r}: that name is a hidden argument"
            raise refusal(tool, current, "rename", detail)


def _fill_step(tool: Tool, sig: Signature, fills: Mapping[str, Fill]) -> dict[str, Any]:
    """The parts of the step map that fill hidden arguments."""
    constants: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    context: list[str] = []
    sources: list[tuple[str, Injected]] = []
    secret: set[str] = set()  # what the server supplies (its own defaults aside)
    for name, fill in fills.items():
        spec = sig.get(name)
        assert spec is not None
        if fill.kind == "default":
            if spec.default_factory is not None:
                factories[name] = spec.default_factory
            elif spec.default is not NOT_SET:
                constants[name] = spec.default
            elif spec.required or sig.kind == "model":
                raise refusal(
                    tool,
                    name,
                    "required_hidden",
                    "cannot be hidden: it is required and has no default; "
                    "give it a default (Arg(default=...)) or inject a value (InjectArgs)",
                )
        elif fill.kind == "constant":
            constants[name] = fixed_value(tool, spec, fill.value)
            if fill.secret and isinstance(constants[name], str) and len(constants[name]) >= MIN_SECRET_LENGTH:
                secret.add(name)
        elif fill.kind == "factory":
            factories[name] = fill.value
        elif fill.kind == "context":
            context.append(name)
        else:
            src: Injected = fill.value
            coerce = _source_coercer(tool, spec, src.label)
            sources.append((name, src.replace(coerce=coerce, exact=_exact(spec))))
            if fill.secret:
                secret.add(name)
    return {
        "constants": constants,
        "factories": factories,
        "context": tuple(context),
        "sources": tuple(sources),
        "secret": frozenset(secret),
    }


def hidden_names(tool: Tool, sig: Signature, visible: list[tuple[str, ArgSpec]]) -> frozenset[str]:
    """Every spelling a client might use for a hidden or renamed-away argument."""
    shown = {spec.name.casefold() for _, spec in visible}
    kept = {current for current, spec in visible if current == spec.name}
    names = set(tool.hidden)
    for arg in sig.args:
        if arg.name not in kept:
            names.update(arg.spellings | {arg.name})
    return frozenset(name for name in names if name.casefold() not in shown)


def remap(
    tool: Tool,
    transform: Any,
    sig: Signature,
    visible: list[tuple[str, ArgSpec]],
    fills: Mapping[str, Fill],
    coercions: Mapping[str, tuple[Coerce, ...]] | None = None,
) -> Tool:
    """`tool` with its arguments exposed as `visible` ((current name, new spec), in order), the
    others filled as `fills` says; the step is fused with the tool's existing `ArgMap`."""
    _check_names(tool, visible)
    defaults = {}
    if sig.kind == "schema":  # a JSON Schema validator does not fill defaults: the map does
        for current, spec in visible:
            before = sig.get(current)
            if spec.default is not NOT_SET and (before is None or before.default != spec.default):
                defaults[current] = spec.default
    step = ArgMap(
        forward={spec.name: current for current, spec in visible},
        defaults=defaults,
        coercions=dict(coercions or {}),
        **_fill_step(tool, sig, fills),
    )
    below = MappedRun.of(tool.run)
    if below is not None:
        try:
            argmap, inner, base = step.then(below.argmap), below.inner, below.base
        except TransformError as error:
            raise error.within(where(tool)) from None
    else:
        argmap, inner, base = step, tool.run, tool
    hidden = hidden_names(tool, sig, visible)
    try:
        schema, validator = sig.build(tool.name, visible, hidden)
    except (TypeError, ValueError) as error:
        raise TransformError(f"{where(tool)}: cannot build the new argument schema: {error}") from None
    if argmap.coercions:
        validator = CoercingValidator(validator, argmap.coercions)
    run = MappedRun(argmap, redacting(inner, argmap.secret), base).compiled(tool.name)
    varies_with = _varies_with(tool.varies_with, step.sources)
    return tool.derive(
        transform, input_schema=schema, validator=validator, hidden=hidden, run=run, varies_with=varies_with
    )


def _varies_with(before: tuple[Any, ...] | None, sources: tuple[tuple[str, Injected], ...]) -> tuple[Any, ...] | None:
    """What the derived tool's result depends on per call: the reads of the request before, plus
    this step's; `None` once a source is a function of the request no cache key can capture."""
    if before is None:
        return None
    added = []
    for _, src in sources:
        if src.varies is None:
            return None
        if src.varies:
            added.append(src.fn)
    return before + tuple(added) if added else before
