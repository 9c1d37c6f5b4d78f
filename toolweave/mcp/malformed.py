"""The JSON-RPC answer to a message the server cannot take, as JSON-RPC 2.0 says to give it.

A transport hands over each message it could not turn into a request (the line or body, and
what the SDK's parser said). The answer is:

- `-32700 Parse error`, `id: null`, for text that is not JSON (not UTF-8, truncated, trailing
  characters, a bare word);
- `-32600 Invalid Request` for JSON that is not one request object: a scalar, an array (batches
  were removed from MCP), a wrong or missing `jsonrpc`, a missing or non-string `method`, an `id`
  that is neither a string nor an integer (answered with `id: null`), nesting too deep or a
  number too long to read (answered with the `id` the message carries, found without parsing the
  rest, so the client waiting on it gets its answer);
- `-32602 Invalid params` for `params` that is not an object;
- nothing for a notification or a response (JSON-RPC never answers them); they are logged.

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


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def answer(text: str, reason: str = "") -> mt.JSONRPCError | None:
    """The error answer to `text`, a message the transport could not read; None for one that
    must not be answered (a notification, a response), which is logged instead.

    Args:
        reason: What the SDK's parser said (used where nothing more precise is known).
    """
    try:
        value = json.loads(text)
    except RecursionError:
        return _error(mt.INVALID_REQUEST, "Invalid Request: the message is nested too deeply", top_level_id(text))
    except json.JSONDecodeError:
        return _error(mt.PARSE_ERROR, "Parse error: the message is not valid JSON", None)
    except ValueError:  # an integer too long to convert
        return _error(mt.INVALID_REQUEST, "Invalid Request: a number in the message is too long", top_level_id(text))
    if isinstance(value, list):
        return _error(mt.INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line", None)
    if not isinstance(value, dict):
        return _error(mt.INVALID_REQUEST, "Invalid Request: a message must be a JSON object", None)
    return _object_answer(value, reason)


def _object_answer(message: dict[str, Any], reason: str) -> mt.JSONRPCError | None:
    has_id = "id" in message
    request_id = message.get("id") if _valid_id(message.get("id")) else None
    if "method" not in message and ("result" in message or "error" in message):
        logger.warning("dropped a malformed response from the client (id %r)", request_id)
        return None
    if message.get("jsonrpc") != "2.0":
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if not isinstance(message.get("method"), str):
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "method" must be a string', request_id)
    if has_id and request_id is None:
        return _error(mt.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer', None)
    if not has_id:
        logger.warning("dropped a malformed notification %r: %s", message["method"][:100], reason or "invalid")
        return None
    if "params" in message and not isinstance(message["params"], dict):
        return _error(mt.INVALID_PARAMS, 'Invalid params: "params" must be an object', request_id)
    return _error(mt.INVALID_REQUEST, f"Invalid Request: {reason or 'the message cannot be read'}", request_id)


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
