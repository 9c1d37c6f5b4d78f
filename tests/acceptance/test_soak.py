"""Soak and fuzz: random arguments and cancelled calls never break the server or leak a secret.

The default run is bounded (seconds); `pytest -m slow` runs the long versions.
"""

from __future__ import annotations

import random
import sys
from typing import Annotated, Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, MCPError, StdioServerParameters
from pydantic import Field

from tests.conftest import ROOT, subprocess_env
from toolweave import Context, Server, Tool
from toolweave.testing import connect, fake_tool
from toolweave.transforms import Arg, FromEnv, InjectArgs, Rename, TransformArgs

SECRET = "s3cr3t-token-value"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)
NAMES = st.sampled_from(["q", "query", "limit", "n", "api_key", "API_KEY", "user", "when", "tags", "x", ""])
ARGUMENTS = st.dictionaries(NAMES | st.text(max_size=10), JSON, max_size=6)


def fuzz_server(monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("SOAK_KEY", SECRET)
    server = Server("fuzz")

    async def search(
        q: str, n: Annotated[int, Field(ge=1, le=50)] = 5, api_key: str = "", tags: list[str] | None = None
    ) -> dict[str, Any]:
        return {"q": q, "n": n, "tags": tags or [], "keyed": api_key == SECRET}

    server.add_tool(
        Tool.from_function(search).with_transforms(
            Rename("search_docs"),
            TransformArgs({"q": Arg(name="query"), "n": Arg(name="limit")}),
            InjectArgs(api_key=FromEnv("SOAK_KEY")),
        )
    )
    server.add_tool(
        fake_tool(
            "schema_only",
            {
                "type": "object",
                "properties": {"x": {"type": "integer", "minimum": 0}, "when": {"type": "string"}},
                "required": ["x"],
            },
        )
    )

    @server.tool
    def crash(x: int = 0, ctx: Context | None = None) -> str:
        raise RuntimeError(f"internal failure carrying {SECRET}")

    return server


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(["search_docs", "schema_only", "crash"]), arguments=ARGUMENTS)
def test_random_arguments_get_an_answer_and_never_the_secret(
    monkeypatch: pytest.MonkeyPatch, name: str, arguments: dict[str, Any]
) -> None:
    server = fuzz_server(monkeypatch)

    async def scenario() -> None:
        async with connect(server, mode="legacy") as client:
            result = await client.call_tool(name, arguments)
            text = " ".join(getattr(block, "text", "") for block in result.content)
            assert SECRET not in text and SECRET not in str(result.structured_content)
            if name == "crash":
                assert result.is_error
            ok = await client.call_tool("schema_only", {"x": 1})
            assert ok.is_error is False

    anyio.run(scenario)


@pytest.mark.slow
@pytest.mark.timeout(900)  # 2,000 examples; the default 60 s bounds one example's worth of work
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(["search_docs", "schema_only", "crash"]), arguments=ARGUMENTS)
def test_random_arguments_long_run(monkeypatch: pytest.MonkeyPatch, name: str, arguments: dict[str, Any]) -> None:
    test_random_arguments_get_an_answer_and_never_the_secret.hypothesis.inner_test(monkeypatch, name, arguments)


async def hammer(calls: int, concurrency: int, seed: int) -> tuple[int, int, int]:
    """Many concurrent calls over a real stdio server, a share of them cancelled mid-flight."""
    rng = random.Random(seed)
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "examples" / "quickstart.py")], env=subprocess_env()
    )
    answered = cancelled = errors = 0
    limiter = anyio.Semaphore(concurrency)

    async with Client(params, mode="legacy") as client:

        async def one(index: int) -> None:
            nonlocal answered, cancelled, errors
            async with limiter:
                budget = 0.0005 if rng.random() < 0.2 else 10.0
                with anyio.move_on_after(budget) as scope:
                    if index % 3 == 0:
                        result = await client.call_tool("roll_dice", {"count": rng.randint(1, 20)})
                    elif index % 3 == 1:
                        result = await client.call_tool("text_stats", {"text": "word " * rng.randint(0, 50)})
                    else:
                        result = await client.call_tool("roll_dice", {"sides": rng.choice([1, 6, 200])})
                    answered += 1
                    errors += bool(result.is_error)
                if scope.cancelled_caught:
                    cancelled += 1

        async with anyio.create_task_group() as tasks:
            for index in range(calls):
                tasks.start_soon(one, index)
        after = await client.call_tool("convert_temperature", {"value": 0, "unit": "C"})
        assert after.structured_content == {"result": 32.0}
        with pytest.raises(MCPError):
            await client.call_tool("nope", {})
    return answered, cancelled, errors


async def test_concurrent_and_cancelled_calls_leave_the_server_serving() -> None:
    answered, cancelled, errors = await hammer(calls=150, concurrency=15, seed=7)
    assert answered + cancelled == 150 and answered > 0 and errors > 0


@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_concurrent_and_cancelled_calls_long_run() -> None:
    answered, cancelled, _ = await hammer(calls=5000, concurrency=50, seed=11)
    assert answered + cancelled == 5000
