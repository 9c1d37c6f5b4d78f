"""A forbidden resource hides like a missing one even where another resource could serve its URI:
the URI is read as if the forbidden resource did not exist."""

from __future__ import annotations

import pytest
from mcp import MCPError

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.serving import serving
from toolweave import AuthInfo, Authorize, Context, Server, UnknownResource
from toolweave.auth import JWTVerifier


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
