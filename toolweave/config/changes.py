"""Config models of the changes made to tools: a `tools.<name>` entry, a `transforms` rule, an
`authorize` rule.

A `ToolPatch` holds what any change may do to a tool (its arguments, annotations, tags, access,
error masking, task support, result size); a `ToolSpec` adds a new name, title and description
for one tool; a `TransformSpec` applies a patch to every tool its selector matches. An
`AuthorizeSpec` says who may see and use the prompts, resources and tools it chooses.

Example:
    >>> spec = ToolSpec.model_validate({"name": "sum", "args": {"b": {"default": 1}}})
    >>> spec.name, spec.args["b"].default
    ('sum', 1)
    >>> ArgSpec.model_validate({"inject": "claim:sub", "name": "user"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for ArgSpec
    ...'inject' hides the argument, so it cannot be combined with name...
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StrictBool, field_validator, model_validator

from toolweave.config.base import StrictModel, StrictPositiveInt, ToolName, json_kind
from toolweave.config.inject import parse_inject
from toolweave.config.policies import ToolSelector


def _claim_value(value: Any) -> Any:
    scalar = (str, int, float, bool)
    if isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(item, scalar) for item in value)):
        return value
    raise ValueError(f"a claim value is text, a number, a boolean or a list of them, not {json_kind(value)!r}")


Claims = dict[str, Annotated[Any, AfterValidator(_claim_value)]]
"""Claim name → the value a token must carry, or a list of allowed values (text, numbers, booleans)."""


class ArgSpec(StrictModel):
    """How one argument of a tool is exposed (keys are the tool's own argument names)."""

    name: str | None = Field(None, description="The name the client sees instead of the original.")
    description: str | None = Field(None, description="The argument's description in the schema.")
    default: Any = Field(None, description="A new default value (the argument becomes optional).")
    hide: StrictBool = Field(False, description="Remove the argument from the schema; its default is used.")
    inject: Any = Field(
        None,
        description="Hide the argument and fill it on every call from 'context:<path>', 'header:<name>', "
        "'claim:<name>', 'env:<VAR>', or a constant.",
    )

    @field_validator("inject")
    @classmethod
    def _valid_source(cls, value: Any) -> Any:
        if value is not None:
            parse_inject(value)
        return value

    @model_validator(mode="after")
    def _inject_alone(self) -> ArgSpec:
        if self.inject is not None:
            clash = sorted(self.model_fields_set - {"inject", "hide"})
            if clash:
                raise ValueError(f"'inject' hides the argument, so it cannot be combined with {', '.join(clash)}")
        if self.hide and "name" in self.model_fields_set:
            raise ValueError("'hide: true' removes the argument from the schema, so it cannot also be renamed")
        return self


class AnnotationsSpec(StrictModel):
    """Hints about a tool's behaviour (MCP tool annotations); unset ones keep the tool's own."""

    title: str | None = Field(None, description="A human-readable title (annotations.title).")
    read_only: StrictBool | None = Field(None, description="The tool does not change anything (readOnlyHint).")
    destructive: StrictBool | None = Field(None, description="The tool may delete or overwrite (destructiveHint).")
    idempotent: StrictBool | None = Field(None, description="Repeating a call has no further effect (idempotentHint).")
    open_world: StrictBool | None = Field(None, description="The tool reaches outside systems (openWorldHint).")


class MaskErrorsSpec(StrictModel):
    """Hide internal error details of these tools behind a generic message."""

    message: str | None = Field(None, description="The message clients get; '{name}' and '{incident}' are filled in.")


class ToolPatch(StrictModel):
    """Changes that can be applied to any tool."""

    annotations: AnnotationsSpec | None = Field(None, description="Set behaviour hints (read_only, destructive, ...).")
    tags: list[str] | None = Field(None, description="Tags to add (used by selectors and enable/disable).")
    enabled: StrictBool | None = Field(None, description="`false` hides the tool from clients.")
    args: dict[str, ArgSpec] = Field(
        default_factory=dict, description="Per-argument changes, keyed by the tool's own argument names."
    )
    mask_errors: MaskErrorsSpec | None = Field(None, description="Mask internal errors of these tools.")
    task_support: Literal["none", "optional", "required"] | None = Field(
        None,
        description="Run calls as MCP tasks: 'optional' (when the client accepts tasks), 'required' (only as "
        "tasks) or 'none'.",
    )
    scopes: list[str] | None = Field(
        None,
        description="Only verified callers whose token grants all of these scopes see and call the tool; "
        "for any other caller it does not exist.",
    )
    claims: Claims | None = Field(
        None,
        description="Only verified callers whose token carries these claim values (a value, or a list of "
        "allowed values) see and call the tool.",
    )
    limit_result: LimitResultSpec | None = Field(None, description="Cut these tools' results down to a size.")


class ToolSpec(ToolPatch):
    """Changes to one tool, keyed by the tool's name as its source exposes it."""

    name: ToolName | None = Field(None, description="The new name (the prefix, if any, is added to it).")
    title: str | None = Field(None, description="The new human-readable title.")
    description: str | None = Field(None, description="The new description the model reads.")


class LimitResultSpec(StrictModel):
    """Cut results down (see `toolweave.transforms.LimitResult`)."""

    max_bytes: StrictPositiveInt | None = Field(
        None, description="The most bytes of text (and of JSON) per result (at least 64: room for the marker)."
    )
    max_items: StrictPositiveInt | None = Field(
        None, description="The most items per array, and content blocks, per result."
    )
    structured: Literal["keep", "drop"] = Field(
        "keep", description="'keep' cuts structured content within the output schema; 'drop' removes both."
    )

    @model_validator(mode="after")
    def _some_limit(self) -> LimitResultSpec:
        if self.max_bytes is None and self.max_items is None:
            raise ValueError("give max_bytes, max_items or both")
        return self


class TransformSpec(ToolPatch):
    """Changes applied to every tool a selector matches (after mounting and prefixes)."""

    tools: ToolSelector = Field(description="Which tools: a glob, a list of globs, or {names, tags, read_only, ...}.")


class AuthorizeSpec(StrictModel):
    """Who may see and use the prompts, resources (and tools) a rule chooses; for any other caller
    they do not exist."""

    prompts: list[str] | str | None = Field(None, description="Prompt names (globs) this rule covers.")
    resources: list[str] | str | None = Field(
        None, description="Resource URIs and URI templates (globs) this rule covers."
    )
    tools: ToolSelector | None = Field(None, description="Tools this rule covers (also: `scopes:` on a tool).")
    scopes: list[str] = Field(default_factory=list, description="Scopes the caller's token must grant, all of them.")
    claims: Claims | None = Field(
        None, description="Claim values the caller's token must carry (a value, or a list of allowed values)."
    )

    @model_validator(mode="after")
    def _chooses_and_requires(self) -> AuthorizeSpec:
        if self.prompts is None and self.resources is None and self.tools is None:
            raise ValueError("choose what the rule covers: prompts, resources or tools")
        if not self.scopes and not self.claims:
            raise ValueError("give scopes, claims or both (a rule without them admits any verified caller)")
        return self
