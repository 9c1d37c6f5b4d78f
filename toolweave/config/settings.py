"""Config models of the `server` section: the composed server's own settings, its shared store,
how it verifies callers over HTTP, and how it runs MCP tasks.

Example:
    >>> settings = ServerSettings.model_validate({"name": "gateway", "store": "redis://localhost:6379/0"})
    >>> settings.name, settings.store
    ('gateway', 'redis://localhost:6379/0')
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import AfterValidator, Discriminator, Field, StrictBool, Tag, model_validator

from toolweave.auth.verifier import url_problem
from toolweave.config.base import (
    HttpURL,
    ImportPath,
    StrictModel,
    StrictNonNegativeFloat,
    StrictPositiveFloat,
    StrictPositiveInt,
    shape,
)
from toolweave.store.redis_store import check_url

StoreURL = Annotated[str, AfterValidator(check_url), Field(pattern=r"^(redis|rediss|unix)://")]


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
    max_per_caller: StrictPositiveInt | None = Field(
        None,
        description="The most task records one caller may hold (default 1000): more drop its oldest ended ones; "
        "a call finding them all running is refused.",
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
