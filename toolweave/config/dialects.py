"""What MCP clients write: where each keeps its server list, and the spellings toolweave accepts.

A toolweave config file accepts the server lists of the major MCP clients as they are — the
`mcpServers` object of Claude Desktop, Claude Code, Cursor, Windsurf and Cline, the `servers`
object and `inputs` list of VS Code — with each client's spellings of the transport and the URL.
`CLIENTS` says where each client keeps its file (for `toolweave serve --from NAME`), and
`dialect_table()` renders the table that the README and `toolweave schema` show.

Example:
    >>> TRANSPORTS["streamableHttp"], TRANSPORTS["sse"]
    ('http', 'sse')
    >>> CLIENTS["vscode"].files("linux")
    ('~/.config/Code/User/mcp.json', '.vscode/mcp.json')
    >>> CLIENTS["claude-desktop"].files("macos")
    ('~/Library/Application Support/Claude/claude_desktop_config.json',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Transport = Literal["stdio", "http", "sse"]
"""How toolweave reaches an upstream: a subprocess, streamable HTTP, or the legacy HTTP+SSE transport."""
TransportName = Literal["stdio", "http", "streamable-http", "streamableHttp", "sse"]
"""The values clients write in `type` / `transport`."""
TRANSPORTS: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "sse": "sse",
}
Platform = Literal["linux", "macos"]


@dataclass(frozen=True)
class Client:
    """An MCP client's config files: where they are and what the client writes in them.

    The user's file is in the home folder (`~/`); a project's file, relative to the current folder,
    is read after it, so a project's entry of the same name wins, as in the client.
    """

    name: str
    """The `--from` value."""
    title: str
    linux: str
    """The user's file on Linux."""
    macos: str
    """The user's file on macOS."""
    project: str | None
    """A project's file, relative to the project folder."""
    key: Literal["mcpServers", "servers"]
    writes: str
    """The keys and spellings it writes, for the table."""

    def files(self, platform: Platform) -> tuple[str, ...]:
        """The files to read on `platform`, the user's first, the project's last."""
        user = self.macos if platform == "macos" else self.linux
        return (user, self.project) if self.project else (user,)


_CODE = "Code/User"
_CLINE = f"{_CODE}/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client(
            "claude-desktop",
            "Claude Desktop",
            "~/.config/Claude/claude_desktop_config.json",
            "~/Library/Application Support/Claude/claude_desktop_config.json",
            None,
            "mcpServers",
            "`command`, `args`, `env`",
        ),
        Client(
            "claude-code",
            "Claude Code",
            "~/.claude.json",
            "~/.claude.json",
            ".mcp.json",
            "mcpServers",
            "`type: stdio\\|http\\|sse`, `url`, `headers`, `${VAR:-default}`; in `~/.claude.json` the user's "
            "servers and the current project's (`projects.<folder>.mcpServers`, which win); of `.mcp.json`, "
            "the servers approved in Claude Code only (`enabledMcpjsonServers`, `enableAllProjectMcpServers`; "
            "never a `disabledMcpjsonServers` one)",
        ),
        Client(
            "cursor",
            "Cursor",
            "~/.cursor/mcp.json",
            "~/.cursor/mcp.json",
            ".cursor/mcp.json",
            "mcpServers",
            "`url`, `headers`, `envFile`, `${env:VAR}`, `${workspaceFolder}`, `${userHome}`, `auth` (its OAuth login: "
            "told of, not used)",
        ),
        Client(
            "windsurf",
            "Windsurf",
            "~/.codeium/windsurf/mcp_config.json",
            "~/.codeium/windsurf/mcp_config.json",
            None,
            "mcpServers",
            "`serverUrl`, `headers`, `disabled`, `disabledTools`, `${env:VAR}`",
        ),
        Client(
            "cline",
            "Cline",
            f"~/.config/{_CLINE}",
            f"~/Library/Application Support/{_CLINE}",
            None,
            "mcpServers",
            "`type: stdio\\|streamableHttp\\|sse`, `url`, `headers`, `disabled`, `timeout`, `alwaysAllow`, "
            "`autoApprove`",
        ),
        Client(
            "vscode",
            "VS Code",
            f"~/.config/{_CODE}/mcp.json",
            f"~/Library/Application Support/{_CODE}/mcp.json",
            ".vscode/mcp.json",
            "servers",
            "`servers` + `inputs` (`${input:id}`), `type: stdio\\|http\\|sse`, `envFile`, `dev`, `${env:VAR}`, "
            "`${workspaceFolder}`, comments and trailing commas; a `settings.json` given as PATH: its `mcp` block",
        ),
    )
}


def dialect_table() -> str:
    """The accepted dialects as a Markdown table (the README's, and part of `toolweave schema`)."""
    rows = [
        "| client (`--from`) | servers under | it writes (all accepted) | user's file: Linux, macOS | project's file |",
        "|---|---|---|---|---|",
    ]
    for client in CLIENTS.values():
        user = f"`{client.linux}`" if client.linux == client.macos else f"`{client.linux}`, `{client.macos}`"
        project = f"`{client.project}`" if client.project else "—"
        rows.append(f"| {client.title} (`{client.name}`) | `{client.key}` | {client.writes} | {user} | {project} |")
    rows.append(
        "| any | `mcpServers` or `servers` | `type` or `transport`: `stdio`, `http`, `streamable-http`, "
        "`streamableHttp`, `sse`; `url` or `serverUrl` | — | — |"
    )
    return "\n".join(rows)
