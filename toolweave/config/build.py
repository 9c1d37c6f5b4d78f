"""From a validated `Config` to library objects: one small function per section.

```
Config ─► server_from_settings ─► Server (root)
  python[i]       ─► python_source  ─┐
  mcpServers/servers.name ─► remote_source ─┤
  openapi.name    ─► openapi_source ─┴► source_layer (include/exclude, tools, timeout, middleware)
                                         └► root.mount(layer, prefix=...)
  middleware      ─► middleware_stack ─► root.add_middleware(...)
  transforms      ─► rule_transforms  ─► root.add_transform(..., tools=selector)
  authorize[i]    ─► Authorize(scopes, claims) ─► root.add_transform(..., prompts=, resources=, tools=)
  catalog         ─► catalog_transforms ─► root.add_transform(SearchTools(...), ...)
```

A library object that refuses its options (`TypeError`/`ValueError`) becomes a `ConfigError`
naming the key path.

Example:
    >>> from toolweave.config.models import Config
    >>> entry = {"import": "posixpath:basename", "tools": {"basename": {"name": "file_name"}}}
    >>> config = Config.model_validate({"python": [entry]})
    >>> [tool.name for tool in build(config).server.catalog.tools]
    ['file_name']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from toolweave.auth import Bearer, IntrospectionVerifier, JWTVerifier, OAuthClientCredentials, Verifier
from toolweave.config.args import ArgChanges
from toolweave.config.composed import Composed, Source
from toolweave.config.envfile import read_env_file
from toolweave.config.imports import add_search_path, import_object
from toolweave.config.inject import parse_inject
from toolweave.config.loading import problems_error
from toolweave.config.models import (
    ArgSpec,
    AuthSpec,
    CatalogSpec,
    Config,
    McpServerEntry,
    OpenAPIEntry,
    PythonEntry,
    RoutesSpec,
    ServerSettings,
    SourceOptions,
    StoreSpec,
    ToolPatch,
    ToolSpec,
    UpstreamAuthSpec,
)
from toolweave.config.paths import key_path
from toolweave.config.policies import MiddlewareSet, SelectorSpec
from toolweave.config.steps import PerTool, Steps, Visibility
from toolweave.core.errors import ConfigError
from toolweave.core.shown import Expanded
from toolweave.core.tool import Tool
from toolweave.middleware import (
    Cache,
    CircuitBreaker,
    ConcurrencyLimit,
    Logging,
    Progress,
    RateLimit,
    Retry,
    Timeout,
)
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.openapi import OpenAPIServer, Routes
from toolweave.server.remote import DEFAULT_CONNECT_TIMEOUT, RemoteServer
from toolweave.server.server import Server
from toolweave.store import RedisStore, Store
from toolweave.tasks.serving import configure_tasks
from toolweave.tasks.transform import RunAsTask
from toolweave.transforms import (
    Annotate,
    Arg,
    Authorize,
    ExcludeArgs,
    FromClaim,
    FromContext,
    FromEnv,
    FromHeader,
    InjectArgs,
    LimitResult,
    MaskErrors,
    PromptsAsTools,
    Rename,
    ResourcesAsTools,
    SearchTools,
    Secret,
    TransformArgs,
)

MIDDLEWARE_CLASSES: dict[str, type[Middleware]] = {
    "logging": Logging,
    "timeout": Timeout,
    "progress": Progress,
    "retry": Retry,
    "rate_limit": RateLimit,
    "concurrency": ConcurrencyLimit,
    "circuit_breaker": CircuitBreaker,
    "cache": Cache,
}
INJECT_CLASSES: dict[str, Callable[[str], Any]] = {
    "context": FromContext,
    "header": FromHeader,
    "claim": FromClaim,
    "env": FromEnv,
}


def _call(factory: Any, *args: Any, where: str, **kwargs: Any) -> Any:
    """`factory(*args, **kwargs)`, with a library's `TypeError`/`ValueError` turned into a `ConfigError`."""
    try:
        return factory(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise ConfigError(str(error), path=where) from None


# -- selectors -------------------------------------------------------------------------------------


def selector(spec: str | list[str] | SelectorSpec | None) -> Selector | None:
    """A `Selector` from a config selector (a glob, a list of globs, or an object)."""
    if spec is None:
        return None
    if isinstance(spec, SelectorSpec):
        return Selector(
            spec.names or None,
            tags=spec.tags or None,
            read_only=spec.read_only,
            idempotent=spec.idempotent,
            destructive=spec.destructive,
            open_world=spec.open_world,
        )
    return Selector(spec)


# -- per-tool changes ------------------------------------------------------------------------------


def inject_source(value: Any, *, where: str, secrets: Collection[str] = ()) -> Any:
    """The `InjectArgs` source for a config `inject` value (`"claim:sub"` → `FromClaim("sub")`).

    A constant holding a value expanded from the environment (`"${API_KEY}"`, one of `secrets`)
    is a `Secret`: redacted from what the tool returns, like `"env:API_KEY"`.
    """
    parsed = parse_inject(value)
    if parsed.kind == "value":
        if isinstance(parsed.argument, str) and any(secret in parsed.argument for secret in secrets):
            return Secret(parsed.argument)
        return parsed.argument
    return INJECT_CLASSES[parsed.kind](parsed.argument)


def arg_transforms(
    args: dict[str, ArgSpec], *, where: str, tool: str | None = None, secrets: Collection[str] = ()
) -> list[Any]:
    """`ExcludeArgs`, `InjectArgs` and `TransformArgs` for a tool's `args` section (in that order),
    as one `ArgChanges` step (a refusal names the key at fault); `tool`: the tool of a `tools.<name>`
    entry, None for a `transforms` rule."""
    excluded = [name for name, spec in args.items() if spec.hide and spec.model_fields_set <= {"hide"}]
    injected = {name: spec.inject for name, spec in args.items() if spec.inject is not None}
    changed = {name: spec for name, spec in args.items() if name not in excluded and name not in injected}
    steps: list[Any] = []
    if excluded:
        steps.append(_call(ExcludeArgs, *excluded, where=where))
    if injected:
        sources = {
            name: inject_source(value, where=key_path((name, "inject"), start=where), secrets=secrets)
            for name, value in injected.items()
        }
        steps.append(_call(InjectArgs, where=where, **sources))
    if changed:
        mapping = {
            name: _call(
                Arg, where=key_path((name,), start=where), **{key: getattr(spec, key) for key in spec.model_fields_set}
            )
            for name, spec in changed.items()
        }
        steps.append(_call(TransformArgs, mapping, where=where))
    return [ArgChanges(tuple(steps), args, where, tool)] if steps else []


def patch_transforms(patch: ToolPatch, *, tool: str | None, where: str, secrets: Collection[str] = ()) -> list[Any]:
    """The transforms for one `tools.<name>` entry or one `transforms[i]` rule, in a fixed order
    (`secrets`: the values expanded from the environment, see `inject_source`)."""
    steps: list[Any] = []
    if patch.enabled is not None:
        steps.append(Visibility(patch.enabled, f"enabled: {str(patch.enabled).lower()} at {where}"))
    steps.extend(arg_transforms(patch.args, where=f"{where}.args", tool=tool, secrets=secrets))
    if isinstance(patch, ToolSpec) and ({"name", "title", "description"} & patch.model_fields_set):
        changes = {key: getattr(patch, key) for key in ("title", "description") if key in patch.model_fields_set}
        steps.append(_call(Rename, patch.name or tool, where=where, **changes))
    hints = patch.annotations.model_dump(exclude_none=True) if patch.annotations else {}
    if hints or patch.tags:
        steps.append(_call(Annotate, where=where, **hints, **({"tags": set(patch.tags)} if patch.tags else {})))
    if patch.scopes is not None or patch.claims is not None:
        steps.append(_call(Authorize, patch.scopes or (), claims=patch.claims, where=where))
    if patch.mask_errors is not None:
        options = patch.mask_errors.model_dump(exclude_none=True)
        steps.append(_call(MaskErrors, where=f"{where}.mask_errors", **options))
    if patch.task_support is not None:
        steps.append(RunAsTask(patch.task_support))
    if patch.limit_result is not None:
        steps.append(_call(LimitResult, where=f"{where}.limit_result", **patch.limit_result.model_dump()))
    return steps


# -- middleware --------------------------------------------------------------------------------------


def middleware_stack(spec: MiddlewareSet | None, *, where: str) -> list[Middleware]:
    """The middleware of a `middleware` section, in the order written (first = outermost)."""
    if spec is None:
        return []
    stack: list[Middleware] = []
    for kind in spec.order:
        value = getattr(spec, kind)
        here = f"{where}.{kind}"
        cls = MIDDLEWARE_CLASSES[kind]
        if value is True:
            options: dict[str, Any] = {}
        elif isinstance(value, int | float):
            options = {"default": float(value)}
        else:
            options = value.model_dump(exclude_unset=True, exclude={"tools"})
            if "level" in options:
                options["level"] = logging.getLevelName(options["level"].upper())
            tools = selector(value.tools)
            if tools is not None:
                options["tools"] = tools
        stack.append(_call(cls, where=here, **options))
    return stack


# -- verified callers ------------------------------------------------------------------------------


def http_auth(spec: AuthSpec, *, where: str) -> dict[str, Any]:
    """The `http_app` options of a `server.auth` section: the verifier and what the edge announces."""
    scopes = spec.required_scopes
    verifier: Verifier
    if spec.introspection is not None:
        found = spec.introspection
        verifier = _call(
            IntrospectionVerifier,
            found.url,
            client_id=found.client_id,
            client_secret=found.client_secret,
            issuer=spec.issuer,
            audience=spec.audience or spec.resource_url,
            required_scopes=scopes,
            where=f"{where}.introspection",
        )
    else:
        verifier = _call(
            JWTVerifier,
            jwks_uri=spec.jwks_uri,
            public_key=spec.public_key,
            issuer=spec.issuer,
            audience=spec.audience or spec.resource_url,
            algorithms=spec.algorithms,
            required_scopes=scopes,
            token_types=spec.token_types,
            where=where,
        )
    return {
        "auth": verifier,
        "resource_url": spec.resource_url,
        "authorization_servers": spec.authorization_servers,
        "allow_anonymous": spec.allow_anonymous,
    }


def upstream_auth(spec: UpstreamAuthSpec, *, where: str) -> Bearer | OAuthClientCredentials:
    """The credentials of an `auth` section of an HTTP upstream."""
    if spec.bearer is not None:
        return Bearer(_token_source(spec.bearer))
    found = spec.client_credentials
    assert found is not None
    credentials: OAuthClientCredentials = _call(
        OAuthClientCredentials,
        found.token_url,
        found.client_id,
        _token_source(found.client_secret),
        scopes=found.scopes,
        audience=found.audience,
        where=f"{where}.client_credentials",
    )
    return credentials


def _token_source(value: str) -> Any:
    """`env:VAR` read at each use, else the value itself (kept secret)."""
    return FromEnv(value.removeprefix("env:")) if value.startswith("env:") else Secret(value)


# -- sources -----------------------------------------------------------------------------------------


def server_from_settings(settings: ServerSettings) -> Server:
    """The root `Server` from the `server` section."""
    server = Server(
        settings.name,
        instructions=settings.instructions,
        version=settings.version,
        mask_error_details=settings.mask_error_details,
        on_duplicate=settings.on_duplicate,
        extra_args=settings.extra_args,
        store=store_from_settings(settings.store),
    )
    if settings.tasks is not None:
        configure_tasks(server, **settings.tasks.model_dump(exclude_none=True))
    return server


def store_from_settings(spec: str | StoreSpec | None) -> Store | str | None:
    """The `server.store` setting as `Server(store=...)` takes it."""
    if isinstance(spec, StoreSpec):
        return RedisStore(spec.url, **spec.model_dump(exclude_none=True, exclude={"url"}))
    return spec


def _mountable(value: Any) -> bool:
    return isinstance(value, Server) or (hasattr(value, "catalog") and hasattr(value, "subscribe"))


def python_source(entry: PythonEntry, *, where: str) -> Any:
    """The Server a `python` item names, or a new Server holding the functions/tools it names."""
    target = import_object(entry.target, where=f"{where}.import")
    if _mountable(target):
        return target
    items = list(target) if isinstance(target, list | tuple) else [target]
    module = entry.target.partition(":")[0]
    holder = Server(module)
    for item in items:
        if not (isinstance(item, Tool) or callable(item)):
            raise ConfigError(
                f"{entry.target!r} is a {type(item).__name__}; expected a toolweave Server, a Tool, "
                "a function, or a list of them",
                path=f"{where}.import",
            )
        _call(holder.add_tool, item, where=f"{where}.import")
    return holder


def connect_timeout(entry: McpServerEntry) -> float | None:
    """How long starting waits for an MCP server entry's upstream, or None for the remote's default:
    its `connect_timeout`, else its `timeout` when that is shorter than the default (an upstream
    that must answer each request within 3 seconds is down, not starting, after 3 silent seconds).

    Example:
        >>> def entry(**options: float) -> McpServerEntry:
        ...     return McpServerEntry.model_validate({"command": "srv", **options})
        >>> connect_timeout(entry(timeout=3)), connect_timeout(entry(timeout=3, connect_timeout=90))
        (3.0, 90.0)
        >>> print(connect_timeout(entry(timeout=120)))
        None
    """
    if entry.connect_timeout is not None:
        return entry.connect_timeout
    if entry.timeout is not None and entry.timeout < DEFAULT_CONNECT_TIMEOUT:
        return entry.timeout
    return None


def remote_source(
    name: str, entry: McpServerEntry, *, base_dir: Path, where: str, secrets: Expanded | None = None
) -> Any:
    """A `RemoteServer` for an MCP server entry (stdio, HTTP or SSE); `secrets` stay out of what it
    shows (of what the config expanded, the part its command or URL holds: `Expanded.within`).

    The entry's `timeout` is the remote's own bound on each request (prompts and reads too), as
    `RemoteServer(timeout=)` is in Python, and on connecting (see `connect_timeout`); `_add_remote`
    adds no `Timeout` for it.
    """
    if secrets is not None:
        shown = [entry.endpoint] if entry.transport != "stdio" else [entry.command, *entry.args]
        secrets = secrets.within(word for word in shown if word is not None)
    extra: dict[str, Any] = {"secrets": secrets} if secrets else {}
    if entry.timeout is not None:
        extra["timeout"] = entry.timeout
    connect = connect_timeout(entry)
    if connect is not None:
        extra["connect_timeout"] = connect
    if entry.required:
        extra["required"] = True
    if entry.transport != "stdio":
        make = RemoteServer.http if entry.transport == "http" else RemoteServer.sse
        if entry.auth is not None:
            extra["auth"] = upstream_auth(entry.auth, where=f"{where}.auth")
        if entry.forward_caller_token:
            extra["forward_caller_token"] = True
        if entry.caller_sessions is not None:
            extra["caller_sessions"] = entry.caller_sessions
        if entry.caller_session_idle is not None:
            extra["caller_session_idle"] = entry.caller_session_idle
        url = key_path(("url" if entry.url is not None else "serverUrl",), start=where)
        return _call(make, entry.endpoint, where=url, headers=entry.headers, name=name, **extra)
    cwd = str((base_dir / entry.cwd).resolve()) if entry.cwd is not None else None
    env = entry.env
    if entry.env_file is not None:
        env = {**read_env_file(base_dir / entry.env_file, where=f"{where}.envFile"), **(entry.env or {})}
    options = {"args": list(entry.args), "env": env, "cwd": cwd, "name": name, **extra}
    return _call(RemoteServer.stdio, entry.command, where=where, **options)


_TEMPLATED = re.compile(r"\{((?:env|header|claim|context):[^{}]+)\}")


def header_value(value: str, *, where: str, secrets: Collection[str] = ()) -> Any:
    """An upstream header's value from a config string: a source (`"env:API_KEY"`), a template
    with one source in braces (`"Bearer {env:API_TOKEN}"`), or a constant."""
    found = _TEMPLATED.findall(value)
    if len(found) > 1:
        raise ConfigError("a header template may hold one source in braces", path=where)
    if found:
        template = value.replace("{" + found[0] + "}", "{}")
        value = found[0]
    try:
        source = inject_source(value, where=where, secrets=secrets)
    except ValueError as error:
        raise ConfigError(str(error), path=where) from None
    return (template, source) if found else source


def openapi_source(
    name: str, entry: OpenAPIEntry, *, base_dir: Path, where: str, secrets: Expanded | None = None
) -> Any:
    """An `OpenAPIServer` for an `openapi` entry (its spec file relative to the config file);
    `secrets` stay out of what it shows (of what the config expanded, the part its `base_url` holds)."""
    secrets = secrets or Expanded()
    spec = entry.spec if entry.spec.startswith(("http://", "https://")) else str((base_dir / entry.spec).resolve())
    headers = {
        header: header_value(value, where=key_path(("headers", header), start=where), secrets=list(secrets))
        for header, value in entry.headers.items()
    }

    def routes_of(specs: list[RoutesSpec], key: str) -> list[Any]:
        return [_call(Routes, where=f"{where}.{key}[{i}]", **item.model_dump()) for i, item in enumerate(specs)]

    options: dict[str, Any] = {
        "base_url": entry.base_url,
        "headers": headers,
        "include": routes_of(entry.include_routes, "include_routes"),
        "exclude": routes_of(entry.exclude_routes, "exclude_routes"),
        "error_excerpt": entry.error_excerpt,
        "max_response_bytes": entry.max_response_bytes,
        "name": name,
    }
    if entry.base_url is not None and secrets:
        options["secrets"] = secrets.within([entry.base_url])
    if entry.timeout is not None:
        options["timeout"] = entry.timeout
    if entry.auth is not None:
        options["auth"] = upstream_auth(entry.auth, where=f"{where}.auth")
    try:
        return OpenAPIServer(spec, **options)
    except (TypeError, ValueError) as error:  # SpecError is a ValueError
        said = str(error)
        key = "base_url" if said.startswith("base_url") else "spec" if "spec" in said else None
        raise ConfigError(said, path=key_path((key,), start=where) if key else where) from None


def catalog_transforms(spec: CatalogSpec | None, *, where: str) -> list[Any]:
    """The catalog transforms of the `catalog` section, in a fixed order: prompts and resources
    as tools first (so search finds them too), then search."""
    if spec is None:
        return []
    steps: list[Any] = []
    if spec.prompts_as_tools:
        steps.append(PromptsAsTools())
    if spec.resources_as_tools:
        steps.append(ResourcesAsTools())
    if spec.search is not None:
        steps.append(_call(SearchTools, where=f"{where}.search", **spec.search.model_dump()))
    return steps


def _needs_layer(options: SourceOptions) -> bool:
    return bool(
        options.include is not None or options.exclude or options.tools or options.middleware or options.timeout
    )


def source_layer(
    name: str,
    child: Any,
    options: SourceOptions,
    *,
    mode: str,
    where: str,
    secrets: Collection[str] = (),
    store: Store | None = None,
) -> Any:
    """`child` as the root mounts it: wrapped in a Server applying the entry's own options, if any.

    The layer keeps its middleware's state in `store` (the root's), so an entry's own rate limit
    is shared by every process as the root's is.
    """
    if not _needs_layer(options) and mode == "mount":
        return child
    layer = Server(name, store=store)
    if mode == "import":
        _import_tools(layer, child, prefix=None, where=where)
    else:
        layer.mount(child)
    if options.include is not None:
        globs = tuple(options.include)
        layer.add_transform(
            Visibility(False, "not in include"),
            tools=Selector(where=lambda t: not Selector(globs).matches(t)),
        )
    if options.exclude:
        layer.add_transform(Visibility(False, "in exclude"), tools=Selector(options.exclude))
    changes = {}
    for tool, spec in options.tools.items():
        here = key_path(("tools", tool), start=where)
        steps = patch_transforms(spec, tool=tool, where=here, secrets=secrets)
        if steps:
            changes[tool] = Steps(tuple(steps), where=here)
    if changes:
        layer.add_transform(PerTool(changes))
    if options.timeout is not None:
        layer.add_middleware(_call(Timeout, where=f"{where}.timeout", default=options.timeout))
    layer.add_middleware(*middleware_stack(options.middleware, where=f"{where}.middleware"))
    return layer


def _import_tools(parent: Server, child: Any, *, prefix: str | None, where: str) -> None:
    _call(parent.import_tools, child, where=where, prefix=prefix)


def _mount(root: Server, source: Any, prefix: str | None, *, where: str) -> None:
    _call(root.mount, source, where=where, prefix=prefix)


# -- the whole file ----------------------------------------------------------------------------------


def rule_transforms(config: Config) -> Iterable[tuple[Any, Selector | None]]:
    """The top-level `transforms` rules as (transform, selector) pairs, in order."""
    for index, rule in enumerate(config.transforms):
        where = f"transforms[{index}]"
        steps = patch_transforms(rule, tool=None, where=where, secrets=list(config.secrets))
        if steps:
            yield Steps(tuple(steps), where=where), selector(rule.tools)


@contextmanager
def _collected(problems: list[ConfigError]) -> Iterator[None]:
    """Add a `ConfigError` raised in the block to `problems` (so every entry's is reported at once)."""
    try:
        yield
    except ConfigError as error:
        problems.append(error)


def _source(where: str, server: Any, entry: SourceOptions) -> Source:
    """What `Composed.unknown_tool_keys` checks of an entry: its `tools` keys, its `include` globs,
    and the plain names of its `exclude` (and `disabledTools`) lists: a pattern such as `delete_*`
    may be there in case such a tool appears, a name is a tool the file means."""
    named: list[tuple[tuple[str | int, ...], str]] = [(("tools", key), key) for key in entry.tools]
    named += [(("include", index), glob) for index, glob in enumerate(entry.include or [])]
    lists = {"exclude": entry.exclude, "disabledTools": getattr(entry, "disabled_tools", [])}
    named += [
        ((key, index), name)
        for key, names in lists.items()
        for index, name in enumerate(names)
        if not any(char in name for char in "*?[")
    ]
    return Source(where, server, tuple(named))


def _add_python(composed: Composed, entry: PythonEntry, *, where: str) -> None:
    root = composed.server
    child = python_source(entry, where=where)
    composed.sources.append(_source(where, child, entry))
    if entry.mode == "import" and not _needs_layer(entry):
        _import_tools(root, child, prefix=entry.prefix, where=where)
        return
    secrets = list(composed.secrets)
    layer = source_layer(child.name, child, entry, mode=entry.mode, where=where, secrets=secrets, store=root.store)
    _mount(root, layer, entry.prefix, where=where)


def _add_remote(
    composed: Composed, section: str, name: str, entry: McpServerEntry, *, base: Path, reuse: Reuse | None
) -> None:
    where = key_path((section, name))
    written = entry
    if entry.disabled_tools:
        entry = entry.model_copy(update={"exclude": [*entry.exclude, *entry.disabled_tools]})
    remote = remote_source(name, entry, base_dir=base, where=where, secrets=composed.secrets)
    if reuse is not None:
        remote = reuse(remote)
    composed.remotes.append(remote)
    composed.sources.append(_source(where, remote, written))
    secrets = list(composed.secrets)
    store = composed.server.store
    # The remote applies `timeout` itself, one way from a file and from Python: to each request,
    # and to a task-capable tool's call only through the caller's deadline (a `Timeout` around
    # the source's tools would end a long-running call at `timeout`, task or not).
    entry = entry.model_copy(update={"timeout": None})
    layer = source_layer(name, remote, entry, mode="mount", where=where, secrets=secrets, store=store)
    _mount(composed.server, layer, entry.prefix, where=where)


def _add_openapi(composed: Composed, name: str, entry: OpenAPIEntry, *, base: Path) -> None:
    where = key_path(("openapi", name))
    api = openapi_source(name, entry, base_dir=base, where=where, secrets=composed.secrets)
    composed.sources.append(_source(where, api, entry))
    store = composed.server.store
    layer = source_layer(name, api, entry, mode="mount", where=where, secrets=list(composed.secrets), store=store)
    _mount(composed.server, layer, entry.prefix, where=where)


FIXED_SETTINGS = ("name", "version", "store", "auth", "authenticate", "tasks")
"""The `server` settings a running process keeps until it restarts (a live reload cannot swap them)."""

Reuse = Callable[[Any], Any]
"""Given a freshly built `RemoteServer`, the one to use instead (an equal one already running)."""


def build(config: Config, *, base_dir: str | Path = ".", reuse: Reuse | None = None) -> Composed:
    """Build the server a config describes. Nothing is started.

    `reuse` may swap each `RemoteServer` for an equal one (a reload keeps unchanged upstreams).

    Raises:
        ConfigError: when an import fails, a feature is missing, or a library object refuses
            its options; the message names the key path.
    """
    base = Path(base_dir)
    add_search_path(Path.cwd(), first=False)  # the `toolweave` script, unlike `python -m`, leaves it out
    add_search_path(base)  # first: modules next to the config file win
    fixed = {key: getattr(config.server, key) for key in FIXED_SETTINGS}
    composed = Composed(
        server_from_settings(config.server),
        secrets=config.secrets,
        fixed_settings={f"server.{key}": value for key, value in fixed.items()},
    )
    root = composed.server
    if config.server.authenticate is not None:
        authenticate = import_object(config.server.authenticate, where="server.authenticate")
        if not callable(authenticate):
            raise ConfigError(f"{config.server.authenticate!r} is not callable", path="server.authenticate")
        composed.authenticate = authenticate
    if config.server.auth is not None:
        composed.auth = http_auth(config.server.auth, where="server.auth")
    problems: list[ConfigError] = []
    for index, entry in enumerate(config.python_entries):
        with _collected(problems):
            _add_python(composed, entry, where=f"python[{index}]")
    for section, name, server_entry in config.server_entries():
        if not server_entry.disabled:
            with _collected(problems):
                _add_remote(composed, section, name, server_entry, base=base, reuse=reuse)
    for name, api_entry in config.openapi.items():
        if not api_entry.disabled:
            with _collected(problems):
                _add_openapi(composed, name, api_entry, base=base)
    with _collected(problems):
        root.add_middleware(*middleware_stack(config.middleware, where="middleware"))
    with _collected(problems):
        for transform, tools in rule_transforms(config):
            root.add_transform(transform, tools=tools)
    with _collected(problems):
        for index, rule in enumerate(config.authorize):
            rule_access = _call(Authorize, rule.scopes, claims=rule.claims, where=f"authorize[{index}]")
            root.add_transform(rule_access, tools=selector(rule.tools), prompts=rule.prompts, resources=rule.resources)
    with _collected(problems):
        for transform in catalog_transforms(config.catalog, where="catalog"):
            root.add_transform(transform)
    if problems:
        raise problems[0] if len(problems) == 1 else problems_error([str(p) for p in problems], file=None)
    composed.secrets = config.secrets
    return composed


def build_file(path: str | Path, *, inputs: Mapping[str, str] | None = None, reuse: Reuse | None = None) -> Composed:
    """`load_config(path)` then `build(...)`, with errors naming the file; `inputs` give
    `${input:id}` values."""
    from toolweave.config.loading import load_config

    config = load_config(path, inputs=inputs)
    try:
        composed = build(config, base_dir=Path(path).parent, reuse=reuse)
    except ConfigError as error:
        raise naming_file(error, str(path)) from None
    composed.file = str(path)
    return composed


def naming_file(error: ConfigError, file: str) -> ConfigError:
    """`error`, naming `file` if it names no file yet."""
    if error.file is not None:
        return error
    text = str(error)
    return ConfigError(text.removeprefix(f"{error.path}: ") if error.path else text, file=file, path=error.path)
