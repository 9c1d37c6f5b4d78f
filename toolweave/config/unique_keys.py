"""A key given twice in one mapping of a YAML or JSON file: found while parsing, reported with
its key path (and, in YAML, its lines) instead of the last one silently winning.

TOML needs nothing here: `tomllib` refuses a key declared twice itself.

Example:
    >>> load_yaml("mcpServers:\\n  a: {command: x}\\n  a: {command: y}\\n")
    Traceback (most recent call last):
    ...
    toolweave.config.unique_keys.KeysTwice: mcpServers.a: key 'a' appears twice under mcpServers (lines 2 and 3)
    >>> load_json('{"server": {"name": "a", "name": "b"}}')
    Traceback (most recent call last):
    ...
    toolweave.config.unique_keys.KeysTwice: server.name: key 'name' appears twice under server
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from toolweave.config.paths import key_path

_MERGE = "tag:yaml.org,2002:merge"  # `<<: *defaults`: keys written next to it override the merged ones


@dataclass(frozen=True, slots=True)
class Twice:
    """One key given more than once: where its mapping is, the key, and its lines (YAML)."""

    parent: tuple[Any, ...]
    key: str
    lines: tuple[int, ...] = ()

    def __str__(self) -> str:
        under = f"under {key_path(self.parent)}" if self.parent else "at the top level"
        lines = sorted(set(self.lines))
        listed = f" (lines {', '.join(map(str, lines[:-1]))} and {lines[-1]})" if len(lines) > 1 else ""
        listed = f" (line {lines[0]})" if len(lines) == 1 else listed
        times = "twice" if len(self.lines) < 3 else f"{len(self.lines)} times"
        return f"{key_path((*self.parent, self.key))}: key {self.key!r} appears {times} {under}{listed}"


class KeysTwice(ValueError):
    """A file gives a key twice in one mapping; `found` lists every such key, in file order."""

    def __init__(self, found: list[Twice]) -> None:
        self.found = found
        super().__init__("; ".join(map(str, found)))


# -- YAML --------------------------------------------------------------------------------------------


def _yaml_twice(root: yaml.Node) -> Iterator[Twice]:
    """Every key given twice in a mapping of the node tree (walked before it becomes Python data)."""
    seen: set[int] = set()  # an alias is the node it names: walk each node once
    stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*path, index)) for index, item in reversed(list(enumerate(node.value))))
        elif isinstance(node, yaml.MappingNode):
            lines: dict[tuple[str, str], list[int]] = {}
            children = []
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE:
                    lines.setdefault((key.tag, key.value), []).append(key.start_mark.line + 1)
                    children.append((value, (*path, key.value)))
            yield from (Twice(path, key, tuple(at)) for (_, key), at in lines.items() if len(at) > 1)
            stack.extend(reversed(children))


class _Loader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses a mapping giving a key twice (`KeysTwice`)."""

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        found = list(_yaml_twice(node))
        if found:
            raise KeysTwice(found)
        return self.construct_document(node)


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, refusing a key given twice in one mapping (`KeysTwice`)."""
    return yaml.load(text, Loader=_Loader)  # a SafeLoader: builds plain data only


# -- JSON --------------------------------------------------------------------------------------------


class _Repeated(dict[str, Any]):
    """An object that gave these keys more than once (marked while parsing, found with its path after)."""

    repeated: list[str]


def _json_twice(data: Any, path: tuple[Any, ...] = ()) -> Iterator[Twice]:
    if isinstance(data, _Repeated):
        yield from (Twice(path, key) for key in data.repeated)
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _json_twice(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _json_twice(value, (*path, index))


def load_json(text: str) -> Any:
    """`json.loads(text)`, refusing a key given twice in one object (`KeysTwice`).

    Objects are built as `json` builds them; only a file that repeats a key is walked again, to
    name where.
    """
    marked: list[_Repeated] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(items)
        if len(found) == len(items):
            return found
        repeated = _Repeated(found)
        keys = [key for key, _ in items]
        repeated.repeated = [key for key in found if keys.count(key) > 1]
        marked.append(repeated)
        return repeated

    data = json.loads(text, object_pairs_hook=pairs)
    if marked:
        raise KeysTwice(list(_json_twice(data)))
    return data
