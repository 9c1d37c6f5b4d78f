"""`LiveServer`: the server a config file builds, which `reload()` swaps for a new build while serving.

A live server mounts the current build (without prefix: the build's names are its names, and
the build's `server` settings are its own) and holds every upstream MCP server itself. On
`reload(config)`:

1. the file is loaded and built again, in a worker thread (an OpenAPI spec read from a URL may
   take up to its fetch timeout, and the calls being served go on meanwhile); an upstream whose
   entry did not change is the same `RemoteServer` in the new build, and keeps its session and
   process;
2. a file that does not load, build or compile is rejected: the error is logged (and raised),
   and the current build keeps serving;
3. new upstreams are connected (up to their `connect_timeout`, as at startup) and the new build
   is started (an HTTP API's client opened); then it replaces the old one in one step, and every
   client gets `list_changed` (with a shared `server.store`, the clients of every replica too, so
   a client listening on one replica and listing through another lists again). Each replica
   serves its own build: a `--watch` replica reloads the file itself when it changes there; a
   plain `serve` of the file keeps the build it started with (its clients list again, and get it);
4. calls already running finish on the old build; an upstream the new file no longer has is
   closed once the calls waiting for it have their answers (in the background: `reload()`
   returns without waiting for them).

Python modules the config imports are not imported again (a code change needs a restart).

With a shared `server.store` a live server is a replica like a plain `serve` of the file: the
build's shared state keeps the names it has there, and `enable`, `disable` and
`broadcast_changed` reach every replica on the file's channel (`Server.stand_in_for`).

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gateway.yaml"
    >>> _ = path.write_text("server: {name: gateway, instructions: first}")
    >>> live = LiveServer(build_file(path), file=path)
    >>> async def edited() -> tuple[str | None, int]:
    ...     async with live:
    ...         _ = path.write_text("server: {name: gateway, instructions: second}")
    ...         await live.reload()  # the file again, after an edit
    ...         return live.instructions, live.reloads
    >>> anyio.run(edited)
    ('second', 1)
    >>> _ = path.write_text("server: {name: gateway, instructions: [")
    >>> anyio.run(live.reload)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    toolweave.core.errors.ConfigError: ...
    >>> live.instructions  # the previous build keeps serving
    'second'
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from toolweave.config.build import build_file
from toolweave.config.composed import Composed
from toolweave.config.loading import read_data
from toolweave.core.errors import ConfigError
from toolweave.core.threads import run_in_worker
from toolweave.server.mount import Mount
from toolweave.server.server import Server
from toolweave.tasks.serving import configure_tasks, tasks_settings

logger = logging.getLogger("toolweave.config")


class _Held:
    """The upstream MCP servers a live server holds open, each in its own cancel scope."""

    def __init__(self) -> None:
        self.remotes: list[Any] = []
        self._scopes: dict[int, anyio.CancelScope] = {}
        self._tasks: TaskGroup | None = None

    def reuse(self, fresh: Any) -> Any:
        """The held remote to the same upstream with the same options as `fresh`, else `fresh`."""
        return next((remote for remote in self.remotes if remote.same_upstream(fresh)), fresh)

    def add(self, remotes: list[Any]) -> None:
        self.remotes += [remote for remote in remotes if all(remote is not held for held in self.remotes)]

    async def start(self, tasks: TaskGroup | None = None) -> None:
        """Start (in `tasks`: a new lifespan; else the running one's) every remote not started
        yet, in parallel, and wait until each is up or failed to start."""
        if tasks is not None:
            self._tasks, self._scopes = tasks, {}
            tasks.start_soon(self._until_closed, tasks, name="toolweave live server upstreams")
        if self._tasks is None:  # not running: they start with the server
            return
        events = []
        for remote in self.remotes:
            if id(remote) not in self._scopes:
                ready = anyio.Event()
                scope = self._scopes[id(remote)] = anyio.CancelScope()
                self._tasks.start_soon(_keep, remote, scope, ready, name=f"toolweave upstream {remote.name!r}")
                events.append(ready)
        for ready in events:
            await ready.wait()

    async def _until_closed(self, tasks: TaskGroup) -> None:
        """Forget the lifespan's task group when it ends (an in-process call's lifespan, or
        `async with`): a reload after it starts nothing there, and its remotes start with the next."""
        try:
            await anyio.sleep_forever()
        finally:
            if self._tasks is tasks:
                self._tasks, self._scopes = None, {}

    def drop(self, remote: Any) -> None:
        """Stop holding `remote`, and close it in the background once no request waits for it
        (`release`): the reload that dropped it neither waits for the calls still running there
        nor keeps the next reload waiting."""
        self.remotes = [held for held in self.remotes if held is not remote]  # (no later reload reuses it)
        if self._tasks is not None:  # (not running: nothing is open)
            self._tasks.start_soon(self.release, remote, name=f"toolweave closing upstream {remote.name!r}")

    async def release(self, remote: Any) -> None:
        """Close `remote` once no request waits for it. Not bounded by its `timeout`, which bounds
        each request but not a call its upstream answered with a task (polled up to the caller's
        deadline): every request ends, and the server's end closes what is left."""
        self.remotes = [held for held in self.remotes if held is not remote]
        await remote.settled()
        scope = self._scopes.pop(id(remote), None)
        if scope is not None:
            scope.cancel()


