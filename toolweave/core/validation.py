"""Argument validators: one per exposed tool, built once, run once per call at the boundary.

A validator first checks the argument *names*: unknown ones are refused, or dropped with
`extra_args="ignore"`; a name the server sets (hidden or injected, in any casing) is answered
exactly as an unknown one (refused with the same words, or dropped without a word), so a probing
client learns nothing about what the server sets, and never reaches the tool. Then the values:
through a prebuilt pydantic validator for tools made from functions, or through a JSON Schema
validator for tools that only have a schema (remote tools, hand-written schemas).
`hidden_sent` names the server's names a call sent, for the security log.

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
from toolweave.core.schema_check import NOT_COMPILED, json_schema_validator, quick_check


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


_NOTHING: frozenset[str] = frozenset()


def hidden_sent(validator: ArgumentValidator, arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The names in `arguments` that the server sets (hidden or injected, in any casing).

    The validator refuses them in the words of an unknown name, or with `extra_args="ignore"`
    drops them without a word; either way the server logs them as a spoofing attempt.

    Example:
        >>> v = SchemaValidator({"type": "object", "properties": {"q": {}}}, forbidden=["api_key"])
        >>> hidden_sent(v, {"q": 1, "API_Key": "x", "zz": 2})
        ('API_Key',)
    """
    allowed = validator.allowed
    if allowed.issuperset(arguments):  # the usual case: one set operation
        return ()
    forbidden: frozenset[str] = getattr(validator, "forbidden", _NOTHING)  # (not every validator hides names)
    return tuple(name for name in arguments if name not in allowed and name.casefold() in forbidden)


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
        the arguments with allowed names, and the problems with the others (to report with the rest):
        none when they are ignored, whether the server sets them or not (no oracle)."""
        allowed = self.allowed
        kept = {k: v for k, v in arguments.items() if k in allowed}
        if not reject_extra:
            return kept, []
        return kept, [ArgumentProblem(name, "unexpected argument") for name in arguments if name not in allowed]

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


TOO_DEEP = "the arguments are nested too deeply to be checked"


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
        elif self.forbidden:  # any name is welcome, except the server's own
            sent = hidden_sent(self, arguments)
            if sent and reject_extra:
                problems = [ArgumentProblem(name, "unexpected argument") for name in sent]
            elif sent:
                arguments = {k: v for k, v in arguments.items() if k not in sent}
        values = dict(arguments)
        try:
            if not problems:
                quick = self._quick
                if quick is NOT_COMPILED:
                    quick = self._quick = quick_check(self._schema)
                if quick is not None and quick(values):  # certainly valid: jsonschema would find nothing
                    return values
            problems += self._schema_problems(values)
        except RecursionError:  # both checks recurse per level of a (recursive) schema's value
            problems.append(ArgumentProblem("", TOO_DEEP))
        if problems:
            raise self.errors(problems)
        return dict(arguments)

    def _schema_problems(self, values: dict[str, Any]) -> list[ArgumentProblem]:
        if self._validator is None:
            self._validator = json_schema_validator(self._schema)
        errors = sorted(self._validator.iter_errors(values), key=lambda e: list(e.absolute_path))
        return [ArgumentProblem(_schema_path(e), _schema_message(e)) for e in errors]
