"""Config models for selectors and middleware (`middleware:` at the top level or per server).

Middleware is written as a mapping; it runs in the order written, the first one outermost:

```yaml
middleware:
  logging: true
  timeout: {default: 30, per_tool: {"gh_*": 60}}
  rate_limit: {rate: 5, burst: 10, tools: "gh_*"}
```

Example:
    >>> MiddlewareSet.model_validate({"timeout": 5, "logging": True}).order
    ('timeout', 'logging')
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    StrictBool,
    Tag,
    model_validator,
)

from toolweave.config.base import (
    GLOB_PATTERN,
    StrictModel,
    StrictNonNegativeFloat,
    StrictPositiveFloat,
    StrictPositiveInt,
    check_glob,
    shape,
)

Glob = Annotated[
    str,
    AfterValidator(check_glob),
    Field(json_schema_extra={"pattern": GLOB_PATTERN}, description="A tool-name glob such as 'gh_*'."),
]


class SelectorSpec(StrictModel):
    """Which tools something applies to; every given criterion must hold."""

    names: list[Glob] = Field(default_factory=list, description="Globs on the exposed tool name; any may match.")
    tags: list[str] = Field(default_factory=list, description="The tool must carry at least one of these tags.")
    read_only: StrictBool | None = Field(None, description="Only tools whose readOnlyHint is this value.")
    idempotent: StrictBool | None = Field(None, description="Only tools whose idempotentHint is this value.")
    destructive: StrictBool | None = Field(None, description="Only tools whose destructiveHint is this value.")
    open_world: StrictBool | None = Field(None, description="Only tools whose openWorldHint is this value.")


ToolSelector = Annotated[
    Union[  # noqa: UP007 - Annotated branches need typing.Union
        Annotated[Glob, Tag("<string>")],
        Annotated[list[Glob], Tag("<list>")],
        Annotated[SelectorSpec, Tag("<object>")],
    ],
    Discriminator(shape),
]

SELECT_DOC = "Which tools: a glob ('gh_*'), a list of globs, or {names, tags, read_only, ...}. All when left out."


class Policy(StrictModel):
    """Fields every middleware has."""

    tools: ToolSelector | None = Field(None, description=SELECT_DOC)


Caller = Literal["caller", "subject", "peer", "client", "global"]
CALLER_DOC = (
    "Who gets separate state: 'caller' (the verified subject, else the peer address), 'subject', "
    "'peer', 'client' (the name a client announces: any client can claim any), or 'global' (everyone together)."
)
Fraction = Annotated[float, Field(strict=True, ge=0, le=1)]


class LoggingSpec(Policy):
    """One structured log record per call: tool, duration, outcome, request id, client."""

    level: Literal["debug", "info", "warning", "error"] | None = Field(
        None, description="The log level of the records (default info)."
    )
    logger: str | None = Field(None, description="The logger name (default 'toolweave.calls').")
    allow_args: list[str] | None = Field(
        None, description="Argument names whose values may be logged (all others are redacted)."
    )
    log_arguments: StrictBool | None = Field(None, description="Log argument names at all (default true).")
    payload_sizes: StrictBool | None = Field(
        None, description="Add request_bytes and response_bytes, the JSON sizes of arguments and result."
    )


class TimeoutSpec(Policy):
    """Cancel calls that run too long; the client gets a clear timeout error."""

    default: StrictPositiveFloat | None = Field(None, description="Seconds a call may take.")
    per_tool: dict[Glob, StrictPositiveFloat | None] | None = Field(
        None, description="Seconds per tool-name glob, overriding `default` ({'gh_*': 60}); null: no limit."
    )


class ProgressSpec(Policy):
    """Forward tool progress to clients that asked for it, throttled."""

    max_rate: StrictPositiveFloat | None = Field(
        None, description="At most this many progress notifications per second (default 10)."
    )
    heartbeat: StrictPositiveFloat | None = Field(
        None, description="Send a progress heartbeat every this many seconds."
    )


class RetrySpec(Policy):
    """Retry failed calls of read-only or idempotent tools with backoff."""

    attempts: StrictPositiveInt | None = Field(None, description="Attempts in all, the first included (default 3).")
    backoff: StrictNonNegativeFloat | None = Field(
        None, description="Seconds before the first retry; doubles each time (default 0.1)."
    )
    max_backoff: StrictNonNegativeFloat | None = Field(
        None, description="The longest wait between attempts, in seconds (default 5)."
    )
    jitter: Fraction | None = Field(
        None, description="How much of each wait is randomised: 0 = none, 1 = anywhere from 0 to the wait."
    )
    only_safe: StrictBool | None = Field(
        None, description="Only retry tools annotated read-only or idempotent (default true)."
    )
    retry_upstream: StrictBool | None = Field(
        None, description="Retry a failed or unreachable upstream (UpstreamError) (default true)."
    )


class RateLimitSpec(Policy):
    """A token bucket per caller: `rate` calls per second, bursts up to `burst`."""

    rate: StrictPositiveFloat = Field(description="Calls per second allowed on average.")
    burst: StrictPositiveFloat | None = Field(None, description="Calls allowed at once before the rate applies.")
    key: Caller | None = Field(None, description=CALLER_DOC)
    per_tool: StrictBool | None = Field(None, description="A separate bucket for each tool.")
    max_keys: StrictPositiveInt | None = Field(
        None, description="The most buckets kept in memory, least recently used dropped first (default 10000)."
    )
    on_store_error: Literal["local", "allow", "reject"] | None = Field(
        None,
        description="With a shared server.store that cannot be reached: 'local' (each process's own buckets, "
        "the default), 'allow' (fail open) or 'reject' (fail closed).",
    )


class ConcurrencySpec(Policy):
    """At most `limit` calls at once (a bulkhead), overall and/or per tool-name glob."""

    limit: StrictPositiveInt | None = Field(None, description="Calls that may run at the same time.")
    per_tool: dict[Glob, StrictPositiveInt] | None = Field(
        None, description="Concurrent calls allowed per tool-name glob ({'gh_*': 2})."
    )
    wait: StrictNonNegativeFloat | None = Field(
        None, description="Seconds a call may wait for a free slot before it is refused (default 10)."
    )
    shared: StrictBool | None = Field(
        None, description="With a shared server.store: count calls across every replica (default false)."
    )
    lease: StrictPositiveFloat | None = Field(
        None, description="With shared: seconds a slot outlives a replica that died holding it (default 30)."
    )

    @model_validator(mode="after")
    def _some_limit(self) -> ConcurrencySpec:
        if self.limit is None and not self.per_tool:
            raise ValueError("give 'limit', 'per_tool', or both")
        return self


class CircuitBreakerSpec(Policy):
    """Stop calling a failing upstream for a while after repeated failures."""

    failures: StrictPositiveInt | None = Field(
        None, description="Consecutive failures that open the circuit (default 5)."
    )
    reset_after: StrictPositiveFloat | None = Field(
        None, description="Seconds before a trial call is let through (default 30)."
    )
    per_tool: StrictBool | None = Field(None, description="One circuit per tool instead of one for all.")
    count_error_results: StrictBool | None = Field(None, description="Count isError results as failures too.")
    label: str | None = Field(
        None,
        description="The circuit's name in the toolweave.circuit.state metric (default: the server it is on "
        "and the tools it selects).",
    )


class CacheSpec(Policy):
    """Cache results of read-only, idempotent tools, per tool, arguments and caller."""

    ttl: StrictPositiveFloat = Field(description="Seconds a cached result stays valid.")
    max_entries: StrictPositiveInt | None = Field(None, description="The most results kept (default 1000).")
    key: Caller | None = Field(None, description=CALLER_DOC)
    only_safe: StrictBool | None = Field(
        None, description="Only cache tools annotated both read-only and idempotent (default true)."
    )


LoggingOption = Annotated[
    Union[Annotated[StrictBool, Tag("<boolean>")], Annotated[LoggingSpec, Tag("<object>")]],  # noqa: UP007
    Discriminator(shape),
]
TimeoutOption = Annotated[
    Union[Annotated[StrictPositiveFloat, Tag("<number>")], Annotated[TimeoutSpec, Tag("<object>")]],  # noqa: UP007
    Discriminator(shape),
]
ProgressOption = Annotated[
    Union[Annotated[StrictBool, Tag("<boolean>")], Annotated[ProgressSpec, Tag("<object>")]],  # noqa: UP007
    Discriminator(shape),
]


class MiddlewareSet(StrictModel):
    """Middleware, in the order written (the first is the outermost)."""

    logging: LoggingOption | None = Field(None, description="Log every call: `true`, or {level, allow_args, tools}.")
    timeout: TimeoutOption | None = Field(None, description="Seconds per call, or {default, per_tool, tools}.")
    progress: ProgressOption | None = Field(
        None, description="Forward progress: `true`, or {max_rate, heartbeat, tools}."
    )
    retry: RetrySpec | None = Field(None, description="Retry failed calls: {attempts, backoff, jitter, tools}.")
    rate_limit: RateLimitSpec | None = Field(None, description="Rate limit: {rate, burst, key, tools}.")
    concurrency: ConcurrencySpec | None = Field(None, description="Concurrency limit: {limit, per_tool, tools}.")
    circuit_breaker: CircuitBreakerSpec | None = Field(
        None, description="Circuit breaker: {failures, reset_after, tools}."
    )
    cache: CacheSpec | None = Field(None, description="Result cache: {ttl, tools}.")
    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: ModelWrapValidatorHandler[MiddlewareSet]) -> MiddlewareSet:
        model = handler(data)
        if isinstance(data, dict):
            model._order = tuple(key for key in data if key in cls.model_fields and data[key] not in (None, False))
        return model

    @property
    def order(self) -> tuple[str, ...]:
        """The middleware kinds that are switched on, in the order the file wrote them."""
        return self._order
