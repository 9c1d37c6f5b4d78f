"""Per-component authorization: a caller sees and uses only what its verified token allows, and
a forbidden component answers exactly like one that does not exist."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import httpx2
import pytest
from mcp import MCPError
from pydantic import Field

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.serving import serving
from toolweave import AuthInfo, Authorize, Context, Rename, Server, UnknownPrompt, UnknownResource, UnknownTool
from toolweave.auth import JWTVerifier


def billing_server() -> Server:
    server = Server("billing")

    @server.tool
    def balance() -> str:
        """Anyone may read the balance."""
        return "100 EUR"

    @server.tool(tags={"billing"})
    def billing_refund(order: str) -> str:
        """Refund an order."""
        return f"refunded {order}"

    @server.tool
    def acme_report() -> str:
        """Acme's report."""
        return "acme only"

    @server.prompt
    def billing_letter(customer: str) -> str:
        """A dunning letter."""
        return f"Dear {customer}, please pay."

    @server.resource("billing://ledger")
    def ledger() -> str:
        return "the ledger"

    @server.resource("billing://invoices/{number}")
    def invoice(number: str) -> str:
        return f"invoice {number}"

    server.add_transform(Authorize(scopes=["billing:write"]), tools="billing_*")
    server.add_transform(Authorize(claims={"tenant": ["acme", "globex"]}), tools="acme_*")
    server.add_transform(Authorize(scopes="billing:read"), prompts="billing_*", resources="billing://*")
    return server


def caller(*scopes: str, **claims: Any) -> Context:
    return Context(auth=AuthInfo(subject="ada", scopes=scopes, claims=claims))


async def names(server: Server, ctx: Context | None = None) -> dict[str, list[str]]:
    return {
        "tools": [tool.name for tool in await server.list_tools(ctx)],
        "prompts": [prompt.name for prompt in await server.list_prompts(ctx)],
        "resources": [resource.uri for resource in await server.list_resources(ctx)],
        "templates": [template.uri for template in await server.list_resource_templates(ctx)],
    }


async def test_each_caller_sees_only_what_its_token_allows() -> None:
    server = billing_server()
    assert await names(server) == {"tools": ["balance"], "prompts": [], "resources": [], "templates": []}
    assert (await names(server, caller("billing:write")))["tools"] == ["balance", "billing_refund"]
    assert (await names(server, caller(tenant="globex")))["tools"] == ["balance", "acme_report"]
    assert (await names(server, caller(tenant=["other", "acme"])))["tools"] == ["balance", "acme_report"]
    assert (await names(server, caller(tenant="initech")))["tools"] == ["balance"]
    reader = await names(server, caller("billing:read"))
    assert reader == {
        "tools": ["balance"],
        "prompts": ["billing_letter"],
        "resources": ["billing://ledger"],
        "templates": ["billing://invoices/{number}"],
    }


async def test_a_forbidden_component_answers_exactly_like_an_unknown_one(caplog: pytest.LogCaptureFixture) -> None:
    server = billing_server()
    anonymous = Context()
    with pytest.raises(UnknownTool) as forbidden:
        await server.call_tool("billing_refund", {"order": "A-1"}, ctx=caller("billing:read"))
    with pytest.raises(UnknownTool) as missing:
        await server.call_tool("billing_refunx", {"order": "A-1"}, ctx=caller("billing:read"))
    assert str(forbidden.value).replace("billing_refund", "X") == str(missing.value).replace("billing_refunx", "X")
    with pytest.raises(UnknownPrompt):
        await server.get_prompt("billing_letter", {"customer": "Bob"}, ctx=anonymous)
    with pytest.raises(UnknownResource):
        await server.read_resource("billing://ledger", ctx=anonymous)
    with pytest.raises(UnknownResource):
        await server.read_resource("billing://invoices/7", ctx=caller("billing:write"))
    assert "without access" in caplog.text and "'billing_refund'" in caplog.text
    allowed = await server.call_tool("billing_refund", {"order": "A-1"}, ctx=caller("billing:write"))
    assert allowed.content[0].text == "refunded A-1"
    assert (await server.read_resource("billing://invoices/7", ctx=caller("billing:read"))).contents[0].text == (
        "invoice 7"
    )


async def test_rules_stack_and_follow_a_tool_through_a_mount() -> None:
    child = Server("child")

    @child.tool
    def wipe() -> str:
        return "wiped"

    child.add_transform(Authorize(scopes=["admin"]), tools="wipe")
    child.add_transform(Authorize(when=lambda auth: auth.subject == "root"), tools="wipe")
    parent = Server("parent")
    parent.mount(child, prefix="ops")
    assert [tool.name for tool in await parent.list_tools(caller("admin"))] == []  # subject is not root
    root = Context(auth=AuthInfo(subject="root", scopes=("admin",)))
    assert [tool.name for tool in await parent.list_tools(root)] == ["ops_wipe"]
    assert (await parent.call_tool("ops_wipe", {}, ctx=root)).content[0].text == "wiped"
    with pytest.raises(UnknownTool):
        await parent.call_tool("ops_wipe", {}, ctx=caller("admin"))


