"""A tool's exposed arguments as argument transforms see them, and the exposed validator built back.

Two kinds of tools: *model* tools (made from a Python function; their validator holds a pydantic
model, so each argument keeps its Python type and `FieldInfo`) and *schema* tools (a hand-written
or remote JSON Schema, validated with `SchemaValidator`). `Signature.of(tool)` reads either kind;
`Signature.build(...)` turns a list of `ArgSpec`s back into an input schema and a validator.

Example:
    >>> from toolweave.core.tool import Tool
    >>> def search(query: str, limit: int = 10) -> list[str]:
    ...     return []
    >>> sig = Signature.of(Tool.from_function(search))
    >>> [(arg.name, arg.required, arg.default) for arg in sig.args]
    [('query', True, NOT_SET), ('limit', False, 10)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal

from pydantic import Field
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from toolweave.core.reading import Parameter, build_model, model_schema
from toolweave.core.tool import Tool
from toolweave.core.validation import ArgumentValidator, ModelValidator, SchemaValidator
from toolweave.transforms.schema_edit import hoist, object_edit


class _NotSet:
    _instance: _NotSet | None = None

    def __new__(cls) -> _NotSet:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_SET"

    def __bool__(self) -> bool:
        return False


NOT_SET: Any = _NotSet()
"""Marks an option that was not given (so `None` can mean "remove")."""


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One exposed argument.

    Attributes:
        name: The exposed name.
        schema: Its property schema as exposed.
        required: Whether a client must send it.
        default: Its default, or `NOT_SET`.
        default_factory: A zero-argument factory for the default (model tools only), or `None`.
        annotation: The Python type, constraints included (model tools), or `NOT_SET`.
        field: The pydantic `FieldInfo` (model tools), or `None`.
        spellings: Other names a client could use for it (pydantic field name, aliases).
    """

    name: str
    schema: Mapping[str, Any]
    required: bool
    default: Any = NOT_SET
    default_factory: Callable[[], Any] | None = None
    annotation: Any = NOT_SET
    field: FieldInfo | None = field(default=None, repr=False)
    spellings: frozenset[str] = frozenset()

    @property
    def has_default(self) -> bool:
        """Whether the argument has a value to use when it is not sent."""
        return self.default is not NOT_SET or self.default_factory is not None

    def default_value(self) -> Any:
        """The default, made fresh by the factory if there is one."""
        return self.default_factory() if self.default_factory is not None else self.default


def base_validator(validator: ArgumentValidator) -> ArgumentValidator:
    """The validator under any coercion wrappers."""
    while hasattr(validator, "inner"):
        validator = validator.inner
    return validator


def _model_spec(exposed: str, field_name: str, info: FieldInfo, prop: Mapping[str, Any]) -> ArgSpec:
    annotation = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    default = NOT_SET if info.default is PydanticUndefined else info.default
    factory: Any = info.default_factory
    spellings = {field_name, exposed}
    for alias in (info.alias, info.validation_alias):
        if isinstance(alias, str):
            spellings.add(alias)
    return ArgSpec(exposed, prop, info.is_required(), default, factory, annotation, info, frozenset(spellings))


@dataclass(frozen=True, slots=True)
class Signature:
    """The exposed arguments of a tool, in order."""

    kind: Literal["model", "schema"]
    args: tuple[ArgSpec, ...]
    schema: Mapping[str, Any]

    @classmethod
    def of(cls, tool: Tool) -> Signature:
        """Read the exposed arguments of `tool` (from its pydantic model, or its JSON Schema)."""
        schema = tool.input_schema
        props: Mapping[str, Any] = schema.get("properties") or {}
        validator = base_validator(tool.validator)
        model = getattr(validator, "model", None)
        if isinstance(validator, ModelValidator) and model is not None:
            names: Mapping[str, str] = validator.renamed or {}
            args = tuple(
                _model_spec(names.get(fname, fname), fname, info, props.get(names.get(fname, fname), {}))
                for fname, info in model.model_fields.items()
            )
            return cls("model", args, schema)
        required = set(schema.get("required") or ())
        args = tuple(
            ArgSpec(
                name,
                prop if isinstance(prop, Mapping) else {},
                name in required,
                prop.get("default", NOT_SET) if isinstance(prop, Mapping) else NOT_SET,
                spellings=frozenset({name}),
            )
            for name, prop in props.items()
        )
        return cls("schema", args, schema)

    def get(self, name: str) -> ArgSpec | None:
        """The argument exposed as `name`, or `None`."""
        for arg in self.args:
            if arg.name == name:
                return arg
        return None

    def build(
        self, tool_name: str, specs: Iterable[tuple[str, ArgSpec]], forbidden: Iterable[str]
    ) -> tuple[dict[str, Any], ArgumentValidator]:
        """The exposed input schema and validator for `specs` ((current name, new spec) pairs)."""
        pairs = list(specs)
        forbidden = frozenset(forbidden)
        if self.kind == "model":
            params = [_parameter(spec) for _, spec in pairs]
            model, renamed = build_model(tool_name, params)
            return model_schema(tool_name, model), ModelValidator(model, names=renamed, forbidden=forbidden)
        defs = dict(self.schema.get("$defs") or {})
        properties = {}
        for _, spec in pairs:
            prop = dict(spec.schema)
            if spec.annotation is not NOT_SET:  # retyped: the property is the new type's schema
                prop = {**hoist(spec.annotation, defs, f"tool {tool_name!r}, argument {spec.name!r}"), **prop}
            properties[spec.name] = prop
        schema = object_edit(
            self.schema,
            {current: spec.name for current, spec in pairs},
            [spec.name for _, spec in pairs if spec.required],
            properties,
            defs if ("$defs" in self.schema or defs) else None,
        )
        return schema, SchemaValidator(schema, forbidden=forbidden)


def _parameter(spec: ArgSpec) -> Parameter:
    """A `build_model` parameter for one exposed argument of a model tool."""
    info = spec.field
    options: dict[str, Any] = {}
    if spec.default_factory is not None:
        options["default_factory"] = spec.default_factory
    elif spec.default is not NOT_SET:
        options["default"] = spec.default
    for key in ("description", "examples"):
        if key in spec.schema:
            options[key] = spec.schema[key]
    if info is not None:
        for key in ("json_schema_extra", "discriminator", "deprecated", "strict"):
            value = getattr(info, key, None)
            if value is not None:
                options[key] = value
    return Parameter(spec.name, spec.annotation, Field(**options), None)


def with_changes(spec: ArgSpec, **changes: Any) -> ArgSpec:
    """`spec` with some fields changed (`dataclasses.replace`)."""
    return replace(spec, **changes)
