"""Fixture tools that ask the client for input (`InputRequired`): elicitation, sampling, roots.

The same tools serve both eras: 2025 clients are asked by the server during the call, 2026
clients get an `InputRequiredResult` and retry (SEP-2322). Registered on the fixture server by
`register(server)`.
"""

from __future__ import annotations

import json
from typing import Any

from toolweave import Context, InputRequired, Server, elicit, list_roots, sample

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}

DEFAULTS_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}

ENUMS_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["active", "inactive", "pending"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "low", "title": "Low Priority"},
                {"const": "medium", "title": "Medium Priority"},
                {"const": "high", "title": "High Priority"},
            ],
        },
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["read", "write", "execute"]}},
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "feature", "title": "New Feature"},
                    {"const": "bug", "title": "Bug Fix"},
                    {"const": "docs", "title": "Documentation"},
                ]
            },
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["small", "medium", "large"],
            "enumNames": ["Small Size", "Medium Size", "Large Size"],
        },
    },
    "required": ["untitledSingle", "titledSingle", "untitledMulti", "titledMulti", "legacyEnum"],
}


def _form_answer(answer: dict[str, Any]) -> str:
    content = answer.get("content") if answer.get("action") == "accept" else {}
    return f"action={answer.get('action')}, content={json.dumps(content or {})}"


def _text_of(answer: dict[str, Any]) -> str:
    content = answer.get("content")
    return str(content.get("text", "?")) if isinstance(content, dict) else "?"


def register(server: Server) -> None:  # noqa: C901 (one small tool per scenario)
    """Add the input-requesting fixture tools to `server`."""

    @server.tool
    def test_sampling(prompt: str, ctx: Context) -> str:
        """Asks the client's model to complete `prompt`."""
        answer = ctx.input_responses.get("completion")
        if answer is None:
            raise InputRequired({"completion": sample(prompt, max_tokens=100)})
        return f"LLM response: {_text_of(answer)}"

    @server.tool
    def test_elicitation(message: str, ctx: Context) -> str:
        """Asks the user for a response."""
        answer = ctx.input_responses.get("response")
        if answer is None:
            form = {"type": "object", "properties": {"response": {"type": "string"}}, "required": ["response"]}
            raise InputRequired({"response": elicit(message, form)})
        return f"User response: {_form_answer(answer)}"

    @server.tool
    def test_elicitation_sep1034_defaults(ctx: Context) -> str:
        """Asks for a form whose fields all have defaults (SEP-1034)."""
        answer = ctx.input_responses.get("info")
        if answer is None:
            raise InputRequired({"info": elicit("Please provide user information", DEFAULTS_FORM)})
        return f"Elicitation result: {_form_answer(answer)}"

    @server.tool
    def test_elicitation_sep1330_enums(ctx: Context) -> str:
        """Asks for a form using every enum style (SEP-1330)."""
        answer = ctx.input_responses.get("choices")
        if answer is None:
            raise InputRequired({"choices": elicit("Please select values using different enum types", ENUMS_FORM)})
        return f"Elicitation completed: {_form_answer(answer)}"

    @server.tool
    def test_streaming_elicitation(ctx: Context) -> str:
        """Asks for a name (as an input request, never as a request on the response stream)."""
        answer = ctx.input_responses.get("user_name")
        if answer is None:
            raise InputRequired({"user_name": elicit("What is your name?", NAME_FORM)})
        return f"Hello, {answer.get('content', {}).get('name', 'stranger')}!"

    @server.tool
    def test_input_required_result_elicitation(ctx: Context) -> str:
        """One elicitation round."""
        answer = ctx.input_responses.get("user_name")
        if answer is None:
            raise InputRequired({"user_name": elicit("What is your name?", NAME_FORM)})
        return f"Hello, {(answer.get('content') or {}).get('name', 'stranger')}!"

    @server.tool
    def test_input_required_result_sampling(ctx: Context) -> str:
        """One sampling round."""
        answer = ctx.input_responses.get("capital_question")
        if answer is None:
            raise InputRequired({"capital_question": sample("What is the capital of France?", max_tokens=100)})
        return f"Model said: {_text_of(answer)}"

    @server.tool
    def test_input_required_result_list_roots(ctx: Context) -> str:
        """One roots round."""
        answer = ctx.input_responses.get("client_roots")
        if answer is None:
            raise InputRequired({"client_roots": list_roots()})
        return f"Client exposed {len(answer.get('roots', []))} root(s)."

    @server.tool
    def test_input_required_result_request_state(ctx: Context) -> str:
        """Round-trips a request state."""
        if "confirm" in ctx.input_responses and ctx.request_state == "request-state-nonce":
            return "state-ok: confirmation received"
        raise InputRequired({"confirm": elicit("Please confirm", CONFIRM_FORM)}, state="request-state-nonce")

    @server.tool
    def test_input_required_result_multiple_inputs(ctx: Context) -> str:
        """Asks for an elicitation, a sampling and the roots at once."""
        if {"user_name", "greeting", "client_roots"} <= ctx.input_responses.keys():
            return "All inputs received."
        requests = {
            "user_name": elicit("What is your name?", NAME_FORM),
            "greeting": sample("Generate a greeting", max_tokens=50),
            "client_roots": list_roots(),
        }
        raise InputRequired(requests, state="multiple-inputs")

    @server.tool
    def test_input_required_result_multi_round(ctx: Context) -> str:
        """Three rounds, the state carrying what was learnt so far."""
        state = json.loads(ctx.request_state) if ctx.request_state else {"round": 0}
        answers = ctx.input_responses
        if state["round"] == 1 and "step1" in answers:
            name = (answers["step1"].get("content") or {}).get("name")
            form = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
            ask = elicit("Step 2: What is your favorite color?", form)
            raise InputRequired({"step2": ask}, state=json.dumps({"round": 2, "name": name}))
        if state["round"] == 2 and "step2" in answers:
            return f"{state.get('name')} likes {(answers['step2'].get('content') or {}).get('color')}."
        ask = elicit("Step 1: What is your name?", NAME_FORM)
        raise InputRequired({"step1": ask}, state=json.dumps({"round": 1}))

    @server.tool
    def test_input_required_result_tampered_state(ctx: Context) -> str:
        """Echoes its state; a tampered state never reaches it (the SDK boundary refuses it)."""
        if ctx.request_state is None:
            raise InputRequired({"confirm": elicit("Please confirm", CONFIRM_FORM)}, state="round-1")
        return f"state-ok: {ctx.request_state}"

    @server.prompt
    def test_input_required_result_prompt(ctx: Context) -> str:
        """A prompt that asks the user for context first (SEP-2322 beyond tools)."""
        answer = ctx.input_responses.get("user_context")
        if answer is None:
            form = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
            raise InputRequired({"user_context": elicit("What context should the prompt use?", form)})
        return f"Use the following context: {(answer.get('content') or {}).get('context', '?')}"

    @server.tool
    def test_input_required_result_capabilities(ctx: Context) -> str:
        """Asks only for what the client declared it can answer."""
        declared = ctx.client_capabilities
        requests = {}
        if "sampling" in declared:
            requests["sample"] = sample("Say hello", max_tokens=50)
        if "elicitation" in declared:
            requests["ask"] = elicit("What is your name?", NAME_FORM)
        raise InputRequired(requests, state="capability-gated")
