"""N distinct generated tools served over stdio, for cold-start and memory measurements.

    python -m benchmarks.servers.many_tools toolweave|toolweave-one-page|fastmcp N

Every function is distinct: its own name, parameter names, parameter types, defaults,
docstring and return type (drawn from a fixed palette by a seeded generator), so that no cache
keyed on a signature can flatter a figure. The functions live in one generated module on disk
(see `module_dir`), the way a code generator would write them.
"""

from __future__ import annotations

import importlib
import os
import py_compile
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

PARAM_TYPES = (
    ("str", None),
    ("int", "0"),
    ("float", "1.5"),
    ("bool", "False"),
    ("list[str]", None),
    ("list[int]", None),
    ("dict[str, int]", None),
    ("str | None", "None"),
    ("int | None", "None"),
    ("Literal['asc', 'desc']", "'asc'"),
)
RETURN_TYPES = (("str", "''"), ("int", "0"), ("dict[str, int]", "{}"), ("list[str]", "[]"), ("bool", "True"))
WORDS = ("query", "limit", "page", "user", "name", "path", "mode", "tag", "score", "flag", "region", "sort")


def source(count: int, seed: int = 7) -> str:
    """The source of a module defining `count` distinct functions `tool_0` ... `tool_{count-1}`."""
    rng = random.Random(seed)
    lines = []
    for index in range(count):
        params, docs = [], []
        for position in range(rng.randint(1, 5)):
            kind, default = PARAM_TYPES[rng.randrange(len(PARAM_TYPES))]
            pname = f"{WORDS[rng.randrange(len(WORDS))]}_{index}_{position}"
            with_default = default is not None and rng.random() < 0.5
            params.append((pname, kind, default if with_default else None))
            docs.append(f"        {pname}: the {pname.split('_')[0]} of call {index}.")
        params.sort(key=lambda p: p[2] is not None)  # defaults last
        signature = ", ".join(f"{n}: {k}" + (f" = {d}" if d is not None else "") for n, k, d in params)
        returns, value = RETURN_TYPES[index % len(RETURN_TYPES)]
        lines.append(f"def tool_{index}({signature}) -> {returns}:")
        lines.append(f'    """Generated tool number {index}.\n\n    Args:\n' + "\n".join(docs) + '\n    """')
        lines.append(f"    return {value}\n")
    return "\n".join(lines)


def module_dir(count: int) -> Path:
    """A directory holding `generated_tools_<count>.py`, written (and byte-compiled) on first use.

    Like a real server's source on disk, the module is imported from its cached bytecode, so a
    cold start pays for building tools, not for compiling the generator's output.
    """
    folder = Path(tempfile.gettempdir()) / "toolweave-bench-tools"
    path = folder / f"generated_tools_{count}.py"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        text = "from typing import Literal\n\n\n" + source(count)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(text)
        temporary.replace(path)
        py_compile.compile(str(path), doraise=True)
    return folder


def functions(count: int) -> list[Callable[..., Any]]:
    """`count` distinct functions (see `source`), imported from the generated module."""
    folder = str(module_dir(count))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.import_module(f"generated_tools_{count}")
    return [getattr(module, f"tool_{index}") for index in range(count)]


def toolweave_server(fns: list[Callable[..., Any]], page_size: int | None = 1000) -> Any:
    from toolweave import Server

    server = Server("many", page_size=page_size)
    for fn in fns:
        server.add_tool(fn)
    return server


def fastmcp_server(fns: list[Callable[..., Any]]) -> Any:
    from fastmcp import FastMCP

    server = FastMCP("many")
    for fn in fns:
        server.tool(fn)
    return server


async def serve(kind: str, count: int) -> None:
    fns = functions(count)
    if kind == "toolweave":
        await toolweave_server(fns).run_async()
    elif kind == "toolweave-one-page":
        await toolweave_server(fns, page_size=None).run_async()
    else:
        await fastmcp_server(fns).run_async(transport="stdio", show_banner=False)


if __name__ == "__main__":
    import anyio

    anyio.run(serve, sys.argv[1], int(sys.argv[2]))