async def _keep(remote: Any, scope: anyio.CancelScope, ready: anyio.Event) -> None:
    try:
        with scope:
            async with remote.lifespan():
                ready.set()
                await anyio.sleep_forever()
    finally:
        ready.set()


def _was_up(name: str, remotes: list[Any]) -> bool:
    """Whether one of `remotes` named `name` is up (the version of an upstream an edit replaces)."""
    return any(remote.name == name and remote.state == "up" for remote in remotes)


def _among(remote: Any, remotes: list[Any]) -> bool:
    return any(remote is other for other in remotes)


def _close_mounts(root: Server) -> None:
    """Stop every mount in `root`'s tree following its child (so a remote kept across a reload
    no longer recompiles the old build)."""
    stack = [root]
    while stack:
        server = stack.pop()
        for mounted in server.mounts:
            mounted.close()
            stack.append(mounted.child)


class LiveServer(Server):
    """The server a config builds, swapped for a new build by `reload()` while it serves.

    Args:
        composed: The first build (`build_file(path)`).
        file: The config file `reload()` reads by default.
        inputs: `${input:id}` values for every build.
    """

    def __init__(
        self, composed: Composed, *, file: str | os.PathLike[str] | None = None, inputs: dict[str, str] | None = None
    ) -> None:
        root = composed.server
        # the file's `server.store` (events, tasks, and the change fan-out: its enable, disable and
        # reloads reach the clients of every replica, on the channel a plain `serve` of the file uses)
        super().__init__(root.name, instructions=root.instructions, version=root.version, store=root.store)
        self.file = Path(file) if file is not None else (Path(composed.file) if composed.file else None)
        self.inputs = inputs
        self.composed = composed
        self._first = dict(composed.fixed_settings)
        self.reloads = 0
        """How many reloads replaced the build."""
        self._held = _Held()
        self._lock = anyio.Lock()
        self._adopt_settings(root)
        kept = tasks_settings(root)  # tasks are run by the served server: with the file's `server.tasks`
        configure_tasks(self, **{setting.name: getattr(kept, setting.name) for setting in dataclasses.fields(kept)})
        self.stand_in_for(root)
        self._current: Mount[Server] = self.mount(root)
        self._held.add(composed.remotes)

    def _adopt_settings(self, root: Server) -> None:
        self.error_policy = root.error_policy
        self.extra_args = root.extra_args
        self.page_size = root.page_size
        self.instructions = root.instructions

    # -- lifespan: the upstreams first (held here), then the build --------------------------------

    def held_children(self) -> list[Server]:
        return []

    async def hold_open(self, tasks: TaskGroup) -> None:
        await self._held.start(tasks)
        await self._started(self._current.child)

    async def _started(self, build: Server) -> None:
        """Start `build` with this server (if running), and wait until it is up; mounting it
        then finds it held already."""
        ready = self._life.start(build)
        if ready is not None:
            await ready.wait()

    # -- reload ------------------------------------------------------------------------------------

    async def reload(self, config: str | os.PathLike[str] | None = None) -> Composed:
        """Build `config` (a file; by default the one this server was built from) and serve it
        instead of the current build; see the module docstring.

        Raises:
            ConfigError: the file does not load, build or compile (the current build keeps serving).
        """
        path = Path(config) if config is not None else self.file
        if path is None:
            raise ValueError("reload() needs a config file: this server was not built from one")
        async with self._lock:
            composed = await self._build(path)
            await self._swap(composed)
            self.file = path
            changed = [key for key, value in composed.fixed_settings.items() if self._first.get(key) != value]
            if changed:
                logger.warning(
                    "reload of %s: %s changed, which takes a restart: the process keeps the values it started with",
                    path,
                    ", ".join(changed),
                )
        return composed

    async def _build(self, path: Path) -> Composed:
        try:
            # not on the loop (a spec's URL), and left behind by a shutdown (it may take 30 s a spec)
            composed: Composed = await run_in_worker(self._read, {"path": path})
            composed.server.catalog  # noqa: B018 - compile now: a clash rejects the file, not a request
        except ConfigError as error:
            logger.error("reload of %s rejected; still serving the previous version: %s", path, error)
            raise
        except Exception as error:
            logger.error("reload of %s rejected; still serving the previous version: %s", path, error)
            raise ConfigError(f"cannot compose the server: {error}", file=str(path)) from error
        return composed

    def _read(self, path: Path) -> Composed:
        """`path` built: its file read, its modules imported, its OpenAPI specs fetched."""
        if not read_data(path):  # an editor's truncation, caught half written: not "serve nothing"
            raise ConfigError("the file is empty (or holds only comments)", file=str(path))
        return build_file(path, inputs=self.inputs, reuse=self._held.reuse)

    async def _swap(self, composed: Composed) -> None:
        old, old_composed = self._current, self.composed
        started = [remote for remote in composed.remotes if not _among(remote, self._held.remotes)]
        dropped = [remote for remote in old_composed.remotes if not _among(remote, composed.remotes)]
        self._held.add(started)
        await self._held.start()
        broken = [remote for remote in started if remote.state != "up" and _was_up(remote.name, dropped)]
        if broken:  # an edit that would take a working upstream down is a broken edit
            for remote in started:
                await self._held.release(remote)
            reasons = "; ".join(f"{remote.name!r}: {remote.last_error}" for remote in broken)
            error = ConfigError(
                f"upstream(s) that were up cannot start as the file now says: {reasons}", file=str(self.file)
            )
            logger.error("reload of %s rejected; still serving the previous version: %s", self.file, error)
            raise error
        self.stand_in_for(composed.server)
        await self._started(composed.server)  # its own resources (an API's HTTP client) up before it serves
        self.unmount(old)
        try:
            self._current = self.mount(composed.server)  # clashes with what new upstreams list show here
        except Exception as error:
            self._life.stop(composed.server)
            await self._started(old.child)
            self._current = self.mount(old.child)
            for remote in started:
                await self._held.release(remote)
            logger.error("reload of %s rejected; still serving the previous version: %s", self.file, error)
            raise ConfigError(f"cannot compose the server: {error}", file=str(self.file)) from error
        self._adopt_settings(composed.server)
        self.composed = composed
        self.reloads += 1
        self.replicas.announce("changed")  # the other replicas' clients list again (each replica reloads its own file)
        _close_mounts(old.child)
        kept = len(composed.remotes) - len(started)
        logger.warning(
            "reloaded %s: %d upstream(s) kept, %d started, %d closed", self.file, kept, len(started), len(dropped)
        )
        for remote in dropped:
            self._held.drop(remote)


