"""`Access`: who may see and use a component (a tool, prompt or resource).

A component with no `access` is open to every caller. A component with one is visible and usable
only by a verified caller (`ctx.auth`) whose token grants every required scope, carries every
required claim value, and passes every `when` test; an anonymous caller never qualifies. The
server answers a caller without access exactly as if the component did not exist: it is absent
from the lists, and a call gets the same "Unknown tool" error.

The rule depends on the verified caller only, so a catalog decides visibility once per distinct
grant (see `Access.grants`) and caches the list for it.

Example:
    >>> from toolweave.core.context import AuthInfo
    >>> billing = Access(scopes=frozenset({"billing:write"}), claims=(("tenant", frozenset({"acme"})),))
    >>> billing.allows(AuthInfo(subject="ada", scopes=("billing:write",), claims={"tenant": "acme"}))
    True
    >>> billing.allows(AuthInfo(subject="eve", scopes=("billing:read",), claims={"tenant": "acme"}))
    False
    >>> billing.allows(None)
    False
    >>> billing.describe()
    'scopes billing:write; claim tenant in [acme]'
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolweave.core.context import AuthInfo

security = logging.getLogger("toolweave.security")
CallerTest = Callable[[AuthInfo], bool]
"""A further test of the verified caller; it must depend on the caller alone."""


@dataclass(frozen=True, slots=True)
class Access:
    """What a caller needs to see and use a component; every part must hold.

    Attributes:
        scopes: Scopes the caller's token must grant (all of them).
        claims: `(claim, allowed values)` pairs: the claim (or, for a list claim, one of its
            items) must be one of the allowed values.
        tests: Further `(auth) -> bool` tests of the verified caller.
    """

    scopes: frozenset[str] = frozenset()
    claims: tuple[tuple[str, frozenset[Any]], ...] = ()
    tests: tuple[CallerTest, ...] = ()

    @classmethod
    def of(
        cls,
        scopes: Iterable[str] = (),
        claims: Mapping[str, Any] | None = None,
        when: CallerTest | None = None,
    ) -> Access:
        """An access rule from plain values: a claim's value may be one value or a list of them."""
        if isinstance(scopes, str):
            scopes = scopes.split()
        pairs = tuple(
            (name, frozenset(value) if isinstance(value, list | tuple | set | frozenset) else frozenset({value}))
            for name, value in (claims or {}).items()
        )
        return cls(frozenset(scopes), pairs, (when,) if when is not None else ())

    def also(self, other: Access) -> Access:
        """Both rules at once (a component authorized twice needs both)."""
        return Access(self.scopes | other.scopes, self.claims + other.claims, self.tests + other.tests)

    def allows(self, auth: AuthInfo | None) -> bool:
        """Whether the verified caller `auth` (None: anonymous) may see and use the component."""
        if auth is None:
            return False
        if self.scopes and not self.scopes.issubset(auth.scopes):
            return False
        for name, allowed in self.claims:
            if not _claim_matches(auth.claims.get(name), allowed):
                return False
        return not self.tests or all(_passes(test, auth) for test in self.tests)

    def describe(self) -> str:
        """A short human-readable form, for `explain`."""
        parts = []
        if self.scopes:
            parts.append("scopes " + " ".join(sorted(self.scopes)))
        for name, allowed in self.claims:
            parts.append(f"claim {name} in [{', '.join(sorted(map(str, allowed)))}]")
        parts.extend(f"when {getattr(test, '__name__', 'test')}" for test in self.tests)
        return "; ".join(parts) or "any verified caller"


def _passes(test: CallerTest, auth: AuthInfo) -> bool:
    """`test(auth)`; a test that raises refuses the caller (logged): a broken rule (say
    `auth.claims["tier"]` for a token without that claim) never lets anyone in, nor breaks the
    caller's whole list."""
    try:
        return bool(test(auth))
    except Exception:
        name = getattr(test, "__name__", "test")
        security.warning("access test %s raised for subject %r: access refused", name, auth.subject, exc_info=True)
        return False


def _claim_matches(value: Any, allowed: frozenset[Any]) -> bool:
    if isinstance(value, list | tuple):
        return any(_one_of(item, allowed) for item in value)
    return _one_of(value, allowed)


def _one_of(value: Any, allowed: frozenset[Any]) -> bool:
    """`value` is one of `allowed` as JSON sees it: `true` is not `1`, nor `false` `0` (Python
    finds them equal)."""
    if not isinstance(value, str | int | float | bool) or value not in allowed:
        return False
    return any(option == value and isinstance(option, bool) == isinstance(value, bool) for option in allowed)


def grant(rules: tuple[Access, ...], auth: AuthInfo | None) -> int:
    """Which of `rules` the caller passes, as bits (rule `i` is bit `i`): a key for its views.

    Example:
        >>> rules = (Access.of(["a"]), Access.of(["b"]))
        >>> grant(rules, AuthInfo(subject="ada", scopes=("b",))), grant(rules, None)
        (2, 0)
    """
    if auth is None:
        return 0
    bits = 0
    for index, rule in enumerate(rules):
        if rule.allows(auth):
            bits |= 1 << index
    return bits
