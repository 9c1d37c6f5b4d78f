"""`PromptsAsTools` and `ResourcesAsTools`: prompts and resources reached through tools, each
through its own chain, by a client that only calls tools."""

from __future__ import annotations

from typing import Any

from toolweave import Server
from toolweave.core.message import PromptResult
from toolweave.core.resource import ResourceResult
from toolweave.middleware.base import Middleware
from toolweave.middleware.hooks import GetPromptNext, PromptCall, ReadResourceNext, ResourceRead
from toolweave.testing import connect
from toolweave.transforms.components_as_tools import PromptsAsTools, ResourcesAsTools


class Counting(Middleware):
    def __init__(self) -> None:
        super().__init__(prompts="*", resources="*")
        self.seen: list[str] = []

    async def on_get_prompt(self, call: PromptCall, call_next: GetPromptNext) -> PromptResult:
        self.seen.append(f"prompt {call.prompt.name}")
        return await call_next(call)

    async def on_read_resource(self, read: ResourceRead, call_next: ReadResourceNext) -> ResourceResult:
        self.seen.append(f"resource {read.resource.uri}")
        return await call_next(read)


def docs_server() -> tuple[Server, Counting]:
    counting = Counting()
    server = Server("docs", middleware=[counting])

    @server.prompt
    def review(code: str, strict: bool = False) -> str:
        """Review a piece of code."""
        return f"Review{' strictly' if strict else ''}: {code}"

    @server.resource("memo://today", mime_type="text/plain")
    def today() -> str:
        """Today's memo."""
        return "Buy milk"

    @server.resource("memo://{day}/notes")
    def notes(day: int) -> str:
        return f"notes of day {day}"

    @server.tool
    def ping() -> str:
        return "pong"

    server.add_transform(PromptsAsTools())
    server.add_transform(ResourcesAsTools())
    return server, counting


async def call(server: Server, name: str, arguments: dict[str, Any]) -> Any:
    async with connect(server) as client:
        return await client.call_tool(name, arguments)


async def test_the_tools_are_listed_beside_the_servers_own() -> None:
    server, _ = docs_server()
    async with connect(server) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["ping", "list_prompts", "get_prompt", "list_resources", "read_resource"]


async def test_list_prompts_shows_names_descriptions_and_arguments() -> None:
    server, _ = docs_server()
    result = await call(server, "list_prompts", {})
    assert result.structured_content == {
        "prompts": [
            {
                "name": "review",
                "description": "Review a piece of code.",
                "arguments": [
                    {"name": "code", "description": None, "required": True},
                    {"name": "strict", "description": None, "required": False},
                ],
            }
        ]
    }


async def test_get_prompt_renders_through_the_prompts_chain() -> None:
    server, counting = docs_server()
    result = await call(server, "get_prompt", {"name": "review", "arguments": {"code": "x = 1", "strict": "true"}})
    assert result.content[0].text == "user: Review strictly: x = 1"
    assert result.structured_content["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Review strictly: x = 1"}}
    ]
    assert counting.seen == ["prompt review"]


async def test_prompt_errors_are_tool_errors() -> None:
    server, _ = docs_server()
    unknown = await call(server, "get_prompt", {"name": "nope"})
    missing = await call(server, "get_prompt", {"name": "review"})
    assert unknown.is_error and unknown.content[0].text == "no prompt named 'nope': see `list_prompts`"
    assert missing.is_error
    assert missing.content[0].text == "Invalid arguments for prompt 'review':\n- code: Field required"


async def test_a_templates_parameter_error_names_the_template_not_the_tool() -> None:
    server, _ = docs_server()
    result = await call(server, "read_resource", {"uri": "memo://monday/notes"})
    assert result.is_error
    assert result.content[0].text.startswith("Invalid arguments for resource template 'memo://{day}/notes':\n- day:")


