"""`Resource`: data a client can read by URI, static or from a URI template.

A resource is data (URI or URI template, name, title, description, MIME type, tags, meta) and
one coroutine `run(uri, params, ctx) -> ResourceResult`. A static resource's function runs
each time it is read; a template's function receives the URI parameters, converted to the
declared types by `validator`.

| the function returns                         | contents                                          |
|----------------------------------------------|---------------------------------------------------|
| `str`                                        | text (`mime_type` or `text/plain`)                |
| `bytes`                                      | a base64 blob (`mime_type` or `application/octet-stream`) |
| `TextResourceContents` / `BlobResourceContents` (or a list of them) | passed through     |
| `ResourceResult`                             | passed through unchanged                          |
| anything else (`dict`, list, model, ...)     | JSON text (`mime_type` or `application/json`)     |

Example:
    >>> def weather(city: str) -> dict:
    ...     '''Current weather of a city.'''
    ...     return {"city": city, "sky": "clear"}
    >>> res = Resource.from_function(weather, "weather://{city}/current")
    >>> res.is_template, res.parameters, res.description
    (True, ('city',), 'Current weather of a city.')
"""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from toolweave.core.access import Access
from toolweave.core.content import BlobResourceContents, ResourceContents, TextResourceContents
from toolweave.core.context import Context
from toolweave.core.invoke import make_invoker
from toolweave.core.names import check_options, check_text, name_set
from toolweave.core.reading import Parameter, build_model, callable_name, parameters
from toolweave.core.string_arguments import StringArguments
from toolweave.core.tool import Origin
from toolweave.core.uri_template import UriTemplate, check_uri, is_template
from toolweave.core.validation import ArgumentValidator


@dataclass(frozen=True, slots=True)
class ResourceResult:
    """What reading a resource returns: one or more contents (text or blob).

    Example:
        >>> ResourceResult([TextResourceContents("memo://today", "Buy milk")]).text
        'Buy milk'
    """

    contents: list[ResourceContents] = field(default_factory=list)
    meta: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The text of all text contents, joined by newlines (handy in tests)."""
        return "\n".join(item.text for item in self.contents if isinstance(item, TextResourceContents))


ReadResource = Callable[[str, dict[str, Any], Context], Awaitable[ResourceResult]]
"""The read of a resource: `async (uri, validated_params, ctx) -> ResourceResult`."""


def to_resource_result(value: Any, uri: str, mime_type: str | None = None) -> ResourceResult:
    """A resource function's return value as a `ResourceResult` for `uri` (see the module table)."""
    if isinstance(value, ResourceResult):
        return value
    if isinstance(value, TextResourceContents | BlobResourceContents):
        return ResourceResult([value])
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(item, TextResourceContents | BlobResourceContents) for item in value)
    ):
        return ResourceResult(list(value))
    if isinstance(value, str):
        return ResourceResult([TextResourceContents(uri, value, mime_type or "text/plain")])
    if isinstance(value, bytes | bytearray):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return ResourceResult([BlobResourceContents(uri, blob, mime_type or "application/octet-stream")])
    text = json.dumps(to_jsonable_python(value, inf_nan_mode="null"), ensure_ascii=False)  # NaN: null, as JSON has it
    return ResourceResult([TextResourceContents(uri, text, mime_type or "application/json")])


