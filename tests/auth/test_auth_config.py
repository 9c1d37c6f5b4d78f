"""Verified callers from a config file: `server.auth`, per-tool `scopes`/`claims`, and what
`toolweave list` / `explain` show about them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from tests.acceptance.cli_helpers import run_cli
from tests.auth.issuer import AUDIENCE, INTROSPECTION_CLIENT, ISSUER, Issuer
from tests.auth.test_authorize import caller, names
from tests.auth.test_http_auth import connected
from tests.serving import serving, toolweave_announced
from toolweave import ConfigError
from toolweave.auth import IntrospectionVerifier, JWTVerifier
from toolweave.config import build_file
from toolweave.core.errors import InvalidToken, UnknownPrompt

TOOLS = '''
from toolweave import Server

server = Server("billing")


@server.tool
def balance() -> str:
    """The balance."""
    return "100 EUR"


@server.tool
def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


@server.tool
def acme_report() -> str:
    """Acme's report."""
    return "acme"
'''


def write_config(folder: Path, issuer: Issuer, /, **auth: Any) -> Path:
    (folder / "billing_tools.py").write_text(TOOLS)
    config = {
        "server": {
            "name": "billing",
            "auth": {
                "jwks_uri": issuer.jwks_uri,
                "issuer": ISSUER,
                "resource_url": AUDIENCE,
                "required_scopes": ["tools"],
                **auth,
            },
        },
        "python": [
            {
                "import": "billing_tools:server",
                "tools": {"refund": {"scopes": ["billing:write"]}, "acme_report": {"claims": {"tenant": "acme"}}},
            }
        ],
    }
    path = folder / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def test_a_config_serves_verified_callers_their_own_tools(tmp_path: Path, issuer: Issuer) -> None:
    composed = build_file(write_config(tmp_path, issuer))
    assert composed.auth is not None and isinstance(composed.auth["auth"], JWTVerifier)
    async with serving(composed.server.http_app(**composed.auth)) as url:
        async with connected(url, issuer.token(scope="tools"), legacy=False) as client:
            reader = [tool.name for tool in (await client.list_tools()).tools]
        token = issuer.token(scope="tools billing:write", tenant="acme")
        async with connected(url, token, legacy=False) as client:
            writer = [tool.name for tool in (await client.list_tools()).tools]
            refund = await client.call_tool("refund", {"order": "A-1"})
    assert reader == ["balance"]
    assert writer == ["balance", "refund", "acme_report"]
    assert refund.content[0].text == "refunded A-1"


async def test_token_types_in_the_config_refuse_an_id_token(tmp_path: Path, issuer: Issuer) -> None:
    composed = build_file(write_config(tmp_path, issuer, token_types=["at+jwt"]))
    verifier = composed.auth["auth"] if composed.auth is not None else None
    assert isinstance(verifier, JWTVerifier)
    assert (await verifier.verify(issuer.token(headers={"typ": "at+jwt"}))).subject == "ada"
    with pytest.raises(InvalidToken, match="not an access token"):
        await verifier.verify(issuer.token(headers={"typ": "JWT"}))


def test_list_shows_what_each_tool_needs_and_what_one_caller_sees(tmp_path: Path, issuer: Issuer) -> None:
    config = str(write_config(tmp_path, issuer))
    everything = run_cli("list", config)
    assert everything.returncode == 0, everything.stderr
    assert "refund(order)  [needs scopes billing:write] Refund an order." in everything.stdout
    assert "acme_report()  [needs claim tenant in [acme]] Acme's report." in everything.stdout
    scoped = run_cli("list", config, "--scopes", "tools,billing:write", "--json")
    assert [tool["name"] for tool in json.loads(scoped.stdout)["tools"]] == ["balance", "refund"]
    token = run_cli("list", config, "--as-token", issuer.token(scope="tools", tenant="acme"), "--json")
    assert [tool["name"] for tool in json.loads(token.stdout)["tools"]] == ["balance", "acme_report"]
    forged = run_cli("list", config, "--as-token", issuer.token(aud="https://other.test/"))
    assert forged.returncode == 1 and "the token was refused" in forged.stderr
    explained = json.loads(run_cli("explain", config, "refund", "--json").stdout)
    assert explained[0]["access"] == "scopes billing:write"


@pytest.mark.parametrize(
    ("auth", "problem"),
    [
        ({"public_key": "-----BEGIN PUBLIC KEY-----"}, "give exactly one of jwks_uri, public_key or introspection"),
        ({"algorithms": ["HS256"]}, "HS256"),
    ],
    ids=["two ways to verify", "symmetric algorithm"],
)
def test_a_broken_auth_section_names_the_key(
    tmp_path: Path, issuer: Issuer, auth: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ConfigError, match=r"server\.auth") as error:
        build_file(write_config(tmp_path, issuer, **auth))
    assert problem in str(error.value)


@pytest.mark.parametrize(
    "audience",
    [{"audience": ["https://other.test/", AUDIENCE]}, {}],
    ids=["a list of audiences", "resource_url by default"],
)
async def test_introspected_tokens_are_checked_for_the_configured_audience(
    tmp_path: Path, issuer: Issuer, audience: dict[str, Any]
) -> None:
    client_id, secret = INTROSPECTION_CLIENT
    introspection = {"url": issuer.introspection_url, "client_id": client_id, "client_secret": secret}
    path = write_config(tmp_path, issuer, jwks_uri=None, introspection=introspection, **audience)
    composed = build_file(path)
    verifier = composed.auth["auth"] if composed.auth else None
    assert isinstance(verifier, IntrospectionVerifier)
    try:
        ours = await verifier.verify(issuer.opaque_token(sub="ada", scope="tools", aud=AUDIENCE, iss=ISSUER))
        assert ours.subject == "ada"
        elsewhere = issuer.opaque_token(sub="eve", scope="tools", aud="https://elsewhere.test/", iss=ISSUER)
        with pytest.raises(InvalidToken, match="another audience"):
            await verifier.verify(elsewhere)
    finally:
        await verifier.aclose()


async def test_served_metrics_ask_for_the_metrics_scope_unless_made_public(tmp_path: Path, issuer: Issuer) -> None:
    config = write_config(tmp_path, issuer)
    scraper_token = issuer.token(scope="tools toolweave:metrics")
    async with httpx2.AsyncClient() as http:
        with toolweave_announced(config, "--metrics") as (url, _):
            base = url.removesuffix("/mcp")
            anonymous = await http.get(base + "/metrics")
            caller = await http.get(base + "/metrics", headers={"authorization": f"Bearer {issuer.token()}"})
            scraper = await http.get(base + "/metrics", headers={"authorization": f"Bearer {scraper_token}"})
        with toolweave_announced(config, "--metrics", "--metrics-scope", "") as (url, _):
            any_caller = await http.get(
                url.removesuffix("/mcp") + "/metrics", headers={"authorization": f"Bearer {issuer.token()}"}
            )
        with toolweave_announced(config, "--metrics", "--metrics-public") as (url, _):
            public = await http.get(url.removesuffix("/mcp") + "/metrics")
    statuses = [anonymous, caller, scraper, any_caller, public]
    assert [response.status_code for response in statuses] == [401, 403, 200, 200, 200]
    assert scraper.headers["content-type"].startswith("text/plain") and "python_gc_objects_collected" in scraper.text


def test_metrics_public_needs_metrics(tmp_path: Path, issuer: Issuer) -> None:
    done = run_cli("serve", str(write_config(tmp_path, issuer)), "--transport", "http", "--metrics-public")
    assert done.returncode == 2 and "add --metrics" in done.stderr


PROMPTS_AND_RESOURCES = '''
from toolweave import Server

