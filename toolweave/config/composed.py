"""`Composed`: what a config file builds, and the checks that can only run once it is running.

Example:
    >>> import anyio
    >>> from toolweave.config import build
    >>> from toolweave.config.models import Config
    >>> entry = {"import": "posixpath:basename", "tools": {"basenam": {}}}
    >>> composed = build(Config.model_validate({"python": [entry]}))
    >>> async def check() -> list[str]:
    ...     async with composed.running():
    ...         return composed.unknown_tool_keys()
    >>> anyio.run(check)
    ["python[0].tools.basenam: this source has no tool 'basenam' (did you mean 'basename'?)"]
"""

from __future__ import annotations

import fnmatch
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from toolweave.config.paths import key_path
from toolweave.core.names import advice
from toolweave.core.shown import HIDDEN, Expanded, shown_text, url_secrets
from toolweave.core.tool import Tool
from toolweave.openapi.credentials import Credentials
from toolweave.server.server import Server
from toolweave.transforms.argmap import MappedRun
from toolweave.transforms.sources import FromEnv


def _servers(root: Server) -> list[Server]:
    """`root` and every server mounted below it, once each."""
    found: list[Server] = []
    stack = [root]
    while stack:
        server = stack.pop()
        if any(server is seen for seen in found):
            continue
        found.append(server)
        stack.extend(mount.child for mount in server.mounts)
    return found


def _called_by(root: Server) -> dict[int, str]:
    """The name a client calls each tool by, by the id of every tool on its way there (in every
    server below `root`): the root's own names first; then, for a tool a catalog transform keeps
    behind its own (`call_tool` of `SearchTools`), the name the mounts on its way give it."""
    names: dict[int, str] = {}

    def walk(server: Server, renames: tuple[Any, ...]) -> None:  # the mounts' on the way, innermost first
        for name, entry in server.catalog.entries.items():
            for rename in renames:
                name = rename.name(name)
            for tool in entry.tool.lineage():
                names.setdefault(id(tool), name)
        for mount in server.mounts:
            walk(mount.child, (mount.rename, *renames))

    walk(root, ())
    return names


def _unset(sources: Iterable[Any]) -> set[str]:
    """The environment variables of `sources` (`FromEnv`) that are not set and have no default."""
    return {source.name for source in sources if isinstance(source, FromEnv) and source.missing}


def _unset_injected(tool: Tool) -> set[str]:
    """The unset environment variables the arguments `tool`'s own argument map injects read."""
    mapped = MappedRun.of(tool.run)
    return _unset(src.source for _, src in mapped.argmap.sources) if mapped is not None else set()


@dataclass(frozen=True, slots=True)
class Source:
    """One `python` item or `mcpServers` entry: where it is in the file, its server, and what names
    its tools: its `tools` keys and the globs of its `include`, `exclude` (and `disabledTools`)
    lists, each with its key path below the entry (`("tools", "echo")`, `("include", 0)`)."""

    where: str
    server: Any
    names: tuple[tuple[tuple[str | int, ...], str], ...] = ()


def _no_such_tool(word: str, names: list[str]) -> str:
    """What to say of a tool name (or glob) `word` that names none of a source's tools `names`.

    Example:
        >>> _no_such_tool("ecoh", ["echo", "shout"])
        "this source has no tool 'ecoh' (did you mean 'echo'?)"
        >>> _no_such_tool("x_*", ["echo", "shout"])
        "'x_*' matches no tool of this source (its tools are echo, shout)"
    """
    said = advice(word, names, f"its tools are {', '.join(names)}")
    if any(char in word for char in "*?["):
        return f"{word!r} matches no tool of this source ({said})"
    return f"this source has no tool {word!r} ({said})"


