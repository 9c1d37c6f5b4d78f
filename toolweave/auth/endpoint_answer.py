"""`ask`: one request to an authorization server's endpoint (JWKS, introspection, token), its answer
bounded in size.

`response.json()` reads an answer whole however long it is: a key set or introspection answer of
hundreds of megabytes was read and parsed into memory, on the path of every request waiting for it.
Here the body is read up to `MAX_ANSWER_BYTES` once decoded (a gzip answer is counted as it
unpacks). Real answers are a few kilobytes. The caller bounds the time of the whole exchange
(`anyio.fail_after`: httpx's `timeout` bounds each read, not the answer).

Example:
    >>> Answer(200, b'{"keys": []}').json()
    {'keys': []}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx2 as httpx

MAX_ANSWER_BYTES = 2**20
"""The longest answer read from an authorization server's endpoint (1 MiB, decoded): a JWKS of
a few hundred keys, far more than any identity provider publishes."""


class AnswerTooLarge(ValueError):
    """The endpoint's answer is longer than `MAX_ANSWER_BYTES`."""


@dataclass(frozen=True, slots=True)
class Answer:
    """An endpoint's status and whole body."""

    status_code: int
    body: bytes

    def json(self) -> Any:
        """The body as JSON (`ValueError` if it is not; `RecursionError` if nested too deep)."""
        return json.loads(self.body)


async def ask(client: httpx.AsyncClient, method: str, url: str, **request: Any) -> Answer:
    """`client`'s answer to `method url` (`request`: httpx's `data`, `headers`, `auth`), read up to
    `MAX_ANSWER_BYTES`.

    Raises:
        httpx.HTTPError: the request failed (unreachable, refused, a broken stream).
        AnswerTooLarge: the body is longer than `MAX_ANSWER_BYTES` (read no further).
    """
    body = bytearray()
    async with client.stream(method, url, **request) as response:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_ANSWER_BYTES:
                raise AnswerTooLarge(f"the answer is longer than {MAX_ANSWER_BYTES} bytes")
    return Answer(response.status_code, bytes(body))
