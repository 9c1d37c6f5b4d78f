"""Running the real `toolweave` command in a subprocess, as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "config" / "fixtures"
EXAMPLES = ROOT / "examples"
COMMAND = [sys.executable, "-m", "toolweave.cli"]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """`toolweave *args` from the repository root; returns the finished process (text output)."""
    return subprocess.run(
        [*COMMAND, *args],
        cwd=ROOT,
        env=subprocess_env(**(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
