"""The rules for names a server exposes: tool and prompt names, mount prefixes and separators.

Names stay within `[A-Za-z0-9_.-]{1,128}` (what the MCP spec recommends and clients accept); a
mount separator is up to 16 of those characters. This module is the one definition of those rules:
the config file's checks (`toolweave.config`) build on its patterns and wording.

Example:
    >>> check_name("gh_search")
    'gh_search'
    >>> check_name("gh search")
    Traceback (most recent call last):
    ...
    ValueError: tool name 'gh search' is not valid: use 1 to 128 characters from A-Z, a-z, 0-9, '_', '.', '-'
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any

NAME_CHARS = r"A-Za-z0-9_.\-"
"""The characters of a name, as the body of a regex character class (`[{NAME_CHARS}]`)."""
NAME_CHARS_SHOWN = "A-Z, a-z, 0-9, '_', '.', '-'"
"""The same characters as a message spells them."""
MAX_NAME_LENGTH = 128
NAME_PATTERN = re.compile(rf"[{NAME_CHARS}]{{1,{MAX_NAME_LENGTH}}}")
SEPARATOR_PATTERN = re.compile(rf"[{NAME_CHARS}]{{0,16}}")
NAME_RULE = f"use 1 to {MAX_NAME_LENGTH} characters from {NAME_CHARS_SHOWN}"
"""What a message says a name may be."""


def quoted_name(name: str) -> str:
    """`name` as a message quotes it: cut after `MAX_NAME_LENGTH` characters, which no tool or
    prompt name has, so an answer (and the span that records it) stays short whatever a client
    asked for.

    Example:
        >>> quoted_name("search"), len(quoted_name("x" * 5000))
        ('search', 129)
    """
    return name if len(name) <= MAX_NAME_LENGTH else name[:MAX_NAME_LENGTH] + "…"


def check_name(name: str, what: str = "tool") -> str:
    """`name` if it is a valid exposed name, else `ValueError` saying what is allowed (`TypeError`
    if it is not a string)."""
    if not isinstance(name, str):
        raise TypeError(f"a {what} name must be a string, not {name!r}")
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{what} name {name!r} is not valid: {NAME_RULE}")
    return name


def check_text(value: object, option: str, what: str, name: str) -> None:
    """`TypeError` unless `value` (a title or description) is a string or `None`: anything else
    would be taken here and then fail every listing that holds it.

    Example:
        >>> check_text("Search the index.", "description", "tool", "search")
        >>> check_text(5, "title", "tool", "search")
        Traceback (most recent call last):
        ...
        TypeError: tool 'search': title must be a string, not 5
    """
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} {name!r}: {option} must be a string, not {value!r}")


def name_set(names: Iterable[str], option: str, what: str, name: str) -> frozenset[str]:
    """`names` (a list, tuple or set of strings) as a frozenset; a single string is a `TypeError`,
    not a set of its characters, and so is anything else that is not a string.

    `option` names what was given (`"tags"`, `"exclude_args"`), `what` and `name` whose it is
    (`"tool"`, `"search"`).

    Example:
        >>> sorted(name_set(["billing", "beta"], "tags", "tool", "f"))
        ['beta', 'billing']
        >>> name_set("billing", "tags", "tool", "f")
        Traceback (most recent call last):
        ...
        TypeError: tool 'f': tags must be a list or set of names, not the string 'billing' (write ['billing'])
    """
    if isinstance(names, str | bytes):
        shown = repr(names)
        raise TypeError(
            f"{what} {name!r}: {option} must be a list or set of names, not the string {shown} (write [{shown}])"
        )
    try:
        found = frozenset(names)
    except TypeError:
        raise TypeError(
            f"{what} {name!r}: {option} must be a list or set of names, not {type(names).__name__}"
        ) from None
    for item in found:
        if not isinstance(item, str):
            raise TypeError(f"{what} {name!r}: {option} holds {item!r}, which is not a string")
    return found


def check_separator(separator: str) -> str:
    """`separator` if it may join a mount prefix and a name, else `ValueError`."""
    if not SEPARATOR_PATTERN.fullmatch(separator):
        raise ValueError(f"mount separator {separator!r} is not valid: use up to 16 characters from {NAME_CHARS_SHOWN}")
    return separator


def first_free(base: str, taken: Container[str]) -> str:
    """`base`, or if it is taken the first of `base_2`, `base_3`, ... that is not.

    Example:
        >>> first_free("notes", {"notes", "notes_2"})
        'notes_3'
    """
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    return name


def suggest(word: str, choices: list[str]) -> str | None:
    """The closest of `choices` to a misspelt `word`, if any is close enough.

    Example:
        >>> suggest("serch", ["search", "fetch"]), suggest("zzz", ["search"])
        ('search', None)
    """
    found = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not found:
        lowered = {choice.lower(): choice for choice in choices}
        found = [lowered[word.lower()]] if word.lower() in lowered else []
    return found[0] if found else None


@functools.cache
def _options_of(maker: Callable[..., Any]) -> tuple[str, ...]:
    parameters = inspect.signature(maker).parameters.values()
    return tuple(p.name for p in parameters if p.kind is p.KEYWORD_ONLY)


def check_options(options: Mapping[str, Any], maker: Callable[..., Any], what: str, fn: Any) -> None:
    """`TypeError` for an option `maker` (`tool_from_function`, ...) does not take, naming the
    function and the nearest option: Python's own message names `maker`, which the user never
    called (`@server.tool(nme="x")`).

    Example:
        >>> def tool_from_function(fn, *, name=None, title=None): ...
        >>> def search(q: str) -> str: ...
        >>> check_options({"nme": "find"}, tool_from_function, "tool", search)
        Traceback (most recent call last):
        ...
        TypeError: tool 'search': unknown option 'nme'; did you mean 'name'?
    """
    accepted = _options_of(maker)
    for option in options:
        if option not in accepted:
            name = getattr(fn, "__name__", type(fn).__name__)
            hint = advice(option, list(accepted), f"the options are {', '.join(accepted)}")
            raise TypeError(f"{what} {name!r}: unknown option {option!r}; {hint}")


def advice(word: str, choices: list[str], otherwise: str) -> str:
    """ "did you mean ...?" for the nearest of `choices` to a misspelt `word`, else `otherwise`.

    Example:
        >>> advice("ecoh", ["echo", "shout"], "its tools are echo, shout"), advice("zz", ["echo"], "none")
        ("did you mean 'echo'?", 'none')
    """
    hint = suggest(word, choices)
    return f"did you mean {hint!r}?" if hint else otherwise
