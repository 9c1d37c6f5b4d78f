"""The config file, as pydantic models: a superset of the `mcpServers` format MCP clients use.

```yaml
server: {name: gateway}
python:
  - "examples.local_tools:server"            # a toolweave Server, mounted
mcpServers:
  weather:                                   # an entry as in claude_desktop_config.json ...
    command: python3
    args: [lowlevel_weather.py]
    prefix: wx                               # ... plus toolweave's options
    tools:
      get_forecast: {description: "Forecast for a city.", args: {days: {default: 3}}}
middleware:
  logging: true
  timeout: 30
```

Example:
    >>> config = Config.model_validate({"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}})
    >>> config.mcp_servers["fs"].command
    'npx'
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    PrivateAttr,
    StrictBool,
    Tag,
    field_validator,
    model_validator,
)

from toolweave.auth.verifier import url_problem
from toolweave.config.base import (
    StrictModel,
    StrictNonNegativeFloat,
    StrictPositiveFloat,
    StrictPositiveInt,
    json_kind,
    shape,
)
from toolweave.config.dialects import TRANSPORTS, Transport, TransportName
from toolweave.config.inject import parse_inject
from toolweave.config.policies import Glob, MiddlewareSet, ToolSelector
from toolweave.core.names import NAME_PATTERN, NAME_RULE
from toolweave.core.shown import Expanded
from toolweave.store.redis_store import check_url

_IMPORT = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
)


def _tool_name(value: str) -> str:
    if not NAME_PATTERN.fullmatch(value):
        raise ValueError(f"not a valid tool name: {NAME_RULE}")
    return value


def _import_path(value: str) -> str:
    if not _IMPORT.match(value):
        raise ValueError("not an import path: write 'package.module:attribute'")
    return value


def _http_url(value: str) -> str:
    problem = url_problem(value)
    if problem is not None:
        raise ValueError(problem)  # the value is not echoed: it may come from ${VAR}
    return value


ToolName = Annotated[str, AfterValidator(_tool_name)]
ImportPath = Annotated[str, AfterValidator(_import_path), Field(pattern=_IMPORT.pattern)]
StoreURL = Annotated[str, AfterValidator(check_url), Field(pattern=r"^(redis|rediss|unix)://")]
HttpURL = Annotated[str, AfterValidator(_http_url)]
"""An http:// or https:// URL (an endpoint toolweave calls, or names in the RFC 9728 metadata)."""


def _claim_value(value: Any) -> Any:
    scalar = (str, int, float, bool)
    if isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(item, scalar) for item in value)):
        return value
    raise ValueError(f"a claim value is text, a number, a boolean or a list of them, not {json_kind(value)!r}")


Claims = dict[str, Annotated[Any, AfterValidator(_claim_value)]]
"""Claim name → the value a token must carry, or a list of allowed values (text, numbers, booleans)."""


class StoreSpec(StrictModel):
    """A shared store with its options (`RedisStore`)."""

    url: StoreURL = Field(description="'redis://[user:password@]host:6379/0' (or rediss://, unix://).")
    namespace: str | None = Field(None, description="The prefix of every key and channel (default 'toolweave').")
    timeout: StrictPositiveFloat | None = Field(
        None, description="Seconds one Redis operation may take before it counts as an outage (default 0.5)."
    )
    retry_after: StrictPositiveFloat | None = Field(
        None, description="Seconds Redis is left alone after an outage before it is tried again (default 1)."
    )
    max_value_bytes: StrictPositiveInt | None = Field(
        None, description="The largest cached result stored, in bytes (default 1 MiB)."
    )


StoreOption = Annotated[
    Union[Annotated[StoreURL, Tag("<string>")], Annotated[StoreSpec, Tag("<object>")]],  # noqa: UP007
    Discriminator(shape),
]
_ALIASES = {"env_file": "envFile"}


class ArgSpec(StrictModel):
    """How one argument of a tool is exposed (keys are the tool's own argument names)."""

    name: str | None = Field(None, description="The name the client sees instead of the original.")
    description: str | None = Field(None, description="The argument's description in the schema.")
    default: Any = Field(None, description="A new default value (the argument becomes optional).")
    hide: StrictBool = Field(False, description="Remove the argument from the schema; its default is used.")
    inject: Any = Field(
        None,
        description="Hide the argument and fill it on every call from 'context:<path>', 'header:<name>', "
        "'claim:<name>', 'env:<VAR>', or a constant.",
    )

    @field_validator("inject")
    @classmethod
    def _valid_source(cls, value: Any) -> Any:
        if value is not None:
            parse_inject(value)
        return value

    @model_validator(mode="after")
    def _inject_alone(self) -> ArgSpec:
        if self.inject is not None:
            clash = sorted(self.model_fields_set - {"inject", "hide"})
            if clash:
                raise ValueError(f"'inject' hides the argument, so it cannot be combined with {', '.join(clash)}")
        if self.hide and "name" in self.model_fields_set:
            raise ValueError("'hide: true' removes the argument from the schema, so it cannot also be renamed")
        return self


