"""A per-user notes server: every tool takes the caller's `user_id`.

`examples/identity.yaml` hides `user_id` and fills it from the caller's verified identity, so a
model can neither see it nor pass someone else's.
"""

from __future__ import annotations

from collections import defaultdict

from toolweave import Server

server = Server("notes")
_NOTES: defaultdict[str, list[str]] = defaultdict(list)


@server.tool
def add_note(user_id: str, text: str) -> str:
    """Save a note for the user."""
    _NOTES[user_id].append(text)
    return f"saved note {len(_NOTES[user_id])} for {user_id}"


@server.tool
def list_notes(user_id: str) -> list[str]:
    """The user's notes, oldest first."""
    return list(_NOTES[user_id])
