"""Reading an OpenAPI 3.x document: from a file, a URL or a dict, with its `$ref`s resolvable.

`load_spec(source)` returns a `Spec`: the document as data plus a `referencing` resolver over
it, so `spec.resolve(node)` follows a `$ref` — inside the document (`#/components/...`) or into
a file beside it (`common.yaml#/Pet`) — the way JSON Schema tools do. YAML and JSON are both
read (YAML by its 1.2 core schema, as OpenAPI asks: `toolweave.openapi.yaml12`); Swagger 2.0
and documents without `paths` are refused with a message saying so.

A spec read from a URL has its references followed on its own origin only (scheme, host and
port, or the `https://` form of an `http://` one), redirects too: a document is the spec's
author's, and a reference to `http://169.254.169.254/...` or another internal address would
have the gateway fetch it and show what came in its tools' schemas. A spec from a file or a
dict follows references into JSON and YAML files (by their names: a `.env` parses as YAML text,
and was shown the same way).

Example:
    >>> spec = load_spec({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
    ...     "components": {"schemas": {"Id": {"type": "integer"}}}})
    >>> spec.resolve({"$ref": "#/components/schemas/Id"})[0]
    {'type': 'integer'}
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from toolweave.core.errors import SpecError
from toolweave.core.shown import shown_url
from toolweave.openapi.yaml12 import load_yaml12

Resolver = Any
"""A `referencing` resolver (its type is generic in the library)."""

_DOCUMENT_SUFFIXES = frozenset({".json", ".yaml", ".yml"})
"""The files a local spec's references may read."""
_FETCH_TIMEOUT = 30.0
_FETCH_BYTES = 32 * 2**20


@dataclass(frozen=True, slots=True)
class Spec:
    """An OpenAPI document and a resolver for its `$ref`s.

    Attributes:
        document: The document as JSON-like data.
        where: How messages name it (a path, a URL with no secret, or `"the spec dict"`).
        resolver: Resolves references relative to the document.
    """

    document: Mapping[str, Any]
    where: str
    resolver: Resolver

    @property
    def version(self) -> str:
        """The `openapi` version string (`"3.0.3"`, `"3.1.0"`)."""
        return str(self.document.get("openapi", ""))

    @property
    def is_30(self) -> bool:
        """Whether schemas follow OpenAPI 3.0's dialect (`nullable`, boolean `exclusiveMinimum`)."""
        return self.version.startswith("3.0")

    def resolve(self, node: Any, resolver: Resolver | None = None, at: str = "") -> tuple[Any, Resolver]:
        """`node` with its `$ref` followed (repeatedly), and the resolver for references inside it.

        `at` is where `node` is in the document (`paths./a.get.parameters[0]`), for messages.

        Raises:
            SpecError: the reference points nowhere (saying where its pointer stops, when it walks
                into a string, a number, null or a list: `'title' is a string, it has no 'X'`),
                or to a loop of references.

        Example:
            >>> spec = load_spec({"openapi": "3.1.0", "paths": {}})
            >>> spec.resolve({"$ref": "#/nowhere"}, at="paths./a.get")
            Traceback (most recent call last):
            toolweave.core.errors.SpecError: the spec dict: paths./a.get: the reference '#/nowhere' points to nothing
        """
        resolver = resolver or self.resolver
        where = f"{self.where}: {at}" if at else self.where
        seen = 0
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            try:
                resolved = resolver.lookup(ref)
            except Unresolvable as error:
                refused = _not_retrieved(error)
                if refused is not None:
                    raise SpecError(f"{where}: the reference {ref!r}: {refused}") from None
                resolved = None
            except (TypeError, ValueError):  # `referencing` indexed a string or list by name
                resolved = None
            # a string may be the end of a pointer that went on into it: `#/info/title/0` is its first letter
            stop = _stop(resolver, ref) if resolved is None or isinstance(resolved.contents, str) else None
            if resolved is None or stop is not None:
                said = f": {stop}" if stop else ""
                raise SpecError(f"{where}: the reference {ref!r} points to nothing{said}")
            node, resolver = resolved.contents, resolved.resolver
            seen += 1
            if seen > 64:
                raise SpecError(f"{where}: the reference {ref!r} is a loop of references")
        return node, resolver


def _not_retrieved(error: Unresolvable) -> str | None:
    """Why the document a reference names was not retrieved (a `SpecError` the retrieval raised,
    which `referencing` wraps twice), or None when it was not asked for one."""
    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, SpecError):
        cause = cause.__cause__
    return str(cause) if cause is not None else None


