"""Packages some tests need that an install may leave out (extras, interop peers).

`require(module, reason)` skips the calling test module (or test) only when the package is not
installed at all; an installed package that fails to import fails the test instead, so a broken
dependency is never hidden as a skip (`pytest.importorskip` skips on either).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import pytest


def require(module: str, reason: str) -> ModuleType:
    """`module`, imported; a skip saying `reason` if its top-level package is not installed."""
    if importlib.util.find_spec(module.partition(".")[0]) is None:
        pytest.skip(reason, allow_module_level=True)
    return importlib.import_module(module)
