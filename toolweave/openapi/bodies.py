"""An operation's bodies, read from their `content` maps: what its request sends, what its 2xx answers give.

- `request_body` says how the body is sent: JSON when the operation takes it, else a form
  (`application/x-www-form-urlencoded`: its fields, an object; a form described as a string or
  an array is its encoded text, sent as it is), else the first other media type as it is (text,
  XML, bytes: one string argument); a multipart-only body is refused, as no tool argument can be
  sent as one. `spread` gives an object body's properties (an `allOf` of objects merged), for the
  tool to take as arguments of their own.
- `output_schema` is the 2xx responses' JSON schema, when every 2xx response is JSON and they all
  describe the same (a non-object one is wrapped under `result`, as function tools do).

How the bodies become a tool's arguments is `toolweave.openapi.operations`.

Example:
    >>> spread({"allOf": [{"properties": {"name": {"type": "string"}}, "required": ["name"]},
    ...                   {"type": "object", "properties": {"tag": {"type": "string"}}}]})
    {'properties': {'name': {'type': 'string'}, 'tag': {'type': 'string'}}, 'required': ['name']}
    >>> spread({"type": "array", "items": {"type": "string"}}) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolweave.core.errors import SpecError
from toolweave.core.result import WRAP_KEY
from toolweave.openapi.schemas import SchemaReader, is_object
from toolweave.openapi.spec import Resolver, Spec, kind_of

_FORM = "application/x-www-form-urlencoded"
_ANY = frozenset({"*/*", "application/*"})
"""Media types that take any body (`*/*`, as some generators write every body): sent as JSON."""


def json_media(content: Mapping[str, Any]) -> str | None:
    """The first JSON media type of `content` (`application/json`, `...+json`, with or without parameters)."""
    for media in content:
        bare = str(media).split(";", 1)[0].strip().lower()
        if bare == "application/json" or bare.endswith("+json"):
            return str(media)
    return None


def media_schema(spec: Spec, content: Mapping[str, Any], media: str, at: str) -> Any:
    """The schema of `content[media]` (None when it gives none); `at` is where `content` is."""
    entry = content[media]
    if entry is None:
        return None
    if not isinstance(entry, Mapping):
        raise SpecError(f"{spec.where}: {at}.{media}: a media type object (with a 'schema'), not {kind_of(entry)}")
    return entry.get("schema")


def request_body(
    spec: Spec, resolver: Resolver, raw: Mapping[str, Any], reader: SchemaReader, at: str
) -> tuple[str | None, str | None, Any, bool]:
    """The operation's body as `(kind, media type, schema, required)`: kind `"json"`, `"form"` or
    `"raw"` (sent as is), or all None and False when it takes none."""
    if "requestBody" not in raw:
        return None, None, None, False
    at = f"{at}.requestBody"
    body, inner = spec.resolve(raw["requestBody"], resolver, at)
    if not isinstance(body, Mapping):
        raise SpecError(f"{spec.where}: {at}: a request body is a mapping with 'content', not {kind_of(body)}")
    content = body.get("content")
    if not isinstance(content, Mapping) or not content:
        raise SpecError(
            f"{spec.where}: {at}: a request body needs 'content', a mapping of media types "
            f"(application/json, ...) to their schema"
        )
    kind, media = _body_media(spec, content, f"{at}.content")
    schema = media_schema(spec, content, media, f"{at}.content")
    read: Any = reader.read(schema, inner, f"{at}.content.{media}.schema") if schema is not None else None
    if kind == "form" and not _may_be_fields(read):
        kind = "raw"  # a form of another kind (a string, an array) is the encoded form, sent as it is
    if kind == "raw":
        read = _raw_body_schema(read, media)
    elif kind == "form" and read is None:
        read = {"type": "object", "description": "The form's fields."}
    return kind, media, read, bool(body.get("required"))


def _may_be_fields(schema: Any) -> bool:
    """Whether a form body's schema lets it be an object, the form's fields: one with no `type`
    (none at all, or a `oneOf`) or whose `type` includes `object`.

    Example:
        >>> _may_be_fields(None), _may_be_fields({"type": ["object", "null"]}), _may_be_fields({"type": "array"})
        (True, True, False)
    """
    kind = schema.get("type", "object") if isinstance(schema, Mapping) else "object"
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _body_media(spec: Spec, content: Mapping[str, Any], at: str) -> tuple[str, str]:
    """How a body is sent, and as what: JSON when the operation takes it (or takes any type: `*/*`),
    else a form, else the first other media type as it is (text, XML, bytes). Multipart alone is
    refused: no tool argument can be sent as one.

    Example:
        >>> from toolweave.openapi.spec import load_spec
        >>> spec = load_spec({"openapi": "3.1.0", "paths": {}})
        >>> _body_media(spec, {"*/*": {}}, "at"), _body_media(spec, {"text/plain": {}}, "at")
        (('json', '*/*'), ('raw', 'text/plain'))
    """
    media = json_media(content)
    if media is not None:
        return "json", media
    wildcard = next((str(m) for m in content if str(m).split(";", 1)[0].strip() in _ANY), None)
    if wildcard is not None:  # any type will do: JSON, then
        return "json", wildcard
    form = next((m for m in content if str(m).split(";", 1)[0].strip().lower() == _FORM), None)
    if form is not None:
        return "form", str(form)
    raw = next((str(m) for m in content if not str(m).lower().startswith("multipart/")), None)
    if raw is None:
        raise SpecError(
            f"{spec.where}: {at}: a {' or '.join(map(str, content))} body cannot be sent (a tool sends "
            f"JSON, a form, or text as it is); leave the operation out with an exclude route"
        )
    return "raw", raw


def _raw_body_schema(read: Any, media: str) -> dict[str, Any]:
    """A body sent as it is (text, XML, bytes) is one string argument: a schema of another kind
    (an XML document described as an object) would have the tool take JSON and send it as `media`."""
    if isinstance(read, Mapping) and read.get("type") == "string":
        return dict(read)
    schema: dict[str, Any] = {"type": "string", "description": f"The request body, sent as {media} as it is."}
    if isinstance(read, Mapping) and read.get("description"):
        schema["description"] = f"{read['description']}\n\n{schema['description']}"
    return schema


def spread(schema: Any) -> dict[str, Any] | None:
    """An object body as `{"properties", "required"}` to spread into arguments, or None."""
    if not isinstance(schema, Mapping):
        return None
    merged = "allOf" in schema and set(schema) <= {"allOf", "description", "title", "type"}
    parts = schema["allOf"] if merged else [schema]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in parts:
        if not isinstance(part, Mapping) or any(k in part for k in ("oneOf", "anyOf", "allOf", "$ref", "not")):
            return None
        if part.get("type", "object") != "object" or not isinstance(part.get("properties"), Mapping):
            return None
        if part.get("additionalProperties") not in (None, False):
            return None
        properties.update(part["properties"])
        required += [name for name in part.get("required", ()) if name not in required]
    return {"properties": properties, "required": required} if properties else None


def output_schema(spec: Spec, resolver: Resolver, raw: Mapping[str, Any], at: str) -> dict[str, Any] | None:
    """The 2xx responses' JSON schema, when every 2xx response is JSON and they all describe the
    same (else an answer such as a `204` beside a `200`, or a `202` with a job id beside a `200`
    with the object, could not give the structured content the schema promises)."""
    responses = raw.get("responses")
    if responses is None:
        return None
    if not isinstance(responses, Mapping):
        raise SpecError(
            f"{spec.where}: {at}.responses: a mapping of status codes to responses, not {kind_of(responses)}"
        )
    found: list[tuple[Any, Resolver, str]] = []
    for status in sorted(responses, key=str):
        if not str(status).startswith("2"):
            continue
        where = f"{at}.responses.{status}"
        response, inner = spec.resolve(responses[status], resolver, where)
        if not isinstance(response, Mapping):
            raise SpecError(f"{spec.where}: {where}: a response is a mapping, not {kind_of(response)}")
        content = response.get("content") or {}
        if not isinstance(content, Mapping):
            raise SpecError(
                f"{spec.where}: {where}.content: a mapping of media types to schemas, not {kind_of(content)}"
            )
        media = json_media(content)
        schema = media_schema(spec, content, media, f"{where}.content") if media else None
        if not schema:
            return None
        found.append((schema, inner, f"{where}.content.{media}.schema"))
    if not found:
        return None
    readers = [SchemaReader(spec, "response", at) for _ in found]
    described = [
        (reader.read(schema, inner, where), reader.defs())
        for reader, (schema, inner, where) in zip(readers, found, strict=True)
    ]
    if any(other != described[0] for other in described[1:]):
        return None
    reader, read = readers[0], described[0][0]
    if not isinstance(read, Mapping):
        return None
    if is_object(read):
        output = {"type": "object", **read}
    else:
        output = {"type": "object", "properties": {"result": read}, "required": ["result"], WRAP_KEY: True}
    if reader.defs():
        output["$defs"] = {**output.get("$defs", {}), **reader.defs()}
    return output