@dataclass
class Composed:
    """What a config builds: the root server, its sources, the remote servers, how HTTP verifies callers."""

    server: Server
    remotes: list[Any] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    authenticate: Callable[..., Any] | None = None
    auth: dict[str, Any] | None = None
    """The `http_app` options of `server.auth` (the verifier, resource URL, ...), when set."""
    file: str | None = None
    secrets: Expanded = field(default_factory=Expanded)
    """Values the config expanded from the environment (with their `${VAR}`): never shown."""
    fixed_settings: Mapping[str, Any] = field(default_factory=dict)
    """The `server` settings the process keeps from its start (`server.auth`, `server.store`, ...),
    by key path: a live reload compares them to say that a change takes a restart."""

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Server]:
        """Start the server's lifespan (the sessions of mounted MCP servers) for the block.

        Serving enters the lifespan too; nested entries only count users.
        """
        async with AsyncExitStack() as stack:
            if hasattr(self.server, "__aenter__"):
                await stack.enter_async_context(self.server)  # type: ignore[arg-type,unused-ignore]
            yield self.server

    def defines_nothing(self) -> bool:
        """Whether it serves nothing at all: no tool, prompt or resource and no upstream (an empty
        file, or one caught half written)."""
        server = self.server
        return not (
            self.remotes or server.catalog.tools or server.prompts.catalog.prompts or server.resources.catalog.entries
        )

    def hidden_values(self) -> dict[str, str]:
        """Every value to keep out of logs, with what to show instead: those the config expanded
        from the environment or inputs (as their `${VAR}`, and each string holding one as the
        config wrote it), and the passwords and secret-looking query values in the URLs of its
        upstreams, its APIs' base URLs and its store (as `***`).

        Example:
            >>> from toolweave.server.remote import RemoteServer
            >>> composed = Composed(Server("gw"), secrets=Expanded({"hunter2-0123": "${TOKEN}"}))
            >>> composed.remotes.append(RemoteServer.http("https://bot:pa55word@mcp.example/mcp"))
            >>> composed.hidden_values()
            {'pa55word': '***', 'hunter2-0123': '${TOKEN}'}
        """
        urls = [value for value in [self.fixed_settings.get("server.store")] if isinstance(value, str)]
        for remote in self.remotes:
            target = remote.target
            words = [getattr(target, "url", None), getattr(target, "command", None), *getattr(target, "args", ())]
            urls += [word for word in words if isinstance(word, str) and "://" in word]
        urls += [url for source in self.sources if isinstance(url := getattr(source.server, "base_url", None), str)]
        found = {value: HIDDEN for url in urls for value in url_secrets(url)}
        found.update(self.secrets.stand_ins())
        return found

    def shown(self, text: str) -> str:
        """`text` toolweave did not write (an upstream's error) without the values `hidden_values`
        names, as `shown_text` takes them out.

        Example:
            >>> composed = Composed(Server("gw"), secrets=Expanded({"hunter2-0123": "${TOKEN}"}))
            >>> composed.shown("FileNotFoundError: '/opt/hunter2-0123/srv'")
            "FileNotFoundError: '/opt/${TOKEN}/srv'"
        """
        return shown_text(text, self.hidden_values())

    def missing_environment(self) -> list[str]:
        """Environment variables injected arguments and HTTP APIs' upstream headers read that are
        not set (and have no default).

        One line per variable, naming the tools that need it as clients call them; checked at
        startup so an operator learns it before the first call fails (which would name it only
        in the log).

        Example:
            >>> from toolweave.transforms import FromEnv, InjectArgs, LimitResult
            >>> child = Server("child")
            >>> child.add_tool(lambda text: text, name="echo").name
            'echo'
            >>> child.add_transform(InjectArgs(text=FromEnv("TOOLWEAVE_EXAMPLE_UNSET")))
            >>> child.add_transform(LimitResult(max_items=5))
            >>> root = Server("root")
            >>> _ = root.mount(child, prefix="py")
            >>> Composed(root).missing_environment()
            ["environment variable TOOLWEAVE_EXAMPLE_UNSET is not set: calls to 'py_echo' will fail"]
        """
        names = _called_by(self.server)
        needed: dict[str, set[str]] = {}
        for server in _servers(self.server):
            credentials = getattr(server, "credentials", None)  # an HTTP API's upstream headers
            headers = _unset(credentials.sources()) if isinstance(credentials, Credentials) else set()
            for entry in server.catalog.entries.values():
                for variable in sorted(headers.union(*map(_unset_injected, entry.tool.lineage()))):
                    needed.setdefault(variable, set()).add(names.get(id(entry.tool), entry.tool.name))
        return [
            f"environment variable {name} is not set: calls to {', '.join(map(repr, sorted(tools)))} will fail"
            for name, tools in needed.items()
        ]

    def unknown_tool_keys(self) -> list[str]:
        """`tools.<name>` keys, and `include`/`exclude` globs, naming no tool of their source (with a
        suggestion), one line each.

        A source that lists no tools yet (an upstream not connected) is not checked.
        """
        problems: list[str] = []
        for source in self.sources:
            catalog = getattr(source.server, "catalog", None)
            names = [tool.name for tool in getattr(catalog, "tools", ())]
            if not names:
                continue
            # (a `tools` key is a tool name, a glob without wildcards: the same test)
            unknown = [(at, word) for at, word in source.names if not any(fnmatch.fnmatchcase(n, word) for n in names)]
            problems += [f"{key_path(at, start=source.where)}: {_no_such_tool(word, names)}" for at, word in unknown]
        return problems
