"""`openapi:` entries, `catalog:` and `limit_result` in config files, and the examples that use
them, run as a user would (the real command, the example API on 127.0.0.1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.cli_helpers import EXAMPLES, run_cli
from tests.serving import served
from toolweave import ConfigError
from toolweave.config import build
from toolweave.config.models import Config
from toolweave.transforms import FromEnv
from toolweave.transforms.limit_result import META_KEY

API_KEY = "sk-test-0123456789"


@pytest.fixture
def url() -> Iterator[str]:
    """The FastAPI pets app of `tests/openapi/petstore.py` on 127.0.0.1 (skipped without FastAPI)."""
    from tests.openapi.petstore import API_KEY as KEY
    from tests.openapi.petstore import petstore

    assert KEY == API_KEY
    with served(petstore()) as base:
        yield base


def compose(data: dict[str, Any], base: Path = EXAMPLES) -> Any:
    return build(Config.model_validate(data), base_dir=base)


def names(composed: Any) -> list[str]:
    return [tool.name for tool in composed.server.catalog.tools]


def test_an_openapi_entry_mounts_one_tool_per_kept_operation(url: str) -> None:
    composed = compose(
        {
            "openapi": {
                "shop": {
                    "spec": f"{url}/openapi.json",
                    "base_url": url,
                    "prefix": "shop",
                    "include_routes": [{"tags": ["pets"]}],
                    "exclude_routes": [{"methods": ["DELETE"]}],
                }
            }
        }
    )
    assert names(composed) == ["shop_list_pets", "shop_create_pet", "shop_get_pet"]


async def test_header_sources_and_templates_reach_the_api(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOP_KEY", API_KEY)
    composed = compose(
        {
            "openapi": {
                "shop": {
                    "spec": f"{url}/openapi.json",
                    "base_url": url,
                    "headers": {"x-api-key": "{env:SHOP_KEY}", "x-request-id": "req-{context:request_id}"},
                    "include_routes": [{"paths": ["/whoami"]}],
                }
            }
        }
    )
    async with composed.running() as server:
        result = await server.call_tool("whoami", {})
    assert result.structured_content["user"] == "alice"
    assert result.structured_content["request_id"].startswith("req-")


async def test_a_config_auth_token_echoed_by_the_api_is_scrubbed(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOP_TOKEN", "sk-live-SECRET-999")
    composed = compose(
        {
            "openapi": {
                "shop": {
                    "spec": f"{url}/openapi.json",
                    "base_url": url,
                    "auth": {"bearer": "env:SHOP_TOKEN"},
                    "include_routes": [{"paths": ["/echo"]}],
                }
            }
        }
    )
    async with composed.running() as server:
        result = await server.call_tool("echo_credentials", {})
    assert result.is_error and "bad credentials: [" in result.text
    assert "SECRET" not in result.text


def test_a_header_value_is_parsed_as_a_source_or_a_template() -> None:
    from toolweave.config.build_sources import header_value

    assert header_value("env:API_KEY", where="h") == FromEnv("API_KEY")
    assert header_value("Bearer {env:API_KEY}", where="h") == ("Bearer {}", FromEnv("API_KEY"))
    assert header_value("plain", where="h") == "plain"
    with pytest.raises(ConfigError, match="one source in braces"):
        header_value("{env:A}{env:B}", where="h")


def test_a_missing_spec_is_reported_at_its_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        compose({"openapi": {"shop": {"spec": "nope.yaml"}}}, base=tmp_path)
    assert str(raised.value).startswith("openapi.shop.spec: cannot read the OpenAPI spec")


@pytest.mark.parametrize("spec", ["http://[::1/openapi.json", "https://api.example.com/openapi.json\n"])
def test_a_spec_url_httpx_cannot_parse_is_reported_at_its_key(spec: str) -> None:
    """A typo (`[::1` without its `]`) or a variable ending in a newline: a traceback from httpx."""
    with pytest.raises(ConfigError) as raised:
        compose({"openapi": {"shop": {"spec": spec}}})
    assert str(raised.value) == f"openapi.shop.spec: cannot fetch the OpenAPI spec {spec.strip()!r}: InvalidURL"


def test_a_name_under_both_mcp_servers_and_openapi_is_refused() -> None:
    with pytest.raises(ValueError, match="'x' defined both as an MCP server and under 'openapi'"):
        Config.model_validate({"mcpServers": {"x": {"command": "y"}}, "openapi": {"x": {"spec": "s.json"}}})


def test_catalog_settings_become_catalog_transforms() -> None:
    composed = compose(
        {
            "python": ["local_tools:server"],
            "catalog": {"search": {"strategy": "regex", "always": ["add"]}, "prompts_as_tools": True},
        }
    )
    assert names(composed) == ["add", "search_tools", "call_tool"]


async def test_limit_result_in_a_rule_cuts_results(url: str) -> None:
    composed = compose(
        {
            "openapi": {"shop": {"spec": f"{url}/openapi.json", "base_url": url}},
            "transforms": [
                {"tools": "list_pets", "limit_result": {"max_items": 1}},
                {"tools": "readme", "limit_result": {"max_bytes": 100}},
            ],
        }
    )
    async with composed.running() as server:
        pets = await server.call_tool("list_pets", {})
        readme = await server.call_tool("readme", {})
    assert pets.structured_content == {"result": [{"id": 1, "name": "Rex", "tag": "dog"}]}
    shown, marker = pets.text.split("… ")
    assert json.loads(shown) == pets.structured_content["result"]
    assert marker == "[truncated: 1 item dropped]"
    assert pets.meta[META_KEY]["items"] == 1
    assert len(readme.text.encode()) <= 100
    assert readme.text.endswith("… [truncated: 10000 → 100 bytes]")


def test_limit_result_in_a_rule_is_checked_where_it_is_written() -> None:
    with pytest.raises(ValueError, match="give max_bytes, max_items or both"):
        Config.model_validate({"transforms": [{"tools": "*", "limit_result": {}}]})
    with pytest.raises(ConfigError, match=r"transforms\[0\]\.limit_result.*max_bytes must be at least 64"):
        compose({"python": ["local_tools:server"], "transforms": [{"tools": "*", "limit_result": {"max_bytes": 10}}]})


@pytest.fixture
def example_api() -> Iterator[str]:
    import sys

    sys.path.insert(0, str(EXAMPLES))
    try:
        from petstore_api import app  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(EXAMPLES))
    with served(app) as base:
        yield base


def test_the_openapi_example_lists_and_calls_with_the_hidden_key(example_api: str, tmp_path: Path) -> None:
    config = (EXAMPLES / "openapi.yaml").read_text().replace("http://127.0.0.1:8123", example_api)
    (tmp_path / "openapi.yaml").write_text(config)
    (tmp_path / "petstore.openapi.json").write_text((EXAMPLES / "petstore.openapi.json").read_text())
    listed = run_cli("list", str(tmp_path / "openapi.yaml"), "--json", env={"PETSTORE_KEY": "demo-key"})
    assert listed.returncode == 0, listed.stderr
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)["tools"]}
    assert set(tools) == {"pets_list_pets", "pets_add_pet", "pets_get_pet"}
    assert list(tools["pets_list_pets"]["inputSchema"]["properties"]) == ["tag"]
    key = {"PETSTORE_KEY": "demo-key"}
    called = run_cli("call", str(tmp_path / "openapi.yaml"), "pets_list_pets", "tag=cat", env=key)
    assert called.returncode == 0, called.stderr
    assert "Tom" in called.stdout and "Rex" not in called.stdout


def test_the_search_gateway_example_lists_its_front_tools() -> None:
    listed = run_cli("list", str(EXAMPLES / "search_gateway.yaml"), "--json", env={"PETSTORE_KEY": "demo-key"})
    assert listed.returncode == 0, listed.stderr
    listed_names = [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
    assert listed_names == ["pets_get_pet", "search_tools", "call_tool"]


def test_a_secret_the_config_expanded_into_base_url_is_shown_as_written(url: str, tmp_path: Path) -> None:
    tenant = "acme-secret-tenant"
    config = tmp_path / "gateway.yaml"
    spec = f"{url}/openapi.json"
    config.write_text(
        f"openapi:\n  shop:\n    spec: {spec}\n    base_url: '{url}/?tenant=${{TENANT}}'\n"
        "    include_routes: [{paths: [/pets]}]\n"
    )
    explained = run_cli("explain", str(config), env={"TENANT": tenant})
    assert explained.returncode == 0, explained.stderr
    assert tenant not in explained.stdout + explained.stderr
    assert "tenant=${TENANT}" in explained.stdout


def test_a_key_written_into_base_url_is_kept_out_of_the_logs(url: str) -> None:
    composed = compose(
        {"openapi": {"shop": {"spec": f"{url}/openapi.json", "base_url": f"{url}/?api_key=literal-key-0123"}}}
    )
    assert composed.hidden_values()["literal-key-0123"] == "***"
