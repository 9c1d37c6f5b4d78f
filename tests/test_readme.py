"""Every Python example in the README runs as written (a fresh interpreter per example)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, run_python

NOT_RUN = "<!-- not run"
CONTINUES = "<!-- continues"
BLOCK = re.compile(r"(<!--[^\n]*-->\n)?```python\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, str]]:
    """(heading, code) for each runnable block; a block that continues another gets that one prepended."""
    readme = (ROOT / "README.md").read_text()
    found: list[tuple[str, str]] = []
    for match in BLOCK.finditer(readme):
        marker, code = match.group(1) or "", match.group(2)
        heading = re.findall(r"^## (.+)$", readme[: match.start()], re.MULTILINE)[-1]
        if marker.startswith(NOT_RUN):
            continue
        if marker.startswith(CONTINUES):
            earlier = re.search(r'"(.+)"', marker)
            assert earlier, f"say which example {heading!r} continues"
            code = dict(found)[earlier.group(1)] + "\n" + code
        found.append((heading, code))
    return found


def test_the_readme_has_runnable_examples() -> None:
    assert {heading for heading, _ in examples()} >= {"Tools from functions", "Transforms", "Middleware"}


@pytest.mark.parametrize(("heading", "code"), examples(), ids=[heading for heading, _ in examples()])
def test_readme_example_runs(heading: str, code: str) -> None:
    done = run_python(code, SEARCH_KEY="k")
    assert done.returncode == 0, f"{heading}:\n{done.stderr[-3000:]}"
