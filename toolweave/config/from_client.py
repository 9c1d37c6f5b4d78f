"""`--from`: a toolweave config made of the servers an MCP client is already configured with.

`client_config("vscode")` reads the client's files where the client keeps them (`CLIENTS`, for
Linux and macOS: the user's file, then the current project's, whose entries win by name), or the
one file given as `path`. Only the server list is taken from a client's file (`mcpServers` or
`servers`, and `inputs`; of a VS Code `settings.json`, those of its `mcp` block): the client's own
settings beside it are the client's business. Every
server is mounted under its name as prefix (`github` → `github_search_issues`), as the clients
themselves keep servers apart. `layered(...)` adds a toolweave file on top — its `middleware`,
`transforms`, `server` settings, `python` imports and more servers.

Example:
    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> path = folder / "claude_desktop_config.json"  # a client's own file
    >>> github = {"command": "github-mcp-server", "args": ["stdio"], "env": {"TOKEN": "${input:token}"}}
    >>> _ = path.write_text(json.dumps({"mcpServers": {"github": github}}))
    >>> config = client_config("claude-desktop", path, inputs={"token": "t-1"})  # no path: Claude's own file
    >>> entry = config.mcp_servers["github"]
    >>> entry.prefix, entry.command, entry.env
    ('github', 'github-mcp-server', {'TOKEN': 't-1'})
    >>> _ = (folder / "policies.yaml").write_text("middleware: {timeout: 30}")
    >>> composed = build_client("claude-desktop", path, with_file=folder / "policies.yaml", inputs={"token": "t-1"})
    >>> composed.remotes  # built, not started
    [RemoteServer('github', 'github-mcp-server stdio')]
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolweave.config.build import build, naming_file
from toolweave.config.composed import Composed
from toolweave.config.dialects import CLIENTS, Platform
from toolweave.config.entries import McpServerEntry
from toolweave.config.loading import check_inputs, load_config, problems_error, read_data, validate
from toolweave.config.models import Config
from toolweave.core.errors import ConfigError
from toolweave.core.names import first_free
from toolweave.core.shown import Expanded

logger = logging.getLogger("toolweave.config")
SERVER_LISTS = ("mcpServers", "servers", "inputs")
"""The keys taken from a client's file."""
_NOT_IN_PREFIX = re.compile(r"[^A-Za-z0-9_.-]+")


def current_platform() -> Platform:
    """`"macos"` on macOS, else `"linux"` (whose paths other Unix systems share)."""
    return "macos" if sys.platform == "darwin" else "linux"


def prefix_for(name: str) -> str:
    """A mount prefix from a server's name: characters a tool name cannot hold become `_`.

    Example:
        >>> prefix_for("github"), prefix_for("@acme/docs server")
        ('github', '_acme_docs_server')
    """
    return _NOT_IN_PREFIX.sub("_", name)[:64] or "server"


@dataclass(frozen=True)
class _Section:
    """The server list of one client file (or of one part of it), as read."""

    file: str
    data: dict[str, Any]
    folder: Path


def _server_list(data: Any, *, file: str, required: bool) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError("the top level must be a mapping (an object)", file=file)
    found = {key: data[key] for key in SERVER_LISTS if key in data}
    if required and not ({"mcpServers", "servers"} & set(found)):
        raise ConfigError("no 'mcpServers' or 'servers' in this file: it lists no MCP servers", file=file)
    return found


def _settings_block(data: Any, file: str) -> tuple[Any, str]:
    """A VS Code `settings.json`'s `mcp` block (`{"mcp": {"servers": ..., "inputs": ...}}`, where
    VS Code kept its servers before `mcp.json`) and the name to report its problems under; any
    other file as it is."""
    if isinstance(data, dict) and isinstance(data.get("mcp"), dict) and not {"mcpServers", "servers"} & set(data):
        return data["mcp"], f"{file} (mcp)"
    return data, file


