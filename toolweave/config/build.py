"""From a validated `Config` to library objects: the build loop, one small function per section.

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

The sources are built in `build_sources`; selectors, per-tool changes (which `source_layer`
applies), middleware, rules and the catalog's transforms in `build_policies`. A library object
that refuses its options (`TypeError`/`ValueError`) becomes a `ConfigError` naming the key path
(`paths.call_at`).

Example:
    >>> from toolweave.config.models import Config
    >>> entry = {"import": "posixpath:basename", "tools": {"basename": {"name": "file_name"}}}
    >>> config = Config.model_validate({"python": [entry]})
    >>> [tool.name for tool in build(config).server.catalog.tools]
    ['file_name']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from toolweave.config.build_policies import (
    catalog_transforms,
    http_auth,
    middleware_stack,
    patch_transforms,
    rule_transforms,
    selector,
)
from toolweave.config.build_sources import openapi_source, python_source, remote_source
from toolweave.config.composed import Composed, Source
from toolweave.config.entries import McpServerEntry, OpenAPIEntry, PythonEntry, SourceOptions
from toolweave.config.imports import add_search_path, import_object
from toolweave.config.loading import problems_error
from toolweave.config.models import Config
from toolweave.config.paths import call_at, key_path
from toolweave.config.settings import ServerSettings, StoreSpec
from toolweave.config.steps import PerTool, Steps, Visibility
from toolweave.core.errors import ConfigError
from toolweave.core.shown import shown_text
from toolweave.middleware import Timeout
from toolweave.middleware.selector import Selector
from toolweave.server.server import Server
from toolweave.store import RedisStore, Store
from toolweave.tasks.serving import configure_tasks
from toolweave.transforms import Authorize

# -- the root --------------------------------------------------------------------------------------


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


# -- a source as the root mounts it ---------------------------------------------------------------


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
        layer.add_middleware(call_at(Timeout, where=f"{where}.timeout", default=options.timeout))
    layer.add_middleware(*middleware_stack(options.middleware, where=f"{where}.middleware"))
    return layer


def _import_tools(parent: Server, child: Any, *, prefix: str | None, where: str) -> None:
    call_at(parent.import_tools, child, where=where, prefix=prefix)


def _mount(root: Server, source: Any, prefix: str | None, *, where: str) -> None:
    call_at(root.mount, source, where=where, prefix=prefix)


# -- the whole file ----------------------------------------------------------------------------------


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
            its options; the message names the key path, and shows a value that came from the
            environment or an input (an import path built from `${VAR}`) as its reference.
    """
    try:
        return _built(config, Path(base_dir), reuse)
    except ConfigError as error:
        shown = shown_text(str(error), config.secrets)
        if shown == str(error):
            raise
        where = ": ".join(part for part in (error.file, error.path) if part)
        raise ConfigError(shown.removeprefix(f"{where}: "), file=error.file, path=error.path) from None


def _built(config: Config, base: Path, reuse: Reuse | None) -> Composed:
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
            rule_access = call_at(Authorize, rule.scopes, claims=rule.claims, where=f"authorize[{index}]")
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
    from toolweave.config.loading import check_inputs, load_config

    config = load_config(path, inputs=inputs)
    try:
        check_inputs(config, inputs)
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
