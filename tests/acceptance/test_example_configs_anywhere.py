"""Every example config lists its tools when run from its own folder by a toolweave that is
installed, not checked out: its Python modules are found beside the file.

`search_gateway.yaml` imported `examples.local_tools`, which resolves only where the checkout
itself is importable (an editable install, or `python -m toolweave` from its root): from a wheel,
or from the `examples` folder, it failed with "no module named 'examples'" (and under another
checkout's editable install it took that checkout's file).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.acceptance.cli_helpers import EXAMPLES, ROOT
from tests.conftest import subprocess_env

ENV = {"PYTHON": sys.executable, "WEATHER_API_KEY": "demo-key", "PETSTORE_KEY": "demo-key"}
INSTALLED = """
import sys
from pathlib import Path
sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if not (Path(p or ".") / "examples").is_dir()]
from toolweave.cli import main
main()
"""
"""`toolweave ARGS` as an installed one runs: the package from a folder of its own (argv[1]), no
entry of `sys.path` (the working directory, an editable install's checkout) holding `examples/`."""


@pytest.mark.parametrize("config", sorted(path.name for path in EXAMPLES.glob("*.yaml")))
def test_an_example_config_lists_its_tools_from_its_folder(config: str, tmp_path: Path) -> None:
    (tmp_path / "toolweave").symlink_to(ROOT / "toolweave")
    done = subprocess.run(
        [sys.executable, "-c", INSTALLED, str(tmp_path), "list", config, "--json"],
        cwd=EXAMPLES,
        env=subprocess_env(**ENV),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"tools"' in done.stdout
