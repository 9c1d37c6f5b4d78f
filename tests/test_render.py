"""Terminal output: rich tables and trees on a terminal, plain lines in a pipe."""

from __future__ import annotations

import io

from rich.console import Console

from toolweave.render import Node, explain_tree, print_listing, print_tree

LISTING = {
    "tools": [
        {
            "name": "add",
            "description": "Add two numbers.",
            "inputSchema": {"properties": {"a": {}, "b": {}}, "required": ["a"]},
        }
    ],
    "prompts": [],
    "resources": [{"uri": "resource://motd", "description": "Message of the day."}],
    "resourceTemplates": [{"uriTemplate": "weather://{city}/now", "description": "Weather now."}],
}


def console(terminal: bool) -> Console:
    return Console(file=io.StringIO(), force_terminal=terminal, width=100, color_system=None)


def output(out: Console) -> str:
    file = out.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def test_a_listing_in_a_pipe_is_plain_lines() -> None:
    out = console(False)
    print_listing(out, LISTING)
    assert output(out).splitlines() == [
        "tools (1):",
        "  add(a, [b])  Add two numbers.",
        "prompts (0):",
        "resources (1):",
        "  resource://motd  Message of the day.",
        "resource templates (1):",
        "  weather://{city}/now  Weather now.",
    ]


def test_prompt_arguments_are_shown_as_tool_arguments_are() -> None:
    out = console(False)
    arguments = [{"name": "code", "required": True}, {"name": "strict", "required": False}]
    print_listing(out, {"tools": [], "prompts": [{"name": "review", "description": "R.", "arguments": arguments}]})
    assert "  review(code, [strict])  R." in output(out).splitlines()


def test_a_listing_in_a_terminal_is_a_table() -> None:
    out = console(True)
    print_listing(out, LISTING)
    text = output(out)
    assert "Tools (1)" in text
    assert "│ add" in text or "┃ name" in text
    assert "Prompts: none" in text


def test_a_tree_in_a_pipe_is_indented_text() -> None:
    out = console(False)
    print_tree(out, Node("root", [Node("child", [Node("leaf")], code='{"a": 1}')]))
    assert output(out).splitlines() == ["root", "  child", '    {"a": 1}', "    leaf"]


def test_a_tree_in_a_terminal_has_guides() -> None:
    out = console(True)
    print_tree(out, Node("root", [Node("child")]))
    assert "└── child" in output(out)


def test_explain_tree_shows_one_schema_when_unchanged() -> None:
    item = {
        "name": "t",
        "origin": {"kind": "function", "source": "m", "name": "t"},
        "exposed_by": "local tool 't'",
        "transforms": [],
        "middleware": ["Logging"],
        "schema_before": {"type": "object"},
        "schema_after": {"type": "object"},
    }
    labels = [child.label for child in explain_tree([item], "s").children[0].children]
    assert labels == [
        "origin: function m (t)",
        "exposed by: local tool 't'",
        "transforms: none",
        "middleware (outermost first)",
        "access: every caller",
        "schema (unchanged)",
    ]


def test_control_characters_are_shown_as_escapes_in_a_terminal_too() -> None:
    out = console(True)
    sneaky = {"name": "add", "description": "Adds.\x1b[8m hidden\x1b[0m", "inputSchema": {"properties": {}}}
    upstream = {"name": "gh", "target": "gh-mcp", "state": "down", "error": "boom\x1b]0;title\x07\u202e"}
    print_listing(out, {"tools": [sneaky], "upstreams": [upstream]})
    text = output(out)
    assert "\x1b" not in text and "\u202e" not in text
    assert r"Adds.\x1b[8m hidden\x1b[0m" in text and r"boom\x1b]0;title\x07\u202e" in text


def test_a_long_tool_name_in_a_terminal_is_folded_leaving_room_for_its_arguments_and_description() -> None:
    """A 78-character name (names may have 128) took the whole of an 80-column terminal: the
    arguments and description columns were left no width, and the name itself was cut with `…`."""
    out = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    name = "my_company_github_enterprise_" + "x" * 49
    tool = {"name": name, "description": "Lists pull requests.", "inputSchema": {"properties": {"repo": {}}}}
    print_listing(out, {"tools": [tool]})
    rows = [line.split("│") for line in output(out).splitlines() if line.startswith("│")]
    assert "".join(row[1].strip() for row in rows) == name
    assert "[repo]" in {row[2].strip() for row in rows}
    assert "Lists pull requests." in " ".join(row[3].strip() for row in rows)


def test_explain_tree_says_a_middleware_of_the_tool_a_call_reaches_runs_around_that_tool() -> None:
    item = {
        "name": "call_tool",
        "origin": {"kind": "schema", "source": "hand-written schema", "name": "call_tool"},
        "exposed_by": "tool 'call_tool' of SearchTools(bm25)",
        "transforms": [],
        "middleware": ["Logging"],
        "schema_before": {"type": "object"},
        "schema_after": {"type": "object"},
        "reaches": True,
    }
    labels = [child.label for child in explain_tree([item], "s").children[0].children]
    assert labels[3:5] == [
        "middleware (outermost first)",
        "(a middleware that wraps the tool a call reaches runs around that tool instead)",
    ]
