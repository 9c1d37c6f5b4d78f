"""`Server.call_tool` refuses arguments and contexts of the wrong type with a `TypeError` naming what it takes."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from toolweave import Context, Server


def adder(**options: Any) -> Server:
    server = Server("s", **options)

    @server.tool
    def add(a: int, b: int = 1) -> int:
        return a + b

    return server


@pytest.mark.parametrize("arguments", [[1, 2], "a=1", (("a", 1),), 5])
async def test_arguments_that_are_not_a_dict_are_a_type_error(arguments: Any) -> None:
    with pytest.raises(TypeError, match=r"call_tool\('add'\): arguments must be a dict of argument name to value"):
        await adder().call_tool("add", arguments)


async def test_a_read_only_mapping_is_taken_as_a_dict() -> None:
    assert (await adder().call_tool("add", MappingProxyType({"a": 1}))).text == "2"  # type: ignore[arg-type]


@pytest.mark.parametrize("extra_args", ["reject", "ignore"])
async def test_an_argument_name_that_is_not_a_str_is_a_type_error(extra_args: str) -> None:
    with pytest.raises(TypeError, match=r"call_tool\('add'\): argument names must be str, not int 1"):
        await adder(extra_args=extra_args).call_tool("add", {1: 2, "a": 1})  # type: ignore[dict-item]


@pytest.mark.parametrize("ctx", ["oops", {"state": {}}])
async def test_a_ctx_that_is_not_a_context_is_a_type_error(ctx: Any) -> None:
    with pytest.raises(TypeError, match=r"call_tool\('add'\): ctx must be a toolweave Context or None, not"):
        await adder().call_tool("add", {"a": 1}, ctx=ctx)


async def test_none_and_a_context_are_taken() -> None:
    server = adder()
    assert (await server.call_tool("add", None)).is_error  # (a is required: an isError result, as on the wire)
    assert (await server.call_tool("add", {"a": 1}, ctx=Context())).text == "2"
