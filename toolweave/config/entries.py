"""Config models of the sources of tools: `python` items, MCP server entries (`mcpServers`,
`servers`) and `openapi` APIs, with the options toolweave adds to every one (`SourceOptions`).

An MCP server entry is written as the major MCP clients write one (`command` or `url`, `type`,
`env`, `headers`, ...); the other entries are toolweave's own.

Example:
    >>> McpServerEntry.model_validate({"url": "https://host/sse", "type": "sse"}).transport
    'sse'
    >>> PythonEntry.model_validate({"import": "tools:server", "prefix": "local"}).target
    'tools:server'
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, StrictBool, Tag, model_validator

from toolweave.config.base import (
    HttpURL,
    ImportPath,
    StrictModel,
    StrictPositiveFloat,
    StrictPositiveInt,
    ToolName,
    shape,
)
from toolweave.config.changes import ToolSpec
from toolweave.config.dialects import TRANSPORTS, Transport, TransportName
from toolweave.config.policies import Glob, MiddlewareSet

_ALIASES = {"env_file": "envFile"}


class SourceOptions(StrictModel):
    """What toolweave adds to a source of tools (an MCP server or a Python import)."""

    prefix: ToolName | None = Field(None, description="Expose the tools as '<prefix>_<name>'.")
    include: list[Glob] | None = Field(None, description="Only expose tools whose name matches one of these globs.")
    exclude: list[Glob] = Field(default_factory=list, description="Never expose tools whose name matches these globs.")
    tools: dict[ToolName, ToolSpec] = Field(
        default_factory=dict, description="Per-tool changes, keyed by the tool's original name."
    )
    middleware: MiddlewareSet | None = Field(None, description="Middleware around this source's tools only.")
    timeout: StrictPositiveFloat | None = Field(
        None,
        description="Seconds each call to this source's tools may take. For an MCP server: each request to it "
        "(a call, a prompt, a resource read; a call of a tool it lists with task support is bounded by the "
        "caller's deadline only), and connecting unless `connect_timeout` says otherwise (default 60).",
    )


class PythonEntry(SourceOptions):
    """Tools from Python: a toolweave Server, a Tool, a function, or a list of them."""

    target: ImportPath = Field(alias="import", description="What to import, as 'package.module:attribute'.")
    mode: Literal["mount", "import"] = Field(
        "mount",
        description="For a Server: 'mount' follows its later changes, 'import' copies its tools once.",
    )


PythonSource = Annotated[
    Union[Annotated[ImportPath, Tag("<string>")], Annotated[PythonEntry, Tag("<object>")]],  # noqa: UP007
    Discriminator(shape),
]


class ClientCredentialsSpec(StrictModel):
    """The gateway's own OAuth token for an upstream (client-credentials grant)."""

    token_url: HttpURL = Field(description="The authorization server's token endpoint.")
    client_id: str = Field(description="The gateway's client id.")
    client_secret: str = Field(description="Its secret: write '${VAR}' (or 'env:VAR', read at each refresh).")
    scopes: list[str] = Field(default_factory=list, description="Scopes to ask for.")
    audience: str | None = Field(None, description="An `audience` parameter, for servers that want one.")
    resource: HttpURL | None = Field(
        None,
        description="An RFC 8707 `resource` parameter (the upstream's URL), for servers issuing tokens per resource.",
    )


class UpstreamAuthSpec(StrictModel):
    """The gateway's own credentials for an HTTP upstream (a caller's token is never passed on)."""

    bearer: str | None = Field(
        None, description="A bearer token: write '${VAR}', or 'env:VAR' to read VAR at every request."
    )
    client_credentials: ClientCredentialsSpec | None = Field(
        None, description="Get a token with the OAuth client-credentials grant; renewed before it expires."
    )
    login_client_id: Any = Field(
        None, alias="CLIENT_ID", description="Accepted and ignored: Cursor's OAuth login, which signs a person in."
    )
    login_client_secret: Any = Field(
        None, alias="CLIENT_SECRET", description="Accepted and ignored: Cursor's OAuth login, which signs a person in."
    )
    login_scopes: Any = Field(
        None, alias="scopes", description="Accepted and ignored: Cursor's OAuth login, which signs a person in."
    )

    @model_validator(mode="after")
    def _one_credential(self) -> UpstreamAuthSpec:
        if self.bearer is not None and self.client_credentials is not None:
            raise ValueError("give exactly one of bearer or client_credentials")
        if self.bearer is None and self.client_credentials is None and not self.is_login:
            raise ValueError("give exactly one of bearer or client_credentials")
        return self

    @property
    def is_login(self) -> bool:
        """Whether this is Cursor's static OAuth client block (`CLIENT_ID`, `CLIENT_SECRET`,
        `scopes`): a login a person completes in a browser, which a gateway cannot."""
        return bool({"login_client_id", "login_client_secret", "login_scopes"} & self.model_fields_set)