server = Server("letters")


@server.prompt
def billing_letter(customer: str) -> str:
    """A dunning letter."""
    return f"Dear {customer}, please pay."


@server.prompt
def greeting() -> str:
    """Hello."""
    return "hello"


@server.resource("billing://ledger")
def ledger() -> str:
    return "the ledger"
'''


async def test_an_authorize_rule_gates_prompts_and_resources(tmp_path: Path) -> None:
    (tmp_path / "letters.py").write_text(PROMPTS_AND_RESOURCES)
    rules = [
        {"prompts": "billing_*", "resources": ["billing://*"], "scopes": ["billing:read"]},
        {"prompts": ["greeting"], "claims": {"tenant": ["acme"]}},
    ]
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump({"python": ["letters:server"], "authorize": rules}))
    server = build_file(path).server
    assert await names(server) == {"tools": [], "prompts": [], "resources": [], "templates": []}
    reader = await names(server, caller("billing:read"))
    assert (reader["prompts"], reader["resources"]) == (["billing_letter"], ["billing://ledger"])
    assert (await names(server, caller(tenant="acme")))["prompts"] == ["greeting"]
    with pytest.raises(UnknownPrompt):
        await server.get_prompt("billing_letter", {"customer": "Bob"}, ctx=caller(tenant="acme"))


async def test_an_authorize_rule_with_an_empty_tools_list_gates_no_tool(tmp_path: Path) -> None:
    source = PROMPTS_AND_RESOURCES + "\nserver.add_tool(lambda: 'ok', name='ping')\n"
    (tmp_path / "pinged_letters.py").write_text(source)  # (a module name of its own: imports are cached)
    path = tmp_path / "gateway.yaml"
    rule = {"tools": [], "prompts": "greeting", "scopes": ["letters"]}
    path.write_text(yaml.safe_dump({"python": ["pinged_letters:server"], "authorize": [rule]}))
    anyone = await names(build_file(path).server)
    assert anyone["tools"] == ["ping"] and "greeting" not in anyone["prompts"]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"scopes": ["x"]}, "choose what the rule covers"),
        ({"prompts": "*"}, "give scopes, claims or both"),
        (
            {"prompts": "*", "claims": {"org": {"id": 1}}},
            r"authorize\[0\]\.claims\.org: a claim value is text, a number, a boolean or a list of them, not 'object'",
        ),
    ],
)
def test_a_broken_authorize_rule_names_it(tmp_path: Path, rule: dict[str, Any], message: str) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump({"authorize": [rule]}))
    with pytest.raises(ConfigError, match=message) as refused:
        build_file(path)
    assert "authorize" in str(refused.value)


# -- the CLI's callers are held to what the HTTP edge holds them to ---------------------------------

OWNED = '''
from toolweave import Server

