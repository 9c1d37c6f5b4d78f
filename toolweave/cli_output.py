"""What the CLI prints, and where: results on stdout; warnings and errors on stderr.

`fail` ends the command with its exit status (2 for a usage error, else 1); a call's result
prints as its text, or as JSON when asked. When stdout's reader has gone (`toolweave list | head
-1`), the command ends quietly with `CLOSED_PIPE` (`Commands`). Once the logs are JSON lines
(`serve --log-format json`: `as_log_records()`), warnings and errors are log records too, so
every stderr line parses.

Example:
    >>> print_result(ToolResult(structured_content={"sum": 3}), as_json=False)
    {
      "sum": 3
    }
    >>> try:
    ...     fail("give a config file", code=2)
    ... except typer.Exit as done:
    ...     print("exit status", done.exit_code)
    exit status 2
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from toolweave.core.result import ToolResult
from toolweave.render import print_json, printable


class _Stdout(Console):
    """A console that leaves a write to a closed pipe to `Commands` (rich's own answer is exit 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


stdout = _Stdout(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)
CLOSED_PIPE = 141
"""The exit status once stdout's reader has gone: 128 + SIGPIPE, what a shell reports for `cat` or
`git` when `head` stops reading. Status 1 is a config or upstream error's, and the CLI cannot die of
SIGPIPE itself: it writes to its upstreams' pipes, where a closed one must be an error, not the end."""
_records: list[logging.Logger] = []
"""The logger warnings and errors go to instead of stderr's text, once `as_log_records()` ran."""


def as_log_records() -> None:
    """From now on, write warnings and errors as records of the `toolweave.cli` logger."""
    _records[:] = [logging.getLogger("toolweave.cli")]


def warn(message: str) -> None:
    """Print `warning: message` to stderr (its control characters as escapes: `printable`)."""
    if _records:
        _records[0].warning("%s", message)
        return
    stderr.print(f"[yellow]warning:[/yellow] {escape(printable(message))}", markup=True, highlight=False)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print `error: message` to stderr (as `warn` does) and exit with `code`."""
    if _records:
        _records[0].error("%s", message)
    else:
        stderr.print(f"[bold red]error:[/bold red] {escape(printable(message))}", markup=True, highlight=False)
    raise typer.Exit(code)


@contextlib.contextmanager
def _quiet_when_stdout_closes() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        # what is still buffered, and anything written later, goes nowhere (else Python's flush at
        # exit fails once more and prints a traceback)
        with contextlib.suppress(OSError, ValueError):  # (a stdout without a descriptor: a test's)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(CLOSED_PIPE) from None


class Commands(TyperGroup):
    """The `toolweave` command group: output to a stdout nobody reads any more (a pipe into `head`)
    ends the command with `CLOSED_PIPE`, and no message. Both halves are covered: the root's options
    (`--help`, `--version`) are handled as its context is made, a command as it is invoked."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _quiet_when_stdout_closes():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _quiet_when_stdout_closes():
            return super().invoke(ctx)


def _result_json(result: ToolResult) -> Any:
    """The result exactly as MCP sends it (`content`, `structuredContent`, `isError`)."""
    from toolweave.mcp.convert import wire_result

    return wire_result(result)


def print_result(result: ToolResult, as_json: bool) -> None:
    """A call's result: text blocks, or structured content as JSON when there is no text."""
    if as_json:
        stdout.out(json.dumps(_result_json(result), indent=2, ensure_ascii=False, default=str), highlight=False)
        return
    if result.is_error:
        fail(result.text or "the tool reported an error")
    if result.text:
        stdout.out(result.text, highlight=False)
    elif result.structured_content is not None:
        print_json(stdout, result.structured_content)
    for block in result.content:
        kind = getattr(block, "type", type(block).__name__)
        if kind != "text":
            stdout.out(f"[{kind} content]", highlight=False)
