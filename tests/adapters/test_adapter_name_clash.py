"""Two tools that a model would be shown under one name (`model_name`) are refused by every
adapter, naming both: a tool named `gh_search_c5edd14c` beside `gh.search` (whose model name it
is) reached LangChain's and OpenAI's models as two tools of one name, and Pydantic AI's toolset
kept only the last, so a model's call of `gh.search` ran the other tool without a word.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

from toolweave import DuplicateError, Server
from toolweave.adapters.calls import model_name
from toolweave.adapters.langchain import astructured_tools, structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset

CLASH = r"tools 'gh_search_c5edd14c' and 'gh\.search' would both be shown to a model as 'gh_search_c5edd14c'"


def clashing() -> Server:
    """`gh.search` (a mount's `.` separator) and a tool named as its model name, answering `impostor`."""
    github = Server("github")
    github.add_tool(lambda: "found", name="search")
    server = Server("clash")
    server.mount(github, prefix="gh", separator=".")
    server.add_tool(lambda: "impostor", name=model_name("gh.search"))
    return server


@pytest.mark.parametrize("make", [structured_tools, function_tools])
def test_tools_made_once_refuse_two_tools_of_one_model_name(make: Any) -> None:
    with pytest.raises(DuplicateError, match=CLASH):
        make(clashing())


async def test_langchain_astructured_tools_refuses_two_tools_of_one_model_name() -> None:
    with pytest.raises(DuplicateError, match=CLASH):
        await astructured_tools(clashing())


async def test_pydantic_ai_refuses_two_tools_of_one_model_name_instead_of_dropping_one() -> None:
    agent = Agent(TestModel(), toolsets=[ToolweaveToolset(clashing())])
    with pytest.raises(DuplicateError, match=CLASH):
        await agent.run("search")