def _stop(resolver: Resolver, ref: str) -> str | None:
    """Where the JSON pointer of `ref` walks into a value it cannot go on in (a string, a number,
    null, a list by a name or past its end), said in words; None when it does not.

    Example:
        >>> spec = load_spec({"openapi": "3.1.0", "paths": {}, "info": {"title": "t", "tags": ["a"]}})
        >>> _stop(spec.resolver, "#/info/title/X"), _stop(spec.resolver, "#/info/tags/2")
        ("'title' is a string, it has no 'X'", "'tags' is a list of 1, it has no '2'")
    """
    uri, _, fragment = ref.partition("#")
    if not fragment.startswith("/"):
        return None
    try:
        node: Any = resolver.lookup(uri).contents
    except (Unresolvable, TypeError, ValueError):
        return None
    name = "the document"
    for segment in unquote(fragment).split("/")[1:]:
        segment = segment.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            if segment not in node:
                return None  # a name the mapping lacks: it points to nothing, said as such
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
            node = node[int(segment)]
        else:
            return f"{name!r} is {_value_kind(node)}, it has no {segment!r}"
        name = segment
    return None


def kind_of(value: Any) -> str:
    """How a message names what the document has where OpenAPI wants another kind of value.

    Example:
        >>> kind_of("oops"), kind_of([]), kind_of(None)
        ('str', 'list', 'null')
    """
    return "null" if value is None else type(value).__name__


