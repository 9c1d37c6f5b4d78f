"""`Visibility`: what `server.enable(...)` / `server.disable(...)` show and hide, for every kind.

A component is hidden when it was created disabled (`enabled=False`), when one of its names (a
tool's or prompt's name; a resource's name or URI) was disabled, or when one of its tags was;
`enable` of a name shows it again, whatever it was created with. One `Visibility` per server
answers for its tools, prompts and resources alike.

Example:
    >>> rules = Visibility()
    >>> rules.disable(["search"], tags=["beta"])
    >>> rules.shows(True, frozenset(), ["search"]), rules.shows(True, frozenset({"beta"}), ["fetch"])
    (False, False)
    >>> rules.enable(["search"], tags=[])
    >>> rules.shows(True, frozenset(), ["search"])
    True
"""

from __future__ import annotations

from collections.abc import Iterable


class Visibility:
    """The names and tags a server has enabled or disabled."""

    __slots__ = ("hidden_names", "hidden_tags", "shown_names")

    def __init__(self) -> None:
        self.hidden_names: set[str] = set()
        self.hidden_tags: set[str] = set()
        self.shown_names: set[str] = set()

    def disable(self, names: Iterable[str], tags: Iterable[str]) -> None:
        """Hide components by name (or URI) and by tag."""
        names = set(names)
        self.hidden_names |= names
        self.shown_names -= names
        self.hidden_tags |= set(tags)

    def enable(self, names: Iterable[str], tags: Iterable[str]) -> None:
        """Undo `disable`, and show components created with `enabled=False`."""
        names = set(names)
        self.hidden_names -= names
        self.shown_names |= names
        self.hidden_tags -= set(tags)

    @property
    def by_flag_only(self) -> bool:
        """Whether no name or tag was enabled or disabled (a component's `enabled` alone decides)."""
        return not (self.hidden_names or self.hidden_tags or self.shown_names)

    def shows(self, enabled: bool, tags: frozenset[str], names: Iterable[str]) -> bool:
        """Whether a component with these flags, tags and names (name, URI...) is exposed."""
        keys = tuple(names)
        if any(key in self.shown_names for key in keys):
            return True
        if not enabled or any(key in self.hidden_names for key in keys):
            return False
        return not (tags & self.hidden_tags)
