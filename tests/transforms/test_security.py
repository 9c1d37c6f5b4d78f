"""Security rules of every transform stack (docs/architecture.md §4), each one a test.

- hidden, excluded and injected arguments never appear anywhere in the exposed schema;
- a client value for them never reaches the base tool, under any spelling; the call fails
  with InvalidArguments naming the argument, worded exactly like an unknown one (no oracle);
- injected values never appear in an error message, log record or result toolweave produces.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolweave import Server, Tool, explain
from toolweave.testing import connect, fake_tool
from toolweave.transforms import (
    Arg,
    ExcludeArgs,
    FromEnv,
    InjectArgs,
    MaskErrors,
    Rename,
    TransformArgs,
)

from .conftest import Calls


class ZzSecretModel(BaseModel):
    zz_inner_field: str = "v"


DEFAULT_SECRET_MODEL = ZzSecretModel()


def secret_function_tool(calls: Calls) -> Tool:
    async def act(
        q: str,
        zz_hidden: Annotated[ZzSecretModel, Field(description="zz hidden description")] = DEFAULT_SECRET_MODEL,
    ) -> str:
        calls.append({"q": q, "zz_hidden": zz_hidden})
        return q

    return Tool.from_function(act)


def secret_schema_tool(calls: Calls) -> Tool:
    async def reply(arguments: dict[str, Any], ctx: Any) -> Any:
        calls.append(dict(arguments))
        from toolweave import ToolResult

        return ToolResult(structured_content=dict(arguments))

    schema = {
        "type": "object",
        "$defs": {"ZzSecretModel": {"type": "object", "properties": {"zz_inner_field": {"type": "string"}}}},
        "properties": {
            "q": {"type": "string"},
            "zz_hidden": {
                "$ref": "#/$defs/ZzSecretModel",
                "description": "zz hidden description",
                "default": {},
            },
        },
        "required": ["q"],
    }
    return fake_tool("act", schema, reply=reply)


HIDERS = {
    "exclude": ExcludeArgs("zz_hidden"),
    "inject": InjectArgs(zz_hidden={"zz_inner_field": "server"}),
    "arg-hide": TransformArgs({"zz_hidden": Arg(hide=True)}),
}


@pytest.mark.parametrize("make", [secret_function_tool, secret_schema_tool], ids=["function", "schema"])
@pytest.mark.parametrize("how", sorted(HIDERS))
def test_hidden_arguments_appear_nowhere_in_the_exposed_schema(calls: Calls, make: Any, how: str) -> None:
    tool = HIDERS[how].apply(make(calls))
    text = json.dumps(tool.input_schema)
    for leak in ("zz_hidden", "zz hidden description", "ZzSecretModel", "zz_inner_field"):
        assert leak not in text, f"{leak!r} leaked via {how}"


# -- spoofing: every spelling is refused before anything runs ------------------------------------


def aliased_tool(calls: Calls) -> Tool:
    async def who(q: str, user_id: Annotated[str, Field(alias="userId")] = "nobody") -> str:
        calls.append({"q": q, "user_id": user_id})
        return q

    return Tool.from_function(who)


def json_param_tool(calls: Calls) -> Tool:
    async def store(q: str, json: str = "{}") -> str:  # `json` is stored under a safe field name + alias
        calls.append({"q": q, "json": json})
        return q

    return Tool.from_function(store)


def recording_keyed(calls: Calls) -> Tool:
    async def keyed(q: str, api_key: str = "default-key") -> str:
        calls.append({"q": q, "api_key": api_key})
        return q

    return Tool.from_function(keyed)


def mounted(tool: Tool) -> tuple[Server, str]:
    child = Server("child")
    child.add_tool(tool)
    parent = Server("parent")
    parent.mount(child, prefix="sub")
    return parent, f"sub_{tool.name}"


def local(tool: Tool, **options: Any) -> tuple[Server, str]:
    server = Server("s", **options)
    server.add_tool(tool)
    return server, tool.name


SPOOFS: list[tuple[str, Any, str]] = [
    ("exact", lambda c: local(InjectArgs(api_key="srv").apply(recording_keyed(c))), "api_key"),
    ("upper", lambda c: local(InjectArgs(api_key="srv").apply(recording_keyed(c))), "API_KEY"),
    ("mixed", lambda c: local(InjectArgs(api_key="srv").apply(recording_keyed(c))), "Api_Key"),
    (
        "original-after-rename",
        lambda c: local(recording_keyed(c).with_transforms(TransformArgs({"api_key": "key"}), InjectArgs(key="srv"))),
        "api_key",
    ),
    (
        "new-name-after-rename",
        lambda c: local(recording_keyed(c).with_transforms(TransformArgs({"api_key": "key"}), InjectArgs(key="srv"))),
        "KEY",
    ),
    ("pydantic-alias", lambda c: local(InjectArgs(user_id="srv").apply(aliased_tool(c))), "userId"),
    ("pydantic-field-name", lambda c: local(InjectArgs(user_id="srv").apply(aliased_tool(c))), "user_id"),
    (
        "safe-field-name",
        lambda c: local(InjectArgs(json="{}").apply(json_param_tool(c))),
        "arg1_",
    ),
    (
        "two-stacked",
        lambda c: local(
            recording_keyed(c).with_transforms(
                TransformArgs({"api_key": "k1"}),
                TransformArgs({"k1": "k2"}),
                InjectArgs(k2="srv"),
                Rename("x"),
            )
        ),
        "k1",
    ),
    ("prefix-mount", lambda c: mounted(InjectArgs(api_key="srv").apply(recording_keyed(c))), "api_key"),
    (
        "server-transform-on-mount",
        lambda c: _server_transform_on_mount(c),
        "Api_key",
    ),
    (
        "extra-args-ignored",
        lambda c: local(InjectArgs(api_key="srv").apply(recording_keyed(c)), extra_args="ignore"),
        "api_key",
    ),
    ("excluded", lambda c: local(ExcludeArgs("api_key").apply(recording_keyed(c))), "api_key"),
]


def _server_transform_on_mount(calls: Calls) -> tuple[Server, str]:
    parent, name = mounted(recording_keyed(calls))
    parent.add_transform(InjectArgs(api_key="srv"), tools="sub_*")
    return parent, name


@pytest.mark.parametrize(("build", "spelling"), [(b, s) for _, b, s in SPOOFS], ids=[i for i, _, _ in SPOOFS])
async def test_client_value_for_a_hidden_argument_never_reaches_the_tool(
    calls: Calls, build: Any, spelling: str
) -> None:
    server, name = build(calls)
    result = await server.call_tool(name, {"q": "x", spelling: "client-value"})
    assert result.is_error
    assert f"Invalid arguments for tool '{name}'" in result.text
    assert f"{spelling}: unexpected argument" in result.text
    assert calls == []



def _probed_server() -> Server:
    server = Server("probed")

    def search(q: str, api_key: str) -> str:
        return q

    server.add_tool(Tool.from_function(search).with_transforms(InjectArgs(api_key="server-key")))

    def lookup(q: str) -> str:
        return q

    server.add_tool(Tool.from_function(lookup).with_transforms(TransformArgs({"q": Arg(name="query")})))
    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(("tool", "visible", "hidden"), [("search", "q", "api_key"), ("lookup", "query", "q")])
async def test_a_hidden_name_gets_the_answer_of_any_unknown_name_and_is_logged_as_a_security_event(
    mode: str, tool: str, visible: str, hidden: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with connect(_probed_server(), mode=mode) as client:
        probed = await client.call_tool(tool, {visible: "x", hidden: "CLIENT-VALUE"})
        unknown = await client.call_tool(tool, {visible: "x", "zz": "CLIENT-VALUE"})
    assert probed.is_error and unknown.is_error
    assert probed.content[0].text == unknown.content[0].text.replace("- zz:", f"- {hidden}:")
    events = [record for record in caplog.records if record.name == "toolweave.security"]
    assert [record.levelno for record in events] == [logging.WARNING]  # the probe, not the unknown name
    message = events[0].getMessage()
    assert f"{hidden!r}" in message and f"{tool!r}" in message and "caller local" in message
    assert "CLIENT-VALUE" not in caplog.text

NAMES = ["q", "api_key", "API_KEY", "Api_Key", "key", "k1", "k2", "limit", "apiKey", "api-key", "x"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    arguments=st.dictionaries(
        st.one_of(st.sampled_from(NAMES), st.text(min_size=1, max_size=8)),
        st.one_of(st.text(max_size=5), st.integers(), st.none(), st.booleans()),
        max_size=6,
    )
)
async def test_random_argument_sets_never_override_injected_values(arguments: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []

    async def keyed(q: str = "", limit: int = 1, api_key: str = "default-key") -> str:
        seen.append({"api_key": api_key})
        return q

    tool = Tool.from_function(keyed).with_transforms(
        TransformArgs({"api_key": "key"}), TransformArgs({"key": "k1"}), InjectArgs(k1="server-value")
    )
    server, name = mounted(tool)
    result = await server.call_tool(name, arguments)
    hidden = {"api_key", "key", "k1"}
    if any(k.casefold() in hidden for k in arguments):
        assert result.is_error and "unexpected argument" in result.text
    if result.is_error:
        assert seen == []
    else:
        assert seen == [{"api_key": "server-value"}]


# -- injected secrets never show up in anything toolweave produces --------------------------------

SECRET = "sk-live-SECRET-4242"


async def test_injected_secrets_never_appear_in_errors_logs_or_results(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("TW_SECRET", SECRET)

    async def call_api(q: str, limit: int, api_key: str, token: str) -> str:
        if q == "fail":
            raise RuntimeError("upstream refused the request")
        return f"ok {q}"

    base = Tool.from_function(call_api)
    produced: list[str] = []
    with caplog.at_level(logging.DEBUG):
        for mask in (True, False):
            server = Server("s", mask_error_details=mask)
            server.add_tool(base.with_transforms(InjectArgs(api_key=FromEnv("TW_SECRET"), token=SECRET), Rename("a")))
            server.add_tool(
                base.with_transforms(InjectArgs(limit=FromEnv("TW_SECRET"), api_key=SECRET, token="t"), Rename("b"))
            )
            for name, arguments in [
                ("a", {"q": "ok", "limit": 1}),
                ("a", {"q": "fail", "limit": 1}),
                ("a", {"q": "ok", "limit": "not a number"}),
                ("a", {"q": "ok", "limit": 1, "api_key": "x"}),
                ("b", {"q": "ok"}),  # the injected env value is not an int: fails without showing it
            ]:
                result = await server.call_tool(name, arguments)
                produced.append(result.text)
                produced.append(json.dumps(result.structured_content))
            out = io.StringIO()
            explain(server, file=out)
            produced.append(out.getvalue())
            produced.append(repr(server.catalog.entries["a"].tool))
    assert any("api_key: unexpected argument" in text for text in produced)
    assert any("does not fit" in text for text in produced)  # the bad injected value was reported...
    for text in [*produced, caplog.text]:
        assert SECRET not in text  # ...without ever showing it


async def test_masked_errors_hide_message_type_path_and_traceback() -> None:
    async def leaky(q: str, api_key: str) -> str:
        raise PermissionError(f"/srv/app/keys.py rejected {q}")

    server = Server("s", mask_error_details=False)
    server.add_tool(Tool.from_function(leaky).with_transforms(InjectArgs(api_key=SECRET), MaskErrors()))
    result = await server.call_tool("leaky", {"q": "x"})
    for leak in ("rejected", "PermissionError", "/srv/app", "keys.py", "Traceback", SECRET):
        assert leak not in result.text


@settings(max_examples=100, deadline=None)
@given(
    arguments=st.dictionaries(
        st.one_of(st.sampled_from(["q", "token", "TOKEN", "Token", "secret", "x"]), st.text(min_size=1, max_size=6)),
        st.one_of(st.text(max_size=5), st.integers(), st.none()),
        max_size=5,
    )
)
async def test_random_argument_sets_never_override_injected_values_on_schema_tools(arguments: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []

    async def reply(received: dict[str, Any], ctx: Any) -> Any:
        from toolweave import ToolResult

        seen.append(dict(received))
        return ToolResult()

    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "secret": {"type": "string"}},
        "required": ["secret"],
    }
    tool = fake_tool("remote", schema, reply=reply).with_transforms(
        TransformArgs({"secret": "token"}), InjectArgs(token="server-value")
    )
    server, name = mounted(tool)
    result = await server.call_tool(name, arguments)
    if any(k.casefold() in {"secret", "token"} for k in arguments):
        assert result.is_error and "unexpected argument" in result.text
    if result.is_error:
        assert seen == []
    else:
        assert [call["secret"] for call in seen] == ["server-value"]
