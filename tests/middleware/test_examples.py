"""Every `Example:` block in `toolweave.middleware` runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import toolweave
import toolweave.middleware

SUBMODULES = pkgutil.iter_modules(toolweave.middleware.__path__, "toolweave.middleware.")
MODULES = ["toolweave.middleware", *sorted(info.name for info in SUBMODULES)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    names = {**vars(toolweave), **vars(toolweave.middleware), **vars(module)}
    globs = {key: value for key, value in names.items() if not key.startswith("__")}
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(module, name, globs=globs)
    assert any(test.examples for test in tests), f"{name} has no examples"
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) failed in {name}"


def test_exports_are_sorted_and_complete() -> None:
    exported = toolweave.middleware.__all__
    assert exported == sorted(exported)
    assert all(hasattr(toolweave.middleware, name) for name in exported)
