"""An async context function is refused where the adapter is made, saying to make it a plain one.

The adapters call it without awaiting: it failed only at the first call or listing, inside the
agent's run, as "returned coroutine, not a toolweave Context", beside a "never awaited" warning.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from tests.adapters.gateway import gateway
from toolweave import AuthInfo, Context
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset

ASYNC = r"the context function is async, .* make it a plain function returning a Context"


async def per_user(run: Any) -> Context:
    return Context(auth=AuthInfo(subject="u-7"))


class PerUser:
    async def __call__(self, run: Any) -> Context:
        return await per_user(run)


@pytest.mark.parametrize("adapter", [structured_tools, function_tools, ToolweaveToolset])
@pytest.mark.parametrize("context", [per_user, PerUser()], ids=["function", "callable"])
def test_an_async_context_function_is_refused_where_the_adapter_is_made(
    adapter: Callable[..., Any], context: Any
) -> None:
    server, _ = gateway()
    with pytest.raises(TypeError, match=ASYNC):
        adapter(server, context=context)


async def test_a_function_returning_a_coroutine_is_refused_at_the_call_without_a_warning() -> None:
    server, recorder = gateway()
    [weather] = [
        tool for tool in structured_tools(server, context=lambda config: per_user(config)) if tool.name == "weather"
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match=ASYNC):
            await weather.ainvoke({"city": "Oslo"})
        gc.collect()
    assert [str(warning.message) for warning in caught] == []
    assert recorder.calls == []
