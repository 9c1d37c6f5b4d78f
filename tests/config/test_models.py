"""The config models: documented fields, shorthand forms, transport rules, and the JSON Schema."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml
from pydantic import BaseModel, ValidationError

from toolweave.config import config_schema
from toolweave.config.entries import McpServerEntry, PythonEntry
from toolweave.config.envvars import FromReference
from toolweave.config.loading import validate
from toolweave.config.models import Config
from toolweave.config.policies import MiddlewareSet, SelectorSpec
from toolweave.core.errors import ConfigError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def models(root: type[BaseModel]) -> set[type[BaseModel]]:
    """`root` and every model reachable from its fields."""
    found: set[type[BaseModel]] = set()
    stack = [root]
    while stack:
        model = stack.pop()
        if model in found:
            continue
        found.add(model)
        for field in model.model_fields.values():
            stack.extend(_nested(field.annotation))
    return found


def _nested(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out: list[type[BaseModel]] = []
    for arg in getattr(annotation, "__args__", ()) or ():
        out.extend(_nested(arg))
    for meta in getattr(annotation, "__metadata__", ()) or ():
        out.extend(_nested(meta))
    return out


def test_every_field_of_every_config_model_has_a_description() -> None:
    undocumented = [
        f"{model.__name__}.{name}"
        for model in models(Config)
        for name, field in model.model_fields.items()
        if not field.description
    ]
    assert len(models(Config)) > 15
    assert undocumented == []


def test_every_config_object_forbids_unknown_keys() -> None:
    assert all(model.model_config.get("extra") == "forbid" for model in models(Config))


def test_a_python_item_may_be_a_plain_import_string() -> None:
    config = Config.model_validate({"python": ["pkg.mod:server", {"import": "pkg.other:tools", "prefix": "o"}]})
    assert [entry.target for entry in config.python_entries] == ["pkg.mod:server", "pkg.other:tools"]
    assert isinstance(config.python_entries[0], PythonEntry)


@pytest.mark.parametrize(
    "tools",
    ["gh_*", ["gh_*", "search"], {"names": ["gh_*"], "tags": ["github"], "read_only": True}],
)
def test_a_selector_is_a_glob_a_list_or_an_object(tools: object) -> None:
    spec = MiddlewareSet.model_validate({"cache": {"ttl": 5, "tools": tools}})
    assert spec.cache is not None
    if isinstance(tools, dict):
        assert isinstance(spec.cache.tools, SelectorSpec)
        assert spec.cache.tools.names == ["gh_*"]
        assert spec.cache.tools.read_only is True
    else:
        assert spec.cache.tools == tools


def test_middleware_keeps_the_order_it_was_written_in() -> None:
    spec = MiddlewareSet.model_validate({"timeout": 5, "rate_limit": {"rate": 1}, "logging": True})
    assert spec.order == ("timeout", "rate_limit", "logging")


def test_middleware_switched_off_is_left_out() -> None:
    assert MiddlewareSet.model_validate({"logging": False, "timeout": 2}).order == ("timeout",)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"command": "x", "url": "http://h/mcp"}, "not both"),
        ({"url": "http://h/mcp", "args": ["a"]}, "args only apply to stdio"),
        ({"command": "x", "headers": {"a": "b"}}, "'headers' only apply to HTTP"),
        ({"type": "sse", "command": "x"}, "type 'sse' needs 'url'"),
        ({"transport": "streamable-http", "command": "x"}, "type 'streamable-http' needs 'url'"),
        ({"type": "http", "transport": "sse", "url": "http://h/sse"}, "name different transports"),
        ({"url": "http://h/mcp", "serverUrl": "http://h/mcp"}, "either 'url' or 'serverUrl'"),
        ({"serverUrl": "http://h/mcp", "envFile": ".env"}, "envFile only apply to stdio"),
        ({"type": "sse"}, "missing 'url'"),
        ({"type": "http", "command": "x"}, "needs 'url'"),
        ({"type": "http"}, "missing 'url'"),
        ({"command": ""}, "'command' is empty"),
        ({"command": " \t"}, "'command' is empty"),
    ],
)
def test_transport_keys_must_agree(entry: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        McpServerEntry.model_validate(entry)


def test_inject_cannot_be_combined_with_a_rename() -> None:
    data = {"python": [{"import": "m:f", "tools": {"f": {"args": {"u": {"inject": "env:U", "name": "user"}}}}}]}
    with pytest.raises(ValidationError, match="cannot be combined with name"):
        Config.model_validate(data)


def test_tool_keys_must_be_valid_tool_names() -> None:
    with pytest.raises(ValidationError, match="not a valid tool name"):
        Config.model_validate({"python": [{"import": "m:f", "tools": {"bad name": {}}}]})


def test_the_schema_documents_fields_and_forbids_unknown_keys() -> None:
    schema = config_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert "mcpServers" in schema["properties"]
    assert schema["properties"]["mcpServers"]["description"]
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", ["wrap.yaml", "gateway.yaml", "identity.yaml"])
def test_the_examples_validate_against_the_schema(name: str) -> None:
    data = yaml.safe_load((EXAMPLES / name).read_text())
    jsonschema.validate(data, config_schema())


def test_the_schema_rejects_what_the_models_reject() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"mcpServers": {"gh": {"comand": "npx"}}}, config_schema())


def test_the_schema_takes_one_reference_where_the_loader_reads_a_number_or_boolean_from_it() -> None:
    """`timeout: ${TIMEOUT:-30}` loads, and an editor checking the file with `toolweave schema`
    marked it as an error (the schema said number only)."""
    data = {
        "server": {"mask_error_details": "${MASK:-false}"},
        "mcpServers": {"gh": {"command": "gh", "timeout": "${GH_TIMEOUT:-30}"}},
        "middleware": {"timeout": "${TIMEOUT}", "retry": {"attempts": "${ATTEMPTS:-3}"}},
    }
    validate(data, environ={"TIMEOUT": "10"})
    jsonschema.validate(data, config_schema())
    around = {"mcpServers": {"gh": {"command": "gh", "timeout": "x${GH_TIMEOUT:-30}"}}}
    with pytest.raises(ConfigError):
        validate(around, environ={})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(around, config_schema())


def test_every_field_reading_a_number_or_boolean_from_a_reference_says_so_in_the_schema() -> None:
    defs = config_schema()["$defs"]
    for model in models(Config):
        properties = (config_schema() if model is Config else defs[model.__name__])["properties"]
        for name, field in model.model_fields.items():
            key = field.alias or name
            reads = any(
                _takes(model, key, FromReference(text)) and not _takes(model, key, text) for text in ("1", "true")
            )
            branches = properties[key].get("anyOf", [])
            assert reads == any(branch.get("pattern", "").startswith("^\\$\\{") for branch in branches), key


def _takes(model: type[BaseModel], key: str, value: str) -> bool:
    try:
        model.model_validate({key: value})
    except ValidationError as error:
        return not any(item["loc"][:1] == (key,) for item in error.errors())
    return True