class McpServerEntry(SourceOptions):
    """An MCP server to mount, as the major MCP clients write one: spawned over stdio (`command`) or
    reached over HTTP (`url`, or `serverUrl`): streamable HTTP, or the legacy HTTP+SSE transport
    with `type: sse`."""

    type: TransportName | None = Field(
        None,
        description="The transport: 'stdio', 'http' (also spelt 'streamable-http' or 'streamableHttp') "
        "or 'sse' (the legacy HTTP+SSE transport); inferred from `command` (stdio) or `url` (http) "
        "when left out.",
    )
    declared_transport: TransportName | None = Field(
        None, alias="transport", description="The same as `type`, as some clients spell it."
    )
    transport_type: TransportName | None = Field(
        None, alias="transportType", description="The same as `type`, as Cline's older entries spell it."
    )
    command: str | None = Field(None, description="The program to start (stdio).")
    args: list[str] = Field(default_factory=list, description="Arguments for `command` (stdio).")
    env: dict[str, str] | None = Field(None, description="Environment variables for `command` (stdio).")
    env_file: str | None = Field(
        None,
        alias="envFile",
        description="A file of KEY=VALUE lines for the environment of `command`, relative to the "
        "config file; `env` wins over it (stdio).",
    )
    cwd: str | None = Field(None, description="Working directory for `command`, relative to the config file (stdio).")
    url: str | None = Field(
        None, description="The HTTP endpoint, e.g. 'https://host/mcp' (streamable HTTP) or 'https://host/sse' (SSE)."
    )
    server_url: str | None = Field(None, alias="serverUrl", description="The same as `url`, as Windsurf spells it.")
    headers: dict[str, str] | None = Field(None, description="HTTP headers sent with every request (HTTP).")
    auth: UpstreamAuthSpec | None = Field(None, description="The gateway's own credentials for this upstream (HTTP).")
    forward_caller_token: StrictBool = Field(
        False,
        description="Send each verified caller's own bearer token to this upstream, over one upstream "
        "session per caller (HTTP); `auth` then serves only to list the catalog. A request without a "
        "verified caller fails.",
    )
    caller_sessions: StrictPositiveInt | None = Field(
        None, description="With forward_caller_token: the most caller sessions kept open at once (default 64)."
    )
    caller_session_idle: StrictPositiveFloat | None = Field(
        None, description="With forward_caller_token: seconds after which an unused caller session is closed (300)."
    )
    connect_timeout: StrictPositiveFloat | None = Field(
        None,
        description="Seconds starting waits for this server to answer its handshake and list its tools; "
        "after it, the server is down (`list` and `call` say so) and retried in the background. Default: "
        "`timeout` when that is shorter than 30 (a bound on each request bounds connecting too), else 30.",
    )
    disabled: StrictBool = Field(False, description="Skip this server (as some clients' config files allow).")
    required: StrictBool = Field(
        False, description="The gateway is not ready (`/readyz` answers 503) while this server is not connected."
    )
    disabled_tools: list[Glob] = Field(
        default_factory=list,
        alias="disabledTools",
        description="Tools switched off in the client: never exposed (added to `exclude`).",
    )
    always_allow: Any = Field(
        None, alias="alwaysAllow", description="Accepted and ignored: tools a client runs without asking."
    )
    auto_approve: Any = Field(
        None, alias="autoApprove", description="Accepted and ignored: tools a client runs without asking."
    )
    dev: Any = Field(None, description="Accepted and ignored: VS Code's development mode (watch, debug).")
    gallery: Any = Field(None, description="Accepted and ignored: where VS Code installed the server from.")
    version: Any = Field(None, description="Accepted and ignored: the version VS Code installed.")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerEntry:
        given = [name for name in (self.type, self.declared_transport, self.transport_type) if name is not None]
        declared = {TRANSPORTS[name] for name in given}
        if len(declared) > 1:
            raise ValueError("'type', 'transport' and 'transportType' name different transports")
        if self.url is not None and self.server_url is not None:
            raise ValueError("give either 'url' or 'serverUrl', not both")
        url = self.endpoint
        if self.command is not None and url is not None:
            raise ValueError("give either 'command' (stdio) or 'url' (HTTP), not both")
        if self.command is None and url is None:
            wanted = "'url'" if declared & {"http", "sse"} else "'command'"
            raise ValueError(f"missing {wanted}: an MCP server needs 'command' (stdio) or 'url' (HTTP)")
        if self.command is not None and not self.command.strip():  # (e.g. `${GH_BIN}` set to "")
            raise ValueError("'command' is empty: give the program to start")
        if url is not None:
            stdio_keys = ("args", "env", "env_file", "cwd")
            stdio_only = [_ALIASES.get(key, key) for key in stdio_keys if key in self.model_fields_set]
            if stdio_only:
                raise ValueError(f"{', '.join(stdio_only)} only apply to stdio servers ('command'), not to 'url'")
        if self.command is not None and self.headers is not None:
            raise ValueError("'headers' only apply to HTTP servers ('url'), not to 'command'")
        if self.command is not None and self.forward_caller_token:
            raise ValueError("forward_caller_token only applies to HTTP servers ('url'): a 'command' gets no token")
        pool = [key for key in ("caller_sessions", "caller_session_idle") if getattr(self, key) is not None]
        if pool and not self.forward_caller_token:
            raise ValueError(f"{', '.join(pool)} needs forward_caller_token: true")
        if self.command is not None and declared & {"http", "sse"}:
            raise ValueError(f"type {given[0]!r} needs 'url', not 'command'")
        if url is not None and declared == {"stdio"}:
            raise ValueError("type 'stdio' needs 'command', not 'url'")
        return self

    @property
    def endpoint(self) -> str | None:
        """The URL (`url` or `serverUrl`), or None for a stdio server."""
        return self.url if self.url is not None else self.server_url

    @property
    def transport(self) -> Transport:
        """`"stdio"`, `"http"` (streamable HTTP) or `"sse"` (legacy HTTP+SSE)."""
        if self.command is not None:
            return "stdio"
        declared = self.type or self.declared_transport or self.transport_type
        return "sse" if declared is not None and TRANSPORTS[declared] == "sse" else "http"


