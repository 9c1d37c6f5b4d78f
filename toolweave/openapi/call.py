"""One operation's HTTP call: arguments → request, response → `ToolResult`.

An `HttpCall` is built once per operation: the path template is split into its literal parts
and parameters, and each argument knows its place in the request and how it is written there
(its `style`: `toolweave.openapi.styles`). A call fills them in, puts the API's address before
the path (so any client can send it, one with no base URL of its own too), adds the upstream
credentials (`Credentials`), sends through the API's pooled client and turns the answer into a
result:

- a 2xx JSON answer becomes its text and, under an output schema, structured content (checked
  here: an answer the schema does not describe is an `UpstreamError` saying how); one without a
  body, nothing, or its `Location` (a `201 Created`: where what it made is); text (`text/*`,
  XML, YAML, NDJSON, any type with a charset), images and other bytes become text, image and
  embedded-resource blocks (named by the request's URL, its credentials scrubbed);
- any other status is an `isError` result naming the status and the operation (429, 502, 503
  and 504, which say the API cannot answer now, an `UpstreamError` with the same words), with at most
  `excerpt` characters of the body, and how many more there are (of the first 64 KiB read; past
  them, "more characters" and the answer's `Content-Length`, when it gives one), and where a
  redirect points (none is followed, whatever the client: the credentials would go along);
- every credential the request carried is scrubbed (`[redacted]`) from whatever the API answers,
  a 2xx answer's text and structured content as much as an error's excerpt (`sent_secrets`: the
  secret upstream headers, what an `auth=` flow or the client added, each whole and without its
  scheme; and the base URL's secret query values), in each form an answer may quote it;
- a timeout, a connection failure (said in words: `failed: the connection closed before an
  answer (ReadError)`) or a 2xx body over `max_bytes` (10 MiB) is an `UpstreamError` naming the
  operation, never the URL's secrets; bodies are read as they stream, never past the limit. An
  idempotent request a kept-alive connection lost before any answer is sent once more
  (`toolweave.openapi.sending`).

Example:
    >>> from toolweave.openapi.operations import Operation, Param
    >>> from toolweave.core.tool import ToolAnnotations
    >>> op = Operation("get_pet", "GET", "/pets/{id}", (Param("id", "id", "path"),), None, None, None,
    ...     {"type": "object"}, None, "", (), ToolAnnotations())
    >>> HttpCall(op).url({"id": "a b/c"}), HttpCall(op, address="https://api.example/v1/").url({"id": "../x"})
    ('/pets/a%20b%2Fc', 'https://api.example/v1/pets/..%2Fx')
    >>> HttpCall(op).url({"id": ".."})
    Traceback (most recent call last):
    toolweave.core.errors.ToolError: argument 'id' cannot make the path segment '..': it would lead to another ...
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
from pydantic_core import from_json

from toolweave.core.content import BlobResourceContents, ContentBlock, EmbeddedResource, ImageContent, TextContent
from toolweave.core.context import Context
from toolweave.core.errors import InvalidResult, ToolError, UpstreamError
from toolweave.core.in_flight import InFlight
from toolweave.core.memo import Memo
from toolweave.core.output import OutputCheck
from toolweave.core.result import WRAP_KEY, ToolResult
from toolweave.core.shown import is_credential_name, shown_url
from toolweave.openapi.credentials import Credentials
from toolweave.openapi.operations import Operation, Param
from toolweave.openapi.sending import HTTPX2_ERRORS, Errors, send, what_failed
from toolweave.openapi.styles import in_cookie, in_header, in_path, in_query, scalar_text
from toolweave.transforms.redact import every_form, scrub, scrub_result

if TYPE_CHECKING:
    import httpx

    Client = httpx2.AsyncClient | httpx.AsyncClient
    Response = httpx2.Response | httpx.Response
    Request = httpx2.Request | httpx.Request

GetClient = Callable[[], "Client"]
"""Returns the client a call goes through: an `httpx2.AsyncClient`, or a classic `httpx.AsyncClient`."""

_UTF8_BOM = b"\xef\xbb\xbf"
_SEGMENT = re.compile(r"\{([^{}]+)\}")
_DOT_SEGMENT = re.compile(r"(?:^|/)(\.\.?)(?=/|$)")
"""A path segment `.` or `..`, which URL normalisation removes with the segment before it."""
_ERROR_BYTES = 64 * 1024
"""How much of a non-2xx body is read (its excerpt is cut from it)."""


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _header(param: Param, value: Any) -> str | bytes:
    """A header argument's value, as its style writes it (`_checked`)."""
    text = scalar_text(value) if param.as_json else in_header(value, explode=param.explode)
    return _header_value(_checked(param, text))


