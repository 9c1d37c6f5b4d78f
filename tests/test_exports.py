"""The public surface: every package's `__all__` names exactly what it exports.

For each public package: every name in `__all__` resolves and appears once; every
public class and function the package holds (defined in toolweave) is in `__all__`, so nothing
is exported by accident or left out by mistake; every error class of `toolweave.core.errors`
is exported from `toolweave`.
"""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType

import pytest

import toolweave
from toolweave.core import errors

PACKAGES = [
    "toolweave",
    "toolweave.auth",
    "toolweave.config",
    "toolweave.middleware",
    "toolweave.tasks",
    "toolweave.openapi",
    "toolweave.store",
    "toolweave.transforms",
]


def _public_members(module: ModuleType) -> set[str]:
    """Public classes and functions the package namespace holds that toolweave itself defines."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", "").startswith("toolweave")
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_unique_and_importable(package: str) -> None:  # its order is checked by ruff (RUF022)
    module = importlib.import_module(package)
    names = list(module.__all__)
    assert len(names) == len(set(names))
    missing = [name for name in names if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_member_is_in_all(package: str) -> None:
    module = importlib.import_module(package)
    unlisted = sorted(_public_members(module) - set(module.__all__))
    assert unlisted == [], f"{package} holds public names missing from __all__: {unlisted}"


def test_every_error_class_is_exported_from_toolweave() -> None:
    defined = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == errors.__name__
    }
    assert sorted(defined - set(toolweave.__all__)) == []


@pytest.mark.parametrize("package", PACKAGES[1:])
def test_names_exported_twice_are_the_same_object(package: str) -> None:
    module = importlib.import_module(package)
    shared = set(module.__all__) & set(toolweave.__all__)
    assert [name for name in shared if getattr(module, name) is not getattr(toolweave, name)] == []