def _sections(
    name: str, path: Path | None, *, home: Path, cwd: Path, platform: Platform
) -> tuple[list[_Section], list[ConfigError]]:
    """The server lists to read for client `name`, in order (later ones win by server name), and
    the problems of the files that could not be read."""
    if path is not None:
        data, where = _settings_block(read_data(path), str(path))
        return [_Section(where, _server_list(data, file=where, required=True), path.parent)], []
    client = CLIENTS[name]
    files = [home / spec[2:] if spec.startswith("~/") else cwd / spec for spec in client.files(platform)]
    found = [file for file in files if file.is_file()]
    if not found:
        tried = ", ".join(str(file) for file in files)
        raise ConfigError(f"no {client.title} config found (looked for {tried}); give its path: --from {name} PATH")
    sections, local, problems = [], [], []
    for file in found:
        try:
            data = read_data(file)
            listed = _server_list(data, file=str(file), required=False)
        except ConfigError as error:
            problems.append(error)
            continue
        if name == "claude-code" and file == cwd / ".mcp.json":
            listed = _approved(listed, file, home=home, cwd=cwd)
        sections.append(_Section(str(file), listed, file.parent))
        project = _claude_code_project(data, cwd) if name == "claude-code" and file.name == ".claude.json" else None
        if project is not None:  # Claude Code's local scope wins over the project's .mcp.json
            where = f"{file} (projects[{str(cwd)!r}])"
            try:
                local.append(_Section(where, _server_list(project, file=where, required=False), cwd))
            except ConfigError as error:
                problems.append(error)
    return sections + local, problems


def _claude_code_project(data: Any, cwd: Path) -> Any:
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects.get(str(cwd)) if isinstance(projects, dict) else None


