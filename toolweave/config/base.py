"""Building blocks of the config models: strict objects, shorthand unions, checked values (tool-name
globs, tool names, import paths, URLs).

Every config object forbids unknown keys; a misspelt key fails with a suggestion. A value that
may be written in a short form (`tools: "gh_*"` or `tools: {names: [...], tags: [...]}`) is a
*shorthand* union whose branch is chosen by the JSON kind of the value, so an error speaks about
the branch the user meant, not every branch pydantic tried.

Example:
    >>> from pydantic import Field
    >>> class Entry(StrictModel):
    ...     command: str = Field(description="The program to run.")
    >>> Entry.model_validate({"comand": "x"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for Entry
    ...unknown key 'comand' (did you mean 'command'?)...
"""

from __future__ import annotations

import functools
import math
import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic_core.core_schema import ErrorType

from toolweave.auth.verifier import url_problem
from toolweave.config.envvars import FromReference
from toolweave.core.names import MAX_NAME_LENGTH, NAME_CHARS, NAME_CHARS_SHOWN, NAME_PATTERN, NAME_RULE, suggest

_BUILT_IN_ERRORS = frozenset(get_args(ErrorType))
_IMPORT = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
)

__all__ = [
    "GLOB_PATTERN",
    "ConfigJsonSchema",
    "HttpURL",
    "ImportPath",
    "StrictModel",
    "StrictNonNegativeFloat",
    "StrictPositiveFloat",
    "StrictPositiveInt",
    "ToolName",
    "check_glob",
    "json_kind",
    "shape",
]

GLOB_PATTERN = rf"^[{NAME_CHARS}*?\[\]!]{{1,{MAX_NAME_LENGTH}}}$"
"""What a tool-name glob may contain: tool-name characters (`toolweave.core.names`) and `* ? [ ] !`."""
StrictPositiveFloat = Annotated[float, Field(strict=True, gt=0)]
"""A number > 0 (a whole one too); `true` or `"3"` is refused, never read as 1 or 3."""
StrictNonNegativeFloat = Annotated[float, Field(strict=True, ge=0)]
"""A number >= 0 (a whole one too); booleans and strings are refused."""
StrictPositiveInt = Annotated[int, Field(strict=True, gt=0)]
"""A whole number > 0; booleans, strings and `3.0` are refused."""


def json_kind(value: Any) -> str:
    """The JSON kind of a parsed value (`"object"`, `"list"`, `"string"`, ...), for messages and unions."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null" if value is None else type(value).__name__


def shape(value: Any) -> str:
    """The union tag of a value's JSON kind (`"<object>"`, `"<string>"`, ...) for shorthand unions."""
    return f"<{json_kind(value)}>"


def check_glob(pattern: str) -> str:
    """`pattern` if it is a usable tool-name glob, else a `ValueError` saying why."""
    if not pattern:
        raise ValueError("a tool-name pattern must not be empty")
    bad = sorted({char for char in pattern if not (NAME_PATTERN.fullmatch(char) or char in "*?[]!")})
    if bad:
        shown = "".join(bad)
        raise ValueError(
            f"this pattern can never match a tool name: tool names do not contain {shown!r} "
            f"(they use {NAME_CHARS_SHOWN}; patterns add '*', '?', '[...]')"
        )
    depth = 0
    for char in pattern:
        if char == "[":
            if depth:
                raise ValueError("this pattern opens '[' inside '[...]'")
            depth = 1
        elif char == "]" and depth:
            depth = 0
    if depth:
        raise ValueError("this pattern has a '[' that is never closed with ']'")
    return pattern


def _tool_name(value: str) -> str:
    if not NAME_PATTERN.fullmatch(value):
        raise ValueError(f"not a valid tool name: {NAME_RULE}")
    return value


def _import_path(value: str) -> str:
    if not _IMPORT.match(value):
        raise ValueError("not an import path: write 'package.module:attribute'")
    return value


def _http_url(value: str) -> str:
    problem = url_problem(value)
    if problem is not None:
        raise ValueError(problem)  # the value is not echoed: it may come from ${VAR}
    return value


ToolName = Annotated[str, AfterValidator(_tool_name)]
"""A tool name (`toolweave.core.names`): a prefix, a new name, a key of `tools`."""
ImportPath = Annotated[str, AfterValidator(_import_path), Field(pattern=_IMPORT.pattern)]
"""A `package.module:attribute` reference."""
HttpURL = Annotated[str, AfterValidator(_http_url)]
"""An http:// or https:// URL (an endpoint toolweave calls, or names in the RFC 9728 metadata)."""


