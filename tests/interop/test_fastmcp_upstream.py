"""A FastMCP upstream's wrapped results (`{"result": [...]}` under an output schema marked
`x-fastmcp-wrap-result`) are the bare value to what reads a tool's value through a gateway, as a
toolweave tool's are: `LimitResult` cut the text of the whole `{"result": ...}` object (it showed
the list whole, its data cut), and the LangChain artifact was the wrapper.
"""

from __future__ import annotations

import sys

from tests.conftest import ROOT
from tests.optional import require
from toolweave import RemoteServer, Server
from toolweave.transforms import LimitResult

require("fastmcp", "the fastmcp interop peer is not installed")

SCRIPT = ROOT / "tests" / "interop" / "fastmcp_lists.py"


def gateway() -> Server:
    gateway = Server("gw")
    gateway.mount(RemoteServer.stdio(sys.executable, [str(SCRIPT)], name="fm"), prefix="fm")
    return gateway


async def test_limit_result_cuts_a_fastmcp_list_and_its_text_alike() -> None:
    server = gateway()
    server.add_transform(LimitResult(max_items=2), tools="fm_*")
    async with server:
        result = await server.call_tool("fm_primes", {"n": 5})
    assert result.structured_content == {"result": [2, 3]}
    assert result.content[0].text.startswith("[2,3]")  # type: ignore[union-attr]
    assert result.meta is not None and result.meta["toolweave/truncated"]["items"] == 3


async def test_the_langchain_artifact_is_the_list_the_fastmcp_tool_returned() -> None:
    require("langchain_core", "the langchain extra is not installed")
    from toolweave.adapters.langchain import structured_tools

    async with gateway() as server:
        primes = {tool.name: tool for tool in structured_tools(server)}["fm_primes"]
        call = {"type": "tool_call", "id": "c1", "name": "fm_primes", "args": {"n": 4}}
        message = await primes.ainvoke(call)
    assert message.artifact == [2, 3, 5, 7]