CLAUDE_CODE_APPROVALS = (
    "~/.claude.json",
    "~/.claude/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
"""Where Claude Code keeps which of a project's `.mcp.json` servers the user approved or rejected
(`enabledMcpjsonServers`, `disabledMcpjsonServers`, `enableAllProjectMcpServers`; in
`~/.claude.json`, under the project's folder)."""


def _approved(listed: dict[str, Any], file: Path, *, home: Path, cwd: Path) -> dict[str, Any]:
    """The servers of a project's `.mcp.json` the user approved in Claude Code, which asks before
    it starts any (the file comes with the project: a cloned repository's may run anything). A
    rejected one, or one never approved, is left out with a warning."""
    servers = listed.get("mcpServers")
    if not isinstance(servers, dict) or not servers:
        return listed
    enabled: set[str] = set()
    disabled: set[str] = set()
    every = False
    for spec in CLAUDE_CODE_APPROVALS:
        path = home / spec[2:] if spec.startswith("~/") else cwd / spec
        try:
            settings = read_data(path) if path.is_file() else None
        except ConfigError as error:  # unread, it approves nothing
            logger.warning("%s", error)
            continue
        if spec == "~/.claude.json":
            settings = _claude_code_project(settings, cwd)
        if not isinstance(settings, dict):
            continue
        enabled |= {name for name in settings.get("enabledMcpjsonServers") or () if isinstance(name, str)}
        disabled |= {name for name in settings.get("disabledMcpjsonServers") or () if isinstance(name, str)}
        every = every or settings.get("enableAllProjectMcpServers") is True
    kept = {name: entry for name, entry in servers.items() if name not in disabled and (every or name in enabled)}
    rejected = sorted(disabled.intersection(servers))
    unapproved = sorted(set(servers).difference(kept, rejected))
    if rejected:
        logger.warning("%s: left out the servers rejected in Claude Code: %s", file, ", ".join(rejected))
    if unapproved:
        logger.warning(
            "%s: left out the servers not approved in Claude Code: %s (approve them there, or serve the file: "
            "toolweave serve %s)",
            file,
            ", ".join(unapproved),
            file,
        )
    return {**listed, "mcpServers": kept}


def _rebased(entry: McpServerEntry, folder: Path) -> McpServerEntry:
    """`entry` with its relative `cwd` and `envFile` resolved against its file's `folder`."""
    updates: dict[str, Any] = {}
    for key in ("cwd", "env_file"):
        value = getattr(entry, key)
        if value is not None and not os.path.isabs(value):
            updates[key] = str((folder / value).resolve())
    return entry.model_copy(update=updates) if updates else entry


def _prefixed(servers: dict[str, dict[str, McpServerEntry]]) -> dict[str, dict[str, McpServerEntry]]:
    """`servers` each under its own prefix, or one made from its name: of names that make the same
    one (`notes server`, `notes/server`), the first keeps it and the others get the first number
    free (`notes_server_2`)."""
    entries = {name: entry for named in servers.values() for name, entry in named.items()}  # names are unique
    taken = {entry.prefix for entry in entries.values() if entry.prefix}
    prefixes: dict[str, str] = {}
    clashing: list[str] = []
    for name, entry in entries.items():
        prefixes[name] = entry.prefix or prefix_for(name)
        if not entry.prefix:
            if prefixes[name] in taken:
                clashing.append(name)
            taken.add(prefixes[name])
    for name in clashing:
        prefixes[name] = first_free(prefixes[name], taken)
        taken.add(prefixes[name])
    return {
        key: {name: entry.model_copy(update={"prefix": prefixes[name]}) for name, entry in named.items()}
        for key, named in servers.items()
    }


def client_config(
    name: str,
    path: str | os.PathLike[str] | None = None,
    *,
    inputs: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
    cwd: Path | None = None,
    platform: Platform | None = None,
) -> Config:
    """A config of the MCP servers client `name` (a key of `CLIENTS`) is configured with.

    Args:
        path: The client's file to read instead of its usual ones.
        inputs: Values of `${input:id}` references (before the environment variable `id`).
        home, cwd, platform: Where to look (the home folder, the project folder, `"linux"` or
            `"macos"`); the current ones by default.

    Raises:
        ConfigError: no file found (naming where it looked), or every problem of the files read.
    """
    if name not in CLIENTS:
        raise ConfigError(f"unknown client {name!r}; one of: {', '.join(CLIENTS)}")
    home, cwd = home or Path.home(), (cwd or Path.cwd()).resolve()
    sections, problems = _sections(
        name,
        Path(path).expanduser() if path is not None else None,
        home=home,
        cwd=cwd,
        platform=platform or current_platform(),
    )
    servers: dict[str, dict[str, McpServerEntry]] = {"mcp_servers": {}, "servers": {}}
    secrets = Expanded()
    ids: frozenset[str] = frozenset()
    for section in sections:
        try:
            config = validate(
                section.data, file=section.file, environ=environ, inputs=inputs, client=True, home=home, cwd=cwd
            )
        except ConfigError as error:
            problems.append(error)
            continue
        for key, entries in (("mcp_servers", config.mcp_servers), ("servers", config.servers)):
            for server, entry in entries.items():
                for found in servers.values():
                    found.pop(server, None)
                servers[key][server] = _rebased(entry, section.folder)
        secrets |= config.secrets
        ids |= config.input_ids
    if problems:
        raise problems[0] if len(problems) == 1 else problems_error([str(p) for p in problems], file=None)
    return Config.model_validate({}).model_copy(update=_prefixed(servers)).with_secrets(secrets).with_input_ids(ids)


def layered(base: Config, over: Config, *, file: str | None = None) -> Config:
    """`over` (a toolweave config) with the MCP servers of `base` added to its own.

    Raises:
        ConfigError: a server name in both.
    """
    names = {*over.mcp_servers, *over.servers}
    clash = sorted(names & {*base.mcp_servers, *base.servers})
    if clash:
        raise ConfigError(
            f"{', '.join(map(repr, clash))} also defined by the client's config; rename one of them", file=file
        )
    merged = over.model_copy(
        update={
            "mcp_servers": {**base.mcp_servers, **over.mcp_servers},
            "servers": {**base.servers, **over.servers},
        }
    )
    return merged.with_secrets(base.secrets | over.secrets).with_input_ids(base.input_ids | over.input_ids)


def build_client(
    name: str,
    path: str | os.PathLike[str] | None = None,
    *,
    with_file: str | os.PathLike[str] | None = None,
    inputs: Mapping[str, str] | None = None,
    **where: Any,
) -> Composed:
    """Build the server client `name`'s config describes, with `with_file` layered over it.

    `**where` are `client_config`'s `environ`, `home`, `cwd` and `platform`.
    """
    config = client_config(name, path, inputs=inputs, **where)
    base_dir = Path.cwd()
    if with_file is not None:
        config = layered(config, load_config(with_file, inputs=inputs), file=str(with_file))
        base_dir = Path(with_file).parent
    label = f"--from {name}" if with_file is None else f"--from {name} --with {with_file}"
    try:
        check_inputs(config, inputs)
        composed = build(config, base_dir=base_dir)
    except ConfigError as error:
        raise naming_file(error, label) from None
    composed.file = label
    return composed
