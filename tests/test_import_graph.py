"""The package's imports run one way (docs/decisions.md, "One component pipeline").

Read from the source: the imports each module runs (those under `if TYPE_CHECKING:` run only for
the type checker and are left out), split into the ones it runs when imported and the ones inside
its functions. The first kind must form no cycle; `core/` imports nothing of toolweave above it;
`server/` reaches the MCP serving layer and the OpenAPI server only inside the functions that
need them, in the few places named here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "toolweave"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


class _Imports(ast.NodeVisitor):
    """The toolweave modules one module imports: `(target, inside a function)` pairs."""

    def __init__(self) -> None:
        self.found: list[tuple[str, bool]] = []
        self._depth = 0

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.orelse:
                self.visit(statement)
            return
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [(alias.name, self._depth > 0) for alias in node.names if alias.name in MODULES]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module not in MODULES:
            return
        submodules = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in MODULES]
        self.found += [(target, self._depth > 0) for target in [module, *submodules]]


def imports(module: str) -> list[tuple[str, bool]]:
    """What `module` imports of toolweave: `(target module, inside a function)` pairs."""
    visitor = _Imports()
    visitor.visit(ast.parse(MODULES[module].read_text(encoding="utf-8")))
    return [(target, local) for target, local in visitor.found if target != module]


def runs_when_imported(module: str) -> set[str]:
    """The toolweave modules importing `module` runs: its module-level imports and the packages
    they sit in (importing `toolweave.tasks.waiting` runs `toolweave/tasks/__init__` first), but
    for the root package and the packages `module` itself sits in (already being imported)."""
    own = set(_packages_of(module))
    targets = {target for target, local in imports(module) if not local}
    return targets | {package for target in targets for package in _packages_of(target) if package not in own}


def _packages_of(module: str) -> list[str]:
    """The packages below the root that `module` sits in: `toolweave.tasks` for `toolweave.tasks.waiting`."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(2, len(parts))]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as the modules along it, or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def walk(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph[node]):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done and (found := walk(target)) is not None:
                return found
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in graph:
        if start not in done and (found := walk(start)) is not None:
            return found
    return None


def test_the_imports_a_module_runs_when_imported_form_no_cycle() -> None:
    graph = {module: runs_when_imported(module) - {module} for module in MODULES}
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle or ())


def test_a_cycle_is_found_and_shown_along_its_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"b"}, "d": set()}
    assert _cycle(graph) == ["b", "c", "b"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _within(package: str) -> Iterator[str]:
    return (module for module in MODULES if module == package or module.startswith(f"{package}."))


@pytest.mark.parametrize("module", list(_within("toolweave.core")))
def test_core_imports_only_core(module: str) -> None:
    above = [target for target, _ in imports(module) if not target.startswith("toolweave.core")]
    assert above == []


BELOW_SERVER = (
    "toolweave.core",
    "toolweave.transforms",
    "toolweave.middleware",
    "toolweave.store",
    "toolweave.telemetry",
)
"""What `server/` builds on (its span helpers are in `telemetry/`; what would close a loop, the
cycle test finds)."""
SERVER_REACHES_UP = {
    ("toolweave.server.server", "toolweave.mcp.adapter"),  # as_mcp()
    ("toolweave.server.server", "toolweave.mcp.serve"),  # run(), run_async(), http_app()
    ("toolweave.server.remote", "toolweave.mcp.upstream"),  # the client session of a remote
    ("toolweave.server.remote", "toolweave.openapi.server"),  # RemoteServer.openapi (httpx on use)
}
"""The imports from `server/` into the layers above it, each inside the function that needs it."""


@pytest.mark.parametrize("module", list(_within("toolweave.server")))
def test_server_reaches_the_layers_above_only_inside_the_functions_named(module: str) -> None:
    upward = [
        (target, local)
        for target, local in imports(module)
        if not target.startswith(("toolweave.server", *BELOW_SERVER))
    ]
    unlisted = [target for target, local in upward if not local or (module, target) not in SERVER_REACHES_UP]
    assert unlisted == []
