"""Compile a `MappedRun` into one straight-line function, once, when the tool is composed.

The common stack (renames, hidden constants, factories, the context, sync sources) becomes a
function that builds the base tool's arguments with a single dict display, the way `dataclasses`
generates `__init__`. Only argument *names* appear in the generated source, and only as `repr()`
string literals; every value (constants, sources, the base run) is passed in as a variable, never
as text. Calls whose arguments do not have exactly the exposed names (a middleware added or
removed one, or an optional argument of a schema tool was left out) take `MappedRun`'s general
path, which gives the same result.

Example:
    >>> from toolweave.core.tool import Tool
    >>> from toolweave.transforms import InjectArgs, MappedRun, TransformArgs
    >>> def search(q: str, api_key: str) -> str:
    ...     return q
    >>> tool = Tool.from_function(search).with_transforms(
    ...     TransformArgs({"q": "query"}), InjectArgs(api_key="k"))
    >>> tool.run.__name__, MappedRun.of(tool.run).argmap.forward
    ('mapped_search', {'query': 'q'})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolweave.transforms.argmap import MappedRun


def compile_run(mapped: MappedRun, tool_name: str) -> Any | None:
    """A fast function doing what `mapped` does, or `None` when its map needs the general path."""
    argmap = mapped.argmap
    if argmap.defaults or any(src.is_async for _, src in argmap.sources):
        return None
    names = [*argmap.forward, *argmap.forward.values(), *argmap.constants, *argmap.factories, *argmap.context]
    names += [name for name, _ in argmap.sources]
    if not all(isinstance(name, str) for name in names):
        return None
    env: dict[str, Any] = {"_inner": mapped.inner, "_general": mapped.general, "_constants": dict(argmap.constants)}
    items = [f"{base!r}: arguments[{exposed!r}]" for exposed, base in argmap.forward.items()]
    if argmap.constants:
        items.append("**_constants")
    lines = [
        "def mapped(arguments, ctx):",
        f"    if len(arguments) != {len(argmap.forward)}:",
        "        return _general(arguments, ctx)",
        "    try:",
        f"        out = {{{', '.join(items)}}}",
        "    except KeyError:",
        "        return _general(arguments, ctx)",
    ]
    for index, (name, factory) in enumerate(argmap.factories.items()):
        env[f"_factory{index}"] = factory
        lines.append(f"    out[{name!r}] = _factory{index}()")
    lines.extend(f"    out[{name!r}] = ctx" for name in argmap.context)
    for index, (name, src) in enumerate(argmap.sources):
        env[f"_source{index}"] = src.fn
        if src.arity == 2:
            env[f"_view{index}"] = src.view
            seen = "arguments" if src.view is None else f"{{_view{index}.get(k, k): v for k, v in arguments.items()}}"
            call = f"_source{index}(ctx, {seen})"
        else:
            call = f"_source{index}({'ctx' if src.arity == 1 else ''})"
        if src.coerce is None:
            lines.append(f"    out[{name!r}] = {call}")
            continue
        env[f"_coerce{index}"] = src.coerce
        env[f"_exact{index}"] = src.exact
        lines.append(f"    value = {call}")
        lines.append(f"    out[{name!r}] = value if type(value) is _exact{index} else _coerce{index}(value)")
    lines.append("    return _inner(out, ctx)")
    exec("\n".join(lines), env)  # names are repr() literals; values are passed in env
    function = env["mapped"]
    function.__name__ = function.__qualname__ = f"mapped_{tool_name}"
    function.mapped_run = mapped
    return function
