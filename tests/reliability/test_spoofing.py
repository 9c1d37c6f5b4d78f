"""Spoofing: a client sending a server-set argument, under any spelling, never reaches the tool,
whatever layer sets it; the answer is the one any unexpected argument gets."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import mcp.types as mt
import pytest
from mcp import MCPError

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect
from toolweave.transforms import Arg, ExcludeArgs, InjectArgs, Rename, TransformArgs

from .raw import SERVERS

CANARY = "canary-7f3a9c"
SPELLINGS = [
    "user_id",
    "USER_ID",
    "User_Id",
    " user_id",
    "user_id ",
    "user-id",
    "userid",
    "user_\u0456d",  # Cyrillic i
    "\uff55\uff53\uff45\uff52\uff3f\uff49\uff44",  # full-width user_id
    "user_id\u200b",  # zero-width space suffix
    "\u200buser_id",
    "user_id\u0000",
]
seen: list[dict[str, Any]] = []


def record(city: str, user_id: str = "nobody") -> str:
    """Record what arrived."""
    seen.append({"city": city, "user_id": user_id})
    return json.dumps({"city": city, "user_id": user_id})


def with_tool(*transforms: Any, **options: Any) -> Server:
    server = Server("child", **options)
    tool = server.add_tool(record)
    if transforms:
        server.remove_tool("record")
        server.add_tool(tool.with_transforms(*transforms))
    return server


def inject(**options: Any) -> Server:
    return with_tool(InjectArgs(user_id="server-set"), **options)


def exclude(**options: Any) -> Server:
    return with_tool(ExcludeArgs("user_id"), **options)


def hidden_arg(**options: Any) -> Server:
    return with_tool(TransformArgs({"user_id": Arg(hide=True, default="server-set")}), **options)


def prefix_mount(**options: Any) -> Server:
    root = Server("root", **options)
    root.mount(inject(), prefix="kid")
    return root


def remote_mount(**options: Any) -> Server:
    root = Server("root", **options)
    root.mount(RemoteServer.stdio(sys.executable, [str(SERVERS / "recorder.py")], env=subprocess_env()), prefix="kid")
    root.add_transform(InjectArgs(user_id="server-set"), tools="kid_record")
    return root


def stacked(**options: Any) -> Server:
    return with_tool(InjectArgs(user_id="server-set"), Rename("lookup"), **options)


LAYERS: dict[str, tuple[Callable[..., Server], str]] = {
    "InjectArgs": (inject, "record"),
    "ExcludeArgs": (exclude, "record"),
    "hidden Arg": (hidden_arg, "record"),
    "prefix mount": (prefix_mount, "kid_record"),
    "remote mount": (remote_mount, "kid_record"),
    "two stacked transforms": (stacked, "lookup"),
}


async def answer(client: Any, name: str, arguments: dict[str, Any]) -> str:
    try:
        result = await client.call_tool(name, arguments)
    except MCPError as error:
        return f"error {error.error.code}: {error.error.message}"
    return " ".join(getattr(item, "text", "") for item in result.content)


@pytest.mark.parametrize("layer", list(LAYERS))
async def test_no_spelling_of_a_server_set_argument_reaches_the_tool(layer: str) -> None:
    build, name = LAYERS[layer]
    seen.clear()
    async with connect(build(), mode="legacy") as client:
        baseline = await answer(client, name, {"city": "Paris", "other_arg": CANARY})
        answers = [await answer(client, name, {"city": "Paris", spelling: CANARY}) for spelling in SPELLINGS]
        honest = await answer(client, name, {"city": "Paris"})
    assert CANARY not in json.dumps(seen) and all(CANARY not in text for text in answers)
    assert CANARY not in honest
    for spelling, text in zip(SPELLINGS, answers, strict=True):
        assert text == baseline.replace("other_arg", spelling), (spelling, text)


@pytest.mark.parametrize("layer", list(LAYERS))
async def test_with_extra_args_ignored_every_spelling_is_dropped_like_an_unknown_name(layer: str) -> None:
    build, name = LAYERS[layer]
    seen.clear()
    async with connect(build(extra_args="ignore"), mode="legacy") as client:
        honest = await answer(client, name, {"city": "Paris"})
        baseline = await answer(client, name, {"city": "Paris", "other_arg": CANARY})
        answers = [await answer(client, name, {"city": "Paris", spelling: CANARY}) for spelling in SPELLINGS]
    assert CANARY not in json.dumps(seen) and CANARY not in honest
    assert baseline == honest and answers == [honest] * len(SPELLINGS)  # no oracle, and the server's value


async def test_no_prompt_argument_outside_the_prompt_reaches_it() -> None:
    heard: list[dict[str, str]] = []
    server = Server("prompts")

    @server.prompt
    def greet(name: str) -> str:
        heard.append({"name": name})
        return f"Hello {name}"

    root = Server("root")
    root.mount(server, prefix="kid")
    async with connect(root, mode="legacy") as client:
        for spelling in ["user_id", *SPELLINGS[1:]]:
            with pytest.raises(MCPError) as refused:
                await client.get_prompt("kid_greet", {"name": "Ann", spelling: CANARY})
            assert refused.value.error.code == mt.INVALID_PARAMS and CANARY not in refused.value.error.message
    assert heard == []
