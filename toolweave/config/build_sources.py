"""The sources of tools a config names, as library objects: a `python` item's Server (or a new
one holding its functions), an MCP server entry's `RemoteServer`, an `openapi` entry's
`OpenAPIServer`, and the gateway's own credentials for an HTTP upstream (`auth`).

The options toolweave adds to every source (`include`, `tools`, `middleware`, ...) are applied
around it by `build.source_layer`.

Example:
    >>> from toolweave.config.entries import PythonEntry
    >>> python_source(PythonEntry.model_validate({"import": "posixpath:basename"}), where="python[0]")
    Server('posixpath')
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from toolweave.auth import Bearer, OAuthClientCredentials
from toolweave.config.build_policies import inject_source
from toolweave.config.entries import McpServerEntry, OpenAPIEntry, PythonEntry, RoutesSpec, UpstreamAuthSpec
from toolweave.config.envfile import read_env_file
from toolweave.config.imports import import_object
from toolweave.config.paths import call_at, key_path
from toolweave.core.errors import ConfigError
from toolweave.core.shown import Expanded
from toolweave.core.tool import Tool
from toolweave.openapi import OpenAPIServer, Routes
from toolweave.server.remote import DEFAULT_CONNECT_TIMEOUT, RemoteServer
from toolweave.server.server import Server
from toolweave.transforms import FromEnv, Secret

logger = logging.getLogger("toolweave.config")


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
        call_at(holder.add_tool, item, where=f"{where}.import")
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
    shows (of what the config expanded, the part its command, URL, headers or environment hold:
    `Expanded.within`; of those, the credentials are held in flight while it runs).

    The entry's `timeout` is the remote's own bound on each request (prompts and reads too), as
    `RemoteServer(timeout=)` is in Python, and on connecting (see `connect_timeout`); `build`
    adds no `Timeout` for it.
    """
    if secrets is not None:  # what it shows, and what it sends (credentials held in flight: `credentials()`)
        sent = (entry.headers or {}) if entry.transport != "stdio" else (entry.env or {})
        shown = [entry.endpoint] if entry.transport != "stdio" else [entry.command, *entry.args]
        secrets = secrets.within(word for word in [*shown, *sent.values()] if word is not None)
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
        auth = upstream_auth(entry.auth, where=f"{where}.auth") if entry.auth is not None else None
        if auth is not None:
            extra["auth"] = auth
        if entry.forward_caller_token:
            extra["forward_caller_token"] = True
        if entry.caller_sessions is not None:
            extra["caller_sessions"] = entry.caller_sessions
        if entry.caller_session_idle is not None:
            extra["caller_session_idle"] = entry.caller_session_idle
        url = key_path(("url" if entry.url is not None else "serverUrl",), start=where)
        return call_at(make, entry.endpoint, where=url, headers=entry.headers, name=name, **extra)
    cwd = str((base_dir / entry.cwd).resolve()) if entry.cwd is not None else None
    env = entry.env
    if entry.env_file is not None:
        env = {**read_env_file(base_dir / entry.env_file, where=f"{where}.envFile"), **(entry.env or {})}
    options = {"args": list(entry.args), "env": env, "cwd": cwd, "name": name, **extra}
    return call_at(RemoteServer.stdio, entry.command, where=where, **options)


def upstream_auth(spec: UpstreamAuthSpec, *, where: str) -> Bearer | OAuthClientCredentials | None:
    """The credentials of an `auth` section of an HTTP upstream; `None` for Cursor's OAuth login
    block alone, which is told of (a gateway cannot sign a person in)."""
    if spec.is_login:
        logger.warning(
            "%s: Cursor's OAuth login (CLIENT_ID, CLIENT_SECRET, scopes) is not used: a gateway cannot "
            "sign a person in; give the server the gateway's own credential (auth: {bearer: ...} or "
            "auth: {client_credentials: ...}) or an Authorization header",
            where,
        )
    if spec.bearer is not None:
        return Bearer(_token_source(spec.bearer))
    found = spec.client_credentials
    if found is None:
        return None
    credentials: OAuthClientCredentials = call_at(
        OAuthClientCredentials,
        found.token_url,
        found.client_id,
        _token_source(found.client_secret),
        scopes=found.scopes,
        audience=found.audience,
        resource=found.resource,
        where=f"{where}.client_credentials",
    )
    return credentials


def _token_source(value: str) -> Any:
    """`env:VAR` read at each use, else the value itself (kept secret)."""
    return FromEnv(value.removeprefix("env:")) if value.startswith("env:") else Secret(value)


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
        return [call_at(Routes, where=f"{where}.{key}[{i}]", **item.model_dump()) for i, item in enumerate(specs)]

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
