"""`UriPrefix`: how a mount renames resource URIs, forward and back.

The prefix becomes the first path segment: `scheme://path` → `scheme://prefix/path`, and a URI
without an authority, `scheme:path` → `scheme:prefix/path`. Templates are renamed the same way
(their `{params}` are untouched). `strip` undoes `apply`, so a read of the parent's URI reaches
the child under the child's own URI.

Example:
    >>> billing = UriPrefix("billing")
    >>> billing.apply("resource://invoices/{id}")
    'resource://billing/invoices/{id}'
    >>> billing.strip("resource://billing/invoices/42")
    'resource://invoices/42'
    >>> billing.under("resource://shipping/orders/7") is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPLIT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*:(?://)?)(.*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class UriPrefix:
    """The URI renaming of one mount (`None`: URIs pass through unchanged)."""

    prefix: str | None

    def apply(self, uri: str) -> str:
        """The parent's URI for the child's `uri`."""
        if not self.prefix:
            return uri
        head, rest = self._split(uri)
        return f"{head}{self.prefix}/{rest}"

    def strip(self, uri: str) -> str:
        """The child's URI for the parent's `uri` (the inverse of `apply`); `uri` itself when it
        is not under the prefix."""
        child_uri = self.under(uri)
        return uri if child_uri is None else child_uri

    def under(self, uri: str) -> str | None:
        """The child's URI for the parent's `uri`, or `None` when `uri` does not have the prefix
        as its first path segment (no URI of the child's is exposed there)."""
        if not self.prefix:
            return uri
        head, rest = self._split(uri)
        marker = f"{self.prefix}/"
        return f"{head}{rest[len(marker) :]}" if rest.startswith(marker) else None

    @staticmethod
    def _split(uri: str) -> tuple[str, str]:
        match = _SPLIT.fullmatch(uri)
        if match is None:
            raise ValueError(f"resource URI {uri!r} has no scheme")
        return match.group(1), match.group(2)
