"""No toolweave module reads another toolweave module's private names (STYLE.md 17 and 18).

Read from the source: a module's names bound by importing toolweave modules or their members
(`from toolweave.core.tool import ToolAnnotations`, `import toolweave.core.tool as tool`). A read
of `X._name` (or `X.a._name`) whose root `X` is one of those names reaches into another module's
privates: that module grows a public name or a method instead. So does importing a `_name` from
another toolweave module. `self._x` and `cls._x`, a module's own names, dunders and what other
packages keep private (the SDK's, the standard library's) are outside this guard.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "toolweave"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module an `ImportFrom` in `module` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    path = MODULES.get(module)
    package = module.split(".") if path is not None and path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _is_toolweave(module: str) -> bool:
    return module == "toolweave" or module.startswith("toolweave.")


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def private_reads(module: str, source: str) -> list[str]:
    """Where `module` (its `source`) reads or imports another toolweave module's private names."""
    tree = ast.parse(source)
    imported: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_toolweave(alias.name):
                    imported.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(module, node)
            if not _is_toolweave(origin) or origin == module:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {origin} import {alias.name}")
                imported.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = _root(node.value)
            if isinstance(root, ast.Name) and root.id in imported:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("module", list(MODULES))
def test_a_module_reads_no_private_name_of_another_toolweave_module(module: str) -> None:
    assert private_reads(module, MODULES[module].read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            "from toolweave.core.tool import ToolAnnotations\nToolAnnotations._WIRE\n",
            ["line 2: ToolAnnotations._WIRE"],
        ),
        ("import toolweave.core.tool as tool\ntool.Tool._x.y\n", ["line 2: tool.Tool._x"]),
        ("import toolweave.core.tool\ntoolweave.core.tool._helper()\n", ["line 2: toolweave.core.tool._helper"]),
        ("from toolweave.core.tool import _helper\n", ["line 1: from toolweave.core.tool import _helper"]),
        ("from ..core.tool import Tool\nTool._x\n", ["line 2: Tool._x"]),
    ],
)
def test_a_private_read_through_an_imported_toolweave_name_is_found(source: str, found: list[str]) -> None:
    assert private_reads("toolweave.server.example", source) == found


@pytest.mark.parametrize(
    "source",
    [
        "class Own:\n    _cache = {}\n    def get(self):\n        return self._cache, Own._cache\n",
        "from toolweave.core.tool import Tool\nclass T(Tool):\n    def f(self, cls):\n        return cls._x\n",
        "from mcp.shared.session import BaseSession\nBaseSession._receive_loop\n",
        "from toolweave.core.tool import Tool\nTool.__name__\n",
        "from toolweave.config.dialects import dialect_table as _dialect_table\n_dialect_table()\n",
    ],
)
def test_own_names_self_cls_dunders_and_other_packages_are_left_alone(source: str) -> None:
    assert private_reads("toolweave.server.example", source) == []