@dataclass(frozen=True, slots=True, kw_only=True)
class Resource:
    """An immutable resource or resource template. Build one with `Resource.from_function`.

    Attributes:
        uri: The URI (`resource://cities`) or URI template (`resource://{city}/weather`).
        name: A short name for listings; the function name by default.
        run: `async (uri, validated_params, ctx) -> ResourceResult`.
        mime_type: The MIME type of the contents, when known.
        validator: Converts a template's URI parameters to the declared types (templates only).
        template: The parsed URI template (`None` for a static resource).
        access: Who may see and read the resource (`Authorize`); `None`: every caller.
    """

    uri: str
    name: str
    run: ReadResource
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    tags: frozenset[str] = frozenset()
    meta: Mapping[str, Any] | None = None
    enabled: bool = True
    validator: ArgumentValidator | None = None
    template: UriTemplate | None = field(default=None, repr=False)
    origin: Origin | None = None
    access: Access | None = None
    fn: Callable[..., Any] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_uri(self.uri)
        if is_template(self.uri) and (self.template is None or self.template.template != self.uri):
            object.__setattr__(self, "template", UriTemplate.parse(self.uri))
        elif not is_template(self.uri):
            object.__setattr__(self, "template", None)
        if self.origin is None:
            object.__setattr__(self, "origin", Origin("schema", "hand-written resource", self.name))
        if not isinstance(self.tags, frozenset):
            object.__setattr__(self, "tags", name_set(self.tags, "tags", "resource", self.name))
        check_text(self.title, "title", "resource", self.name)
        check_text(self.description, "description", "resource", self.name)

    @property
    def is_template(self) -> bool:
        """Whether this is a URI template (listed by `resources/templates/list`)."""
        return self.template is not None

    @property
    def parameters(self) -> tuple[str, ...]:
        """The URI template's parameters, in order (empty for a static resource)."""
        return self.template.parameters if self.template is not None else ()

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, **options: Any) -> Resource:
        """A resource from a Python function; see `resource_from_function`."""
        check_options(options, resource_from_function, "resource", fn)
        return resource_from_function(fn, uri, **options)

    def replace(self, **changes: Any) -> Resource:
        """A copy with some fields changed (`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)


def _reader(
    fn: Callable[..., Any], context_param: str | None, mime_type: str | None, run_in_thread: bool
) -> ReadResource:
    call = make_invoker(fn, context_param, run_in_thread=run_in_thread)

    async def read(uri: str, params: dict[str, Any], ctx: Context) -> ResourceResult:
        return to_resource_result(await call(params, ctx), uri, mime_type)

    return read


def _check_query_defaults(name: str, template: UriTemplate, params: Iterable[Parameter]) -> None:
    """`TypeError` when a query parameter of `template` (`{?q}`: a URI may leave it out) has no
    default in the function (`...`, as `parameters` marks a required one)."""
    missing = sorted(param.name for param in params if param.name in template.query and param.default is ...)
    if missing:
        raise TypeError(
            f"resource {name!r}: the query parameters {missing} of the URI {template.template!r} may be absent "
            "from a URI read; give them a default in the function"
        )


def resource_from_function(
    fn: Callable[..., Any],
    uri: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    tags: Iterable[str] = (),
    meta: Mapping[str, Any] | None = None,
    enabled: bool = True,
    run_in_thread: bool = True,
) -> Resource:
    """A `Resource` (static URI) or resource template (URI with `{params}`) that calls `fn`.

    Args:
        fn: A sync or async function. For a template, its parameters (besides an injected
            `Context`) must be exactly the template's parameters; a static resource's function
            takes none.
        uri: `scheme://...`, with `{name}`, `{+path}` and `{?a,b}` parameters for a template
            (see `toolweave.core.uri_template`); query parameters need a default in `fn`.
        name: Defaults to the function's name.
        title: A human-readable title.
        description: Defaults to the docstring text.
        mime_type: The MIME type of the contents (defaults depend on the returned value).
        tags: Labels for selecting resources.
        meta: Static `_meta` sent with the resource definition.
        enabled: Whether the resource starts enabled.
        run_in_thread: Run a sync function in a worker thread (default) or inline.

    Raises:
        ValueError: for a URI without a scheme or a malformed template.
        TypeError: when the URI parameters and the function's parameters differ, when a query
            parameter has no default, and for `*args`/`**kwargs` or positional-only parameters.
    """
    check_uri(uri)
    resource_name = name or callable_name(fn, "resource")
    template = UriTemplate.parse(uri) if is_template(uri) else None
    params, context_param, doc_description = parameters(fn, resource_name, "resource")
    declared = [param.name for param in params]
    in_uri = list(template.parameters) if template else []
    if set(declared) != set(in_uri):
        raise TypeError(
            f"resource {resource_name!r}: the URI {uri!r} has parameters {sorted(in_uri)} but the function "
            f"takes {sorted(declared)}; they must be the same (a Context parameter is left out)"
        )
    validator = None
    if template is not None:
        _check_query_defaults(resource_name, template, params)
        model, renamed = build_model(resource_name, params, what="resource")
        validator = StringArguments(model, renamed)
    return Resource(
        uri=uri,
        name=resource_name,
        run=_reader(fn, context_param, mime_type, run_in_thread),
        title=title,
        description=description if description is not None else doc_description,
        mime_type=mime_type,
        tags=name_set(tags, "tags", "resource", resource_name),
        meta=dict(meta) if meta else None,
        enabled=enabled,
        validator=validator,
        template=template,
        origin=Origin("function", getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", resource_name)),
        fn=fn,
    )
