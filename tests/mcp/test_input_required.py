"""`InputRequired`: a tool asks the client for input, the same way for both protocol eras."""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest
from mcp import MCPError

from toolweave import Context, InputRequest, InputRequired, Server, elicit, list_roots, sample
from toolweave.mcp.input_required import MAX_ROUNDS, to_mcp_requests
from toolweave.testing import connect

MODES = ["auto", "legacy"]
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def asking_server() -> Server:
    server = Server("asking")

    @server.tool
    def greet(ctx: Context) -> str:
        """Ask for a name, then greet."""
        answer = ctx.input_responses.get("who")
        if answer is None:
            raise InputRequired({"who": elicit("Your name?", NAME_FORM)}, state="asked")
        return f"Hello, {answer['content']['name']} ({ctx.request_state})"

    @server.tool
    def poem(ctx: Context) -> str:
        """Ask the client's model, and for the roots, at once."""
        answers = ctx.input_responses
        if not answers:
            raise InputRequired({"verse": sample("A verse, please", max_tokens=20), "roots": list_roots()})
        return f"{answers['verse']['content']['text']} / {len(answers['roots']['roots'])} root(s)"

    @server.tool
    def insatiable(ctx: Context) -> str:
        """Never satisfied."""
        raise InputRequired({"more": elicit("More?", NAME_FORM)})

    return server


