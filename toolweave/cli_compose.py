"""The config a command composes, run with its upstreams started, and their states reported.

A command names a config file (or `--from CLIENT`, with `--with` over it, and `--input` values;
the options are declared here): `compose` builds it or exits with its error. `run_composed`
starts the upstreams, compiles the catalog, warns of what does not stop it, and runs the
command's `work`, which reports an error by returning a `Failure`. After, `report_upstreams`
exits 1 when an upstream was not up (unless `--allow-down`). A tool that is not there is named
with the nearest ones, and with the upstreams that are not up (one of them may have held it):

Example:
    >>> unknown_tool(["local_add", "wx_get_forecast"], "local_ad", [{"name": "wx", "state": "down"}])
    "unknown tool 'local_ad'; did you mean 'local_add'? (upstream 'wx' is down)"
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.markup import escape

from toolweave.cli_logging import hide_secrets_in_logs
from toolweave.cli_output import fail, stderr, warn
from toolweave.config import Composed, build_file
from toolweave.config.from_client import build_client
from toolweave.core.errors import ConfigError, ToolweaveError
from toolweave.core.names import advice

logger = logging.getLogger("toolweave.cli")

ConfigPath = Annotated[Path, typer.Argument(help="The config file (.yaml, .yml, .json or .toml).", show_default=False)]
SourcePath = Annotated[
    Path | None,
    typer.Argument(
        help="The config file (.yaml, .yml, .json or .toml); with --from, the client's config file "
        "(by default, where the client keeps it).",
        show_default=False,
    ),
]


class Client(StrEnum):
    """MCP clients whose config `--from` reads (`toolweave.config.dialects.CLIENTS`)."""

    claude_desktop = "claude-desktop"
    claude_code = "claude-code"
    cursor = "cursor"
    windsurf = "windsurf"
    cline = "cline"
    vscode = "vscode"


FromOption = Annotated[
    Client | None,
    typer.Option(
        "--from",
        help="Use the MCP servers this client is configured with, each under its name as prefix.",
        show_default=False,
    ),
]
WithOption = Annotated[
    Path | None,
    typer.Option(
        "--with",
        help="With --from: a toolweave config layered over the client's servers (middleware, transforms, ...).",
        show_default=False,
    ),
]
InputOption = Annotated[
    list[str] | None,
    typer.Option(
        "--input",
        metavar="ID=VALUE",
        help="A value for ${input:ID} references (repeatable); before the environment variable ID.",
        show_default=False,
    ),
]


AllowDown = Annotated[
    bool, typer.Option("--allow-down", help="Exit 0 even when an upstream MCP server could not be started.")
]


def parse_inputs(pairs: Sequence[str]) -> dict[str, str]:
    """`--input ID=VALUE` pairs as a mapping. An id given twice is refused (neither value wins), and
    a malformed pair is not quoted back: it may be a value (a secret) whose id was forgotten.

    Example:
        >>> parse_inputs(["github_token=abc", "region=eu=west"])
        {'github_token': 'abc', 'region': 'eu=west'}
        >>> parse_inputs(["token=abc", "token=abd"])
        Traceback (most recent call last):
        ValueError: --input 'token' is given twice
    """
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError("--input takes ID=VALUE (one has no '=', or nothing before it)")
        if name in found:
            raise ValueError(f"--input {name!r} is given twice")
        found[name] = value
    return found


def compose(
    config: Path | None,
    client: Client | None = None,
    with_file: Path | None = None,
    inputs: Sequence[str] = (),
) -> Composed:
    """Load and build the config (or client `--from` config, with `--with` over it), or exit with its
    error; its secrets are kept out of the logs from then on. What Python code prints meanwhile (a
    module as it is imported) goes to stderr: stdout is for the result, or the wire (`serve`)."""
    try:
        values = parse_inputs(inputs)
    except ValueError as error:
        fail(str(error), code=2)
    if client is None and with_file is not None:
        fail("--with layers a toolweave config over a client's servers: give --from CLIENT too", code=2)
    if client is None and config is None:
        fail("give a config file, or --from CLIENT to use an MCP client's config", code=2)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            if client is not None:
                composed = build_client(client.value, config, with_file=with_file, inputs=values)
            else:
                assert config is not None
                composed = build_file(config, inputs=values)
    except ConfigError as error:
        fail(str(error))
    hide_secrets_in_logs(lambda: composed)
    return composed


@dataclass(frozen=True)
class Failure:
    """A command's error, returned out of the event loop (an exception raised inside the server's
    lifespan would come out wrapped in an exception group) and reported by `run_composed`."""

    message: str
    code: int = 1


def _compile(composed: Composed) -> Failure | None:
    try:
        composed.server.catalog  # noqa: B018 - compile now, so nothing runs from a bad composition
    except ConfigError as error:
        return Failure(f"{composed.file}: {error}" if composed.file else str(error))
    except (ToolweaveError, TypeError, ValueError) as error:
        logger.debug("composition failed", exc_info=error)
        where = f"{composed.file}: " if composed.file else ""
        return Failure(f"{where}cannot compose the server: {error}")
    return None


def _only_leaf(group: BaseExceptionGroup[Any]) -> BaseException | None:
    """The one exception inside (possibly nested) groups, or None when there are several."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        else:
            leaves.append(item)
    return leaves[0] if len(leaves) == 1 else None


