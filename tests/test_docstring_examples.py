"""Every `Example:` in toolweave's docstrings runs, and shows what it asserts.

The default `pytest` run collects the package's doctests (`testpaths` holds `toolweave`, `addopts`
has `--doctest-modules`), so an example that no longer works fails the run. An example shows at
least one result (a `>>>` line with its expected output); a line it cannot run (it serves until
interrupted, or starts a process) is marked `# doctest: +SKIP` after a comment saying why.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import toolweave.middleware
import toolweave.store
from tests.conftest import ROOT

PACKAGE = ROOT / "toolweave"
HEADING = re.compile(r"^Examples?:\s*$", re.MULTILINE)
SKIP = re.compile(r"#\s*doctest:.*\+SKIP")
REASONED_SKIP = re.compile(r"\S.*#\s*\S.*#\s*doctest:.*\+SKIP")


def _docstrings(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef))]
    found = []
    for node in nodes:
        doc = ast.get_docstring(node, clean=True)
        if doc:
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}"
            found.append((where, doc))
    return found


def _example_blocks() -> list[tuple[str, str]]:
    """Each `Example:` section of the package's docstrings: where it is, and its indented body."""
    blocks = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for where, doc in _docstrings(path):
            for heading in HEADING.finditer(doc):
                body = []
                for line in doc[heading.end() :].splitlines()[1:]:
                    if line and not line.startswith(" "):
                        break
                    body.append(line)
                blocks.append((where, "\n".join(body)))
    return blocks


BLOCKS = _example_blocks()


def _results(block: str) -> list[str]:
    """The expected-output lines of `block` (lines right after an example, not examples themselves)."""
    results, in_example = [], False
    for line in (line.strip() for line in block.splitlines()):
        if line.startswith((">>>", "...")):
            in_example = not SKIP.search(line)
        elif not line:
            in_example = False
        elif in_example:
            results.append(line)
    return results


def test_the_package_has_examples() -> None:
    assert len(BLOCKS) > 200


@pytest.mark.parametrize(("where", "block"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_every_example_runs_and_shows_a_result(where: str, block: str) -> None:
    assert ">>>" in block, f"{where}: the Example is prose; write it as `>>>` lines"
    assert _results(block), f"{where}: the Example shows no result; end it with a `>>>` and its output"


@pytest.mark.parametrize(("where", "block"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_a_skipped_example_line_says_why(where: str, block: str) -> None:
    unexplained = [line.strip() for line in block.splitlines() if SKIP.search(line) and not REASONED_SKIP.search(line)]
    assert unexplained == [], f"{where}: put a comment saying why before `# doctest: +SKIP`"


def test_the_default_run_collects_the_packages_doctests() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "toolweave" in options["testpaths"]
    assert "--doctest-modules" in options["addopts"].split()


@pytest.mark.parametrize(("shown", "outcome"), [("3", "1 passed"), ("4", "1 failed")])
def test_an_example_that_does_not_hold_fails_the_run(tmp_path: Path, shown: str, outcome: str) -> None:
    module = tmp_path / "adding.py"
    module.write_text(f'"""Adding.\n\nExample:\n    >>> 1 + 2\n    {shown}\n"""\n', encoding="utf-8")
    config = ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", *config]  # one example needs no workers
    done = subprocess.run([*command, str(module)], capture_output=True, text=True, timeout=60, check=False)
    assert outcome in done.stdout, done.stdout + done.stderr
    assert done.returncode == (0 if outcome == "1 passed" else 1)


def _modules(*packages: ModuleType) -> list[str]:
    names = []
    for package in packages:
        names.append(package.__name__)
        names += sorted(info.name for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."))
    return names


@pytest.mark.parametrize("name", _modules(toolweave.middleware, toolweave.store))
def test_every_middleware_and_store_module_has_a_runnable_example(name: str) -> None:
    tests = doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name)
    assert any(test.examples for test in tests), f"{name} has no Example: block"