def _cookies(param: Param, value: Any, fixed: frozenset[str]) -> list[str]:
    """A cookie argument's `name=value` pairs, as its style writes it (`_checked`), none of them
    a cookie the server sends (`fixed`: `_own`)."""
    pairs = [(param.name, scalar_text(value))] if param.as_json else in_cookie(param.name, value, explode=param.explode)
    return [f"{name}={_checked(param, text)}" for name, text in _own(param, pairs, fixed)]


def _own(param: Param, pairs: list[tuple[str, str]], fixed: frozenset[str]) -> list[tuple[str, str]]:
    """`pairs`, refused when one is named as what the server sends itself (`fixed`: the base URL's
    query, the credential cookies), which an exploded object's keys could add a second time: an
    API that reads the last `tenant=` of `?tenant=acme&tenant=other` would take the model's."""
    taken = next((name for name, _ in pairs if name in fixed), None) if fixed else None
    if taken is not None:
        what = "query parameter" if param.location == "query" else param.location
        raise ToolError(f"argument {param.arg!r} cannot set the {what} {taken!r}: the server sends it")
    return pairs


def _query(param: Param, value: Any) -> list[tuple[str, str]]:
    """A query argument's `(name, value)` pairs, as its style writes it; a null one is left out
    (one described by `content` is sent as JSON text, `null` too)."""
    if param.as_json:
        return [(param.name, json.dumps(value))]
    return [] if value is None else in_query(param.name, value, param.style, explode=param.explode)


def _checked(param: Param, text: str) -> str:
    """A header or cookie argument's text; a line break or other control character (or a `;` in a
    cookie) would let a caller add headers or cookies of its own, so it is refused. Text beyond
    ASCII is sent as UTF-8."""
    control = _CONTROL.search(text)
    if control or (param.location == "cookie" and ";" in text):
        where = "a line break" if control and control.group() in "\r\n" else "a control character" if control else "';'"
        raise ToolError(f"argument {param.arg!r} cannot hold {where}: it is sent as an HTTP {param.location}")
    return text


def _header_value(text: str) -> str | bytes:
    return text if text.isascii() else text.encode()


def _form(body: Mapping[str, Any], fields: Mapping[str, Param]) -> dict[str, list[str]]:
    """A form body's fields as its `encoding` writes them (`fields`, by name), else as OpenAPI's
    default does (`style: form`, `explode: true`): a form is encoded as a query string is, so
    each field is written as a query parameter of its style would be; a null is left out."""
    encoded: dict[str, list[str]] = {}
    for name, value in body.items():
        if value is None:
            continue
        param = fields.get(name) or Param(name, name, "body")
        for key, text in in_query(
            name, scalar_text(value) if param.as_json else value, param.style, explode=param.explode
        ):
            encoded.setdefault(key, []).append(text)
    return encoded


def _segment(param: Param, value: Any) -> str:
    """A path argument's text, percent-encoded, as its style writes it."""
    arg = param.arg
    if value is None:
        raise ToolError(f"argument {arg!r} cannot be null: it is a segment of the request path")
    text = in_path(param.name, scalar_text(value) if param.as_json else value, param.style, explode=param.explode)
    if not text:  # an empty segment would merge with its neighbours (`/a//b`, or `//host` at the start)
        raise ToolError(f"argument {arg!r} cannot be empty: it is a segment of the request path")
    return text


