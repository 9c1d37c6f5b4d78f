"""Plumbing shared by the prompt and resource registries: duplicates, visibility, masking.

Prompts and resources follow the server's rules for tools: `on_duplicate` decides what a
second component with a taken name (or URI) does, `server.enable/disable` hide or show them by
name (or URI) and tag, and an internal error inside a prompt or resource function reaches the
client masked, with an incident id, unless it is a `ToolError`.

Example:
    >>> from toolweave.core.masking import ErrorPolicy
    >>> error = masked_failure(ErrorPolicy(mask=True), "prompt", "greet", KeyError("secret"))
    >>> "secret" in str(error), str(error).startswith("Error rendering prompt 'greet'")
    (False, True)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolweave.core.errors import DuplicateError, ToolError
from toolweave.core.masking import ErrorPolicy, incident_id

if TYPE_CHECKING:
    from toolweave.server.server import Server

logger = logging.getLogger("toolweave.server")
_VERBS = {"prompt": "rendering", "resource": "reading"}


def keep_new(server: Server, message: str) -> bool:
    """Apply `server.on_duplicate` to a clash described by `message`: True = the new one wins.

    Raises:
        DuplicateError: under `on_duplicate="error"`.
    """
    policy = server.on_duplicate
    if policy == "error":
        raise DuplicateError(message)
    if policy == "warn":
        logger.warning("%s; the second one wins", message)
    return policy in ("warn", "replace")


def is_visible(server: Server, enabled: bool, tags: frozenset[str], names: Iterable[str]) -> bool:
    """Whether a component with these names (name, URI...) is shown, given `server.enable/disable`."""
    keys = tuple(names)
    if any(key in server._shown_names for key in keys):
        return True
    if not enabled or any(key in server._hidden_names for key in keys):
        return False
    return not (tags & server._hidden_tags)


def masked_failure(policy: ErrorPolicy, kind: str, name: str, error: BaseException) -> ToolError:
    """The error a client sees when rendering a prompt / reading a resource failed.

    A passthrough error (`ToolError` by default) keeps its message; anything else is logged once
    with an incident id and, masked, reaches the client as `Error rendering prompt '<name>'
    (incident <id>)`.
    """
    if isinstance(error, ToolError):
        return error
    if isinstance(error, policy.passthrough):
        return ToolError(str(error) or type(error).__name__)
    incident = incident_id(error)
    logger.error("%s %r failed (incident %s)", kind, name, incident, exc_info=error, extra={"incident": incident})
    if not policy.mask:
        return ToolError(f"{type(error).__name__}: {error}")
    return ToolError(f"Error {_VERBS.get(kind, 'using')} {kind} '{name}' (incident {incident})")
