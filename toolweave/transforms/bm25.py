"""A BM25 index over tool descriptions, built once per catalog compile, queried in microseconds.

Each tool is one document: its name (counted twice: a name says most), description, argument
names and argument descriptions. Words are split at case changes, digits and punctuation
(`getUserById` → `get user by id`), lower-cased, and a plural `s` is folded (`pets` → `pet`, `editing` → `edit`).
The index is inverted and each posting holds its precomputed BM25 weight, so a query costs one
dictionary lookup per word plus the postings of those words — not a pass over every tool.

Example:
    >>> index = BM25Index(["create_invoice: Create an invoice for a customer",
    ...                    "list_pets: List the pets in the store"])
    >>> index.search("which pets are in stock", 1)
    [1]
    >>> words("getUserById listPets HTTP2")
    ['get', 'user', 'by', 'id', 'list', 'pet', 'http', '2']
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from toolweave.core.tool import Tool

Admits = Callable[[int], bool]
"""Whether a search may return the document at a position (the caller may see that tool)."""
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_]+")
_STOP = frozenset(
    "a an and are as at be by for from in into is it of on or the to with this that which".split()  # noqa: SIM905
)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A word lower-cased and lightly folded: `Pets` → `pet`, `editing` → `edit`, `booked` → `book`
    (cached: a catalog's vocabulary is small, its words many)."""
    word = word.lower()
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The search words of `text` (split, lower-cased, plurals folded)."""
    return list(map(_stem, _WORD.findall(text)))


def document(tool: Tool) -> str:
    """The text a tool is found by: its name (twice), description, argument names and descriptions."""
    parts = [tool.name, tool.name, tool.title or "", tool.description or ""]
    properties: Any = tool.input_schema.get("properties") or {}
    for name, schema in properties.items():
        parts.append(name)
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            parts.append(schema["description"])
    return " ".join(parts)


class BM25Index:
    """Okapi BM25 (`k1`, `b`) over `documents`; `search` returns document positions, best first."""

    __slots__ = ("_postings",)

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        counts = [Counter(w for w in words(text) if w not in _STOP) for text in documents]
        lengths = [sum(count.values()) for count in counts]
        average = sum(lengths) / len(lengths) if lengths else 1.0
        frequency: Counter[str] = Counter()
        for count in counts:
            frequency.update(count.keys())
        n = len(documents)
        postings: dict[str, dict[int, float]] = {}
        for position, (count, length) in enumerate(zip(counts, lengths, strict=True)):
            norm = k1 * (1 - b + b * length / (average or 1.0))
            for word, tf in count.items():
                idf = math.log((n - frequency[word] + 0.5) / (frequency[word] + 0.5) + 1.0)
                postings.setdefault(word, {})[position] = idf * tf * (k1 + 1) / (tf + norm)
        self._postings = postings

    def search(self, query: str, limit: int, admits: Admits | None = None) -> list[int]:
        """The positions of the (at most `limit`) best-matching documents, best first; with
        `admits`, only of the positions it admits (the rest are never ranked)."""
        found = sorted(
            (self._postings[word] for word in set(words(query)) if word in self._postings), key=len, reverse=True
        )
        if not found:
            return []
        scores = dict(found[0])  # the longest postings are copied at C speed; the others added
        get = scores.get
        for postings in found[1:]:
            for position, weight in postings.items():
                scores[position] = get(position, 0.0) + weight
        candidates = scores if admits is None else filter(admits, scores)
        return heapq.nlargest(limit, candidates, key=scores.__getitem__)
