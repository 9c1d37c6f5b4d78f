"""Config files: what loading and building cost, and that a config-built server calls as fast.

Groups:
- `config load/build`: reading and validating `examples/gateway.yaml`; building a server from a
  config that imports 1,000 functions, 200 of them with per-tool changes (rename, description,
  an argument renamed, one hidden), and compiling its catalog.
- `config call`: one in-process call of a tool renamed with an argument renamed, on a server
  built from a config vs the same server built in Python. Target: within 1.1x (the config's
  per-source layer is one mount level).

Run: `python -m benchmarks.bench_config [--quick]`.
"""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path
from typing import Any

import anyio

from benchmarks.timing import Row, median_us, sync_median_us
from toolweave import Server
from toolweave.config import build, load_config
from toolweave.config.models import Config
from toolweave.transforms import Arg, ExcludeArgs, Rename, TransformArgs

GATEWAY = Path(__file__).resolve().parent.parent / "examples" / "gateway.yaml"
LOAD = "config load/build"
CALL = "config call"
MODULE = "bench_config_tools"


def _make_function(index: int) -> Any:
    def fn(q: str, limit: int = 10, debug: bool = False) -> str:
        return q

    fn.__name__ = fn.__qualname__ = f"tool_{index}"
    fn.__doc__ = f"Tool number {index}."
    return fn


async def _async_search(q: str, limit: int = 10, debug: bool = False) -> str:
    """An async tool, so calls measure toolweave rather than a worker-thread hop."""
    return q


_async_search.__name__ = _async_search.__qualname__ = "tool_0"


def _install_module(count: int) -> None:
    module = types.ModuleType(MODULE)
    module.tools = [_make_function(index) for index in range(count)]  # type: ignore[attr-defined]
    module.search = _async_search  # type: ignore[attr-defined]
    sys.modules[MODULE] = module


def _changes(name: str) -> dict[str, Any]:
    return {
        "name": f"{name}_v2",
        "description": "Renamed from config.",
        "args": {"q": {"name": "query", "description": "What to look for."}, "debug": {"hide": True}},
    }


def _big_config(count: int, changed: int) -> Config:
    tools = {f"tool_{index}": _changes(f"tool_{index}") for index in range(changed)}
    return Config.model_validate({"python": [{"import": f"{MODULE}:tools", "prefix": "b", "tools": tools}]})


def _build_ms(count: int, changed: int) -> float:
    config = _big_config(count, changed)
    start = time.perf_counter()
    server = build(config).server
    assert len(server.catalog.tools) == count
    return (time.perf_counter() - start) * 1e3


def _steps(name: str) -> _Sequence:
    """The changes of `_changes`, written in Python."""
    return _Sequence(
        (
            ExcludeArgs("debug"),
            TransformArgs({"q": Arg(name="query", description="What to look for.")}),
            Rename(f"{name}_v2", description="Renamed from config."),
        )
    )


def _by_hand_ms(count: int, changed: int) -> float:
    start = time.perf_counter()
    tools = Server("tools")
    for fn in sys.modules[MODULE].tools[:count]:
        tools.add_tool(fn)
    for index in range(changed):
        tools.add_transform(_steps(f"tool_{index}"), tools=f"tool_{index}")
    server = Server("root")
    server.mount(tools, prefix="b")
    assert len(server.catalog.tools) == count
    return (time.perf_counter() - start) * 1e3


def _call_servers() -> tuple[Server, Server]:
    config = Config.model_validate(
        {"python": [{"import": f"{MODULE}:search", "tools": {"tool_0": _changes("tool_0")}}]}
    )
    from_config = build(config).server
    by_hand = Server("hand")
    by_hand.add_tool(sys.modules[MODULE].search)
    by_hand.add_transform(_steps("tool_0"), tools="tool_0")
    return from_config, by_hand


class _Sequence:
    def __init__(self, steps: tuple[Any, ...]) -> None:
        self.steps = steps

    def apply(self, tool: Any) -> Any:
        return tool.with_transforms(*self.steps)


async def collect(quick: bool) -> list[Row]:
    """Rows for `benchmarks.run`."""
    _install_module(1000)
    number = 50 if quick else 500
    rounds = 1 if quick else 3
    rows = [
        Row(
            LOAD,
            "load + validate examples/gateway.yaml",
            sync_median_us(lambda: load_config(GATEWAY), number=number, warmup=5),
        ),
        Row(
            LOAD,
            "1,000 tools (200 changed), built in Python",
            min(_by_hand_ms(1000, 200) for _ in range(rounds)),
            unit="ms",
        ),
        Row(
            LOAD,
            "1,000 tools (200 changed), built from a config",
            min(_build_ms(1000, 200) for _ in range(rounds)),
            baseline="1,000 tools (200 changed), built in Python",
            target="≤ 1.2×",
            unit="ms",
        ),
    ]
    from_config, by_hand = _call_servers()
    calls = 2000 if quick else 20000

    async def call_config() -> object:
        return await from_config.call_tool("tool_0_v2", {"query": "x"})

    async def call_hand() -> object:
        return await by_hand.call_tool("tool_0_v2", {"query": "x"})

    rows.append(Row(CALL, "built in Python", await median_us(call_hand, number=calls)))
    rows.append(
        Row(
            CALL,
            "built from a config",
            await median_us(call_config, number=calls),
            baseline="built in Python",
            target="≤ 1.1×",
        )
    )
    return rows


if __name__ == "__main__":
    for row in anyio.run(collect, "--quick" in sys.argv):
        print(f"{row.group:<20} {row.name:<45} {row.median_us:10.1f} {row.unit}")