class HttpCall:
    """The call of one operation's tool (`Tool.run`), built once.

    Args:
        operation: The operation read from the spec.
        client: Returns the pooled client (raises `UpstreamError` when the API is not started).
        credentials: The upstream headers of every call.
        excerpt: How many characters of an error answer's body the result quotes.
        max_bytes: The largest 2xx body read; a larger one is an `UpstreamError`, not a memory spike.
        auth: An `httpx2.Auth` for every request (else the client's own).
        errors: The timeout and transport error classes of the client's library (`Errors`).
        api: How errors name the API.
        secrets: Secret values every request carries besides its headers (the base URL's).
        in_flight: Counts the calls under way (so the client outlives them).
        timeout: The most seconds a request may take in all, its answer read (None: the client's
            own timeouts only, which bound each step, not an answer that trickles in).
        address: Where the API answers (its base URL without a query), put before every path:
            the client's own base URL, if it has one, never applies.
        query: The base URL's query parameters, sent first in every request's query.
    """

    __slots__ = (
        "_address",
        "_by_location",
        "_check",
        "_client",
        "_credentials",
        "_fixed_cookies",
        "_fixed_query",
        "_form_fields",
        "_pieces",
        "_public",
        "_send",
        "_wraps",
        "api",
        "auth",
        "errors",
        "excerpt",
        "in_flight",
        "max_bytes",
        "operation",
        "query",
        "secrets",
        "timeout",
    )

    def __init__(
        self,
        operation: Operation,
        client: GetClient | None = None,
        credentials: Credentials | None = None,
        *,
        excerpt: int = 500,
        max_bytes: int = 10 * 2**20,
        auth: httpx2.Auth | None = None,
        errors: Errors = HTTPX2_ERRORS,
        api: str = "the API",
        in_flight: InFlight | None = None,
        timeout: float | None = None,
        secrets: tuple[str, ...] = (),
        address: str = "",
        query: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.operation = operation
        self._address = address.rstrip("/")
        self.query = list(query)
        self._fixed_query = frozenset(name for name, _ in self.query)
        self._fixed_cookies = credentials.cookie_names() if credentials is not None else frozenset()
        self._client = client
        self._credentials = credentials
        self._public = credentials.public if credentials is not None else frozenset()
        self.secrets = secrets
        self.excerpt = excerpt
        self.max_bytes = max_bytes
        self.auth = auth
        self.errors = errors
        # no auth= at all unless one is given: the client's own applies, whatever its library; and no
        # redirect followed, even by a client that follows them: the credentials would go along
        self._send: dict[str, Any] = {"stream": True, "follow_redirects": False}
        if auth is not None:
            self._send["auth"] = auth
        self.api = api
        self.timeout = timeout
        self.in_flight: AbstractContextManager[None] = in_flight if in_flight is not None else nullcontext()
        self._wraps = bool(operation.output_schema and operation.output_schema.get(WRAP_KEY))
        self._check = OutputCheck(operation.output_schema, validate=True)
        path_params = {param.name: param for param in operation.params if param.location == "path"}
        self._pieces = [
            (piece, path_params.get(piece, Param(piece, piece, "path"))) if index % 2 else (piece, None)
            for index, piece in enumerate(_SEGMENT.split(operation.path))
        ]
        self._by_location: dict[str, list[Param]] = {}
        for param in operation.params:
            if param.location != "path":
                self._by_location.setdefault(param.location, []).append(param)
        self._form_fields = {param.name: param for param in self._by_location.get("body", ())}

    def url(self, arguments: Mapping[str, Any]) -> str:
        """The request URL: the API's address and the path with the path arguments filled in,
        percent-encoded, `/` included, so no argument can step to another path of the API; nor can
        a segment they make `.` or `..`, which is refused: percent-encoded (`%2E%2E`) it is still
        `..` to a server or proxy that normalises URLs as RFC 3986 says (nginx, Envoy)."""
        texts = [piece if param is None else _segment(param, arguments[param.arg]) for piece, param in self._pieces]
        path = "".join(texts)
        dots = _DOT_SEGMENT.search(path) if "." in path else None
        pieces = zip(self._pieces, texts, strict=True)
        args = [param.arg for (_, param), text in pieces if param and not text.strip(".")] if dots else []
        if dots is not None and args:  # (a `..` the spec's own path holds is its author's)
            named = f"argument {args[0]!r}" if len(args) == 1 else f"arguments {', '.join(map(repr, args))}"
            raise ToolError(
                f"{named} cannot make the path segment {dots.group(1)!r}: it would lead to another path of the API"
            )
        return self._address + path

    def request_parts(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The `httpx` request options (params, headers, body) of a call."""
        parts: dict[str, Any] = {}
        query = [*self.query]
        for param in self._by_location.get("query", ()):
            if param.arg in arguments:
                query += _own(param, _query(param, arguments[param.arg]), self._fixed_query)
        if query:
            parts["params"] = query
        headers = {p.name: _header(p, arguments[p.arg]) for p in self._given("header", arguments)}
        given = self._given("cookie", arguments)
        cookies = [cookie for p in given for cookie in _cookies(p, arguments[p.arg], self._fixed_cookies)]
        if cookies:
            headers["cookie"] = _header_value("; ".join(cookies))
        if headers:
            parts["headers"] = headers
        body = self._body(arguments)
        if body is not None:
            kind = self.operation.body_kind
            if kind == "json":
                parts["json"] = body
            elif kind == "form" and isinstance(body, Mapping):
                parts["data"] = _form(body, self._form_fields)
            else:
                parts["content"] = self._as_is(body)
                parts.setdefault("headers", {})["content-type"] = self.operation.media_type
        return parts

    def _as_is(self, body: Any) -> str | bytes:
        """A body sent as it is: text (or a form's encoded text, `a=1&b=2`), else JSON text. A
        form's body that is neither its fields nor text (an array a `oneOf` let through) has no
        form encoding, and is refused."""
        if isinstance(body, bytes | str):
            return body
        if self.operation.body_kind == "form":
            raise ToolError(
                f"argument {self.operation.body_arg!r} is sent as a form ({self.operation.media_type}): give its "
                f"fields as an object, or the form's encoded text (a=1&b=2), not {type(body).__name__}"
            )
        return json.dumps(body)

    def _given(self, location: str, arguments: Mapping[str, Any]) -> list[Param]:
        """The parameters at `location` the call gives a value (a null one is left out, not sent as `None`)."""
        return [param for param in self._by_location.get(location, ()) if arguments.get(param.arg) is not None]

    def _body(self, arguments: Mapping[str, Any]) -> Any:
        if self.operation.body_arg is not None:
            return arguments.get(self.operation.body_arg)
        fields = self._by_location.get("body")
        if not fields:
            return None
        return {p.name: arguments[p.arg] for p in fields if p.arg in arguments}

    async def __call__(self, arguments: dict[str, Any], ctx: Context) -> ToolResult:
        if self._client is None:
            raise UpstreamError(f"{self.api} has no HTTP client")
        client = self._client()
        operation = self.operation
        parts = self.request_parts(arguments)
        given = parts.get("headers", {})
        sent = self._credentials(ctx) if self._credentials is not None else {}
        if sent:
            parts["headers"] = with_credentials(given, sent)
        answered = False
        try:
            request: Any = client.build_request(operation.method, self.url(arguments), **parts)  # its own type
            with self.in_flight, anyio.fail_after(self.timeout):  # httpx bounds each read, not the whole
                response = await send(client, request, self.errors, **self._send)
                answered = True
                try:
                    ok = 200 <= response.status_code < 300
                    content, whole = await self._read(response, self.max_bytes if ok else _ERROR_BYTES, strict=ok)
                finally:
                    await response.aclose()
        except (self.errors.timeout, TimeoutError):
            raise UpstreamError(f"{self.api}: {operation.label} timed out") from None
        except self.errors.http as error:
            said = what_failed(error, answered=answered)
            raise UpstreamError(f"{self.api}: {operation.label} failed: {said}") from None
        secret = {name: value for name, value in sent.items() if name not in self._public} if self._public else sent
        secrets = every_form([*self.secrets, *sent_secrets(response.request, secret, given)])
        if not ok:
            said = self.failure(response, content, secrets, whole=whole)
            if response.status_code in UNAVAILABLE:  # the API failing for now, as a dropped connection is
                raise UpstreamError(said)
            return ToolResult([TextContent(said)], is_error=True, meta={HTTP_STATUS: response.status_code})
        result = self.success(response, content, secrets)
        if secrets and any(secret.encode() in content for secret in secrets):  # (bytes: one fast search each)
            return scrub_result(result, secrets)
        return result

    async def _read(self, response: Response, limit: int, *, strict: bool) -> tuple[bytes, bool]:
        """The body, at most `limit` bytes, and whether that is all of it: past `limit` an
        `UpstreamError` (`strict`) or the start only."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                if strict:
                    raise UpstreamError(f"{self.api}: {self.operation.label} answered more than {limit} bytes")
                chunks.append(chunk[: len(chunk) - (size - limit)])
                return b"".join(chunks), False
            chunks.append(chunk)
        return b"".join(chunks), True

    def success(self, response: Response, content: bytes, secrets: Sequence[str] = ()) -> ToolResult:
        """A 2xx answer (its headers, and its body `content`) as a result; a binary one names the
        request's URL, `secrets` scrubbed from it (the base URL's `?api_key=`)."""
        schema = self.operation.output_schema
        label = f"{self.api}: {self.operation.label}"
        if not content:
            if schema is not None:  # the tool promises structured content it cannot give
                status = response.status_code
                raise UpstreamError(f"{label} answered HTTP {status} with no body, not the JSON its spec describes")
            return ToolResult(_where_made(response, secrets))
        media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media == "application/json" or media.endswith("+json") or (not media and schema):
            content = content.removeprefix(_UTF8_BOM)  # a parser may ignore one (RFC 8259 §8.1); .NET APIs send it
            text = content.decode("utf-8", errors="replace")  # JSON is UTF-8 (RFC 8259)
            if schema is None:
                return ToolResult([TextContent(text)])
            try:
                data = from_json(content)
            except ValueError:
                raise UpstreamError(f"{label} answered JSON that does not parse") from None
            if not self._wraps and not isinstance(data, dict):
                raise UpstreamError(f"{label} answered a JSON {type(data).__name__}, not the object its spec describes")
            result = ToolResult([TextContent(text)], {"result": data} if self._wraps else data)
            try:
                self._check(result)
            except InvalidResult as error:
                raise UpstreamError(f"{label} answered JSON its spec does not describe: {error}") from None
            return result
        if schema is not None:
            raise UpstreamError(f"{label} answered {media or 'an untyped body'}, not the JSON its spec describes")
        return ToolResult([_block(response, content, media, secrets)])

    def failure(self, response: Response, content: bytes, secrets: list[str], *, whole: bool = True) -> str:
        """What a non-2xx answer says: the status and a bounded excerpt of the body (`secrets`
        scrubbed from it before it is cut), saying how much is left out: a count when `content`
        is the `whole` body, else "more" and the `Content-Length`, when given."""
        body = scrub(content.decode(response.encoding or "utf-8", errors="replace"), secrets).strip()
        if not self.excerpt:  # no excerpt at all: the status alone
            body = ""
        elif len(body) > self.excerpt or not whole:
            body = body[: self.excerpt] + f"… ({_left_out(len(body) - self.excerpt, whole, response)})"
        reason = response.reason_phrase or ""
        head = f"{self.api}: {self.operation.label} answered HTTP {response.status_code} {reason}".rstrip()
        location = response.headers.get("location")
        if 300 <= response.status_code < 400 and location:
            head += f" (to {scrub(shown_url(location), secrets)}: redirects are not followed)"
        return f"{head}: {body}" if body else head


UNAVAILABLE = frozenset({429, 502, 503, 504})
"""Statuses that say the API cannot answer now (too many requests, a gateway or the service
down): an `UpstreamError`, which `Retry` retries (safe tools only) and `CircuitBreaker` counts,
as a dropped connection. Any other status is the API's answer: an `isError` result."""
HTTP_STATUS = "toolweave/http_status"
"""The `_meta` key of an `isError` result that carries the API's status."""


def _where_made(response: Response, secrets: Sequence[str]) -> list[ContentBlock]:
    """What a 2xx answer without a body says: where the resource it made or queued is, when it
    gives a `Location` (a `201 Created`, a `202 Accepted` to poll), else nothing (a `204`)."""
    location = response.headers.get("location")
    if not location:
        return []
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    return [TextContent(f"HTTP {response.status_code}{reason}; Location: {scrub(shown_url(location), list(secrets))}")]


def _left_out(more: int, whole: bool, response: Response) -> str:
    """How much of an error answer's body its excerpt leaves out, in words: `more` characters of
    a body read `whole`, else more than was read, and its length when the answer says it."""
    if whole:
        return f"{more} more characters"
    length = response.headers.get("content-length", "")
    return f"more characters, of a {length}-byte answer" if length.isdigit() else "more characters"


def with_credentials(headers: Mapping[str, Any], credentials: Mapping[str, str]) -> dict[str, Any]:
    """A call's `headers` (from its arguments) with the upstream `credentials` added: header
    names compared without case, and a credential cookie joined with the call's cookie
    arguments in the one `cookie` header a request may carry.

    Example:
        >>> with_credentials({"cookie": "theme=dark", "x-id": "1"}, {"Cookie": "sid=s3cr3t"})
        {'x-id': '1', 'cookie': 'theme=dark; sid=s3cr3t'}
    """
    merged = dict(headers)
    for name, value in credentials.items():
        key = name.lower()
        mine = merged.pop(key, None)
        if key == "cookie" and mine is not None:
            value = f"{mine.decode() if isinstance(mine, bytes) else mine}; {value}"
        merged[key] = _header_value(value)
    return merged


def sent_secrets(request: Request, credentials: Mapping[str, str], given: Mapping[str, Any]) -> list[str]:
    """The credential values `request` carried, to scrub from what the API answers: every
    upstream header toolweave added (`credentials`) and every `authorization`, `cookie` or
    secret-named header (`x-api-key`, ...) it does not have from the call's own arguments
    (`given`): what an `auth=` flow or the client's defaults put there. Each value whole and, for
    `Scheme token`, the token alone; a cookie header's values one by one.

    Example:
        >>> request = httpx2.Request("GET", "https://api.example", headers={
        ...     "Authorization": "Bearer t0k3n", "x-api-key": "mine", "accept": "application/json"})
        >>> sent_secrets(request, {}, {"x-api-key": "mine"})
        ['Bearer t0k3n', 't0k3n']
    """
    carried = [(name, value) for name, value in request.headers.raw if _is_credential(name)]  # (every call: raw bytes)
    if carried:
        mine = {name.lower(): value.encode() if isinstance(value, str) else value for name, value in given.items()}
        carried = [(name, value) for name, value in carried if mine.get(name.decode("latin-1").lower()) != value]
    found: list[str] = []
    sent = [(name.lower(), value) for name, value in credentials.items()]
    for name, value in [*sent, *((name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in carried)]:
        found.append(value)
        if name == "cookie":
            found += [cookie.partition("=")[2].strip() for cookie in value.split(";")]
        else:
            found.append(value.partition(" ")[2].strip())
    return [value for value in found if value]


_CREDENTIAL_NAMES: Memo[bool] = Memo(limit=1024)
"""Whether each header name seen says it carries a credential (the same few names, call after call)."""


def _is_credential(name: bytes) -> bool:
    """Whether a header of this name carries a credential (`authorization`, `cookie`, `x-api-key`, ...)."""
    return _CREDENTIAL_NAMES.get(name, is_credential_name, name.decode("latin-1"))


_TEXT_MEDIA = frozenset(
    {
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/x-ndjson",
        "application/jsonl",
        "application/json-seq",
        "application/x-www-form-urlencoded",
        "application/javascript",
        "application/graphql",
        "application/sql",
        "application/csv",
    }
)
"""Media types outside `text/` that are text all the same."""


def _is_text(media: str, content_type: str) -> bool:
    """Whether an answer of `media` (its full `content_type` says its charset, if any) is text.

    Example:
        >>> _is_text("application/atom+xml", ""), _is_text("application/x-ndjson", ""), _is_text("image/png", "")
        (True, True, False)
        >>> _is_text("application/vnd.acme.report", "application/vnd.acme.report; charset=utf-8")
        True
    """
    return (
        media.startswith("text/")
        or media in _TEXT_MEDIA
        or media.endswith(("+xml", "+yaml"))
        or "charset=" in content_type.lower()
    )


def _block(response: Response, content: bytes, media: str, secrets: Sequence[str]) -> ContentBlock:
    """A 2xx answer that is not JSON as a block: text, an image, or bytes named by the request's
    URL with `secrets` scrubbed from it (the base URL's `?api_key=` is in it)."""
    if _is_text(media, response.headers.get("content-type", "")):
        return TextContent(content.decode(response.encoding or "utf-8", errors="replace"))
    data = base64.b64encode(content).decode()
    if media.startswith("image/"):
        return ImageContent(data, media)
    uri = scrub(str(response.url), list(secrets))
    return EmbeddedResource(BlobResourceContents(uri, data, media or "application/octet-stream"))
