"""An API that cannot answer now (429, 502, 503, 504) fails the call as a dropped connection does:
an `UpstreamError`, which `Retry` retries and `CircuitBreaker` counts; any other status is the API's
answer, an `isError` result neither of them acts on. Against a real app on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest

from tests.serving import serving
from toolweave import RemoteServer, Server
from toolweave.middleware import CircuitBreaker, Retry
from toolweave.testing import connect

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Busy", "version": "1"},
    "paths": {"/report": {"get": {"operationId": "report"}}},
}


class AnswersAfter:
    """`/report` answers `status` (with a short body) to its first `failing` requests, then 200."""

    def __init__(self, status: int, failing: int) -> None:
        self.status, self.failing, self.requests = status, failing, 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        failed = self.requests <= self.failing
        status, body = (self.status, b"try later") if failed else (200, b'{"rows": 3}')
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": body})


def gateway(url: str, *middleware: Any) -> Server:
    server = Server("gateway", middleware=list(middleware))
    server.mount(RemoteServer.openapi(SPEC, base_url=url), prefix="api")
    return server


@pytest.mark.parametrize("status", [429, 502, 503, 504])
async def test_an_api_that_cannot_answer_now_is_retried(status: int) -> None:
    app = AnswersAfter(status, failing=2)
    async with serving(app) as url, connect(gateway(url, Retry(attempts=3, backoff=0.01))) as client:
        result = await client.call_tool("api_report", {})
    assert not result.is_error, result.content[0].text
    assert (result.content[0].text, app.requests) == ('{"rows": 3}', 3)


async def test_an_answer_of_the_api_is_not_retried_and_says_the_same_words_as_before() -> None:
    app = AnswersAfter(404, failing=2)
    async with serving(app) as url, connect(gateway(url, Retry(attempts=3, backoff=0.01))) as client:
        result = await client.call_tool("api_report", {})
    assert result.is_error and app.requests == 1
    assert result.content[0].text == "API 'api': GET /report answered HTTP 404 Not Found: try later"
    assert result.meta is not None and result.meta["toolweave/http_status"] == 404


async def test_an_api_that_cannot_answer_opens_the_circuit_and_the_client_reads_why() -> None:
    app = AnswersAfter(503, failing=10)
    breaker = CircuitBreaker(failures=2, reset_after=60)
    async with serving(app) as url, connect(gateway(url, breaker)) as client:
        first = await client.call_tool("api_report", {})
        await client.call_tool("api_report", {})
        refused = await client.call_tool("api_report", {})
    assert first.is_error
    assert first.content[0].text == "API 'api': GET /report answered HTTP 503 Service Unavailable: try later"
    assert refused.is_error and "circuit" in refused.content[0].text.lower()
    assert app.requests == 2  # the open circuit spared the API the third