class AnnotationsSpec(StrictModel):
    """Hints about a tool's behaviour (MCP tool annotations); unset ones keep the tool's own."""

    title: str | None = Field(None, description="A human-readable title (annotations.title).")
    read_only: StrictBool | None = Field(None, description="The tool does not change anything (readOnlyHint).")
    destructive: StrictBool | None = Field(None, description="The tool may delete or overwrite (destructiveHint).")
    idempotent: StrictBool | None = Field(None, description="Repeating a call has no further effect (idempotentHint).")
    open_world: StrictBool | None = Field(None, description="The tool reaches outside systems (openWorldHint).")


class MaskErrorsSpec(StrictModel):
    """Hide internal error details of these tools behind a generic message."""

    message: str | None = Field(None, description="The message clients get; '{name}' and '{incident}' are filled in.")


class ToolPatch(StrictModel):
    """Changes that can be applied to any tool."""

    annotations: AnnotationsSpec | None = Field(None, description="Set behaviour hints (read_only, destructive, ...).")
    tags: list[str] | None = Field(None, description="Tags to add (used by selectors and enable/disable).")
    enabled: StrictBool | None = Field(None, description="`false` hides the tool from clients.")
    args: dict[str, ArgSpec] = Field(
        default_factory=dict, description="Per-argument changes, keyed by the tool's own argument names."
    )
    mask_errors: MaskErrorsSpec | None = Field(None, description="Mask internal errors of these tools.")
    task_support: Literal["none", "optional", "required"] | None = Field(
        None,
        description="Run calls as MCP tasks: 'optional' (when the client accepts tasks), 'required' (only as "
        "tasks) or 'none'.",
    )
    scopes: list[str] | None = Field(
        None,
        description="Only verified callers whose token grants all of these scopes see and call the tool; "
        "for any other caller it does not exist.",
    )
    claims: Claims | None = Field(
        None,
        description="Only verified callers whose token carries these claim values (a value, or a list of "
        "allowed values) see and call the tool.",
    )
    limit_result: LimitResultSpec | None = Field(None, description="Cut these tools' results down to a size.")


class ToolSpec(ToolPatch):
    """Changes to one tool, keyed by the tool's name as its source exposes it."""

    name: ToolName | None = Field(None, description="The new name (the prefix, if any, is added to it).")
    title: str | None = Field(None, description="The new human-readable title.")
    description: str | None = Field(None, description="The new description the model reads.")


class LimitResultSpec(StrictModel):
    """Cut results down (see `toolweave.transforms.LimitResult`)."""

    max_bytes: StrictPositiveInt | None = Field(
        None, description="The most bytes of text (and of JSON) per result (at least 64: room for the marker)."
    )
    max_items: StrictPositiveInt | None = Field(
        None, description="The most items per array, and content blocks, per result."
    )
    structured: Literal["keep", "drop"] = Field(
        "keep", description="'keep' cuts structured content within the output schema; 'drop' removes both."
    )

    @model_validator(mode="after")
    def _some_limit(self) -> LimitResultSpec:
        if self.max_bytes is None and self.max_items is None:
            raise ValueError("give max_bytes, max_items or both")
        return self


class TransformSpec(ToolPatch):
    """Changes applied to every tool a selector matches (after mounting and prefixes)."""

    tools: ToolSelector = Field(description="Which tools: a glob, a list of globs, or {names, tags, read_only, ...}.")


