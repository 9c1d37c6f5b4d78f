"""What a successful result must be before it leaves a server: `OutputCheck`.

The protocol wants structured content to be a JSON object, and a tool that declares an output
schema to send structured content that matches it (the official clients raise otherwise). The
server checks each successful result once, at its boundary:

- structured content that is not an object, or missing under an output schema, is refused;
- structured content is validated against the output schema, NaN and ±Infinity refused (JSON
  numbers cannot be either: sent, they arrive as `null` and break a `number` schema) — unless
  the tool's own `run` already guarantees it (`Tool.output_checked`: function tools validate
  their return value against their return annotation with pydantic; `MapResult(check=False)`
  vouches for what it maps), so the common path costs no JSON Schema validation; a schema in the
  common subset gets a compiled quick check first (`toolweave.core.schema_check`), and only a
  value it does not vouch for goes through `jsonschema`.

A refused result is an `InvalidResult`: an internal error, masked for the client, logged with
the first problem (`path: keyword`, never the value).

Example:
    >>> from toolweave.core.result import ToolResult
    >>> check = OutputCheck({"type": "object", "properties": {"n": {"type": "integer"}}}, validate=True)
    >>> check(ToolResult([], structured_content={"n": 1}))
    >>> check(ToolResult([], structured_content={"n": "one"}))
    Traceback (most recent call last):
    ...
    toolweave.core.errors.InvalidResult: the structured content does not match the output schema (n: type)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolweave.core.errors import InvalidResult
from toolweave.core.result import ToolResult, non_finite
from toolweave.core.schema_check import NOT_COMPILED, json_schema_validator, quick_check


def schema_problem(validator: Any, data: Any) -> str | None:
    """The first violation of a JSON Schema as `path: keyword` (never the offending value; a
    missing property is named: that name is the schema's)."""
    for error in validator.iter_errors(data):
        path = "/".join(str(part) for part in error.absolute_path) or "(root)"
        return f"{path}: {error.message if error.validator == 'required' else error.validator}"
    return None


class OutputCheck:
    """The checks one tool's successful results pass before they go out (built once per tool).

    Args:
        schema: The tool's output schema, if it has one.
        validate: Validate structured content against `schema` (JSON Schema, compiled on first use).
    """

    __slots__ = ("_quick", "_validator", "schema", "validate")

    def __init__(self, schema: Mapping[str, Any] | None, *, validate: bool) -> None:
        self.schema = schema
        self.validate = validate and schema is not None
        self._validator: Any = None
        self._quick: Any = NOT_COMPILED

    @classmethod
    def of(cls, schema: Mapping[str, Any] | None, *, validate: bool) -> OutputCheck:
        """The check for a tool with this output schema: one shared object for every tool whose
        results are not validated here (the common case), a check of its own otherwise.

        Example:
            >>> OutputCheck.of({"type": "object"}, validate=False) is OutputCheck.of({}, validate=False)
            True
        """
        if validate and schema is not None:
            return cls(schema, validate=True)
        return _WITHOUT_SCHEMA if schema is None else _UNVALIDATED

    def __call__(self, result: ToolResult) -> None:
        """Return if `result` may go out; raise `InvalidResult` saying why not."""
        if result.is_error:
            return
        structured = result.structured_content
        if structured is None:
            if self.schema is not None:
                raise InvalidResult("the tool has an output schema but the result carries no structured content")
            return
        if type(structured) is not dict:
            raise InvalidResult(f"structured content must be a JSON object, not {type(structured).__name__}")
        if self.validate:
            where = non_finite(structured)
            if where is not None:
                raise InvalidResult(f"the structured content holds NaN or infinity, which JSON cannot carry ({where})")
            quick = self._quick
            if quick is NOT_COMPILED:
                quick = self._quick = quick_check(dict(self.schema or {}))
            if quick is not None and quick(structured):  # certainly valid: jsonschema would find nothing
                return
            problem = schema_problem(self._compiled(), structured)
            if problem is not None:
                raise InvalidResult(f"the structured content does not match the output schema ({problem})")

    def _compiled(self) -> Any:
        if self._validator is None:
            self._validator = json_schema_validator(self.schema or {})
        return self._validator


_WITHOUT_SCHEMA = OutputCheck(None, validate=False)
_UNVALIDATED = OutputCheck({}, validate=False)  # (only whether there is a schema matters unvalidated)
