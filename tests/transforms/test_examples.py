"""Every `Example:` block in the transforms package (and `explain`) runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import toolweave.transforms


def modules() -> list[ModuleType]:
    # `toolweave.explain` is the function (exported from the package); the module is in sys.modules
    found = [toolweave.transforms, importlib.import_module("toolweave.explain")]
    infos = pkgutil.iter_modules(toolweave.transforms.__path__, "toolweave.transforms.")
    found.extend(importlib.import_module(info.name) for info in infos)
    return found


@pytest.mark.parametrize("module", modules(), ids=lambda m: m.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(module, module.__name__, globs=dict(vars(module)))
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} example(s) failed in {module.__name__}"
    assert results.attempted > 0, f"{module.__name__} has no runnable example"


@pytest.mark.parametrize(
    "name", sorted(n for n in toolweave.transforms.__all__ if n[0].isupper() and n not in ("NOT_SET",))
)
def test_each_public_transform_documents_an_example(name: str) -> None:
    doc = getattr(toolweave.transforms, name).__doc__ or ""
    assert "Example:" in doc and ">>>" in doc
