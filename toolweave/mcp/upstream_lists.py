"""An upstream's lists reach the SDK without the items it would refuse: `ListRequests`.

The SDK checks an answer to `tools/list` (`prompts/list`, `resources/list`,
`resources/templates/list`) as a whole against the negotiated protocol version's schema: one tool
whose `inputSchema` is `{}` (no `"type": "object"`) fails the whole list, and with it the
upstream's connection, restarted for ever. So each session to an upstream notes the id of each
list it asks for (`sending`, on its write stream); an answer (`received`, on its read stream) that
fails that schema (`mcp_types.methods.validate_server_result`) only in some of its items has each
checked alone, and one that fails is left out with a warning naming the upstream, the item and
the first problem, as a tool whose name cannot be exposed is. The rest reaches the SDK as it came
(a list that passes whole, untouched).

Example:
    >>> from mcp.shared.message import SessionMessage
    >>> lists = ListRequests("notes", lambda: "2025-11-25")
    >>> lists.sending(SessionMessage(mt.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/list")))
    >>> tools = [{"name": "search", "inputSchema": {"type": "object"}}, {"name": "broken", "inputSchema": {}}]
    >>> answer = SessionMessage(mt.JSONRPCResponse(jsonrpc="2.0", id=1, result={"tools": tools}))
    >>> [tool["name"] for tool in lists.received(answer).message.result["tools"]]  # (a warning for `broken`)
    ['search']
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import mcp.types as mt
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types.methods import validate_server_result
from pydantic import ValidationError

from toolweave.mcp.upstream_errors import describe_failure
from toolweave.telemetry.withheld import CANCELLED

logger = logging.getLogger("toolweave.upstream")
LISTS = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
"""The list methods, and the field of their answer that holds the items."""


class ListRequests:
    """The list requests one session to upstream `label` is waiting on, by id (a `Noter`, see
    `toolweave.mcp.upstream_withheld`); `version()` is the protocol version the session speaks."""

    def __init__(self, label: str, version: Callable[[], str | None]) -> None:
        self._label = label
        self._version = version
        self._asked: dict[Any, str] = {}

    def sending(self, item: Any) -> None:
        """Note `item` (what the session writes) if it asks for a list; forget a list it cancels
        (one that timed out is never answered)."""
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, mt.JSONRPCRequest) and message.method in LISTS:
            self._asked[coerce_request_id(message.id)] = message.method
        elif self._asked and isinstance(message, mt.JSONRPCNotification) and message.method == CANCELLED:
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, str | int):
                self._asked.pop(coerce_request_id(cancelled), None)

    def __len__(self) -> int:
        """How many list requests are waiting for their answer."""
        return len(self._asked)

    def received(self, item: Any) -> Any:
        """`item` (what the session reads), a list answered without the items the SDK would refuse."""
        if not self._asked or not isinstance(item, SessionMessage):
            return item
        message = item.message
        if not isinstance(message, mt.JSONRPCResponse | mt.JSONRPCError) or message.id is None:
            return item
        method = self._asked.pop(coerce_request_id(message.id), None)
        if method is None or isinstance(message, mt.JSONRPCError):
            return item
        result = self._checked(method, message.result)
        if result is message.result:
            return item
        return SessionMessage(message.model_copy(update={"result": result}), item.metadata)

    def _checked(self, method: str, result: dict[str, Any]) -> dict[str, Any]:
        """`result` without the items that fail the check alone; as it is if it passes whole, or
        if what fails is not an item (the SDK says what is wrong with the answer as a whole)."""
        field = LISTS[method]
        items = result.get(field)
        if not isinstance(items, list) or self._problem(method, result) is None:
            return result
        if self._problem(method, {**result, field: []}) is not None:
            return result
        kept = []
        for item in items:
            problem = self._problem(method, {**result, field: [item]})
            if problem is None:
                kept.append(item)
                continue
            named = (item.get("name") or item.get("uri") or item.get("uriTemplate")) if isinstance(item, dict) else None
            reason = problem.replace(f"{field}.0.", "", 1)
            logger.warning("[%s] skipping an upstream %s item %r: %s", self._label, field, named, reason)
        return {**result, field: kept}

    def _problem(self, method: str, result: dict[str, Any]) -> str | None:
        """What is wrong with `result` for the SDK (`describe_failure`), or None."""
        try:
            validate_server_result(method, self._version() or "2025-11-25", result)
        except ValidationError as invalid:
            return describe_failure(invalid)
        except (KeyError, ValueError):  # a method or version the SDK has no schema for: its own check decides
            pass
        return None
