"""Every benchmark module imports (a renamed helper must not silently drop a module from a run)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import benchmarks

MODULES = sorted(found.name for found in pkgutil.iter_modules(benchmarks.__path__) if found.name.startswith("bench_"))


def test_the_benchmark_modules_are_found() -> None:
    assert {"bench_core", "bench_middleware", "bench_tasks"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_benchmark_module_imports_and_has_its_collector(name: str) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    assert callable(module.collect)
