"""`toolweave serve` as a subprocess, and what it left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
from anyio.abc import Process

from tests.conftest import subprocess_env
from tests.serving import toolweave_started

from .raw import SERVERS, RawStdio

GATEWAY = SERVERS / "gateway.yaml"


async def serve_stdio(*options: str, config: Path = GATEWAY) -> RawStdio:
    """`toolweave serve CONFIG` over stdio, initialized."""
    process = await anyio.open_process(
        [sys.executable, "-m", "toolweave.cli", "serve", str(config), *options],
        env=subprocess_env(PYTHON=sys.executable),
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return await RawStdio.started(process)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (zombies included), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def living(pids: list[int]) -> list[int]:
    """Those of `pids` that still exist (zombies included)."""
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def zombies() -> list[int]:
    """Processes of this user that are zombies right now."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state == "Z":
                found.append(int(entry.name))
    return found


def terminate(process: Process, sig: int = signal.SIGTERM) -> None:
    os.kill(process.pid, sig)


async def serve_http(*options: str, config: Path = GATEWAY) -> tuple[Process, str]:
    """`toolweave serve CONFIG --transport http` on a free port, once it listens; and its MCP URL."""
    process, url = await toolweave_started(config, *options)
    return process, f"{url}/mcp"
