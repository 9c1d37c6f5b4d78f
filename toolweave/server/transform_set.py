"""`TransformSet`: the transforms added to one server (`Server.add_transform`), by kind, in order.

A transform for components is kept with the `Selector` that chooses them, for each kind it is
added to: tools (chosen by `tools=` and `tags=`), prompts (`prompts=`) and resources
(`resources=`; only a transform made for every kind, such as `Authorize`, takes these two). A
`CatalogTransform` reshapes the compiled tool catalog instead and takes no selector. Adding a
transform applies it at once to what it selects in every kind it is added to: if it does not fit
one component, it is taken back from every kind (all or nothing), and the error names the
component.

Example:
    >>> from toolweave import Server
    >>> from toolweave.transforms import Authorize, Rename
    >>> server = Server("demo")
    >>> server.add_transform(Rename("lookup"), tools="search")
    >>> server.add_transform(Authorize(scopes=["admin"]), prompts="admin_*")  # prompts only
    >>> [type(t).__name__ for t, _ in server.transforms], [s.names for _, s in server.transforms_for("prompt")]
    (['Rename'], [('admin_*',)])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from toolweave.middleware.selector import Selector
from toolweave.server.registry import Registry
from toolweave.transforms.catalog import CatalogTransform

Chosen = tuple[Any, Selector | None]
"""A transform and the selector choosing the components it applies to (`None`: all of them)."""


class TransformSet:
    """The transforms added to one server."""

    __slots__ = ("catalog", "kinds")

    def __init__(self) -> None:
        self.kinds: dict[str, list[Chosen]] = {"tool": [], "prompt": [], "resource": []}
        """The transforms of each kind (`"tool"`, `"prompt"`, `"resource"`), with their selectors."""
        self.catalog: list[CatalogTransform] = []
        """The catalog transforms, applied to the compiled tool catalog in order."""

    def add(
        self,
        transform: Any,
        registry: Callable[[str], Registry[Any, Any]],
        *,
        tools: Selector | str | Iterable[str] | None,
        tags: Iterable[str],
        prompts: Selector | str | Iterable[str] | None,
        resources: Selector | str | Iterable[str] | None,
    ) -> None:
        """Add `transform` for the kinds chosen (see `Server.add_transform`), fitted to the
        components of each (`registry(kind)`) before any of them keeps it.

        Raises:
            TypeError: a catalog transform with selectors, or a tool transform given `prompts=`
                or `resources=`.
            TransformError: the transform does not fit a component it selects (nothing is kept).
            DuplicateError: under `on_duplicate="error"`, it gives two local components one name.
        """
        if isinstance(transform, CatalogTransform):
            if tools is not None or tags or prompts is not None or resources is not None:
                raise TypeError(f"{transform.describe()} applies to the whole catalog: it takes no selectors")
            self.catalog.append(transform)
            return
        chosen = {"prompt": prompts, "resource": resources}
        for kind, names in chosen.items():
            if names is not None and kind not in getattr(transform, "kinds", ()):
                raise TypeError(f"{type(transform).__name__} applies to tools only, not to {kind}s")
        added = {kind: self.kinds[kind] for kind, names in chosen.items() if names is not None}
        if tools is not None or tags or not added:
            added["tool"] = self.kinds["tool"]
            self.kinds["tool"].append((transform, _selector(tools, tags)))
        for kind, names in chosen.items():
            if names is not None:
                self.kinds[kind].append((transform, _selector(names, tags)))
        try:  # every kind fits (and names no two components alike), or none keeps anything
            fitted = {kind: registry(kind).fit() for kind in added}
            for kind, shapes in fitted.items():
                registry(kind).refuse_clashes(shapes)
        except Exception:
            for transforms in added.values():
                transforms.pop()
            raise
        for kind, shapes in fitted.items():
            registry(kind).keep(shapes)


def _selector(names: Selector | str | Iterable[str] | None, tags: Iterable[str]) -> Selector | None:
    selector = Selector.coerce(names)
    if tags:  # with the selector's other criteria (a predicate, hints), not its names alone
        selector = dataclasses.replace(selector, tags=frozenset(tags)) if selector else Selector(tags=tags)
    return selector