def reload_on_change(live: LiveServer) -> Callable[[], Any]:
    """A coroutine function that reloads `live` whenever its file changes (`watchfiles`), until
    cancelled; a rejected file is logged and the current build keeps serving. It watches the
    folders `_folders` names, again whenever they change.

    Cancelled, it ends within one `step` (50 ms): `watchfiles` waits for changes in a thread that
    cannot be interrupted and only looks at its stop event between steps; cancelling its `awatch`
    alone sets that event once the thread returns, up to 5 s later (every shutdown paid for it).
    """

    async def watch() -> None:
        stop = anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(follow, stop)
            try:
                await anyio.sleep_forever()
            finally:
                stop.set()  # before the task group waits for the watching thread

    async def follow(stop: anyio.Event) -> None:
        from watchfiles import awatch

        assert live.file is not None
        file = live.file.absolute()
        seen = _fingerprint(file)

        async def reload_if_changed() -> None:
            nonlocal seen
            now = _fingerprint(file)
            if now == seen:
                return  # another file of the folder changed, or the same text was saved again
            seen = now
            with contextlib.suppress(ConfigError):  # logged by reload
                await live.reload()

        while not stop.is_set():
            folders = _folders(file)

            def ours(change: Any, path: str, folders: set[Path] = folders) -> bool:
                return Path(path).parent in folders

            await reload_if_changed()  # (a change while the watch moved to another folder)
            async for _ in awatch(*folders, watch_filter=ours, debounce=200, step=50, recursive=False, stop_event=stop):
                await reload_if_changed()
                if _folders(file) != folders:
                    break  # the file's link leads to another folder now: watch that one

    return watch


def _folders(file: Path) -> set[Path]:
    """The folders whose entries decide what `file` holds: its own (editors replace a file by
    renaming another; a Kubernetes ConfigMap swaps the `..data` link the file goes through, and
    deletes the folder it pointed to), and the one the file resolves to, when it is a link to a
    file elsewhere (edited there in place)."""
    target = file.resolve().parent
    return {file.parent, target} if target.is_dir() else {file.parent}


def _fingerprint(file: Path) -> bytes | None:
    """What the file holds now (through any links), or None when it cannot be read."""
    try:
        return hashlib.sha256(file.read_bytes()).digest()
    except OSError:
        return None
