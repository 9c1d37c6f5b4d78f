"""A mount with `forward_caller_token=True` sends each verified caller's own token to its upstream,
over one upstream session per caller, and nothing else in its place. Everything real: the issuer,
the upstream toolweave HTTP server (which records the `Authorization` header of every HTTP request
and every call it received), the gateway on HTTP with JWT auth, the official `mcp` client."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
import mcp.types as mt
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.auth.issuer import AUDIENCE, INTROSPECTION_CLIENT, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.conftest import free_port
from tests.serving import serving
from toolweave import AuthInfo, Context, RemoteServer, Server
from toolweave.auth import Bearer, IntrospectionVerifier, JWTVerifier
from toolweave.config import build
from toolweave.config.models import Config
from toolweave.server.remote import Backoff
from toolweave.transforms.redact import IN_FLIGHT


@dataclass
class Seen:
    """What the upstream received: each HTTP request (method, Authorization, session id) and the
    Authorization header of each call, prompt and read."""

    requests: list[tuple[str, str, str]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    release: anyio.Event = field(default_factory=anyio.Event)
    """Set to let the upstream's `wait` tool answer."""
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    def called(self, authorization: str) -> str:
        self.calls.append(authorization)
        self._arrived.set()
        return authorization

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait (5 s at most) until `condition()` holds, checking as requests arrive."""
        with anyio.fail_after(5):
            while not condition():
                self._arrived = anyio.Event()
                await self._arrived.wait()

    def wrap(self, app: ASGIApp) -> ASGIApp:
        async def recorded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
                found = (scope["method"], headers.get("authorization", ""), headers.get("mcp-session-id", ""))
                self.requests.append(found)
                self._arrived.set()
            await app(scope, receive, send)

        return recorded

    def sessions_of(self, authorization: str) -> set[str]:
        """The upstream session ids used with this Authorization header."""
        return {session for _, seen, session in self.requests if seen == authorization and session}

    def closed(self) -> set[str]:
        """The upstream session ids the gateway closed (HTTP DELETE)."""
        return {session for method, _, session in self.requests if method == "DELETE"}


def fingerprint(authorization: str) -> str:
    """What the upstream's tools answer for an Authorization header: its token's hash, never the
    token (the gateway redacts a forwarded token from what an upstream sends back)."""
    scheme, _, token = authorization.partition(" ")
    return f"{scheme} #{hashlib.sha256(token.encode()).hexdigest()[:16]}" if token else authorization


def whose(token: str) -> str:
    """What the upstream answers for a call forwarded with `token`."""
    return fingerprint(f"Bearer {token}")


async def refuse_handshake(ctx: Any, call_next: Any) -> Any:
    """Speak only the 2026-07-28 protocol (`initialize` refused)."""
    if ctx.method == "initialize":
        raise MCPError(mt.UNSUPPORTED_PROTOCOL_VERSION, "this server speaks only 2026-07-28")
    return await call_next(ctx)


def upstream(seen: Seen, *, modern_only: bool = False) -> Server:
    server = Server("upstream")
    if modern_only:
        server.as_mcp().middleware.insert(0, refuse_handshake)

    def authorization(ctx: Context) -> str:
        return fingerprint(seen.called(ctx.headers.get("authorization", "none")))

    @server.tool
    async def wait(ctx: Context) -> str:
        """Answer once the test releases it."""
        authorization(ctx)
        await seen.release.wait()
        return "released"

    @server.tool
    def whose(ctx: Context) -> str:
        """The Authorization header this call arrived with."""
        return authorization(ctx)

    @server.prompt
    def whose_prompt(ctx: Context) -> str:
        """The Authorization header this prompt was got with."""
        return authorization(ctx)

    @server.resource("note://whose")
    def whose_note(ctx: Context) -> str:
        """The Authorization header this read arrived with."""
        return authorization(ctx)

    return server


@asynccontextmanager
async def upstream_at(
    seen: Seen, *, modern_only: bool = False, port: int | None = None, **http: Any
) -> AsyncIterator[str]:
    """The streamable HTTP endpoint of a recording upstream (`/sse` beside it with `legacy_sse=True`),
    on `port` if given, stopped (its connections closed) when the block ends."""
    app = seen.wrap(upstream(seen, modern_only=modern_only).http_app(**http))
    async with serving(app, port=port) as url:
        yield url + "/mcp"


@asynccontextmanager
async def gateway(issuer: Issuer, remote: RemoteServer, **http: Any) -> AsyncIterator[str]:
    root = Server("gateway")
    root.mount(remote, prefix="up")
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    async with serving(root.http_app(auth=verifier, resource_url=AUDIENCE, **http)) as url:
        yield url


def caller(token: str) -> Context:
    """The context of a request whose caller the edge verified (in-process)."""
    return Context(auth=AuthInfo(subject="someone", token=token))


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_each_caller_reaches_the_upstream_with_its_own_token(issuer: Issuer, legacy: bool) -> None:
    seen = Seen()
    ada, grace = issuer.token(sub="ada"), issuer.token(sub="grace")
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True)
        async with (
            gateway(issuer, remote) as gateway_url,
            connected(gateway_url, ada, legacy=legacy) as a,
            connected(gateway_url, grace, legacy=legacy) as g,
        ):
            answers: dict[str, list[str]] = {"ada": [], "grace": []}

            async def calls(name: str, client: Any) -> None:
                for _ in range(3):
                    answers[name].append((await client.call_tool("up_whose", {})).content[0].text)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(calls, "ada", a)
                tasks.start_soon(calls, "grace", g)
            prompt = await a.get_prompt("up_whose_prompt", {})
            note = await g.read_resource("note://up/whose")
    assert answers == {"ada": [whose(ada)] * 3, "grace": [whose(grace)] * 3}
    assert prompt.messages[0].content.text == whose(ada)
    assert note.contents[0].text == whose(grace)
    ada_sessions, grace_sessions = seen.sessions_of(f"Bearer {ada}"), seen.sessions_of(f"Bearer {grace}")
    assert len(ada_sessions) == 1 and len(grace_sessions) == 1  # one upstream session per caller...
    for _, authorization, session in seen.requests:  # ...which never carries anyone else's token
        if session in ada_sessions | grace_sessions:
            assert authorization == (f"Bearer {ada}" if session in ada_sessions else f"Bearer {grace}")
    listing = seen.sessions_of("")  # the gateway's own session, which lists the catalog, has no token
    assert listing and not listing & (ada_sessions | grace_sessions)


@pytest.mark.parametrize(
    ("transport", "era"), [("http", "2025"), ("http", "2026"), ("sse", "2025")], ids=["http-2025", "http-2026", "sse"]
)
async def test_every_transport_and_era_forwards_each_callers_own_token(transport: str, era: str) -> None:
    seen = Seen()
    async with upstream_at(seen, modern_only=era == "2026", legacy_sse=transport == "sse") as url:
        if transport == "sse":
            remote = RemoteServer.sse(url.removesuffix("/mcp") + "/sse", forward_caller_token=True)
        else:
            remote = RemoteServer.http(url, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            answers = [(await root.call_tool("up_whose", {}, ctx=caller(token))).text for token in ("tok-a", "tok-b")]
            assert remote.caller_session_count == 2
    assert remote.era == era
    assert seen.calls == ["Bearer tok-a", "Bearer tok-b"]
    assert answers == [whose("tok-a"), whose("tok-b")]


async def test_without_the_flag_the_upstream_never_sees_a_callers_token(issuer: Issuer) -> None:
    seen = Seen()
    ada = issuer.token(sub="ada")
    async with (
        upstream_at(seen) as url,
        gateway(issuer, RemoteServer.http(url)) as gateway_url,
        connected(gateway_url, ada, legacy=False) as client,
    ):
        answer = await client.call_tool("up_whose", {})
    assert answer.content[0].text == "none"
    assert all(authorization == "" for _, authorization, _ in seen.requests)


async def test_a_request_without_a_verified_caller_gets_a_clear_error_and_the_gateway_keeps_serving(
    issuer: Issuer,
) -> None:
    seen = Seen()
    ada = issuer.token(sub="ada")
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True, auth=Bearer("gateway-own-token"))
        async with gateway(issuer, remote, allow_anonymous=True) as gateway_url:
            async with Client(streamable_http_client(gateway_url + "/mcp")) as anonymous:
                refused = await anonymous.call_tool("up_whose", {})
            async with connected(gateway_url, ada, legacy=False) as client:
                served = await client.call_tool("up_whose", {})
    assert refused.is_error
    assert refused.content[0].text == (
        "upstream 'up' needs the caller's own token, and this request has no verified caller; "
        "tool 'up_whose' is unavailable"
    )
    assert served.content[0].text == whose(ada)
    assert seen.calls == [f"Bearer {ada}"]  # no anonymous call, and never the gateway's own token
    assert "Bearer gateway-own-token" in {authorization for _, authorization, _ in seen.requests}  # listing


async def test_in_process_and_stdio_requests_have_no_caller_token_to_forward() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        root = Server("gateway")
        root.mount(RemoteServer.http(url, forward_caller_token=True), prefix="up")
        async with root:
            result = await root.call_tool("up_whose", {})
            forwarded = await root.call_tool("up_whose", {}, ctx=caller("tok-in-process"))
    assert result.is_error and "upstream 'up' needs the caller's own token" in result.text
    assert forwarded.text == whose("tok-in-process")
    assert seen.calls == ["Bearer tok-in-process"]


async def test_the_callers_token_replaces_a_static_authorization_header_of_the_mount() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, {"Authorization": "Bearer gateway-static"}, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            forwarded = await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
    assert forwarded.text == whose("tok-a")
    sessions = seen.sessions_of("Bearer tok-a")
    assert sessions and all(auth == "Bearer tok-a" for _, auth, session in seen.requests if session in sessions)
    assert seen.sessions_of("Bearer gateway-static")  # the gateway's own session keeps its header


async def test_concurrent_first_requests_of_one_caller_open_one_session() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root, anyio.create_task_group() as tasks:
            for _ in range(5):
                tasks.start_soon(partial(root.call_tool, "up_whose", {}, ctx=caller("tok-a")))
    assert seen.calls == ["Bearer tok-a"] * 5
    assert len(seen.sessions_of("Bearer tok-a")) == 1


async def test_an_upstream_that_refuses_the_callers_token_fails_that_call_only(issuer: Issuer) -> None:
    seen = Seen()
    ada, narrow = issuer.token(sub="ada"), issuer.token(sub="eve", scope="tools")
    upstream_verifier = JWTVerifier(
        jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, required_scopes=["notes"]
    )
    async with upstream_at(seen, auth=upstream_verifier) as url:
        own = Bearer(issuer.token(sub="gateway", scope="notes"))  # lists the catalog
        async with gateway(issuer, RemoteServer.http(url, auth=own, forward_caller_token=True)) as gateway_url:
            async with connected(gateway_url, narrow, legacy=False) as client:
                refused = await client.call_tool("up_whose", {})
                again = await client.call_tool("up_whose", {})
            async with connected(gateway_url, ada, legacy=False) as client:
                served = await client.call_tool("up_whose", {})
    for answer in (refused, again):
        assert answer.is_error
        assert "upstream 'up' refused the caller's token (HTTP 403)" in answer.content[0].text
        assert narrow not in answer.content[0].text
    assert served.content[0].text == whose(ada)
    assert seen.calls == [f"Bearer {ada}"]


async def test_a_token_revoked_during_a_session_fails_the_call_and_drops_the_session(issuer: Issuer) -> None:
    seen = Seen()
    ada, grace = issuer.opaque_token(sub="ada"), issuer.opaque_token(sub="grace")
    verifier = IntrospectionVerifier(
        issuer.introspection_url, client_id=INTROSPECTION_CLIENT[0], client_secret=INTROSPECTION_CLIENT[1], cache_ttl=0
    )
    async with upstream_at(seen, auth=verifier) as url:
        remote = RemoteServer.http(url, auth=Bearer(issuer.opaque_token(sub="gateway")), forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            for token in (ada, grace):
                await root.call_tool("up_whose", {}, ctx=caller(token))
            issuer.opaque[ada]["active"] = False  # revoked at the authorization server
            refused = await root.call_tool("up_whose", {}, ctx=caller(ada))
            assert remote.caller_session_count == 1  # ada's session is gone, grace's stays
            served = await root.call_tool("up_whose", {}, ctx=caller(grace))
    await verifier.aclose()
    assert refused.is_error and "upstream 'up' refused the caller's token (HTTP 401)" in refused.text
    assert served.text == whose(grace)
    assert seen.calls == [f"Bearer {ada}", f"Bearer {grace}", f"Bearer {grace}"]


async def test_the_pool_keeps_at_most_its_bound_and_closes_the_least_recently_used() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True, caller_sessions=2)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            for token in ("tok-a", "tok-b", "tok-c"):
                assert (await root.call_tool("up_whose", {}, ctx=caller(token))).text == whose(token)
            assert remote.caller_session_count == 2
            await seen.until(seen.closed)  # the least recently used session is closed at the upstream
            assert seen.closed() == seen.sessions_of("Bearer tok-a")
            assert (await root.call_tool("up_whose", {}, ctx=caller("tok-a"))).text == whose("tok-a")
            assert remote.caller_session_count == 2
    assert len(seen.sessions_of("Bearer tok-a")) == 2  # a new session for the returning caller
    assert seen.calls == ["Bearer tok-a", "Bearer tok-b", "Bearer tok-c", "Bearer tok-a"]


async def test_a_session_retired_with_a_call_in_flight_closes_once_the_call_ends() -> None:
    seen = Seen()
    answers: list[str] = []
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True, caller_sessions=1)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:

            async def slow_call() -> None:
                answers.append((await root.call_tool("up_wait", {}, ctx=caller("tok-a"))).text)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(slow_call)
                await seen.until(lambda: "Bearer tok-a" in seen.calls)  # the call is at the upstream
                await root.call_tool("up_whose", {}, ctx=caller("tok-b"))  # retires tok-a's session
                assert remote.caller_session_count == 1 and not seen.closed()  # still in use
                seen.release.set()
            await seen.until(seen.closed)
            assert seen.closed() == seen.sessions_of("Bearer tok-a")
    assert answers == ["released"]


async def test_an_idle_caller_session_is_closed_and_a_later_call_opens_another() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True, caller_session_idle=0.1)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
            await seen.until(seen.closed)
            assert remote.caller_session_count == 0
            again = await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
    assert again.text == whose("tok-a")
    assert len(seen.sessions_of("Bearer tok-a")) == 2


async def test_a_session_closes_when_its_token_expires_and_the_renewed_token_gets_another() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            expiring = Context(auth=AuthInfo(subject="ada", token="tok-old", expires_at=int(time.time())))
            await root.call_tool("up_whose", {}, ctx=expiring)
            await seen.until(seen.closed)  # closed at its expiry (here: once the call ended)
            assert remote.caller_session_count == 0
            renewed = await root.call_tool("up_whose", {}, ctx=caller("tok-new"))
            assert remote.caller_session_count == 1
    assert renewed.text == whose("tok-new")
    assert seen.closed() >= seen.sessions_of("Bearer tok-old")


async def test_a_caller_whose_upstream_went_away_gets_a_new_session_once_it_is_back() -> None:
    seen, port = Seen(), free_port()
    root = Server("gateway")
    remote = RemoteServer.http(f"http://127.0.0.1:{port}/mcp", forward_caller_token=True, backoff=Backoff(0.05))
    root.mount(remote, prefix="up")
    async with root:
        async with upstream_at(seen, port=port):
            await remote.wait_connected()
            before = await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
        gone = await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
        async with upstream_at(seen, port=port):
            with anyio.fail_after(10):
                while True:  # until the gateway has reconnected
                    after = await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
                    if not after.is_error:
                        break
                    await anyio.sleep(0.05)
    assert before.text == after.text == whose("tok-a")
    assert gone.is_error and gone.text.startswith("upstream 'up' ")  # went away, or is not connected
    assert len(seen.sessions_of("Bearer tok-a")) == 2  # the lost session was dropped, a new one opened


async def test_sessions_are_closed_when_the_gateway_stops() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        remote = RemoteServer.http(url, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        with anyio.fail_after(10):  # stopping never hangs
            async with root:
                await root.call_tool("up_whose", {}, ctx=caller("tok-a"))
                assert remote.caller_session_count == 1
                assert not seen.closed()
        assert remote.caller_session_count == 0
        assert seen.closed() == seen.sessions_of("Bearer tok-a")  # the upstream heard it end


async def test_a_forwarded_token_is_a_secret_in_flight_while_its_session_lives() -> None:
    # (what the CLI's log filter hides, and what is scrubbed from whatever the upstream sends back)
    token, line = "tok-secret-caller-123", "Authorization: Bearer tok-secret-caller-123"
    async with upstream_at(Seen()) as url:
        remote = RemoteServer.http(url, forward_caller_token=True)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            assert (await root.call_tool("up_whose", {}, ctx=caller(token))).text == whose(token)
            assert IN_FLIGHT.scrub(line) == "Authorization: Bearer [redacted]"
        assert IN_FLIGHT.scrub(line) == line  # the session closed with the gateway: released


async def test_the_token_never_appears_in_logs_or_reprs(caplog: pytest.LogCaptureFixture) -> None:
    token = "tok-secret-caller-123"
    async with upstream_at(Seen()) as url:
        remote = RemoteServer.http(url, forward_caller_token=True, caller_sessions=1)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        with caplog.at_level(logging.DEBUG):
            async with root:
                await root.call_tool("up_whose", {}, ctx=caller(token))
                await root.call_tool("up_whose", {}, ctx=caller("tok-other-caller-456"))  # evicts the first
    shown = [record.getMessage() for record in caplog.records if record.name.startswith("toolweave")]
    assert shown and not [line for line in shown if token in line]
    assert token not in repr(remote)


async def test_a_config_entry_forwards_the_callers_token() -> None:
    seen = Seen()
    async with upstream_at(seen) as url:
        entry = {"url": url, "forward_caller_token": True, "caller_sessions": 8, "caller_session_idle": 0.1}
        composed = build(Config.model_validate({"mcpServers": {"up": entry}}))
        async with composed.running() as server:
            result = await server.call_tool("whose", {}, ctx=caller("tok-config"))
            anonymous = await server.call_tool("whose", {})
            await seen.until(seen.closed)  # closed after 0.1 s unused
    assert result.text == whose("tok-config")
    assert anonymous.is_error and "needs the caller's own token" in anonymous.text


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"command": "server", "forward_caller_token": True}, "forward_caller_token only applies to HTTP servers"),
        ({"url": "http://127.0.0.1:1/mcp", "caller_sessions": 4}, "caller_sessions needs forward_caller_token"),
        ({"url": "http://127.0.0.1:1/mcp", "caller_session_idle": 9}, "caller_session_idle needs forward_caller"),
        ({"url": "http://127.0.0.1:1/mcp", "forward_caller_token": True, "caller_sessions": 0}, "greater than 0"),
    ],
)
def test_a_config_entry_that_cannot_forward_is_refused(entry: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Config.model_validate({"mcpServers": {"up": entry}})


def test_forwarding_to_a_stdio_upstream_is_refused_at_composition() -> None:
    with pytest.raises(ValueError, match="forward_caller_token needs an HTTP upstream; 'server --stdio'"):
        RemoteServer.stdio("server", ["--stdio"], forward_caller_token=True)
    with pytest.raises(ValueError, match="caller_sessions must be a whole number of at least 1"):
        RemoteServer.http("http://127.0.0.1:1/mcp", forward_caller_token=True, caller_sessions=0)


def test_turning_forwarding_on_or_off_makes_a_different_upstream() -> None:
    """A reload that changes `forward_caller_token` replaces the remote instead of keeping it."""
    url = "http://127.0.0.1:1/mcp"
    plain, forwarding = RemoteServer.http(url, name="up"), RemoteServer.http(url, name="up", forward_caller_token=True)
    assert not plain.same_upstream(forwarding)
    assert forwarding.same_upstream(RemoteServer.http(url, name="up", forward_caller_token=True))


def test_serving_where_no_caller_is_verified_warns_the_operator(
    issuer: Issuer, caplog: pytest.LogCaptureFixture
) -> None:
    root = Server("gateway")
    root.mount(RemoteServer.http("http://127.0.0.1:1/mcp", forward_caller_token=True), prefix="up")
    with caplog.at_level(logging.WARNING, logger="toolweave.upstream"):
        root.http_app()
        unverified = [record.getMessage() for record in caplog.records]
        caplog.clear()
        root.http_app(auth=JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE))
    assert unverified == [
        "[up] forwards the caller's token, and the server is served over HTTP without auth= or "
        "authenticate=, where no caller is verified: its calls, prompts and reads will fail"
    ]
    assert not caplog.records
