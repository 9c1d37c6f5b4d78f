"""`Authorize`: only verified callers with the given scopes or claims see and use a component.

A caller without access finds the component absent from `tools/list` (`prompts/list`,
`resources/list`) and gets the same answer as for a name that does not exist, so nothing leaks
its existence. Authorize applies to tools, prompts and resources alike; stacked, every rule must
hold. Put it on one tool, or on many through a selector:

    server.add_transform(Authorize(scopes=["billing:write"]), tools="billing_*")
    server.add_transform(Authorize(claims={"tenant": "acme"}), prompts="*", resources="acme://*")

Example:
    >>> from toolweave import Tool
    >>> from toolweave.core.context import AuthInfo
    >>> def refund(order: str) -> str:
    ...     return f"refunded {order}"
    >>> tool = Tool.from_function(refund).with_transforms(Authorize(scopes=["billing:write"]))
    >>> tool.access.allows(AuthInfo(subject="ada", scopes=("billing:write",)))
    True
    >>> Authorize(scopes=["billing:write"], claims={"tenant": ["acme", "globex"]}).describe()
    'authorize scopes billing:write; claim tenant in [acme, globex]'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from toolweave.core.access import Access, CallerTest
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.core.tool import Tool

Component = TypeVar("Component", Tool, Prompt, Resource)


class Authorize:
    """Require a verified caller with these scopes, claim values and `when(auth)` test.

    Args:
        scopes: Scopes the caller's token must grant, all of them (a list, or one
            space-separated string as in a token's `scope` claim).
        claims: Claim name → required value, or a list of allowed values; a list-valued claim
            (e.g. `groups`) matches when one of its items is allowed.
        when: A further test `(auth) -> bool`; it must depend on the caller alone (the lists a
            caller sees are cached per combination of rules passed).

    `Authorize()` with nothing given admits any verified caller and no anonymous one.

    Example:
        >>> from toolweave.core.context import AuthInfo
        >>> staff = Authorize(claims={"groups": "staff"}).access
        >>> staff.allows(AuthInfo(subject="ada", claims={"groups": ["staff", "ops"]})), staff.allows(None)
        (True, False)
    """

    kinds = frozenset({"tool", "prompt", "resource"})
    """The kinds of component this transform applies to (`add_transform(prompts=, resources=)`)."""

    def __init__(
        self,
        scopes: Iterable[str] | str = (),
        *,
        claims: Mapping[str, Any] | None = None,
        when: CallerTest | None = None,
    ) -> None:
        self.access = Access.of(scopes, claims, when)

    def __repr__(self) -> str:
        return f"Authorize({self.access.describe()})"

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return "authorize " + self.access.describe()

    def apply(self, component: Component) -> Component:
        """`component` with this rule added to its access rule."""
        access = self.access if component.access is None else component.access.also(self.access)
        if isinstance(component, Tool):
            return component.derive(self, access=access)
        return component.replace(access=access)