async def test_list_resources_shows_resources_and_templates() -> None:
    server, _ = docs_server()
    result = await call(server, "list_resources", {})
    assert result.structured_content == {
        "resources": [
            {"uri": "memo://today", "name": "today", "description": "Today's memo.", "mimeType": "text/plain"}
        ],
        "templates": [{"uriTemplate": "memo://{day}/notes", "name": "notes"}],
    }


async def test_read_resource_reads_through_the_resources_chain() -> None:
    server, counting = docs_server()
    static = await call(server, "read_resource", {"uri": "memo://today"})
    templated = await call(server, "read_resource", {"uri": "memo://3/notes"})
    unknown = await call(server, "read_resource", {"uri": "memo://nowhere"})
    assert static.content[0].text == "Buy milk"
    memo = {"uri": "memo://today", "mimeType": "text/plain", "text": "Buy milk"}
    assert static.structured_content == {"contents": [memo]}
    assert templated.content[0].text == "notes of day 3"
    assert unknown.is_error and "no resource at 'memo://nowhere'" in unknown.content[0].text
    assert counting.seen == ["resource memo://today", "resource memo://{day}/notes"]


async def test_prompts_added_later_are_found_without_a_recompile() -> None:
    server, _ = docs_server()
    server.catalog  # noqa: B018 - compile now
    server.add_prompt(lambda: "hi", name="hello")
    result = await server.call_tool("list_prompts", {})
    assert [prompt["name"] for prompt in result.structured_content["prompts"]] == ["review", "hello"]


async def test_each_caller_lists_and_renders_only_the_prompts_it_may_use() -> None:
    from toolweave import AuthInfo, Context
    from toolweave.transforms import Authorize

    server, _ = docs_server()
    server.add_transform(Authorize("reviewers"), prompts="review")
    reviewer = Context(auth=AuthInfo(subject="r", scopes=("reviewers",)))
    other = Context(auth=AuthInfo(subject="o"))
    listed_by_reviewer = await server.call_tool("list_prompts", {}, ctx=reviewer)
    listed_by_other = await server.call_tool("list_prompts", {}, ctx=other)
    refused = await server.call_tool("get_prompt", {"name": "review", "arguments": {"code": "x"}}, ctx=other)
    assert [p["name"] for p in listed_by_reviewer.structured_content["prompts"]] == ["review"]
    assert listed_by_other.structured_content == {"prompts": []}
    assert refused.is_error and refused.text == "no prompt named 'review': see `list_prompts`"


async def test_a_servers_limit_result_cuts_what_the_added_tools_answer() -> None:
    from toolweave import LimitResult, SearchTools

    server = Server("docs")
    server.add_resource(lambda: "r" * 10_000, uri="memo://long", name="long")
    server.add_prompt(lambda: "p" * 10_000, name="long")
    server.add_tool(lambda: "t" * 10_000, name="long_tool")
    server.add_transform(LimitResult(max_bytes=300))
    server.add_transform(ResourcesAsTools())
    server.add_transform(PromptsAsTools())
    server.add_transform(SearchTools())
    read = await call(server, "call_tool", {"name": "read_resource", "arguments": {"uri": "memo://long"}})
    got = await call(server, "call_tool", {"name": "get_prompt", "arguments": {"name": "long"}})
    for result, size in ((read, 10_000), (got, 10_006)):
        assert len(result.content[0].text.encode()) <= 300
        assert result.content[0].text.endswith(f"… [truncated: {size} → 300 bytes]")
        assert result.meta["toolweave/truncated"] == {"bytes": size, "limit": 300, "items": 0}


async def test_a_limit_chosen_for_other_tools_leaves_the_added_tools_whole() -> None:
    from toolweave import LimitResult

    server = Server("docs")
    server.add_resource(lambda: "r" * 10_000, uri="memo://long", name="long")
    server.add_tool(lambda: "t" * 10_000, name="long_tool")
    server.add_transform(LimitResult(max_bytes=300), tools="long_tool")
    server.add_transform(ResourcesAsTools())
    read = await call(server, "read_resource", {"uri": "memo://long"})
    assert read.content[0].text == "r" * 10_000