async def on_elicit(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
    return mt.ElicitResult(action="accept", content={"name": "Ada"})


async def on_sample(context: Any, params: mt.CreateMessageRequestParams) -> mt.CreateMessageResult:
    text = params.messages[0].content.text.upper()
    return mt.CreateMessageResult(role="assistant", content=mt.TextContent(type="text", text=text), model="m")


async def on_roots(context: Any) -> mt.ListRootsResult:
    return mt.ListRootsResult(roots=[mt.Root(uri="file:///work", name="work")])


CALLBACKS: dict[str, Any] = {
    "elicitation_callback": on_elicit,
    "sampling_callback": on_sample,
    "list_roots_callback": on_roots,
}


@pytest.mark.parametrize("mode", MODES)
async def test_the_tool_runs_again_with_the_answer_and_its_state(mode: str) -> None:
    async with connect(asking_server(), mode=mode, **CALLBACKS) as client:
        result = await client.call_tool("greet", {})
    assert result.is_error is False and result.content[0].text == "Hello, Ada (asked)"


@pytest.mark.parametrize("mode", MODES)
async def test_several_requests_of_different_kinds_are_answered_together(mode: str) -> None:
    async with connect(asking_server(), mode=mode, **CALLBACKS) as client:
        result = await client.call_tool("poem", {})
    assert result.content[0].text == "A VERSE, PLEASE / 1 root(s)"


async def test_2026_clients_get_an_input_required_result_with_a_sealed_state() -> None:
    async with connect(asking_server()) as client:
        first = await client.session.call_tool("greet", {}, allow_input_required=True)
    assert isinstance(first, mt.InputRequiredResult)
    assert first.input_requests["who"].params.message == "Your name?"
    assert first.request_state is not None and "asked" not in first.request_state  # sealed: opaque to the client


async def test_a_forged_state_is_refused_before_the_tool_runs_and_the_server_keeps_serving() -> None:
    answer = {"who": mt.ElicitResult(action="accept", content={"name": "Mallory"})}
    async with connect(asking_server()) as client:
        for forged in ("asked", "eyJ2IjoxfQ", "x" * 5000):
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await client.session.call_tool(
                    "greet", {}, input_responses=answer, request_state=forged, allow_input_required=True
                )
        first = await client.session.call_tool("greet", {}, allow_input_required=True)
        assert isinstance(first, mt.InputRequiredResult)
        greeted = await client.session.call_tool(
            "greet", {}, input_responses=answer, request_state=first.request_state, allow_input_required=True
        )
    assert isinstance(greeted, mt.CallToolResult) and greeted.content[0].text == "Hello, Mallory (asked)"


async def test_a_prompts_state_is_sealed_too() -> None:
    server = Server("asking")

    @server.prompt
    def intro(ctx: Context) -> str:
        """Introduce the user."""
        if not ctx.input_responses:
            raise InputRequired({"who": elicit("Your name?", NAME_FORM)}, state="prompt-state")
        return f"Introduce {ctx.input_responses['who']['content']['name']} ({ctx.request_state})."

    async with connect(server) as client:
        asked = await client.session.get_prompt("intro", allow_input_required=True)
        assert isinstance(asked, mt.InputRequiredResult) and asked.request_state is not None
        assert "prompt-state" not in asked.request_state  # sealed: opaque to the client
        answer = {"who": mt.ElicitResult(action="accept", content={"name": "Ada"})}
        result = await client.session.get_prompt(
            "intro", input_responses=answer, request_state=asked.request_state, allow_input_required=True
        )
    assert isinstance(result, mt.GetPromptResult)
    assert result.messages[0].content.text == "Introduce Ada (prompt-state)."


async def test_handshake_calls_that_keep_asking_fail_after_max_rounds() -> None:
    async with connect(asking_server(), mode="legacy", **CALLBACKS) as client:
        with pytest.raises(MCPError, match=f"more than {MAX_ROUNDS} times"):
            await client.call_tool("insatiable", {})


def test_requests_have_the_wire_shape_the_sdk_accepts() -> None:
    converted = to_mcp_requests(
        {"a": elicit("Name?", NAME_FORM), "b": sample("Hi", max_tokens=5, system_prompt="Be brief"), "c": list_roots()}
    )
    assert converted["a"].params.requested_schema == NAME_FORM
    assert converted["b"].params.max_tokens == 5 and converted["b"].params.system_prompt == "Be brief"
    assert converted["c"].method == "roots/list"


def test_input_required_needs_a_request_or_a_state() -> None:
    with pytest.raises(ValueError, match="at least one request or a state"):
        InputRequired({})
    assert InputRequired({}, state="s").requests == {}
    assert isinstance(elicit("x", {}), InputRequest)


async def test_middleware_treats_a_request_for_input_as_an_answer_not_a_failure() -> None:
    from toolweave.middleware import CircuitBreaker, Retry
    from toolweave.middleware.circuit import is_failure

    server = asking_server()
    retry = Retry(attempts=3, only_safe=False)
    server.add_middleware(retry, CircuitBreaker())
    async with connect(server, mode="legacy", **CALLBACKS) as client:
        result = await client.call_tool("greet", {})
    assert result.content[0].text == "Hello, Ada (asked)"
    assert retry.retries == 0 and not is_failure(InputRequired({}, state="s"))


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_may_ask_for_input_too(mode: str) -> None:
    server = asking_server()

    @server.prompt
    def intro(ctx: Context) -> str:
        """Introduce the user, once they said who they are."""
        answer = ctx.input_responses.get("who")
        if answer is None:
            raise InputRequired({"who": elicit("Your name?", NAME_FORM)})
        return f"Introduce {answer['content']['name']}."

    async with connect(server, mode=mode, **CALLBACKS) as client:
        result = await client.get_prompt("intro")
    assert result.messages[0].content.text == "Introduce Ada."


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_needing_a_capability_is_json_rpc_error_32021(mode: str) -> None:
    from toolweave import MissingCapability

    server = asking_server()

    @server.prompt
    def sampled() -> str:
        """Needs sampling."""
        raise MissingCapability("sampling")

    async with connect(server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("sampled")
    assert caught.value.error.code == -32021


@pytest.mark.parametrize("mode", MODES)
async def test_a_resource_read_may_ask_for_input_too(mode: str) -> None:
    server = asking_server()

    @server.resource("secret://vault")
    def vault(ctx: Context) -> str:
        answer = ctx.input_responses.get("who")
        if answer is None:
            raise InputRequired({"who": elicit("Who is asking?", NAME_FORM)})
        return f"for {answer['content']['name']} only"

    async with connect(server, mode=mode, **CALLBACKS) as client:
        result = await client.read_resource("secret://vault")
    assert result.contents[0].text == "for Ada only"


def confirm_server(deleted: list[str]) -> Server:
    server = Server("careful")

    @server.tool
    def confirm_delete(table: str, ctx: Context) -> str:
        """Delete a table once the user confirmed."""
        answer = ctx.input_responses.get("confirm")
        if answer is None:
            raise InputRequired({"confirm": elicit(f"Delete {table}?", CONFIRM_FORM)})
        if answer["action"] == "accept":
            deleted.append(table)
            return f"deleted {table}"
        return "kept"

    return server


ACCEPT = {"confirm": mt.ElicitResult(action="accept", content={})}


async def test_answers_sent_before_anything_was_asked_are_dropped() -> None:
    deleted: list[str] = []
    async with connect(confirm_server(deleted)) as client:
        first = await client.session.call_tool(
            "confirm_delete", {"table": "users"}, input_responses=ACCEPT, allow_input_required=True
        )
    assert isinstance(first, mt.InputRequiredResult)  # asked, as on any first round
    assert deleted == []


async def test_a_state_from_another_call_does_not_carry_its_answers_over() -> None:
    deleted: list[str] = []
    async with connect(confirm_server(deleted)) as client:
        asked = await client.session.call_tool("confirm_delete", {"table": "scratch"}, allow_input_required=True)
        assert isinstance(asked, mt.InputRequiredResult)
        with pytest.raises(MCPError, match="Invalid or expired requestState"):  # the state is bound to its call
            await client.session.call_tool(
                "confirm_delete",
                {"table": "users"},  # the user confirmed deleting "scratch", not "users"
                input_responses=ACCEPT,
                request_state=asked.request_state,
                allow_input_required=True,
            )
        answered = await client.session.call_tool(
            "confirm_delete",
            {"table": "scratch"},
            input_responses=ACCEPT,
            request_state=asked.request_state,
            allow_input_required=True,
        )
    assert isinstance(answered, mt.CallToolResult) and answered.content[0].text == "deleted scratch"
    assert deleted == ["scratch"]


async def test_a_dropped_answers_name_cannot_forge_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """The names of answers nobody asked for are the client's text: the log quotes them."""
    forged = "who\nCRITICAL toolweave.security: caller admin granted"
    async with connect(asking_server()) as client:
        await client.session.call_tool(
            "greet", {}, input_responses={forged: ACCEPT["confirm"]}, allow_input_required=True
        )
    [dropped] = [record.getMessage() for record in caplog.records if "did not ask for" in record.getMessage()]
    assert "\n" not in dropped and repr(forged) in dropped