async def test_tags_select_and_tools_only_transforms_refuse_other_kinds() -> None:
    server = Server("tags")

    @server.tool(tags={"billing"})
    def charge() -> str:
        return "charged"

    server.add_transform(Authorize(scopes=["pay"]), tags=["billing"])
    assert await server.list_tools(caller("pay")) != [] and await server.list_tools() == []
    with pytest.raises(TypeError, match="Rename applies to tools only, not to prompts"):
        server.add_transform(Rename("x"), prompts="*")


async def test_the_list_is_built_once_per_grant_not_per_request() -> None:
    server = billing_server()
    catalog = server.catalog
    writer, reader = caller("billing:write").auth, caller("billing:read").auth
    first = catalog.view("tools", catalog.tools, writer)
    assert first == ("tools@1", (catalog.get("balance").tool, catalog.get("billing_refund").tool))
    assert catalog.view("tools", catalog.tools, writer)[1] is first[1]  # cached, not filtered again
    assert catalog.view("tools", catalog.tools, reader)[0] == "tools@0"
    open_server = Server("open")
    open_server.add_tool(catalog.get("balance").tool.replace(access=None))
    assert open_server.catalog.view("tools", open_server.catalog.tools, writer) == ("tools", open_server.catalog.tools)


async def test_each_token_keeps_its_own_grant() -> None:
    catalog = billing_server().catalog
    writer = AuthInfo(subject="ada", scopes=("billing:write",), token="token-ada")
    reader = AuthInfo(subject="bob", scopes=("billing:read",), token="token-bob")
    for _ in range(2):  # the second round answers from the remembered grants
        assert catalog.view("tools", catalog.tools, writer)[0] == "tools@1"
        assert catalog.view("tools", catalog.tools, reader)[0] == "tools@0"
    assert catalog.view("tools", catalog.tools, None)[0] == "tools@0"


@asynccontextmanager
async def protected_billing(issuer: Issuer) -> AsyncIterator[str]:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, required_scopes=["tools"])
    async with serving(billing_server().http_app(auth=verifier, resource_url=AUDIENCE)) as url:
        yield url


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_over_http_a_forbidden_tool_is_unlisted_and_unknown(issuer: Issuer, legacy: bool) -> None:
    async with protected_billing(issuer) as url:
        async with connected(url, issuer.token(scope="tools"), legacy=legacy) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            prompts = (await client.list_prompts()).prompts
            errors = []
            for name in ("billing_refund", "no_such_tool"):
                with pytest.raises(MCPError) as answer:
                    await client.call_tool(name, {"order": "A-1"})
                errors.append((answer.value.error.code, answer.value.error.message.replace(name, "X")))
            with pytest.raises(MCPError) as read:
                await client.read_resource("billing://ledger")
        async with connected(url, issuer.token(scope="tools billing:write billing:read"), legacy=legacy) as client:
            allowed = [tool.name for tool in (await client.list_tools()).tools]
            refund = await client.call_tool("billing_refund", {"order": "A-1"})
            letter = await client.get_prompt("billing_letter", {"customer": "Bob"})
    assert listed == ["balance"] and prompts == []
    assert errors[0] == errors[1] and errors[0][0] == -32602
    assert read.value.error.code == -32602
    assert allowed == ["balance", "billing_refund"]
    assert refund.content[0].text == "refunded A-1"
    assert "Dear Bob" in letter.messages[0].content.text


async def test_mcp_param_headers_are_checked_for_admitted_callers_and_reveal_nothing_to_others(issuer: Issuer) -> None:
    server = Server("regions")

    @server.tool
    def deploy(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        return f"rolled out in {region}"

    server.add_transform(Authorize(scopes=["deploy"]), tools="deploy")
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)

    async def call(http: httpx2.AsyncClient, url: str, name: str, token: str) -> tuple[int, str]:
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": name,
                "arguments": {"region": "eu"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        }
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": name,
            "mcp-param-region": "us",  # disagrees with the body
            "authorization": f"Bearer {token}",
        }
        response = await http.post(url + "/mcp", json=body, headers=headers)
        return response.status_code, response.text.replace(name, "X")

    async with serving(server.http_app(auth=verifier, resource_url=AUDIENCE)) as url, httpx2.AsyncClient() as http:
        outsider = issuer.token(scope="tools")
        forbidden, unknown = await call(http, url, "deploy", outsider), await call(http, url, "deplox", outsider)
        allowed = await call(http, url, "deploy", issuer.token(scope="tools deploy"))
    assert forbidden == unknown and "Unknown tool: X" in forbidden[1]
    # A caller the tool admits has its headers checked like anyone's on an open tool.
    assert allowed[0] == 400 and "rolled out" not in allowed[1] and "region" in allowed[1].lower()
