"""The one argument rewrite: a `MappedRun` compiled into one straight-line function, once.

When a tool is composed, its fused argument map becomes a function that builds the base tool's
arguments, the way `dataclasses` generates `__init__`. A call whose arguments have exactly the
exposed names (the usual case: validated arguments with nothing left out) builds them with a
single dict display; any other set (an optional argument left out, an extra one a middleware
added) is copied and renamed in one pass (renames are simultaneous, so swapped names are fine;
a renamed value wins over a same-named extra). Then, in this order: the fixed values (a copy for
each call of one a tool could change in place), the defaults of arguments that were not sent, the
factories, the context, the sources (awaited when async: only then is the function a coroutine of
its own). Argument names appear in the source only as `repr()` literals of strings; every value
(constants, sources, the base run) and any other name is passed in as a variable, never as text.

Example:
    >>> from toolweave.core.tool import Tool
    >>> from toolweave.transforms import InjectArgs, TransformArgs
    >>> from toolweave.transforms.argmap import MappedRun
    >>> def search(q: str, api_key: str) -> str:
    ...     return q
    >>> tool = Tool.from_function(search).with_transforms(
    ...     TransformArgs({"q": "query"}), InjectArgs(api_key="k"))
    >>> tool.run.__name__, MappedRun.of(tool.run).argmap.forward
    ('mapped_search', {'query': 'q'})
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from toolweave.core.shareable import shareable

if TYPE_CHECKING:
    from toolweave.transforms.argmap import MappedRun


class _Source:
    """The generated function's text and variables, as they are added."""

    def __init__(self, mapped: MappedRun) -> None:
        self.env: dict[str, Any] = {"_inner": mapped.inner}
        self.lines: list[str] = []

    def name(self, name: Any) -> str:
        """`name` as an expression: a literal for a string, else a variable holding it."""
        if type(name) is str:
            return repr(name)
        return self.value(name, "_name")

    def value(self, value: Any, prefix: str) -> str:
        """A new variable holding `value`."""
        variable = f"{prefix}{len(self.env)}"
        self.env[variable] = value
        return variable


def compile_run(mapped: MappedRun, tool_name: str) -> Any:
    """The function doing what `mapped` describes (its `mapped_run` attribute is `mapped`)."""
    argmap = mapped.argmap
    is_async = any(src.is_async for _, src in argmap.sources)
    code = _Source(mapped)
    lines = code.lines
    renames = tuple((new, old) for new, old in argmap.forward.items() if new != old)
    shared = {name: value for name, value in argmap.constants.items() if shareable(value)}
    items = [f"{code.name(base)}: arguments[{code.name(exposed)}]" for exposed, base in argmap.forward.items()]
    if shared:
        items.append(f"**{code.value(shared, '_constants')}")
    lines += [
        f"{'async def' if is_async else 'def'} mapped(arguments, ctx):",
        f"    if len(arguments) == {len(argmap.forward)}:",
        "        try:",
        f"            out = {{{', '.join(items)}}}",
        "        except KeyError:",
        "            out = _any(arguments)",
        "    else:",
        "        out = _any(arguments)",
    ]
    code.env["_any"] = _any_arguments(renames, shared)
    code.env["_copy"] = copy.deepcopy
    for name, value in argmap.constants.items():  # a list, a dict, a model: each call its own copy
        if name not in shared:
            lines.append(f"    out[{code.name(name)}] = _copy({code.value(value, '_constant')})")
    for name, value in argmap.defaults.items():
        key = code.name(name)
        fresh = code.value(value, "_default") if shareable(value) else f"_copy({code.value(value, '_default')})"
        lines.append(f"    if {key} not in out:")
        lines.append(f"        out[{key}] = {fresh}")
    for name, factory in argmap.factories.items():
        lines.append(f"    out[{code.name(name)}] = {code.value(factory, '_factory')}()")
    lines.extend(f"    out[{code.name(name)}] = ctx" for name in argmap.context)
    for name, src in argmap.sources:
        fn = code.value(src.fn, "_source")
        if src.arity == 2:
            seen = "arguments"
            if src.view is not None:
                seen = f"{{{code.value(src.view, '_view')}.get(k, k): v for k, v in arguments.items()}}"
            call = f"{fn}(ctx, {seen})"
        else:
            call = f"{fn}({'ctx' if src.arity == 1 else ''})"
        if src.is_async:
            call = f"(await {call})"
        key = code.name(name)
        if src.coerce is None:
            lines.append(f"    out[{key}] = {call}")
            continue
        exact_type, coerce = code.value(src.exact, "_exact"), code.value(src.coerce, "_coerce")
        lines.append(f"    value = {call}")
        lines.append(f"    out[{key}] = value if type(value) is {exact_type} else {coerce}(value)")
    lines.append(f"    return {'await ' if is_async else ''}_inner(out, ctx)")
    exec("\n".join(lines), code.env)  # names are repr() literals of strings; values are variables
    function = code.env["mapped"]
    function.__name__ = function.__qualname__ = f"mapped_{tool_name}"
    function.mapped_run = mapped
    return function


def _any_arguments(renames: tuple[tuple[Any, Any], ...], constants: dict[str, Any]) -> Any:
    """The rewrite of an argument set without exactly the exposed names: copy, rename, fix."""

    def rewrite(arguments: dict[str, Any]) -> dict[str, Any]:
        out = dict(arguments)
        if renames:
            moved = {old: out.pop(new) for new, old in renames if new in out}
            out.update(moved)
        if constants:
            out.update(constants)
        return out

    return rewrite
