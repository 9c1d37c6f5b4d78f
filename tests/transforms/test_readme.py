"""The README's Transforms example runs as written."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT, subprocess_env


def test_readme_transforms_example_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Transforms", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    done = subprocess.run(
        [sys.executable, "-c", code.group(1)], env=subprocess_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
