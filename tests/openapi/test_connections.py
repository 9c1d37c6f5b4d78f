"""An OpenAPI tool's request on a kept-alive connection the API has closed: an idempotent one is
sent once more on a new connection, a POST never; either way a failure says what happened in words.
Against a real app on 127.0.0.1 that answers, then drops the connection the answer went out on."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import SocketAttribute
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.serving import served, serving
from toolweave import RemoteServer
from toolweave.openapi import SpecError, load_spec
from toolweave.testing import connect

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Flaky", "version": "1"},
    "paths": {
        "/drop": {"get": {"operationId": "drop"}},
        "/cut": {"get": {"operationId": "cut"}},
        "/work": {method: {"operationId": f"{method}_work"} for method in ("get", "put", "delete", "post", "patch")},
    },
}


class DropsAfterAnswering:
    """`/drop` answers 500 at once and then, as a crashing app's server does, closes its connection,
    a moment later: a request sent on it in that moment never gets an answer. `/work` waits for
    that close the first time it is asked on a connection already used, and answers at once on a
    new one. `requests` counts every request to `/work` that arrived."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/cut":  # half an answer, then the connection closes
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"100")]})
            await send({"type": "http.response.body", "body": b'{"half":', "more_body": True})
            raise RuntimeError("the app crashed while answering: uvicorn closes the connection")
        if scope["path"] == "/drop":
            await send({"type": "http.response.start", "status": 500, "headers": [(b"content-length", b"5")]})
            await send({"type": "http.response.body", "body": b"crash"})
            await anyio.sleep(0.2)  # the client has its answer, and sends the next request on this connection
            raise RuntimeError("the app crashed after answering: uvicorn closes the connection")
        self.requests += 1
        if self.requests == 1:
            while (await receive())["type"] != "http.disconnect":  # never answered: the connection closes
                pass
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"done":true}'})


@pytest.fixture(autouse=True)
def _quiet_uvicorn(caplog: pytest.LogCaptureFixture) -> None:
    """The app's deliberate crash is logged by uvicorn with its traceback: not the test's news."""
    caplog.set_level(logging.CRITICAL, logger="uvicorn.error")


@pytest.mark.parametrize("method", ["get", "put", "delete"])
async def test_an_idempotent_call_on_a_connection_the_api_closed_is_sent_once_more(method: str) -> None:
    """`GET /text failed (ReadError)` came now and then right after an API answered 500 and closed."""
    app = DropsAfterAnswering()
    async with serving(app) as url, connect(RemoteServer.openapi(SPEC, base_url=url)) as client:
        dropped = await client.call_tool("drop", {})
        result = await client.call_tool(f"{method}_work", {})
    assert dropped.is_error and "HTTP 500" in dropped.content[0].text
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == '{"done":true}'
    assert app.requests == 2


@pytest.mark.parametrize("method", ["post", "patch"])
async def test_a_post_or_patch_is_never_sent_twice_and_the_failure_says_why(method: str) -> None:
    """The API may have acted on the first: the call fails, in words, not only a class name."""
    app = DropsAfterAnswering()
    async with serving(app) as url, connect(RemoteServer.openapi(SPEC, base_url=url)) as client:
        await client.call_tool("drop", {})
        result = await client.call_tool(f"{method}_work", {})
    assert result.is_error
    head, _, why = result.content[0].text.partition(" failed: ")
    assert head == f"API 'Flaky': {method.upper()} /work"
    assert why.startswith("the connection closed before an answer"), why
    assert why.endswith(("(ReadError)", "(RemoteProtocolError)")), why
    assert app.requests == 1


async def test_an_answer_cut_short_is_not_asked_again_and_the_failure_says_so() -> None:
    """Once an answer has begun to arrive, the API has acted: a GET too fails, saying what happened."""
    app = DropsAfterAnswering()
    async with serving(app) as url, connect(RemoteServer.openapi(SPEC, base_url=url)) as client:
        result = await client.call_tool("cut", {})
    assert result.is_error
    assert result.content[0].text.startswith(
        "API 'Flaky': GET /cut failed: the connection closed before the whole answer arrived"
    )


async def test_a_new_connection_closed_before_an_answer_is_not_tried_again() -> None:
    """Only a kept-alive connection may have been closed by the API in the meantime: a new one that
    closes at once says the API is failing, and asking it a second time would only double the load.
    (A socket that accepts and closes, not an HTTP app: no HTTP server closes without an answer.)"""
    accepted = 0

    async def close_at_once(stream: Any) -> None:
        nonlocal accepted
        accepted += 1
        await stream.receive()
        await stream.aclose()

    async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, close_at_once)
        port = listener.extra(SocketAttribute.local_port)
        result = await RemoteServer.openapi(SPEC, base_url=f"http://127.0.0.1:{port}").call_tool("get_work", {})
        tasks.cancel_scope.cancel()
    assert result.is_error
    assert result.text == (
        "API 'Flaky': GET /work failed: the connection closed before an answer, or what came was not HTTP "
        "(RemoteProtocolError)"
    )
    assert accepted == 1


def _self_signed(folder: Path) -> dict[str, str]:
    """uvicorn's TLS options for a certificate signed by its own key (an internal API's, often)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    builder = x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
    builder = builder.serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
    certificate = builder.sign(key, hashes.SHA256())
    (folder / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return {"ssl_certfile": str(folder / "cert.pem"), "ssl_keyfile": str(folder / "key.pem")}


async def test_a_tls_failure_says_it_is_one(tmp_path: Path) -> None:
    """A self-signed certificate, or `https://` to a plain HTTP port, said "the connection could
    not be opened", which sent users looking for a firewall."""
    async with serving(DropsAfterAnswering(), **_self_signed(tmp_path)) as url:
        untrusted = await RemoteServer.openapi(SPEC, base_url=url.replace("http:", "https:")).call_tool("get_work", {})
    async with serving(DropsAfterAnswering()) as url:
        plain = await RemoteServer.openapi(SPEC, base_url=url.replace("http:", "https:")).call_tool("get_work", {})
    assert untrusted.text == (
        "API 'Flaky': GET /work failed: the API's TLS certificate was not accepted: self-signed certificate "
        "(ConnectError)"
    )
    assert plain.text.startswith("API 'Flaky': GET /work failed: the TLS handshake failed: ")  # OpenSSL's reason
    assert plain.text.endswith(" (ConnectError)")


def test_a_spec_url_that_cannot_be_fetched_says_why_in_words(tmp_path: Path) -> None:
    """It said the class name alone: `cannot fetch the OpenAPI spec '...': ConnectError`."""
    with served(DropsAfterAnswering(), **_self_signed(tmp_path)) as url, pytest.raises(SpecError) as untrusted:
        load_spec(url.replace("http:", "https:") + "/openapi.json")
    with served(DropsAfterAnswering()) as url:
        pass
    with pytest.raises(SpecError) as gone:
        load_spec(f"{url}/openapi.json")  # (the server is stopped)
    assert str(untrusted.value).endswith(
        "openapi.json': the API's TLS certificate was not accepted: self-signed certificate (ConnectError)"
    )
    assert str(gone.value) == (
        f"cannot fetch the OpenAPI spec '{url}/openapi.json': the connection could not be opened (ConnectError)"
    )
