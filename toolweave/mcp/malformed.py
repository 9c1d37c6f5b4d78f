"""The JSON-RPC answer to a message the server cannot take, as JSON-RPC 2.0 says to give it.

A transport hands over each message it could not turn into a request (stdio: the line, and what
the SDK's parser said; `answer`), or each message before the SDK reads it (HTTP: the POST body;
`body_error`, None for one the SDK can take as it is). The answer is:

- `-32700 Parse error`, `id: null`, for text that is not JSON (not UTF-8, truncated, trailing
  characters, a bare word);
- `-32600 Invalid Request` for JSON that is not one request object: a scalar, an array (batches
  were removed from MCP), a wrong or missing `jsonrpc`, a missing or non-string `method`, an `id`
  that is neither a string nor an integer (answered with `id: null`), nesting too deep or a
  number too long to read (answered with the `id` the message carries, found without parsing the
  rest, so the client waiting on it gets its answer);
- `-32602 Invalid params` for `params` that is not an object;
- nothing for a notification or a response (JSON-RPC never answers them); they are logged. An
  HTTP POST needs an answer all the same: `body_error` gives a malformed one `-32600`, `id: null`.

The answers never quote the message.

Example:
    >>> answer('{"jsonrpc": "1.0", "id": 5, "method": "ping"}').model_dump(exclude_none=True)["error"]["code"]
    -32600
    >>> answer("not json").id is None
    True
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import mcp.types as mt
import pydantic_core

logger = logging.getLogger("toolweave.mcp")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SPECIAL = re.compile(r'["\[\]{}]')
_ID_VALUE = re.compile(r'\s*:\s*(-?(?:0|[1-9]\d{0,17})(?![\d.eE])|"[^"\\]*(?:\\.[^"\\]*)*")')


def _error(code: int, message: str, request_id: str | int | None) -> mt.JSONRPCError:
    return mt.JSONRPCError(jsonrpc="2.0", id=request_id, error=mt.ErrorData(code=code, message=message))


def top_level_id(text: str) -> str | int | None:
    """The `id` of the top-level object in `text`, read without parsing the rest (which may be
    too deep or otherwise unreadable); None when there is none or it is not a string or integer.

    Example:
        >>> top_level_id('{"params": {"id": 1, "x": [[[["deep"' + "]" * 4 + '}, "id": "a-7"}')
        'a-7'
    """
    depth = 0
    position = 0
    while True:
        found = _SPECIAL.search(text, position)
        if found is None:
            return None
        char = found.group()
        if char == '"':
            string = _STRING.match(text, found.start())
            if string is None:
                return None
            position = string.end()
            if depth == 1 and string.group() == '"id"':
                value = _ID_VALUE.match(text, position)
                if value is not None:
                    parsed = json.loads(value.group(1))
                    return parsed if isinstance(parsed, str | int) else None
            continue
        depth += 1 if char in "[{" else -1
        if depth <= 0:
            return None
        position = found.end()


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or _integer(value)


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def _valid_response(message: dict[str, Any]) -> bool:
    """Whether `message` (a response) is one the SDK reads: a result object under a string or
    integer `id`, or an error object with an integer `code` and a string `message`."""
    if message.get("jsonrpc") != "2.0":
        return False
    request_id = message.get("id")
    if isinstance(message.get("result"), dict) and _valid_id(request_id):
        return True
    error = message.get("error")
    return (
        isinstance(error, dict)
        and (request_id is None or _valid_id(request_id))
        and _integer(error.get("code"))
        and isinstance(error.get("message"), str)
    )


def envelope_error(message: Any) -> mt.JSONRPCError | None:
    """The error answering `message` (decoded JSON) when it is not one JSON-RPC 2.0 message as MCP
    has them (a request, a notification or a response; `params` an object; no batches); None when
    it is one. A malformed notification or response gets `-32600` with `id: null`.

    Example:
        >>> envelope_error({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": [1]}).error.message
        'Invalid params: "params" must be an object'
        >>> envelope_error({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": None}) is None
        True
    """
    if isinstance(message, list):
        return _error(
            mt.INVALID_REQUEST, "Invalid Request: batches are not supported; send one message at a time", None
        )
    if not isinstance(message, dict):
        return _error(mt.INVALID_REQUEST, "Invalid Request: a message must be a JSON object", None)
    if _is_response(message):
        return None if _valid_response(message) else _error(mt.INVALID_REQUEST, "Invalid Request: a bad response", None)
    request_id = message.get("id") if _valid_id(message.get("id")) else None
    if message.get("jsonrpc") != "2.0":
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if not isinstance(message.get("method"), str):
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "method" must be a string', request_id)
    if "id" in message and request_id is None:
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer', None)
    if message.get("params") is not None and not isinstance(message["params"], dict):
        if request_id is None:  # a notification
            return _error(mt.INVALID_REQUEST, 'Invalid Request: "params" must be an object', None)
        return _error(mt.INVALID_PARAMS, 'Invalid params: "params" must be an object', request_id)
    return None


def _decoded(text: str) -> tuple[Any, mt.JSONRPCError | None]:
    """`text` decoded, or the error answering it when it cannot be."""
    try:
        return json.loads(text), None
    except RecursionError:
        return None, _error(mt.INVALID_REQUEST, "Invalid Request: the message is nested too deeply", top_level_id(text))
    except json.JSONDecodeError:
        return None, _error(mt.PARSE_ERROR, "Parse error: the message is not valid JSON", None)
    except ValueError:  # an integer too long to convert
        return None, _error(
            mt.INVALID_REQUEST, "Invalid Request: a number in the message is too long", top_level_id(text)
        )


def answer(text: str, reason: str = "") -> mt.JSONRPCError | None:
    """The error answer to `text`, a message the transport could not read; None for one that
    must not be answered (a notification, a response), which is logged instead.

    Args:
        reason: What the SDK's parser said (used where nothing more precise is known).
    """
    value, error = _decoded(text)
    if error is not None:
        return error
    if isinstance(value, dict) and _dropped(value, reason):
        return None
    return envelope_error(value) or _unread_request(value, reason)


def _dropped(message: dict[str, Any], reason: str) -> bool:
    """Whether `message` is a response or a notification, which JSON-RPC never answers (logged)."""
    if _is_response(message):
        request_id = message.get("id") if _valid_id(message.get("id")) else None
        logger.warning("dropped a malformed response from the client (id %r)", request_id)
        return True
    if message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str) and "id" not in message:
        logger.warning("dropped a malformed notification %r: %s", message["method"][:100], reason or "invalid")
        return True
    return False


def _unread_request(message: dict[str, Any], reason: str) -> mt.JSONRPCError:
    """The answer to `message`, whose envelope is valid but which the SDK could not read."""
    request_id = message.get("id") if "method" in message else None
    return _error(mt.INVALID_REQUEST, f"Invalid Request: {reason or 'the message cannot be read'}", request_id)


def body_error(body: bytes) -> mt.JSONRPCError | None:
    """The error answering `body`, one HTTP POST, when it is not one JSON-RPC 2.0 message the SDK
    can read; None when it is, to be handed to the SDK as it is.

    It is read once, with the parser the SDK reads stdio and handshake-era HTTP with
    (`pydantic_core`, strict UTF-8, no byte order mark, no lone surrogate escape, nesting bounded);
    only a body that parser refuses is read again, to tell the client why and find its `id`.

    Example:
        >>> body_error(b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}') is None
        True
        >>> refused = body_error(b'{"jsonrpc": "2.0", "id": true, "method": "ping"}')
        >>> refused.id, refused.error.code
        (None, -32600)
        >>> body_error(rb'{"jsonrpc": "2.0", "id": 14, "method": "ping", "params": {"x": "\\ud800"}}').id
        14
    """
    try:
        message = pydantic_core.from_json(body)
    except ValueError as refused:
        return _unreadable(body, f"Invalid JSON: {refused}")
    return envelope_error(message)


def _unreadable(body: bytes, reason: str) -> mt.JSONRPCError:
    """The answer to `body`, which the SDK's parser refused (saying `reason`, with no input in it)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return _error(mt.PARSE_ERROR, "Parse error: the message is not valid UTF-8", None)
    value, error = _decoded(text)
    return error or envelope_error(value) or _unread_request(value, reason)


def notification_answer(text: str) -> mt.JSONRPCError | None:
    """The answer to `text`, which the SDK read as a notification: an error (`id: null`) when it
    carries an `id` that is not a string or integer (a request the SDK would silently drop).

    Example:
        >>> notification_answer('{"jsonrpc": "2.0", "id": true, "method": "ping"}').error.code
        -32600
        >>> notification_answer('{"jsonrpc": "2.0", "method": "notifications/initialized"}') is None
        True
    """
    if '"id"' not in text:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and "id" in message:
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer', None)
    return None
