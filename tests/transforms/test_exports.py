"""The public names of toolweave.transforms: all importable, the main ones at the top level."""

from __future__ import annotations

import toolweave
import toolweave.transforms


def test_all_names_resolve_once() -> None:  # their order is checked by ruff (RUF022)
    names = toolweave.transforms.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(toolweave.transforms, name) is not None


def test_main_transforms_are_exported_from_toolweave() -> None:
    for name in ("Arg", "ExcludeArgs", "FromContext", "FromEnv", "InjectArgs", "Rename", "TransformArgs"):
        assert getattr(toolweave, name) is getattr(toolweave.transforms, name)
    assert callable(toolweave.explain) and "explain" in toolweave.__all__