class AuthorizeSpec(StrictModel):
    """Who may see and use the prompts, resources (and tools) a rule chooses; for any other caller
    they do not exist."""

    prompts: list[str] | str | None = Field(None, description="Prompt names (globs) this rule covers.")
    resources: list[str] | str | None = Field(
        None, description="Resource URIs and URI templates (globs) this rule covers."
    )
    tools: ToolSelector | None = Field(None, description="Tools this rule covers (also: `scopes:` on a tool).")
    scopes: list[str] = Field(default_factory=list, description="Scopes the caller's token must grant, all of them.")
    claims: Claims | None = Field(
        None, description="Claim values the caller's token must carry (a value, or a list of allowed values)."
    )

    @model_validator(mode="after")
    def _chooses_and_requires(self) -> AuthorizeSpec:
        if self.prompts is None and self.resources is None and self.tools is None:
            raise ValueError("choose what the rule covers: prompts, resources or tools")
        if not self.scopes and not self.claims:
            raise ValueError("give scopes, claims or both (a rule without them admits any verified caller)")
        return self


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


class ClientCredentialsSpec(StrictModel):
    """The gateway's own OAuth token for an upstream (client-credentials grant)."""

    token_url: HttpURL = Field(description="The authorization server's token endpoint.")
    client_id: str = Field(description="The gateway's client id.")
    client_secret: str = Field(description="Its secret: write '${VAR}' (or 'env:VAR', read at each refresh).")
    scopes: list[str] = Field(default_factory=list, description="Scopes to ask for.")
    audience: str | None = Field(None, description="An `audience` parameter, for servers that want one.")


class UpstreamAuthSpec(StrictModel):
    """The gateway's own credentials for an HTTP upstream (a caller's token is never passed on)."""

    bearer: str | None = Field(
        None, description="A bearer token: write '${VAR}', or 'env:VAR' to read VAR at every request."
    )
    client_credentials: ClientCredentialsSpec | None = Field(
        None, description="Get a token with the OAuth client-credentials grant; renewed before it expires."
    )

    @model_validator(mode="after")
    def _one_credential(self) -> UpstreamAuthSpec:
        if (self.bearer is None) == (self.client_credentials is None):
            raise ValueError("give exactly one of bearer or client_credentials")
        return self


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
        given = [name for name in (self.type, self.declared_transport) if name is not None]
        declared = {TRANSPORTS[name] for name in given}
        if len(declared) > 1:
            raise ValueError("'type' and 'transport' name different transports")
        if self.url is not None and self.server_url is not None:
            raise ValueError("give either 'url' or 'serverUrl', not both")
        url = self.endpoint
        if self.command is not None and url is not None:
            raise ValueError("give either 'command' (stdio) or 'url' (HTTP), not both")
        if self.command is None and url is None:
            wanted = "'url'" if declared & {"http", "sse"} else "'command'"
            raise ValueError(f"missing {wanted}: an MCP server needs 'command' (stdio) or 'url' (HTTP)")
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
        declared = self.type or self.declared_transport
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
    error_excerpt: StrictPositiveInt = Field(500, description="Characters of a non-2xx answer's body its error quotes.")
    max_response_bytes: StrictPositiveInt = Field(
        10 * 2**20, description="The largest answer read; a larger one fails."
    )
    disabled: StrictBool = Field(False, description="Skip this API.")


class SearchSpec(StrictModel):
    """List only a search tool and a call tool (and `always`) in front of the whole catalog."""

    strategy: Literal["bm25", "regex"] = Field("bm25", description="Ranked natural-language search, or a regex.")
    max_results: StrictPositiveInt = Field(5, description="The most tools one search returns.")
    always: list[str] = Field(default_factory=list, description="Tools still listed directly, by exposed name.")


class CatalogSpec(StrictModel):
    """What the composed server lists, for large catalogs and clients that only call tools."""

    search: SearchSpec | None = Field(None, description="Put the tools behind a search tool and a call tool.")
    prompts_as_tools: StrictBool = Field(False, description="Add list_prompts and get_prompt tools.")
    resources_as_tools: StrictBool = Field(False, description="Add list_resources and read_resource tools.")


class InputSpec(StrictModel):
    """A VS Code input variable, referenced as `${input:id}`. toolweave never prompts: the value comes
    from `--input id=value`, else the environment variable `id`, else `default`."""

    type: Literal["promptString", "pickString", "command"] = Field(
        "promptString", description="How VS Code asks for the value."
    )
    id: str = Field(description="The name `${input:<id>}` refers to.")
    description: str | None = Field(None, description="What the value is (shown when it is missing).")
    password: StrictBool = Field(False, description="Whether VS Code hides the value as it is typed.")
    default: str | None = Field(None, description="The value used when none is given.")
    options: list[Any] | None = Field(None, description="The choices of a 'pickString' input.")
    command: str | None = Field(None, description="The VS Code command of a 'command' input.")
    args: Any = Field(None, description="The arguments of a 'command' input.")


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


