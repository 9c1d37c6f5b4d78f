"""A missing credential (an environment variable, a header, a claim) is named to the operator in one
log line without a traceback, and never to the client (`ErrorPolicy.client_message`)."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from toolweave import AuthInfo, Context, Server, Tool
from toolweave.transforms import FromClaim, FromEnv, FromHeader, InjectArgs


def whoami(user: str) -> str:
    return user


@pytest.mark.parametrize(
    ("source", "ctx", "named"),
    [
        (FromHeader("x-user"), Context(headers={}), "the HTTP header 'x-user' is not available"),
        (FromClaim("sub"), Context(auth=AuthInfo(subject="u-1", claims={})), "the token claim 'sub' is not available"),
        (FromEnv("TW_UNSET_CREDENTIAL"), Context(), "the environment variable 'TW_UNSET_CREDENTIAL' is not set"),
    ],
    ids=["header", "claim", "env"],
)
async def test_the_log_line_names_the_missing_credential_without_a_traceback(
    source: Any, ctx: Context, named: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TW_UNSET_CREDENTIAL", raising=False)
    server = Server("s")
    server.add_tool(Tool.from_function(whoami).with_transforms(InjectArgs(user=source)))
    with caplog.at_level(logging.ERROR, logger="toolweave.errors"):
        result = await server.call_tool("whoami", {}, ctx=ctx)
    incident = re.fullmatch(r"Error calling tool 'whoami' \(incident (\w+)\)", result.text)
    assert result.is_error and incident is not None  # the client learns nothing of the credential
    [record] = [record for record in caplog.records if record.name == "toolweave.errors"]
    message = record.getMessage()
    missing = f"argument 'user': cannot fill an injected argument: {named}"
    assert message == f"tool 'whoami': {missing} (incident {incident.group(1)})"  # one line, the tool named once
    assert record.exc_info is None and record.exc_text is None and record.stack_info is None
    assert "Traceback" not in caplog.text
