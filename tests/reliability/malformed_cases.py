"""The malformed-message classes sent over stdio and HTTP, with the JSON-RPC answer each must get."""

from __future__ import annotations

from dataclasses import dataclass

PARSE, INVALID_REQUEST, NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NO_ANSWER = 0


@dataclass(frozen=True)
class Case:
    name: str
    body: bytes
    code: int
    """The JSON-RPC error code of the answer (`NO_ANSWER`: JSON-RPC forbids answering)."""
    id: int | str | None = None
    """The `id` the answer carries."""
    well_formed: bool = False
    """A valid JSON-RPC message: the server's own answer (over HTTP, as that era answers a request)."""


def _call(request_id: int, arguments: str) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s}}' % (
        request_id,
        arguments.encode(),
    )


CASES = [
    Case("not JSON", b"hello", PARSE),
    Case("truncated JSON", b'{"jsonrpc":"2.0","id":1,', PARSE),
    Case("trailing characters", b'{"jsonrpc":"2.0","id":3,"method":"ping"} x', PARSE),
    Case("single quotes", b"{'jsonrpc':'2.0','id':4,'method':'ping'}", PARSE),
    Case("not UTF-8", b'{"jsonrpc":"2.0","id":2,"method":"ping","x":"\xff"}', PARSE),
    Case("UTF-8 byte order mark", b'\xef\xbb\xbf{"jsonrpc":"2.0","id":19,"method":"ping"}', PARSE),
    Case("bare number", b"42", INVALID_REQUEST),
    Case("bare string", b'"ping"', INVALID_REQUEST),
    Case("bare null", b"null", INVALID_REQUEST),
    Case("bare true", b"true", INVALID_REQUEST),
    Case("batch array", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', INVALID_REQUEST),
    Case("empty batch", b"[]", INVALID_REQUEST),
    Case("empty object", b"{}", INVALID_REQUEST),
    Case('"jsonrpc": "1.0"', b'{"jsonrpc":"1.0","id":5,"method":"ping"}', INVALID_REQUEST, 5),
    Case('no "jsonrpc"', b'{"id":6,"method":"ping"}', INVALID_REQUEST, 6),
    Case('no "method"', b'{"jsonrpc":"2.0","id":7}', INVALID_REQUEST, 7),
    Case('"method" a number', b'{"jsonrpc":"2.0","id":9,"method":5}', INVALID_REQUEST, 9),
    Case('"params" an array', b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[1]}', INVALID_PARAMS, 8),
    Case('"params" a string', b'{"jsonrpc":"2.0","id":10,"method":"tools/list","params":"x"}', INVALID_PARAMS, 10),
    Case('"id" null', b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST),
    Case('"id" an object', b'{"jsonrpc":"2.0","id":{},"method":"ping"}', INVALID_REQUEST),
    Case('"id" a fraction', b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST),
    Case('"id" a boolean', b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST),
    Case("5,000-digit number", _call(12, '{"text":' + "9" * 5000 + "}"), INVALID_REQUEST, 12),
    Case("50,000-deep nesting", _call(13, '{"text":' + "[" * 50000 + "]" * 50000 + "}"), INVALID_REQUEST, 13),
    Case("lone surrogate escape", _call(14, '{"text":"\\ud800"}'), INVALID_REQUEST, 14),
    Case("unknown method", b'{"jsonrpc":"2.0","id":16,"method":"tools/explode"}', NOT_FOUND, 16, well_formed=True),
    Case(
        "call without a name",
        b'{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{}}',
        INVALID_PARAMS,
        18,
        well_formed=True,
    ),
    Case(
        "unknown tool",
        b'{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"nope"}}',
        INVALID_PARAMS,
        20,
        well_formed=True,
    ),
    Case("response to nothing", b'{"jsonrpc":"2.0","id":99,"result":{}}', NO_ANSWER, well_formed=True),
    Case("malformed notification", b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}', NO_ANSWER),
]
OVERSIZED = Case("5 MiB message", _call(15, '{"text":"' + "x" * (5 * 1024 * 1024) + '"}'), INVALID_REQUEST, 15)
