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
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolweave import Server, Tool, explain
from toolweave.core.validation import ArgumentErrors, SchemaValidator, hidden_sent
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


def mounted(tool: Tool, **options: Any) -> tuple[Server, str]:
    child = Server("child")
    child.add_tool(tool)
    parent = Server("parent", **options)
    parent.mount(child, prefix="sub")
    return parent, f"sub_{tool.name}"


def local(tool: Tool, **options: Any) -> tuple[Server, str]:
    server = Server("s", **options)
    server.add_tool(tool)
    return server, tool.name


def _renamed_then_injected(calls: Calls) -> Tool:
    return recording_keyed(calls).with_transforms(TransformArgs({"api_key": "key"}), InjectArgs(key="srv"))


def _two_stacked(calls: Calls) -> Tool:
    return recording_keyed(calls).with_transforms(
        TransformArgs({"api_key": "k1"}), TransformArgs({"k1": "k2"}), InjectArgs(k2="srv"), Rename("x")
    )


def _server_transform_on_mount(calls: Calls, **options: Any) -> tuple[Server, str]:
    parent, name = mounted(recording_keyed(calls), **options)
    parent.add_transform(InjectArgs(api_key="srv"), tools="sub_*")
    return parent, name


Build = Callable[..., tuple[Server, str]]
"""`build(calls, **server_options)`: a server and the name of its tool under test."""

SPOOFS: list[tuple[str, Build, str]] = [
    ("exact", lambda c, **o: local(InjectArgs(api_key="srv").apply(recording_keyed(c)), **o), "api_key"),
    ("upper", lambda c, **o: local(InjectArgs(api_key="srv").apply(recording_keyed(c)), **o), "API_KEY"),
    ("mixed", lambda c, **o: local(InjectArgs(api_key="srv").apply(recording_keyed(c)), **o), "Api_Key"),
    ("original-after-rename", lambda c, **o: local(_renamed_then_injected(c), **o), "api_key"),
    ("new-name-after-rename", lambda c, **o: local(_renamed_then_injected(c), **o), "KEY"),
    ("pydantic-alias", lambda c, **o: local(InjectArgs(user_id="srv").apply(aliased_tool(c)), **o), "userId"),
    ("pydantic-field-name", lambda c, **o: local(InjectArgs(user_id="srv").apply(aliased_tool(c)), **o), "user_id"),
    ("safe-field-name", lambda c, **o: local(InjectArgs(json="{}").apply(json_param_tool(c)), **o), "arg1_"),
    ("two-stacked", lambda c, **o: local(_two_stacked(c), **o), "k1"),
    ("prefix-mount", lambda c, **o: mounted(InjectArgs(api_key="srv").apply(recording_keyed(c)), **o), "api_key"),
    ("server-transform-on-mount", _server_transform_on_mount, "Api_key"),
    ("excluded", lambda c, **o: local(ExcludeArgs("api_key").apply(recording_keyed(c)), **o), "api_key"),
    (
        "schema-tool",
        lambda c, **o: local(InjectArgs(zz_hidden={"zz_inner_field": "srv"}).apply(secret_schema_tool(c)), **o),
        "ZZ_hidden",
    ),
]
SPOOF_IDS = [case for case, _, _ in SPOOFS]


@pytest.mark.parametrize(("build", "spelling"), [(b, s) for _, b, s in SPOOFS], ids=SPOOF_IDS)
async def test_client_value_for_a_hidden_argument_never_reaches_the_tool(
    calls: Calls, build: Build, spelling: str
) -> None:
    server, name = build(calls)
    result = await server.call_tool(name, {"q": "x", spelling: "client-value"})
    assert result.is_error
    assert f"Invalid arguments for tool '{name}'" in result.text
    assert f"{spelling}: unexpected argument" in result.text
    assert calls == []


@pytest.mark.parametrize(("build", "spelling"), [(b, s) for _, b, s in SPOOFS], ids=SPOOF_IDS)
async def test_with_extra_args_ignored_a_hidden_name_is_dropped_like_an_unknown_one_and_the_tool_gets_the_servers_value(
    calls: Calls, build: Build, spelling: str
) -> None:
    server, name = build(calls, extra_args="ignore")
    honest = await server.call_tool(name, {"q": "x"})
    probed = await server.call_tool(name, {"q": "x", spelling: "client-value"})
    unknown = await server.call_tool(name, {"q": "x", "zz_unknown": "client-value"})
    assert not probed.is_error
    assert probed == unknown == honest  # no oracle: the answer is the one any unknown name gets
    assert calls[1] == calls[2] == calls[0]  # the tool got what it gets when nothing is sent: the server's value
    assert "client-value" not in repr(calls)


def _probed_server(**options: Any) -> Server:
    server = Server("probed", **options)

    def search(q: str, api_key: str) -> str:
        return f"{q} with {api_key}"

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


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("tool", "visible", "hidden", "answer"),
    [("search", "q", "api_key", "x with server-key"), ("lookup", "query", "q", "x")],
)
async def test_with_extra_args_ignored_a_client_probing_a_hidden_name_gets_the_answer_of_any_unknown_name(
    mode: str, tool: str, visible: str, hidden: str, answer: str
) -> None:
    async with connect(_probed_server(extra_args="ignore"), mode=mode) as client:
        probed = await client.call_tool(tool, {visible: "x", hidden: "CLIENT-VALUE"})
        unknown = await client.call_tool(tool, {visible: "x", "zz": "CLIENT-VALUE"})
    assert not probed.is_error and probed.content[0].text == answer  # the server's value, not the client's
    assert probed.content == unknown.content and probed.structured_content == unknown.structured_content


@pytest.mark.parametrize(("build", "spelling"), [(b, s) for _, b, s in SPOOFS], ids=SPOOF_IDS)
async def test_with_extra_args_ignored_a_hidden_name_is_still_logged_as_a_security_event(
    calls: Calls, build: Build, spelling: str, caplog: pytest.LogCaptureFixture
) -> None:
    server, name = build(calls, extra_args="ignore")
    await server.call_tool(name, {"q": "x", "zz_unknown": "client-value"})
    await server.call_tool(name, {"q": "x", spelling: "client-value"})
    events = [record for record in caplog.records if record.name == "toolweave.security"]
    assert [record.levelno for record in events] == [logging.WARNING]  # the probe, not the unknown name
    message = events[0].getMessage()
    assert f"{spelling!r}" in message and f"{name!r}" in message and "caller local" in message
    assert "client-value" not in caplog.text


@pytest.mark.parametrize("reject_extra", [True, False])
def test_a_schema_taking_any_name_still_keeps_the_servers_names_out(reject_extra: bool) -> None:
    validator = SchemaValidator({"type": "object"}, forbidden=["api_key"])
    arguments = {"q": "x", "Api_Key": "client-value"}
    assert hidden_sent(validator, arguments) == ("Api_Key",)
    if not reject_extra:  # dropped without a word: it never reaches the tool
        assert validator.validate(arguments, reject_extra=False) == {"q": "x"}
        return
    with pytest.raises(ArgumentErrors) as refused:
        validator.validate(arguments)
    assert [str(problem) for problem in refused.value.problems] == ["Api_Key: unexpected argument"]
    assert refused.value.spoofed == ("Api_Key",)


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
