"""Optional dependencies (the extras), imported where they are used.

A package that is not installed and one that is installed but fails to import are different
problems: the first wants `pip install 'toolweave[extra]'`, the second its own error (a broken
dependency, a version clash), which that hint would hide. `installed` tells them apart without
importing the package; `need` imports it, or says which extra to install.

Example:
    >>> installed("json"), installed("surely_not_installed_here"), installed("json.surely_not_here")
    (True, False, False)
    >>> need("surely_not_installed_here", "this needs the demo extra: pip install 'toolweave[demo]'")
    Traceback (most recent call last):
    ...
    ImportError: this needs the demo extra: pip install 'toolweave[demo]'
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType


def installed(module: str) -> bool:
    """Whether `module` (dotted) can be found, without importing it (its parent packages are)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def need(module: str, missing: str) -> ModuleType:
    """`module`, imported; `ImportError(missing)` when it is not installed (an installed module that
    fails to import raises its own error)."""
    if not installed(module):
        raise ImportError(missing)
    return importlib.import_module(module)
