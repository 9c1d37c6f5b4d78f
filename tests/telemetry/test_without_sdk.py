"""Without an OpenTelemetry SDK nothing is added to the call path (checked in a fresh process:
this one has the SDK installed by the other telemetry tests)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import subprocess_env

SCRIPT = """
import anyio, mcp
from toolweave import Server
from toolweave.mcp.adapter import adapter_for

billing = Server("billing")
billing.add_tool(lambda a: a, name="echo")
gateway = Server("gateway")
gateway.mount(billing, prefix="billing")

async def main():
    async with mcp.Client(gateway.as_mcp()) as client:
        result = await client.call_tool("billing_echo", {"a": "x"})
        observer = adapter_for(gateway).observer
    mounted = gateway.catalog.get("billing_echo").tool.run
    print(result.is_error, observer, mounted is billing.catalog.get("echo").tool.run)

anyio.run(main)
"""


def test_no_observer_and_no_mount_wrapper_without_an_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=subprocess_env(), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "None", "True"]