server = Server("mine")


@server.tool
def owned(user: str) -> str:
    """The caller's own things."""
    return f"owned by {user}"
'''


def with_owned_tool(path: Path) -> str:
    """The config at `path`, with a tool `owned(user)` whose user is the caller's `sub` claim."""
    (path.parent / "owned_tools.py").write_text(OWNED)
    config = yaml.safe_load(path.read_text())
    inject = {"owned": {"args": {"user": {"inject": "claim:sub"}}}}
    config["python"].append({"import": "owned_tools:server", "tools": inject})
    path.write_text(yaml.safe_dump(config))
    return str(path)


def bearer(token: str) -> str:
    return f"Authorization: Bearer {token}"


def errors(stderr: str) -> list[str]:
    """The error lines of a command's stderr (not the operator's log lines)."""
    return [line for line in stderr.splitlines() if line.startswith("error:")]


async def test_list_refuses_a_caller_without_a_required_scope_as_the_http_edge_does(
    tmp_path: Path, issuer: Issuer
) -> None:
    config = write_config(tmp_path, issuer)  # server.auth.required_scopes: [tools]
    token = issuer.token(scope="billing:write")
    listed = [
        run_cli("list", str(config), "--as-token", token),
        run_cli("list", str(config), "--scopes", "billing:write"),
    ]
    composed = build_file(config)
    assert composed.auth is not None
    async with serving(composed.server.http_app(**composed.auth)) as url, httpx2.AsyncClient() as http:
        answer = await http.post(url + "/mcp", json={}, headers={"authorization": f"Bearer {token}"})
    assert answer.status_code == 403 and answer.json()["error_description"] == "Required scope: tools"
    for done in listed:
        assert (done.returncode, done.stdout) == (1, "")
        assert errors(done.stderr) == [
            "error: a caller without scope 'tools' is refused "
            "(server.auth.required_scopes; over HTTP: 403 insufficient_scope)"
        ]


def test_call_with_a_bearer_token_calls_as_its_verified_caller(tmp_path: Path, issuer: Issuer) -> None:
    config = with_owned_tool(write_config(tmp_path, issuer))
    writer = bearer(issuer.token(sub="boss", scope="tools billing:write"))
    refund = run_cli("call", config, "refund", "order=A-1", "-H", writer)
    owned = run_cli("call", config, "owned", "-H", writer)
    assert (refund.returncode, refund.stdout) == (0, "refunded A-1\n"), refund.stderr
    assert (owned.returncode, owned.stdout) == (0, "owned by boss\n"), owned.stderr


@pytest.mark.parametrize(
    ("header", "refusal"),
    [
        (lambda issuer: bearer(issuer.token(aud="https://other.test/")), "the token was refused: "),
        (
            lambda issuer: bearer(issuer.token(scope="billing:write")),
            "a caller without scope 'tools' is refused (server.auth.required_scopes; over HTTP: 403",
        ),
        (lambda issuer: "Authorization: Basic Z2F0ZXdheTpzM2NyM3Q=", "verifies an 'Authorization: Bearer <token>'"),
    ],
    ids=["another audience", "without a required scope", "not a bearer token"],
)
def test_call_refuses_a_caller_the_http_edge_would_refuse(
    tmp_path: Path, issuer: Issuer, header: Any, refusal: str
) -> None:
    done = run_cli("call", str(write_config(tmp_path, issuer)), "balance", "-H", header(issuer))
    assert (done.returncode, done.stdout) == (1, "")
    assert len(errors(done.stderr)) == 1 and refusal in errors(done.stderr)[0]


def test_a_tool_hidden_from_the_caller_is_unknown_in_the_words_of_one_that_does_not_exist(
    tmp_path: Path, issuer: Issuer
) -> None:
    config = str(write_config(tmp_path, issuer))
    reader, writer = bearer(issuer.token(scope="tools")), bearer(issuer.token(scope="tools billing:write"))
    hidden = run_cli("call", config, "refund", "order=1", "-H", reader)
    absent = run_cli("call", config, "nothing", "-H", reader)
    misspelt = run_cli("call", config, "refnd", "order=1", "-H", writer)
    assert hidden.returncode == absent.returncode == 1
    assert errors(hidden.stderr) == ["error: unknown tool 'refund'; tools: balance"]
    assert errors(absent.stderr) == ["error: unknown tool 'nothing'; tools: balance"]
    assert errors(misspelt.stderr) == ["error: unknown tool 'refnd'; did you mean 'refund'?"]


def with_hook(path: Path) -> str:
    """The config at `path`, with an `authenticate` hook besides its `auth`."""
    (path.parent / "hooks.py").write_text("def anyone(headers):\n    return None\n")
    config = yaml.safe_load(path.read_text())
    config["server"]["authenticate"] = "hooks:anyone"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_auth_and_an_authenticate_hook_together_are_refused_at_load(tmp_path: Path, issuer: Issuer) -> None:
    """Not a traceback from `serve`, nor a `call` that quietly uses the verifier alone."""
    config = with_hook(write_config(tmp_path, issuer))
    called = run_cli("call", config, "balance", "-H", bearer(issuer.token(scope="tools")))
    served = run_cli("serve", config, "--transport", "http", "--port", "0")
    for done in (called, served):
        assert (done.returncode, done.stdout) == (1, "")
        assert errors(done.stderr) == [f"error: {config}: server: give auth or authenticate, not both"]


@pytest.mark.parametrize(
    ("auth", "problem"),
    [
        ({"resource_url": "mcp.example.com/mcp"}, "server.auth.resource_url: must start with http:// or https://"),
        ({"jwks_uri": "not a url"}, "server.auth.jwks_uri: must start with http:// or https://"),
        (
            {"authorization_servers": ["https://"]},
            "server.auth.authorization_servers[0]: is not a valid URL (empty host)",
        ),
        (
            {"issuer": "my-idp"},
            "server.auth: issuer is not an http(s) URL, so it cannot name the authorization server in the "
            "RFC 9728 metadata: give authorization_servers (the URLs clients get tokens from)",
        ),
    ],
    ids=["resource_url without a scheme", "jwks_uri", "authorization server without a host", "issuer"],
)
def test_serve_refuses_an_auth_url_at_load_naming_the_key(
    tmp_path: Path, issuer: Issuer, auth: dict[str, Any], problem: str
) -> None:
    config = write_config(tmp_path, issuer, **auth)
    done = run_cli("serve", str(config), "--transport", "http", "--port", "0")
    assert (done.returncode, errors(done.stderr)) == (1, [f"error: {config}: {problem}"])


def test_an_issuer_that_is_no_url_serves_with_authorization_servers(tmp_path: Path, issuer: Issuer) -> None:
    """A JWT's `iss` may be any string: the metadata then names the servers given."""
    config = write_config(tmp_path, issuer, issuer="my-idp", authorization_servers=["https://idp.example.com/"])
    composed = build_file(config)
    assert composed.auth is not None and composed.auth["authorization_servers"] == ["https://idp.example.com/"]