def upstream_states(composed: Composed) -> list[dict[str, Any]]:
    """Each upstream MCP server: its name, what it is (command or URL), its state and why it is
    not up (secrets hidden from each: an error may quote the command or URL it failed on)."""
    states = []
    for remote in composed.remotes:
        state: dict[str, Any] = {"name": remote.name, "target": remote.target.describe(), "state": remote.state}
        if remote.state != "up" and remote.last_error:
            state["error"] = composed.shown(remote.last_error)
        states.append(state)
    return states


def report_upstreams(states: list[dict[str, Any]], allow_down: bool, *, listed: bool = False) -> None:
    """Print each upstream that was not up to stderr (unless `listed`: the output showed every
    upstream's state already); exit 1 when one was not up, unless `allow_down`."""
    down = [state for state in states if state["state"] != "up"]
    for state in [] if listed else down:
        why = f": {state['error']}" if state.get("error") else ""
        stderr.print(
            f"[red]upstream {escape(repr(state['name']))} is {state['state']}[/red] "
            f"({escape(state['target'])}){escape(why)}",
            markup=True,
            highlight=False,
        )
    if down and not allow_down:
        names = ", ".join(repr(state["name"]) for state in down)
        fail(f"{len(down)} upstream(s) could not be started: {names} (--allow-down to go on without them)")


def _warnings(composed: Composed) -> list[str]:
    where = f"{composed.file}: " if composed.file else ""
    found = [where + problem for problem in composed.unknown_tool_keys()]
    found += composed.missing_environment()
    if composed.defines_nothing():
        found.append(f"{where}the config defines no tools, prompts or resources")
    return found


def run_composed(
    composed: Composed,
    work: Callable[[Composed], Awaitable[Any]],
    *,
    warnings: bool = True,
    stdout_is_result: bool = True,
) -> Any:
    """Run `work` with the server's lifespan entered (upstreams started) and its catalog compiled.

    A composition that fails to compile (a name clash, a transform refusing a tool) exits with
    status 1 before `work` starts; `work` reports its own errors by returning a `Failure`.
    Problems that do not stop it (a `tools` key naming no tool, an unset environment variable an
    injection reads, an empty config) are printed as warnings first, unless not `warnings`. While
    it runs, what Python code prints goes to stderr, stdout being the result's (`list`, `explain`,
    `call`); `serve` passes `stdout_is_result=False`: over stdio, stdout is the wire, which the SDK
    claims itself (pointing fd 1 at stderr while it serves).
    """

    async def main() -> Any:
        async with composed.running():
            failure = _compile(composed)
            if failure is not None:
                return failure
            for problem in _warnings(composed) if warnings else ():
                warn(problem)
            return await work(composed)

    try:
        with contextlib.redirect_stdout(sys.stderr) if stdout_is_result else contextlib.nullcontext():
            result = anyio.run(main)
    except ConfigError as error:
        fail(str(error))
    except BaseExceptionGroup as group:  # raised through the server's lifespan task group
        leaf = _only_leaf(group)
        if isinstance(leaf, SystemExit):  # e.g. uvicorn could not bind; it logged why
            raise typer.Exit(leaf.code if isinstance(leaf.code, int) else 1) from None
        if isinstance(leaf, KeyboardInterrupt):
            raise leaf from None
        raise
    if isinstance(result, Failure):
        fail(result.message, result.code)
    return result


def unknown_tool(names: list[str], name: str, states: list[dict[str, Any]]) -> str:
    """Why `name` is no tool: the nearest of `names` (those the asker may see; or every one of
    them), and the upstreams that are not up. A tool hidden from the asker is unknown in the same
    words as one that does not exist: `names` do not hold it, and no hint names `name` itself."""
    names = [known for known in names if known != name]
    down = [f"upstream {state['name']!r} is {state['state']}" for state in states if state["state"] != "up"]
    said = advice(name, names, f"tools: {', '.join(names) or 'none'}")
    return f"unknown tool {name!r}; {said}" + (f" ({'; '.join(down)})" if down else "")
