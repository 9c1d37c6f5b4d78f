"""The lists an upstream session asks for, noted until they are answered or cancelled."""

from __future__ import annotations

import mcp.types as mt
from mcp.shared.message import SessionMessage

from toolweave.mcp.upstream_lists import ListRequests


def test_a_list_request_is_forgotten_when_answered_or_cancelled() -> None:
    """A list that timed out is never answered: its id was kept for the session's life."""
    lists = ListRequests("notes", lambda: "2025-11-25")
    for request_id in (1, 2):
        lists.sending(SessionMessage(mt.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/list")))
    lists.received(SessionMessage(mt.JSONRPCResponse(jsonrpc="2.0", id=1, result={"tools": []})))
    assert len(lists) == 1
    cancel = {"requestId": 2, "reason": "timed out"}
    cancelled = mt.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=cancel)
    lists.sending(SessionMessage(cancelled))
    assert len(lists) == 0
