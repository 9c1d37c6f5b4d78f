"""Caller keys and per-tool glob settings shared by the built-ins."""

from __future__ import annotations

import pytest

from toolweave import AuthInfo, ClientInfo, Context
from toolweave.middleware.keys import caller_key, per_tool_value, resolve_key, seconds


@pytest.mark.parametrize(
    ("ctx", "expected"),
    [
        (Context(auth=AuthInfo(subject="alice"), client=ClientInfo("cursor"), peer="10.0.0.1"), "subject:alice"),
        (Context(auth=AuthInfo(), client=ClientInfo("cursor"), peer="10.0.0.1"), "peer:10.0.0.1"),
        (Context(client=ClientInfo("cursor")), "local"),
        (Context(), "local"),
    ],
)
def test_the_caller_is_the_subject_then_the_peer_never_the_announced_name(ctx: Context, expected: str) -> None:
    assert caller_key(ctx) == expected


def test_named_keys_resolve() -> None:
    ctx = Context(auth=AuthInfo(subject="alice"), client=ClientInfo("cursor"), peer="10.0.0.1")
    names = ("subject", "peer", "client", "global")
    assert [resolve_key(name)(ctx) for name in names] == ["alice", "10.0.0.1", "cursor", "*"]


def test_the_first_matching_glob_wins() -> None:
    assert per_tool_value({"gh_search": 1, "gh_*": 2}, "gh_search", 0) == 1
    assert per_tool_value({"gh_*": 2}, "local", 0) == 0


def test_seconds_round_up_for_messages() -> None:
    assert [seconds(0.4), seconds(0.0001), seconds(12.001)] == ["0.4", "0.01", "12.01"]
