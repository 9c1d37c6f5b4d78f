"""Argument validators: one per exposed tool, built once, run once per call at the boundary.

A validator first checks the argument *names* (unknown ones are refused, or dropped with
`extra_args="ignore"`; hidden or injected ones are always refused, with exactly the words of an
unknown one, so a probing client learns nothing about what the server sets), then the
values: through a prebuilt pydantic validator for tools made from functions, or through a JSON
Schema validator for tools that only have a schema (remote tools, hand-written schemas).

Example:
    >>> v = SchemaValidator({"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> v.validate({"n": 3})
    {'n': 3}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from toolweave.core.errors import ArgumentProblem
from toolweave.core.schema_check import NOT_COMPILED, quick_check


class ArgumentErrors(Exception):
    """Raised by a validator; the server turns it into `InvalidArguments` naming the tool.

    `spoofed` names the arguments the client sent although the server sets them (hidden or
    injected): the server logs that as a security event.
    """

    def __init__(self, problems: list[ArgumentProblem], spoofed: tuple[str, ...] = ()) -> None:
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems
        self.spoofed = spoofed


class ArgumentValidator(Protocol):
    """Checks a call's arguments against a tool's exposed schema."""

    allowed: frozenset[str]

    def validate(self, arguments: Mapping[str, Any], *, reject_extra: bool = True) -> dict[str, Any]:
        """The validated arguments, or `ArgumentErrors` listing every problem."""
        ...


def _name_problems(
    arguments: Mapping[str, Any], allowed: frozenset[str], forbidden: frozenset[str]
) -> tuple[list[ArgumentProblem], tuple[str, ...]]:
    """Problems with unexpected names (hidden ones worded the same), and the hidden ones sent."""
    problems = [ArgumentProblem(name, "unexpected argument") for name in arguments if name not in allowed]
    spoofed = tuple(p.path for p in problems if p.path.casefold() in forbidden)
    return problems, spoofed


class _NameCheck:
    """The shared first step: argument names against the allowed and forbidden sets."""

    __slots__ = ("allowed", "forbidden")

    def __init__(self, allowed: Iterable[str], forbidden: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)
        self.forbidden = frozenset(name.casefold() for name in forbidden)

    def check(
        self, arguments: Mapping[str, Any], reject_extra: bool
    ) -> tuple[Mapping[str, Any], list[ArgumentProblem]]:
        """For arguments with names outside `allowed` (callers test that first: it is the rare case),
        the arguments with allowed names, and the problems with the others (to report with the rest)."""
        problems, spoofed = _name_problems(arguments, self.allowed, self.forbidden)
        kept = {k: v for k, v in arguments.items() if k in self.allowed}
        return kept, problems if (reject_extra or spoofed) else []

    def errors(self, problems: list[ArgumentProblem]) -> ArgumentErrors:
        """`ArgumentErrors` for `problems`, naming the hidden arguments among them."""
        return ArgumentErrors(problems, tuple(p.path for p in problems if p.path.casefold() in self.forbidden))


def pydantic_problems(error: ValidationError) -> list[ArgumentProblem]:
    """Each pydantic error as a problem (path and message), never with the offending value."""
    problems = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        path = ".".join(str(part) for part in item["loc"])
        problems.append(ArgumentProblem(path, item["msg"]))
    return problems


def _wire_name(field: str, info: Any, names: Mapping[str, str] | None) -> str:
    """The name a client sends for a model field: its validation alias, alias, or argument name."""
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    return alias or (names or {}).get(field, field)


class ModelValidator(_NameCheck):
    """Validates with a pydantic model built from a function signature.

    `names` maps the model's field names to the exposed argument names where they differ
    (a parameter called `json` or `_x` is stored under a safe field name with an alias).
    """

    __slots__ = ("_renamed", "_validate", "model")

    def __init__(
        self,
        model: type[BaseModel],
        *,
        names: Mapping[str, str] | None = None,
        forbidden: Iterable[str] = (),
    ) -> None:
        super().__init__([_wire_name(field, info, names) for field, info in model.model_fields.items()], forbidden)
        self.model = model
        self._validate: Callable[[Any], BaseModel] = model.__pydantic_validator__.validate_python
        self._renamed = dict(names) if names else None

    @property
    def renamed(self) -> Mapping[str, str] | None:
        """Field name → exposed argument name, where they differ (`None`: nowhere)."""
        return self._renamed

    def validate(self, arguments: Mapping[str, Any], *, reject_extra: bool = True) -> dict[str, Any]:
        problems: list[ArgumentProblem] = []
        if not self.allowed.issuperset(arguments):
            arguments, problems = self.check(arguments, reject_extra)
        try:
            values: dict[str, Any] = self._validate(arguments).__dict__
        except ValidationError as error:
            raise self.errors(problems + pydantic_problems(error)) from None
        if problems:
            raise self.errors(problems)
        if self._renamed is None:
            return values
        renamed = self._renamed
        return {renamed.get(k, k): v for k, v in values.items()}


class LazyModelValidator(ModelValidator):
    """A `ModelValidator` whose model is built by `build()` the first time anything needs it.

    Building a pydantic model costs a few hundred microseconds; a server with thousands of
    tools builds only the models of the tools that are called. Until then no slot is set, so
    the first attribute read (`validate` reading `allowed`, or a transform reading `model`)
    falls through to `__getattr__`, which builds the model and fills every slot; after that,
    reads are plain slot reads and the call path is exactly `ModelValidator`'s.

    Example:
        >>> from pydantic import create_model
        >>> v = LazyModelValidator(lambda: (create_model("m", n=(int, ...)), None))
        >>> v.validate({"n": "3"})
        {'n': 3}
    """

    __slots__ = ("_build", "_forbidden")

    def __init__(
        self,
        build: Callable[[], tuple[type[BaseModel], Mapping[str, str] | None]],
        *,
        forbidden: Iterable[str] = (),
    ) -> None:
        self._build: Callable[[], tuple[type[BaseModel], Mapping[str, str] | None]] | None = build
        self._forbidden = tuple(forbidden)

    _BUILT_SLOTS = frozenset({*_NameCheck.__slots__, *ModelValidator.__slots__})

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: an unset slot before the build, or a probe
        # (`hasattr(v, "inner")`) for something no validator of this kind has.
        build = self._build if name in self._BUILT_SLOTS else None
        if build is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        model, names = self._model()
        ModelValidator.__init__(self, model, names=names, forbidden=self._forbidden)
        self._build = None
        return getattr(self, name)

    @property
    def built(self) -> bool:
        """Whether the model has been built yet."""
        return self._build is None

    def _model(self) -> tuple[type[BaseModel], Mapping[str, str] | None]:
        """The model and its renamed fields: `build()` (a subclass may build them itself)."""
        assert self._build is not None
        return self._build()


def _schema_path(error: Any) -> str:
    path = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return ".".join(filter(None, (path, missing)))
    return path


def _schema_message(error: Any) -> str:
    if error.validator == "required":
        return "Field required"
    if error.validator == "type":
        return f"expected {error.validator_value}"
    if error.validator == "enum":
        return f"expected one of {error.validator_value}"
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"must satisfy {error.validator} {error.validator_value}"
    if error.validator in ("minLength", "maxLength", "pattern", "minItems", "maxItems", "format"):
        return f"must satisfy {error.validator} {error.validator_value!r}"
    return f"does not match the schema ({error.validator})"


class SchemaValidator(_NameCheck):
    """Validates with a JSON Schema (2020-12); values pass through unconverted.

    Unknown argument names are refused only when the schema lists its properties (a schema
    with no `properties` accepts any names, as the tool declared).
    """

    __slots__ = ("_open", "_quick", "_schema", "_validator")

    def __init__(self, schema: Mapping[str, Any], *, forbidden: Iterable[str] = ()) -> None:
        properties = schema.get("properties") or {}
        super().__init__(properties, forbidden)
        self._schema = dict(schema)
        self._validator: Any = None
        self._quick: Any = NOT_COMPILED
        self._open = "properties" not in schema and schema.get("additionalProperties", True) is not False

    def validate(self, arguments: Mapping[str, Any], *, reject_extra: bool = True) -> dict[str, Any]:
        problems: list[ArgumentProblem] = []
        if not self._open:
            if not self.allowed.issuperset(arguments):
                arguments, problems = self.check(arguments, reject_extra)
        elif self.forbidden:
            found, spoofed = _name_problems(arguments, self.allowed, self.forbidden)
            problems = [p for p in found if p.path in spoofed]
        values = dict(arguments)
        if not problems:
            quick = self._quick
            if quick is NOT_COMPILED:
                quick = self._quick = quick_check(self._schema)
            if quick is not None and quick(values):  # certainly valid: jsonschema would find nothing
                return values
        if self._validator is None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(self._schema)
        errors = sorted(self._validator.iter_errors(values), key=lambda e: list(e.absolute_path))
        problems += [ArgumentProblem(_schema_path(e), _schema_message(e)) for e in errors]
        if problems:
            raise self.errors(problems)
        return dict(arguments)