def _value_kind(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if value is None:
        return "null"
    kinds = {bool: "a boolean", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def load_spec(source: str | os.PathLike[str] | Mapping[str, Any]) -> Spec:
    """Read an OpenAPI 3.x document from a file path, an `http(s)://` URL or a dict.

    Raises:
        SpecError: the document cannot be read, is not OpenAPI 3.x, or has no `paths`.
    """
    if isinstance(source, Mapping):
        return _checked(dict(source), "the spec dict", "urn:toolweave:openapi", _local_files(Path.cwd()))
    text = os.fspath(source)
    if text.startswith(("http://", "https://")):
        return _checked(_parse(_fetch(text), shown_url(text)), shown_url(text), text, _on_host_of(text))
    path = Path(text)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SpecError(f"cannot read the OpenAPI spec {text!r}: {error.strerror or error}") from None
    return _checked(_parse(raw, text), text, path.resolve().as_uri(), _local_files(path.parent))


def _fetch(url: str, *, what: str = "the OpenAPI spec", within: Origin | None = None) -> str:
    """The document at `url`, read within `_FETCH_TIMEOUT` seconds in all (a server sending a byte
    now and then does not hold it longer) and at most `_FETCH_BYTES` long; redirects followed, on
    the origin `within` only when given (`_on`). `what` names it in errors."""
    import httpx2

    from toolweave.openapi.sending import what_failed

    shown = shown_url(url)
    deadline = time.monotonic() + _FETCH_TIMEOUT
    answered = False

    def stays(request: httpx2.Request) -> None:  # before each request, a redirected one too
        if within is not None and not _on(str(request.url), within):
            raise SpecError(f"cannot fetch {what} {shown!r}: it redirects to another host (not followed)")

    try:
        with (
            httpx2.Client(timeout=_FETCH_TIMEOUT, follow_redirects=True, event_hooks={"request": [stays]}) as client,
            client.stream("GET", url) as response,
        ):
            answered = True
            if response.status_code != 200:
                raise SpecError(f"cannot fetch {what} {shown!r}: HTTP {response.status_code}")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > _FETCH_BYTES:
                    raise SpecError(f"cannot fetch {what} {shown!r}: larger than {_FETCH_BYTES} bytes")
                if time.monotonic() > deadline:
                    raise SpecError(f"cannot fetch {what} {shown!r}: it took over {_FETCH_TIMEOUT:g} s")
                chunks.append(chunk)
            return b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")
    except httpx2.InvalidURL:  # a URL httpx cannot parse
        raise SpecError(f"cannot fetch {what} {shown!r}: InvalidURL") from None
    except httpx2.HTTPError as error:  # in words: a certificate refused, a host that does not answer
        raise SpecError(f"cannot fetch {what} {shown!r}: {what_failed(error, answered=answered)}") from None


def _parse(raw: str, where: str) -> Any:
    try:
        return json.loads(raw) if raw.lstrip().startswith("{") else load_yaml12(raw)
    except (ValueError, yaml.YAMLError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SpecError(f"{where}: not JSON or YAML ({first})") from None
    except RecursionError:
        raise SpecError(f"{where}: nested too deeply to read") from None


def _checked(document: Any, where: str, uri: str, retrieve: Any) -> Spec:
    if not isinstance(document, dict):
        raise SpecError(f"{where}: an OpenAPI document is a mapping, not {type(document).__name__}")
    if "swagger" in document:
        raise SpecError(f"{where}: Swagger {document['swagger']} is not supported; convert it to OpenAPI 3")
    version = str(document.get("openapi", ""))
    if not version.startswith("3."):
        raise SpecError(f"{where}: the 'openapi' field must name a 3.x version, not {version or 'nothing'!r}")
    if not isinstance(document.get("paths"), dict):
        raise SpecError(f"{where}: 'paths' is missing or not a mapping")
    root = DRAFT202012.create_resource(document)
    registry: Registry[Any] = Registry(retrieve=retrieve).with_resource(uri, root)  # type: ignore[call-arg]
    return Spec(document, where, registry.resolver(base_uri=uri))


def _local_files(base: Path) -> Any:
    """Retrieve `$ref`ed files of a local spec (relative ones taken against `base`): JSON and YAML
    files only, by their name, so no reference shows a `.env`, a key or `/etc/passwd` in a tool's
    schema; a URL is not fetched.

    Example:
        >>> _local_files(Path("/specs"))("file:///srv/app/.env")
        Traceback (most recent call last):
        toolweave.core.errors.SpecError: not read: a reference is to a JSON or YAML file (.json, .yaml or .yml)
    """

    def retrieve(uri: str) -> Resource[Any]:
        parts = urlsplit(uri)
        if parts.scheme in ("http", "https"):
            raise SpecError("not fetched: the references of a spec read from a file or a dict are to files")
        if parts.scheme not in ("file", ""):
            raise Unresolvable(uri)
        path = Path(parts.path) if parts.scheme else base / parts.path
        if path.suffix.lower() not in _DOCUMENT_SUFFIXES:
            raise SpecError("not read: a reference is to a JSON or YAML file (.json, .yaml or .yml)")
        try:
            return DRAFT202012.create_resource(_parse(path.read_text(encoding="utf-8"), str(path)))
        except OSError:
            raise Unresolvable(uri) from None

    return retrieve


def _on_host_of(spec_url: str) -> Any:
    """Retrieve `$ref`ed documents of a spec fetched from `spec_url`: on its origin only (its
    scheme, host and port, or the `https://` form of an `http://` one), redirects too.

    Example:
        >>> _on_host_of("https://api.example/openapi.json")("http://169.254.169.254/latest/meta-data/")
        Traceback (most recent call last):
        toolweave.core.errors.SpecError: not fetched: it is on another host or port than the spec (...)
    """
    origin = _origin(spec_url)

    def retrieve(uri: str) -> Resource[Any]:
        if not uri.startswith(("http://", "https://")):
            raise Unresolvable(uri)
        if not _on(uri, origin):
            raise SpecError(
                "not fetched: it is on another host or port than the spec "
                "(its references are followed on its own host only)"
            )
        text = _fetch(uri, what="the referenced document", within=origin)
        return DRAFT202012.create_resource(_parse(text, shown_url(uri)))

    return retrieve


Origin = tuple[str, str | None, int | None]
"""A URL's scheme, host and port."""


def _origin(url: str) -> Origin:
    """A URL's scheme, host and port (its scheme's default when it names none).

    Example:
        >>> _origin("HTTPS://API.example/a") == _origin("https://api.example:443/b"), _origin("http://h:8080/")
        (True, ('http', 'h', 8080))
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # not a port number: no host to match
        return scheme, None, None
    return scheme, parts.hostname, port or {"http": 80, "https": 443}.get(scheme)


def _on(url: str, origin: Origin) -> bool:
    """Whether `url` is on `origin`, or on its `https://` form (where an `http://` spec redirects).

    Example:
        >>> spec = _origin("http://api.example/openapi.json")
        >>> _on("https://api.example/common.json", spec), _on("http://api.example:8080/common.json", spec)
        (True, False)
    """
    scheme, host, port = _origin(url)
    upgraded = origin[0] == "http" and origin[2] == 80 and (scheme, port) == ("https", 443)
    return host is not None and host == origin[1] and ((scheme, port) == (origin[0], origin[2]) or upgraded)
