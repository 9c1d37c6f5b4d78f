"""Every middleware module teaches by example (pytest runs the examples with `--doctest-modules`)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import toolweave.middleware

SUBMODULES = pkgutil.iter_modules(toolweave.middleware.__path__, "toolweave.middleware.")
MODULES = ["toolweave.middleware", *sorted(info.name for info in SUBMODULES)]


@pytest.mark.parametrize("name", MODULES)
def test_every_module_has_a_runnable_example(name: str) -> None:
    tests = doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name)
    assert any(test.examples for test in tests), f"{name} has no Example: block"


def test_exports_are_sorted_and_complete() -> None:
    exported = toolweave.middleware.__all__
    assert exported == sorted(exported)
    assert all(hasattr(toolweave.middleware, name) for name in exported)
