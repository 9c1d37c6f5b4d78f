"""Every store module teaches by example (pytest runs the examples with `--doctest-modules`)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import toolweave.store

SUBMODULES = pkgutil.iter_modules(toolweave.store.__path__, "toolweave.store.")
MODULES = ["toolweave.store", *sorted(info.name for info in SUBMODULES)]


@pytest.mark.parametrize("name", MODULES)
def test_every_module_has_a_runnable_example(name: str) -> None:
    tests = doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name)
    assert any(test.examples for test in tests), f"{name} has no Example: block"


def test_exports_are_sorted_and_complete() -> None:
    exported = toolweave.store.__all__
    assert exported == sorted(exported)
    assert all(hasattr(toolweave.store, name) for name in exported)