class IntrospectionSpec(StrictModel):
    """Opaque tokens, verified by asking the authorization server (RFC 7662)."""

    url: HttpURL = Field(description="The introspection endpoint.")
    client_id: str = Field(description="This server's client id at the authorization server.")
    client_secret: str = Field(description="Its client secret (write it as '${VAR}' to keep it out of the file).")


class AuthSpec(StrictModel):
    """Verified callers over HTTP: every request needs a valid bearer token (401 otherwise)."""

    jwks_uri: HttpURL | None = Field(None, description="Where the issuer publishes its signing keys (JWTs).")
    public_key: str | None = Field(None, description="A PEM public key, instead of `jwks_uri`.")
    introspection: IntrospectionSpec | None = Field(
        None, description="Verify opaque tokens at the authorization server instead of as JWTs."
    )
    issuer: str | None = Field(None, description="The required `iss` of every token.")
    audience: str | list[str] | None = Field(
        None, description="The required `aud`: this server's resource URL (default: `resource_url`)."
    )
    algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "ES256"], description="Accepted signature algorithms (asymmetric only)."
    )
    required_scopes: list[str] = Field(default_factory=list, description="Scopes every request needs (403 otherwise).")
    token_types: list[str] | None = Field(
        None,
        description="JWTs: the header `typ` values accepted: ['at+jwt'] for RFC 9068 access tokens (default: any).",
    )
    resource_url: HttpURL | None = Field(
        None, description="This server's public URL: the audience of its tokens and its RFC 9728 metadata."
    )
    authorization_servers: list[HttpURL] = Field(
        default_factory=list,
        description="The URLs of the issuers clients should get tokens from (default: `issuer`, when it is a URL).",
    )
    allow_anonymous: StrictBool = Field(
        False, description="Serve requests without a token as anonymous callers instead of answering 401."
    )

    @model_validator(mode="after")
    def _one_way_to_verify(self) -> AuthSpec:
        given = [key for key in ("jwks_uri", "public_key", "introspection") if getattr(self, key) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of jwks_uri, public_key or introspection (got {given or 'none'})")
        if self._issuer_cannot_be_the_server():
            raise ValueError(
                "issuer is not an http(s) URL, so it cannot name the authorization server in the RFC 9728 "
                "metadata: give authorization_servers (the URLs clients get tokens from)"
            )
        return self

    def _issuer_cannot_be_the_server(self) -> bool:
        """Whether `serve` would name `issuer`, no URL, as the authorization server of its RFC 9728
        metadata: it announces one with a `resource_url`, or an `audience` that is one http(s) URL
        (as `toolweave.mcp.serve` does), and no `authorization_servers` are given."""
        if self.issuer is None or self.authorization_servers or url_problem(self.issuer) is None:
            return False
        audience = [self.audience] if isinstance(self.audience, str) else self.audience or []
        return self.resource_url is not None or (len(audience) == 1 and url_problem(audience[0]) is None)


class TasksSpec(StrictModel):
    """How the server keeps and runs tool calls that run as MCP tasks (tools with `task_support`)."""

    keep: StrictPositiveFloat | None = Field(None, description="Seconds a task's record is kept after its last change.")
    poll_interval: StrictPositiveFloat | None = Field(None, description="Seconds between polls asked of clients.")
    answer_within: StrictNonNegativeFloat | None = Field(
        None, description="Seconds a call may take and still be answered plainly (0: always a task)."
    )
    input_timeout: StrictPositiveFloat | None = Field(
        None, description="Seconds a task waits for input before it fails."
    )
    lease: StrictPositiveFloat | None = Field(
        None, description="Seconds without a renewal after which a running task counts as lost (replicas)."
    )


class ServerSettings(StrictModel):
    """The composed server itself."""

    name: str = Field("toolweave", description="The server name announced to clients.")
    instructions: str | None = Field(None, description="Guidance for the model, sent when a client connects.")
    version: str | None = Field(None, description="The server version announced to clients.")
    mask_error_details: StrictBool = Field(
        True, description="Hide internal error details from clients (turn off only for local development)."
    )
    on_duplicate: Literal["error", "warn", "replace", "ignore"] = Field(
        "error", description="What happens when two tools get the same exposed name."
    )
    extra_args: Literal["reject", "ignore"] = Field(
        "reject", description="Whether unknown arguments in a call are rejected or ignored."
    )
    store: StoreOption | None = Field(
        None,
        description="Where rate limits, caches, circuits, shared concurrency limits, resumable-SSE events and "
        "list_changed live: leave out for this process's memory (the default), or 'redis://host:6379/0' to share "
        "them with every replica using the same URL; {url, timeout, namespace, retry_after, max_value_bytes} "
        "for options.",
    )
    auth: AuthSpec | None = Field(
        None, description="HTTP only: verify callers' bearer tokens (JWTs by JWKS or key, or introspection)."
    )
    authenticate: ImportPath | None = Field(
        None,
        description="HTTP only: 'module:function' called with the request headers (lower-case names), "
        "returning a toolweave AuthInfo (or None); it becomes ctx.auth "
        "('claim:' and 'context:auth.*' read it). Instead of `auth`, not with it.",
    )
    tasks: TasksSpec | None = Field(None, description="How calls that run as MCP tasks are kept and run.")

    @model_validator(mode="after")
    def _one_way_to_authenticate(self) -> ServerSettings:
        if self.auth is not None and self.authenticate is not None:
            raise ValueError("give auth or authenticate, not both")
        return self


class Config(StrictModel):
    """A toolweave config file."""

    schema_url: str | None = Field(None, alias="$schema", description="The JSON Schema of this file, for editors.")
    server: ServerSettings = Field(
        default_factory=lambda: ServerSettings.model_validate({}),
        description="Settings of the composed server.",
    )
    python: list[PythonSource] = Field(
        default_factory=list,
        description="Python imports: 'module:attribute' strings or {import, prefix, tools, ...}.",
    )
    mcp_servers: dict[str, McpServerEntry] = Field(
        default_factory=dict,
        alias="mcpServers",
        description="MCP servers to mount, by name (the mcpServers format of Claude Desktop, Claude Code, "
        "Cursor, Windsurf, Cline).",
    )
    servers: dict[str, McpServerEntry] = Field(
        default_factory=dict,
        description="MCP servers to mount, by name, as VS Code's mcp.json writes them (the same entries as "
        "`mcpServers`).",
    )
    inputs: list[InputSpec] = Field(
        default_factory=list,
        description="VS Code's input variables, for `${input:id}` references (never prompted for).",
    )
    openapi: dict[str, OpenAPIEntry] = Field(
        default_factory=dict, description="HTTP APIs described by OpenAPI documents, by name: one tool per operation."
    )
    middleware: MiddlewareSet | None = Field(None, description="Middleware around every tool, outermost first.")
    catalog: CatalogSpec | None = Field(
        None, description="Tool search, prompts and resources as tools: applied to the whole composed catalog."
    )
    transforms: list[TransformSpec] = Field(
        default_factory=list, description="Changes applied to the tools a selector matches, in order."
    )
    authorize: list[AuthorizeSpec] = Field(
        default_factory=list,
        description="Access rules for prompts, resources and tools (HTTP with server.auth): the verified "
        "callers each rule admits see and use what it covers; for others it does not exist.",
    )
    _secrets: Expanded = PrivateAttr(default_factory=Expanded)

    @model_validator(mode="after")
    def _one_entry_per_name(self) -> Config:
        both = sorted(set(self.mcp_servers) & set(self.servers))
        if both:
            raise ValueError(f"{', '.join(map(repr, both))} defined under both 'mcpServers' and 'servers'")
        twice = sorted((set(self.mcp_servers) | set(self.servers)) & set(self.openapi))
        if twice:
            raise ValueError(f"{', '.join(map(repr, twice))} defined both as an MCP server and under 'openapi'")
        return self

    def server_entries(self) -> list[tuple[str, str, McpServerEntry]]:
        """Every MCP server entry as (the section it is under, its name, the entry)."""
        return [("mcpServers", name, entry) for name, entry in self.mcp_servers.items()] + [
            ("servers", name, entry) for name, entry in self.servers.items()
        ]

    @property
    def secrets(self) -> Expanded:
        """The values `${VAR}` expansion put into the file, each with its `${VAR}`: shown instead of
        the value wherever a command or URL is shown."""
        return self._secrets

    def with_secrets(self, secrets: Expanded) -> Config:
        """This config, knowing which of its values came from the environment."""
        self._secrets = secrets
        return self

    @property
    def python_entries(self) -> list[PythonEntry]:
        """Every `python` item as a `PythonEntry` (strings are shorthand for `{import: ...}`)."""
        return [PythonEntry.model_validate({"import": item}) if isinstance(item, str) else item for item in self.python]
