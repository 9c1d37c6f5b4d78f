"""What a tool reads from the request `Context` is the same on both protocol eras."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Context, Server
from toolweave.testing import connect


async def _on_sample(context: Any, params: Any) -> Any:
    raise AssertionError("not asked")


def _server(seen: list[dict[str, Any]]) -> Server:
    server = Server("context")

    @server.tool
    async def capabilities(ctx: Context) -> str:
        seen.append(dict(ctx.client_capabilities))
        return ctx.client.name if ctx.client else "?"

    return server


@pytest.mark.parametrize("callbacks", [{}, {"sampling_callback": _on_sample}])
async def test_every_request_sees_the_capabilities_the_client_declared_in_wire_form(callbacks: dict[str, Any]) -> None:
    by_era = {}
    for mode in ("auto", "legacy"):
        seen: list[dict[str, Any]] = []
        async with connect(_server(seen), mode=mode, **callbacks) as client:
            names = {(await client.call_tool("capabilities", {})).content[0].text for _ in range(3)}
        assert names == {"mcp"}
        assert seen[0] == seen[1] == seen[2]
        by_era[mode] = seen[0]
    assert by_era["auto"] == by_era["legacy"]  # 2026 requests declare them anew: the same wire form
    assert ("sampling" in by_era["auto"]) == bool(callbacks)
