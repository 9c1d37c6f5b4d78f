"""A YAML spec is read by YAML 1.2's core schema, as OpenAPI asks: the dates, country codes and
times its author wrote as plain scalars are the strings a model sends, not YAML 1.1's other types."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.serving import serving
from toolweave import RemoteServer
from toolweave.openapi.yaml12 import load_yaml12
from toolweave.testing import connect

SPEC = """\
openapi: 3.0.3
info: {title: Holidays, version: 2024-01-01}
paths:
  /holidays:
    get:
      operationId: holidays
      parameters:
        - {name: country, in: query, required: true, schema: {type: string, enum: [SE, NO, DK]}}
        - {name: since, in: query, schema: {type: string, format: date, enum: [2024-01-01, 2025-01-01]}}
        - {name: opens, in: query, schema: {type: string, default: 10:30}}
"""


async def _query(request: Request) -> JSONResponse:
    return JSONResponse(dict(request.query_params))


async def test_plain_dates_and_country_codes_in_a_yaml_spec_are_strings_a_call_may_send(tmp_path: Path) -> None:
    """PyYAML's YAML 1.1 read `NO` as false and `2024-01-01` as a date: the tool list showed
    them as strings, and every call sending them was refused (`expected one of [datetime.date(...)]`)."""
    (tmp_path / "holidays.yaml").write_text(SPEC)
    app = Starlette(routes=[Route("/holidays", _query)])
    async with serving(app) as url:
        server = RemoteServer.openapi(str(tmp_path / "holidays.yaml"), base_url=url)
        async with connect(server) as client:
            (tool,) = (await client.list_tools()).tools
            result = await client.call_tool("holidays", {"country": "NO", "since": "2024-01-01"})
    schema = tool.input_schema["properties"]
    assert schema["country"]["enum"] == ["SE", "NO", "DK"]
    assert schema["since"]["enum"] == ["2024-01-01", "2025-01-01"]
    assert schema["opens"]["default"] == "10:30"
    assert not result.is_error, result.content
    assert result.structured_content is None
    assert result.content[0].text == '{"country":"NO","since":"2024-01-01"}'


def test_the_core_schema_reads_json_types_and_nothing_else() -> None:
    text = "[true, False, NULL, ~, 12, -3, 0x1F, 1.5, -2e3, .inf, yes, off, 0123, 1_000, 2024-01-01T10:00:00Z]"
    assert load_yaml12(text) == [
        True, False, None, None, 12, -3, 31, 1.5, -2000.0, float("inf"),
        "yes", "off", "0123", "1_000", "2024-01-01T10:00:00Z",
    ]  # fmt: skip


def test_a_merge_key_still_shares_fields() -> None:
    assert load_yaml12("base: &base {type: string}\nname: {<<: *base, minLength: 1}")["name"] == {
        "type": "string",
        "minLength": 1,
    }