class RoutesSpec(StrictModel):
    """A set of API operations: all criteria given must match (see `toolweave.openapi.Routes`)."""

    tags: list[str] = Field(default_factory=list, description="One of these tags is among the operation's.")
    methods: list[str] = Field(default_factory=list, description="The HTTP method is one of these (GET, POST, ...).")
    paths: list[str] = Field(
        default_factory=list, description="The path matches one of these globs ('*' in a segment, '**' across)."
    )


class OpenAPIEntry(SourceOptions):
    """An HTTP API described by an OpenAPI 3.x document: one tool per operation."""

    spec: str = Field(description="The OpenAPI document: a file (relative to the config file) or an http(s) URL.")
    base_url: str | None = Field(None, description="Where the API answers; by default the spec's first 'servers' URL.")
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="Headers sent with every request: constants, 'env:VAR' / 'header:name' / 'claim:name' / "
        "'context:path' sources, or a template such as 'Bearer {env:API_TOKEN}'. The caller's own token is "
        "never sent unless a header says so ('header:authorization').",
    )
    include_routes: list[RoutesSpec] = Field(
        default_factory=list, description="Only operations matching one of these become tools."
    )
    exclude_routes: list[RoutesSpec] = Field(
        default_factory=list, description="Operations matching one of these never become tools."
    )
    auth: UpstreamAuthSpec | None = Field(
        None, description="Credentials for every request: a bearer token or OAuth client credentials."
    )
    error_excerpt: Annotated[int, Field(strict=True, ge=0)] = Field(
        500, description="Characters of a non-2xx answer's body its error quotes (0: the status alone)."
    )
    max_response_bytes: StrictPositiveInt = Field(
        10 * 2**20, description="The largest answer read; a larger one fails."
    )
    disabled: StrictBool = Field(False, description="Skip this API.")
