"""Resolving `module:attribute` references from a config file, with errors that name the key.

Modules are imported with the config file's directory first on `sys.path`, then the current
directory, so a config can use a module that sits next to it or a package of the project it is
run from.

Example:
    >>> import_object("os.path:join", where="python[0].import") is __import__("os").path.join
    True
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from toolweave.core.errors import ConfigError


def add_search_path(directory: Path, *, first: bool = True) -> None:
    """Make modules in `directory` importable: ahead of everything else, or (`first=False`) last if absent."""
    entry = str(directory.resolve())
    if not first:
        if entry not in sys.path and "" not in sys.path and "." not in sys.path:
            sys.path.append(entry)
        return
    if entry in sys.path:
        sys.path.remove(entry)
    sys.path.insert(0, entry)


def import_object(reference: str, *, where: str) -> Any:
    """The object `reference` (`package.module:attr.sub`) names; `ConfigError` at `where` otherwise
    (a module whose import raises, or calls `sys.exit()`, included; Ctrl-C goes through)."""
    module_name, _, attribute = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        named = module_name.removesuffix(".py")  # `calc.py:server`: a file, where a module is meant
        hint = f" (name the module, not its file: '{named}:{attribute}')" if named != module_name else ""
        raise ConfigError(f"cannot import {reference!r}: no module named {missing!r}{hint}", path=where) from None
    except (Exception, SystemExit) as error:  # a module that exits as it is imported fails like any other
        raise ConfigError(
            f"cannot import {reference!r}: importing {module_name!r} raised {type(error).__name__}: {error}",
            path=where,
        ) from None
    target: Any = module
    walked = module_name  # what `target` is, as written: `calc`, then `calc:server`, `calc:server.tools`
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigError(
                f"cannot import {reference!r}: {walked!r} has no attribute {part!r}", path=where
            ) from None
        walked += f".{part}" if ":" in walked else f":{part}"
    return target
