"""`Tool`: an immutable description of a tool plus the one coroutine that runs it.

A tool is data (name, schemas, annotations, tags, meta) and a call: `run(arguments, ctx)`,
which receives arguments already validated against `input_schema` (the server validates once,
at the boundary, with `validator`). Transforms return new tools; nothing mutates one.

Example:
    >>> async def run(arguments, ctx):
    ...     return ToolResult([TextContent(arguments["text"].upper())])
    >>> shout = Tool(name="shout", input_schema={"type": "object",
    ...     "properties": {"text": {"type": "string"}}, "required": ["text"]}, run=run)
    >>> shout.name, shout.validator.allowed
    ('shout', frozenset({'text'}))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from toolweave.core.access import Access
from toolweave.core.context import Context
from toolweave.core.names import check_options, check_text, name_set
from toolweave.core.result import ToolResult
from toolweave.core.schema_shapes import check_shape
from toolweave.core.validation import ArgumentValidator, SchemaValidator

if TYPE_CHECKING:
    from toolweave.core.masking import ErrorPolicy

Run = Callable[[dict[str, Any], Context], Awaitable[ToolResult]]
"""The call of a tool: `async (validated_arguments, ctx) -> ToolResult`."""

TaskSupport = Literal["none", "optional", "required"]
"""How a tool runs as an MCP task: never, when the client accepts tasks, or only as a task."""
TASK_SUPPORT: tuple[TaskSupport, ...] = ("none", "optional", "required")


class Transform(Protocol):
    """Anything with `apply(tool) -> Tool` (see `toolweave.transforms`)."""

    def apply(self, tool: Tool) -> Tool:
        """A new tool derived from `tool`."""
        ...


@runtime_checkable
class Composite(Protocol):
    """A transform made of others applied in order, as one (a config rule's `Steps`): a server
    that takes only some kinds of transform for a tool (see `ToolRegistry.front_entry`) finds
    them among its `steps`."""

    @property
    def steps(self) -> tuple[Any, ...]:
        """The transforms, in the order applied."""
        ...


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Hints about a tool's behaviour (advisory; MCP `ToolAnnotations`).

    Example:
        >>> ToolAnnotations(read_only_hint=True).to_dict()
        {'readOnlyHint': True}
    """

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None

    WIRE_NAMES: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            "title": "title",
            "read_only_hint": "readOnlyHint",
            "destructive_hint": "destructiveHint",
            "idempotent_hint": "idempotentHint",
            "open_world_hint": "openWorldHint",
        }
    )
    """Each hint's field name → its key on the wire (MCP's camelCase)."""

    def __post_init__(self) -> None:
        """Hints are booleans (`Cache` and `Retry` act on them: `"false"` would read as true)."""
        for name in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise TypeError(f"tool annotation {self.WIRE_NAMES[name]} is true, false or unset, not {value!r}")
        if self.title is not None and not isinstance(self.title, str):
            raise TypeError(f"tool annotation title is text, not {self.title!r}")

    @classmethod
    def coerce(cls, value: ToolAnnotations | Mapping[str, Any] | Any | None) -> ToolAnnotations | None:
        """Accept annotations as an object, a dict with wire (camelCase) or snake_case keys, or
        the `mcp` SDK's `ToolAnnotations` model.

        Example:
            >>> import mcp.types
            >>> ToolAnnotations.coerce(mcp.types.ToolAnnotations(readOnlyHint=True)).to_dict()
            {'readOnlyHint': True}
        """
        if value is None or isinstance(value, ToolAnnotations):
            return value
        if not isinstance(value, Mapping) and hasattr(value, "model_dump"):  # a pydantic model: the SDK's
            value = value.model_dump(exclude_none=True)
        if not isinstance(value, Mapping):
            raise TypeError(f"tool annotations are a ToolAnnotations or a dict, not {type(value).__name__}")
        by_wire = {wire: py for py, wire in cls.WIRE_NAMES.items()}
        kwargs = {}
        for key, item in value.items():
            name = by_wire.get(key, key)
            if name not in cls.WIRE_NAMES:
                raise TypeError(f"unknown tool annotation {key!r}; expected one of {sorted(by_wire)}")
            kwargs[name] = item
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        """The annotations as the wire sends them (camelCase, unset ones left out)."""
        return {wire: getattr(self, py) for py, wire in self.WIRE_NAMES.items() if getattr(self, py) is not None}


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a tool comes from, for `explain`: its kind, source and original name."""

    kind: str  # "function", "schema", "mount", "remote"
    source: str
    original_name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """An immutable tool. Build one from a function with `Tool.from_function`.

    Attributes:
        name: The exposed name, within `[A-Za-z0-9_.-]{1,128}`.
        input_schema: JSON Schema of the arguments (an object schema).
        run: `async (validated_arguments, ctx) -> ToolResult`.
        validator: Checks raw arguments against `input_schema`; derived from it by default.
        hidden: Argument names a client may never send (set by the server, e.g. injected).
        error_policy: Per-tool error masking (`MaskErrors`); `None` uses the server's.
        output_checked: Whether `run` itself guarantees that structured content matches
            `output_schema` (so the server's boundary need not validate it again).
        varies_with: What, besides its arguments, the tool's result depends on per call: reads
            of the request (`fn(ctx)`, e.g. an injected header) that `Cache` keys entries on;
            `None` when it depends on something no key can capture (an injected function of
            the request), so it is never cached.
        access: Who may see and call the tool (`Authorize`); `None`: every caller.
        task_support: Whether a call may run as an MCP task (`toolweave.tasks`): `"none"`
            (always a plain call), `"optional"` (a task when the client accepts tasks) or
            `"required"` (only as a task).
        parent: The tool this one was derived from by a transform.
        transforms: The transforms applied to `parent` to make this tool, in order.
    """

    name: str
    input_schema: Mapping[str, Any]
    run: Run
    title: str | None = None
    description: str | None = None
    output_schema: Mapping[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    tags: frozenset[str] = frozenset()
    meta: Mapping[str, Any] | None = None
    enabled: bool = True
    validator: ArgumentValidator = None  # type: ignore[assignment]
    hidden: frozenset[str] = frozenset()
    error_policy: ErrorPolicy | None = None
    output_checked: bool = False
    varies_with: tuple[Callable[[Context], Any], ...] | None = ()
    origin: Origin | None = None
    access: Access | None = None
    task_support: TaskSupport = "none"
    parent: Tool | None = field(default=None, repr=False)
    transforms: tuple[Any, ...] = ()
    fn: Callable[..., Any] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.validator is None:
            object.__setattr__(self, "validator", SchemaValidator(self.input_schema, forbidden=self.hidden))
        if self.origin is None:
            _check_hand_written(self)
            object.__setattr__(self, "origin", Origin("schema", "hand-written schema", self.name))
        settle_fields(self)
        check_text(self.description, "description", "tool", self.name)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **options: Any) -> Tool:
        """A tool from a Python function; see `toolweave.core.function_tool.tool_from_function`.

        `task_support=` (`"none"`, `"optional"`, `"required"`) says whether calls may run as MCP tasks.
        """
        from toolweave.core.function_tool import tool_from_function

        check_options(options, tool_from_function, "tool", fn)
        return tool_from_function(fn, **options)

    def replace(self, **changes: Any) -> Tool:
        """A copy with some fields changed (`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def derive(self, transform: Any, **changes: Any) -> Tool:
        """A new tool made from this one by `transform`, remembering both for `explain`."""
        return dataclasses.replace(self, parent=self, transforms=(transform,), **changes)

    def with_transforms(self, *transforms: Transform) -> Tool:
        """This tool with each transform applied in order.

        Example:
            >>> from toolweave.transforms import Rename
            >>> def search(q: str) -> str:
            ...     return q
            >>> Tool.from_function(search).with_transforms(Rename("search_docs")).name
            'search_docs'
        """
        tool = self
        for transform in transforms:
            tool = transform.apply(tool)
        return tool

    def lineage(self) -> list[Tool]:
        """This tool and the tools it was made from (`parent` after `parent`), this one first."""
        chain = [self]
        while chain[-1].parent is not None:
            chain.append(chain[-1].parent)
        return chain

    @property
    def root(self) -> Tool:
        """The base tool at the start of the transform chain."""
        return self.lineage()[-1]


def _check_hand_written(tool: Tool) -> None:
    """`TypeError` (as `check_output_schema`) naming the tool and the keyword when JSON Schema cannot
    apply a schema written by hand (`shape_problem`): the tool was listed, and every call (or every
    result) failed on it as an internal error. A schema from elsewhere is checked where it is read (an upstream's
    listing, an OpenAPI spec).

    Example:
        >>> Tool(name="t", input_schema={"type": "object", "properties": {"f": {"type": "file"}}}, run=None)
        Traceback (most recent call last):
        ...
        TypeError: tool 't': input_schema cannot be applied: properties.f.type is 'file': ...
    """
    for option, schema in (("input_schema", tool.input_schema), ("output_schema", tool.output_schema)):
        if schema is not None:
            check_shape(schema, f"tool {tool.name!r}: {option}")


def settle_fields(tool: Tool) -> None:
    """What building any `Tool` checks of its own fields: `tags` become a frozenset (a single string
    is a `TypeError`, not a set of characters), a `title` that is not a string is a `TypeError`, and
    an unknown `task_support` is a `ValueError`. (A `description` is checked where it is given: a
    function tool's may not be read yet.)"""
    check_text(tool.title, "title", "tool", tool.name)
    if not isinstance(tool.tags, frozenset):
        object.__setattr__(tool, "tags", name_set(tool.tags, "tags", "tool", tool.name))
    if tool.task_support not in TASK_SUPPORT:
        expected = ", ".join(TASK_SUPPORT)
        raise ValueError(f"tool {tool.name!r}: task_support must be one of {expected}, not {tool.task_support!r}")
