"""Every public toolweave error has exactly one wire answer (`toolweave.mcp.errors`): the ones a
client may read map to their JSON-RPC code, the others are raised on to `guard` (masked -32603)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from mcp import MCPError

import toolweave
from toolweave.core import errors
from toolweave.core.errors import ArgumentProblem
from toolweave.mcp.errors import protocol_error

SAMPLES: dict[type[errors.ToolweaveError], Any] = {
    errors.ToolweaveError: errors.ToolweaveError("s3cr3t internals"),
    errors.ToolError: errors.ToolError("the prompt failed (incident abc)"),
    errors.InvalidArguments: errors.InvalidArguments("greet", [ArgumentProblem("name", "is required")], kind="prompt"),
    errors.ToolTimeout: errors.ToolTimeout("slow", 2),
    errors.UpstreamError: errors.UpstreamError("upstream 'gh' is not connected"),
    errors.Rejected: errors.Rejected("rate limited", retry_after=1),
    errors.UpstreamFailed: errors.UpstreamFailed("upstream 'gh' failed: s3cr3t"),
    errors.InvalidResult: errors.InvalidResult("result does not match: s3cr3t"),
    errors.RedactedError: errors.RedactedError("s3cr3t"),
    errors.UnknownTool: errors.UnknownTool("nope"),
    errors.UnknownPrompt: errors.UnknownPrompt("nope"),
    errors.UnknownResource: errors.UnknownResource("file:///nope"),
    errors.MissingCapability: errors.MissingCapability("sampling"),
    errors.ConfigError: errors.ConfigError("bad s3cr3t", path="server"),
    errors.DuplicateError: errors.DuplicateError("tool 'x' twice"),
    errors.TransformError: errors.TransformError("s3cr3t"),
    errors.SpecError: errors.SpecError("the spec dict: s3cr3t"),
    errors.InjectionError: errors.InjectionError("env s3cr3t missing"),
    errors.InvalidToken: errors.InvalidToken("expired s3cr3t"),
    errors.VerifierUnavailable: errors.VerifierUnavailable("the JWKS at s3cr3t could not be fetched"),
}
ANSWERS = {
    errors.ToolError: -32603,
    errors.InvalidArguments: -32602,
    errors.ToolTimeout: -32603,
    errors.UpstreamError: -32603,
    errors.Rejected: -32603,
    errors.UnknownTool: -32602,
    errors.UnknownPrompt: -32602,
    errors.UnknownResource: -32602,
    errors.MissingCapability: -32021,
}
"""The errors a client may read, and their code; every other error is raised on."""


def test_every_public_error_has_a_sample() -> None:
    public = {
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and issubclass(value, errors.ToolweaveError) and value.__module__ == errors.__name__
    }
    # `InputRequired` is not a failure: it becomes an `InputRequiredResult` or requests to the client
    assert public - {errors.InputRequired} == set(SAMPLES)
    assert all(cls.__name__ in toolweave.__all__ for cls in public)


@pytest.mark.parametrize("kind", list(SAMPLES), ids=lambda kind: kind.__name__)
def test_each_error_maps_to_one_answer(kind: type[errors.ToolweaveError]) -> None:
    error = SAMPLES[kind]
    if kind not in ANSWERS:
        with pytest.raises(kind):  # guard logs it and answers "-32603 Internal error (incident ...)"
            protocol_error(error)
        return
    answer = protocol_error(error, "file:///nope")
    assert isinstance(answer, MCPError)
    assert (answer.error.code, answer.error.message) == (ANSWERS[kind], str(error))


def test_data_carries_what_the_spec_asks() -> None:
    assert protocol_error(errors.UnknownResource("file:///a")).error.data == {"uri": "file:///a"}
    assert protocol_error(errors.MissingCapability("sampling")).error.data == {
        "requiredCapabilities": {"sampling": {}}
    }
    refused = errors.UpstreamError("upstream 'gh' refused the read", code=-32602)
    assert protocol_error(refused, "repo://x").error.data == {"uri": "repo://x"}