class StrictModel(BaseModel):
    """A config object: unknown keys are errors (with a "did you mean" hint), fields are documented."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _known_keys_only(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        """Unknown keys are errors, reported together with every other problem of this object.
        A field taking a number or a boolean reads it from a string that was one `${...}`
        reference (`FromReference`): the environment holds text only."""
        if not isinstance(data, dict):
            return handler(data)
        data = {key: _scalar_from_reference(cls, key, value) for key, value in data.items()}
        known = set(cls.model_fields)
        known |= {field.alias for field in cls.model_fields.values() if field.alias}
        unknown = [key for key in data if key not in known]
        if not unknown:
            return handler(data)
        public = sorted(field.alias or name for name, field in cls.model_fields.items())
        hints = {key: suggest(str(key), public) for key in unknown}
        details = [_unknown_key(key, data[key], hint, public) for key, hint in hints.items()]
        try:
            handler({key: value for key, value in data.items() if key in known})
        except ValidationError as error:
            meant = set(hints.values())  # `command` is missing because it was spelt `comand`: say it once
            details += [
                _detail(item)
                for item in error.errors()
                if not (item["type"] == "missing" and len(item["loc"]) == 1 and item["loc"][0] in meant)
            ]
        raise ValidationError.from_exception_data(cls.__name__, details)


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _scalar_from_reference(model: type[BaseModel], key: Any, value: Any) -> Any:
    """`value` read as the boolean or number the field `key` of `model` takes, when it is the text
    of one `${...}` reference that spells one (`"true"`, `"30"`, `"2.5"`); else `value` itself."""
    if not isinstance(value, FromReference):
        return value
    kinds = _scalar_kinds(model).get(key, ())
    text = value.strip()
    if bool in kinds and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if int in kinds and _INTEGER.fullmatch(text):
        return int(text)
    if float in kinds:
        try:
            number = float(text)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    return value


@functools.cache
def _scalar_kinds(model: type[BaseModel]) -> dict[str, tuple[type, ...]]:
    """The scalar kinds (`bool`, `int`, `float`) each field of `model` takes, by name and alias."""
    kinds: dict[str, tuple[type, ...]] = {}
    for name, field in model.model_fields.items():
        found = tuple(kind for kind in (bool, int, float) if _takes(field.annotation, kind))
        if found:
            kinds[name] = found
            if field.alias:
                kinds[field.alias] = found
    return kinds


def _takes(annotation: Any, kind: type) -> bool:
    """Whether `annotation` (through `Annotated`, unions and `Optional`) admits `kind` itself."""
    if annotation is kind:
        return True
    if get_origin(annotation) not in (Annotated, Union, types.UnionType):
        return False  # a list or mapping of numbers takes no number itself
    return any(_takes(argument, kind) for argument in get_args(annotation) if not isinstance(argument, FieldInfo))


_REFERENCE_BRANCH = {
    "type": "string",
    "pattern": r"^\$\{[^}]+\}$",
    "description": "One ${...} reference whose value spells the number or boolean (`${TIMEOUT:-30}`).",
}
_SCALAR_TYPES = frozenset({"boolean", "integer", "number"})


class ConfigJsonSchema(GenerateJsonSchema):
    """The config's JSON Schema as the loader reads it: a field taking a number or a boolean also
    takes a string that is one `${...}` reference (`_scalar_from_reference`), so an editor does
    not mark `timeout: ${TIMEOUT:-30}` as an error."""

    def model_field_schema(self, schema: Any) -> JsonSchemaValue:
        field = super().model_field_schema(schema)
        if not _takes_scalar(field):
            return field
        if "anyOf" in field:
            return {**field, "anyOf": [*field["anyOf"], _REFERENCE_BRANCH]}
        about = {key: value for key, value in field.items() if key in ("title", "description", "default")}
        rest = {key: value for key, value in field.items() if key not in about}
        return {**about, "anyOf": [rest, _REFERENCE_BRANCH]}


def _takes_scalar(schema: JsonSchemaValue) -> bool:
    """Whether `schema`, or a branch of its unions, takes a number or a boolean itself (as `_takes`)."""
    kinds = schema.get("type")
    if _SCALAR_TYPES.intersection(kinds if isinstance(kinds, list) else [kinds]):
        return True
    return any(_takes_scalar(branch) for branch in (*schema.get("anyOf", ()), *schema.get("oneOf", ())))


def _unknown_key(key: Any, value: Any, hint: str | None, public: list[str]) -> InitErrorDetails:
    advice = f"did you mean {hint!r}?" if hint else f"expected one of: {', '.join(public)}"
    error = PydanticCustomError(
        "unknown_key", "unknown key {key_repr} ({advice})", {"key_repr": repr(key), "advice": advice}
    )
    return InitErrorDetails(type=error, loc=(key,), input=value)


def _detail(item: Any) -> InitErrorDetails:
    """A reported error as one to raise again (custom ones rebuilt from their message and context)."""
    kind = item["type"]
    ctx = item.get("ctx") or {}
    if kind not in _BUILT_IN_ERRORS:
        template = item["msg"].replace("{", "{{").replace("}", "}}")
        return InitErrorDetails(type=PydanticCustomError(kind, template, ctx), loc=item["loc"], input=item["input"])
    return InitErrorDetails(type=kind, loc=item["loc"], input=item["input"], ctx=ctx)
