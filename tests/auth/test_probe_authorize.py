"""A forbidden component hides like a missing one wherever it could show: behind another resource
that serves its URI, in the updates of a subscription, and in argument completion."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import mcp.types as mt
import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.server.subscriptions import ResourceUpdated

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.serving import serving
from toolweave import AuthInfo, Authorize, Context, PromptsAsTools, Server, UnknownResource
from toolweave.auth import JWTVerifier
from toolweave.server.completion import CompletionRequest
from toolweave.server.remote import RemoteServer


def docs_server() -> Server:
    server = Server("docs")

    @server.resource("docs://salaries")
    def salaries() -> str:
        return "the salaries"

    @server.resource("vault://secrets/{name}")
    def vault(name: str) -> str:
        return f"vault {name}"

    @server.resource("docs://{name}")
    def doc(name: str) -> str:
        return f"doc {name}"

    @server.resource("vault://{area}/{name}")  # matches the same URIs, registered after
    def listing(area: str, name: str) -> str:
        return f"only the listing of {area}/{name}"

    server.add_transform(Authorize(scopes=["hr"]), resources=["docs://salaries", "vault://secrets/*"])
    return server


def caller(*scopes: str) -> Context:
    return Context(auth=AuthInfo(subject="eve", scopes=scopes, token=f"token-{'-'.join(scopes)}"))


async def read(server: Server, uri: str, ctx: Context) -> str:
    return (await server.read_resource(uri, ctx=ctx)).contents[0].text  # type: ignore[union-attr]


async def test_a_forbidden_resource_does_not_shadow_a_template_the_caller_may_read() -> None:
    server = docs_server()
    assert await read(server, "docs://salaries", caller("hr")) == "the salaries"
    assert await read(server, "docs://salaries", caller()) == "doc salaries"  # as if it did not exist
    assert await read(server, "vault://secrets/keys", caller("hr")) == "vault keys"
    assert await read(server, "vault://secrets/keys", caller()) == "only the listing of secrets/keys"


async def test_a_remotes_template_never_reads_a_resource_of_its_upstream_the_caller_may_not_read() -> None:
    """A remote's read passes the URI on, and its upstream answers with what it serves there: a
    gateway's rule on the upstream's `docs://salaries` held nothing while the upstream's open
    `docs://{name}` matched the URI too (the salaries were read "through" the template)."""
    upstream = Server("docs")
    upstream.add_resource(lambda: "the salaries", "docs://salaries", name="salaries")
    upstream.add_resource(lambda name: f"doc {name}", "docs://{name}", name="doc")
    async with serving(upstream.http_app()) as url:
        gateway = Server("gateway")
        gateway.mount(RemoteServer.http(f"{url}/mcp", name="docs"))
        gateway.add_transform(Authorize(scopes=["hr"]), resources="docs://salaries")
        async with gateway:
            assert await read(gateway, "docs://salaries", caller("hr")) == "the salaries"
            assert await read(gateway, "docs://guide", caller()) == "doc guide"
            with pytest.raises(UnknownResource):
                await gateway.read_resource("docs://salaries", ctx=caller())


async def test_a_uri_only_forbidden_resources_serve_is_unknown(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("hr")

    @server.resource("hr://salaries")
    def salaries() -> str:
        return "the salaries"

    server.add_transform(Authorize(scopes=["hr"]), resources="hr://*")
    with pytest.raises(UnknownResource):
        await server.read_resource("hr://salaries", ctx=caller("sales"))
    assert "without access" in caplog.text


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_over_http_the_forbidden_resource_is_invisible(issuer: Issuer, legacy: bool) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    app = docs_server().http_app(auth=verifier, resource_url=AUDIENCE)
    async with serving(app) as url, connected(url, issuer.token(scope="tools"), legacy=legacy) as client:
        shadowed = await client.read_resource("docs://salaries")
        with pytest.raises(MCPError):
            await client.read_resource("nothing://here")
    assert shadowed.contents[0].text == "doc salaries"


def ledger_server() -> Server:
    server = Server("ledger")

    @server.resource("ledger://books")
    def books() -> str:
        return "the books"

    @server.resource("ledger://news")
    def news() -> str:
        return "the news"

    @server.prompt
    def audit(period: str) -> str:
        return f"audit {period}"

    @server.completion
    def periods(request: CompletionRequest) -> list[str]:  # answers any name alike
        return ["2025", "2026"]

    server.add_transform(Authorize(scopes=["finance"]), resources="ledger://books", prompts="audit")
    return server


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_a_handshake_subscriber_hears_no_updates_of_a_resource_it_may_not_read(issuer: Issuer) -> None:
    server = ledger_server()
    updated: list[str] = []
    news = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            news.set()

    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    headers = {"authorization": f"Bearer {issuer.token(scope='tools')}"}
    async with (
        serving(server.http_app(auth=verifier, resource_url=AUDIENCE)) as url,
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url + "/mcp", http_client=http) as (read, write),
        ClientSession(read, write, message_handler=on_message) as session,
    ):
        await session.initialize()
        await session.subscribe_resource("ledger://books")
        await session.subscribe_resource("ledger://news")
        server.resource_updated("ledger://books")  # delivered in order: this one would come first
        server.resource_updated("ledger://news")
        with anyio.fail_after(5):
            await news.wait()
    assert updated == ["ledger://news"]


async def test_a_2026_listener_hears_no_updates_of_a_resource_it_may_not_read(issuer: Issuer) -> None:
    server = ledger_server()
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    async with (
        serving(server.http_app(auth=verifier, resource_url=AUDIENCE)) as url,
        connected(url, issuer.token(scope="tools"), legacy=False) as client,
        client.listen(resource_subscriptions=["ledger://books", "ledger://news"]) as events,
    ):
        server.resource_updated("ledger://books")
        server.resource_updated("ledger://news")
        with anyio.fail_after(5):
            async for event in events:
                assert event == ResourceUpdated(uri="ledger://news")
                break


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_completion_answers_a_forbidden_prompt_like_a_missing_one(issuer: Issuer, legacy: bool) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    app = ledger_server().http_app(auth=verifier, resource_url=AUDIENCE)
    argument = {"name": "period", "value": "20"}
    async with serving(app) as url:
        async with connected(url, issuer.token(scope="tools"), legacy=legacy) as client:
            forbidden = await client.complete(mt.PromptReference(type="ref/prompt", name="audit"), argument)
            missing = await client.complete(mt.PromptReference(type="ref/prompt", name="audiy"), argument)
        async with connected(url, issuer.token(scope="finance"), legacy=legacy) as client:
            allowed = await client.complete(mt.PromptReference(type="ref/prompt", name="audit"), argument)
    assert forbidden.completion.values == missing.completion.values == []
    assert allowed.completion.values == ["2025", "2026"]


def gold_server() -> Server:
    server = Server("tiers")

    @server.tool
    def gold_report() -> str:
        return "gold"

    @server.tool
    def free_report() -> str:
        return "free"

    server.add_transform(Authorize(when=lambda auth: auth.claims["tier"] == "gold"), tools="gold_*")
    return server


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_a_when_test_that_raises_refuses_the_caller_and_breaks_nothing_else(
    issuer: Issuer, legacy: bool, caplog: pytest.LogCaptureFixture
) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    async with serving(gold_server().http_app(auth=verifier, resource_url=AUDIENCE)) as url:
        async with connected(url, issuer.token(), legacy=legacy) as client:  # no `tier` claim
            listed = [tool.name for tool in (await client.list_tools()).tools]
            free = await client.call_tool("free_report", {})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("gold_report", {})
        async with connected(url, issuer.token(tier="gold"), legacy=legacy) as client:
            gold = await client.call_tool("gold_report", {})
    assert listed == ["free_report"] and free.content[0].text == "free"
    assert "Unknown tool" in str(refused.value)
    assert gold.content[0].text == "gold"
    assert "access test <lambda> raised for subject 'ada'" in caplog.text


@pytest.mark.parametrize(
    ("required", "claimed", "allowed"),
    [(True, 1, False), (1, True, False), (False, 0, False), (0, [False], False), (True, True, True), (2, 2.0, True)],
)
def test_a_claim_matches_only_a_value_of_its_json_type(required: Any, claimed: Any, allowed: bool) -> None:
    rule = Authorize(claims={"level": required}).access
    assert rule.allows(AuthInfo(subject="eve", claims={"level": claimed})) is allowed


async def test_rules_that_cannot_reach_behind_a_mounted_servers_catalog_transform_are_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    child = Server("docs")

    @child.prompt
    def payroll() -> str:
        return "the payroll"

    child.add_transform(PromptsAsTools())
    parent = Server("gateway")
    parent.mount(child, prefix="docs")
    await parent.list_tools()
    assert "do not reach behind" not in caplog.text  # no rules: nothing to warn of

    parent.add_transform(Authorize(scopes=["hr"]), prompts="docs_*")
    with caplog.at_level("WARNING", logger="toolweave.server"):
        await parent.list_tools()
    assert (
        "server 'gateway': its Authorize rules do not reach behind the tools that server 'docs' "
        "(mount 'docs') adds with PromptsAsTools"
    ) in caplog.text
    # what the warning is about: the child's own front tool renders the prompt the rule hides
    rendered = await parent.call_tool("docs_get_prompt", {"name": "payroll"}, ctx=caller())
    assert "the payroll" in str(rendered.content)
