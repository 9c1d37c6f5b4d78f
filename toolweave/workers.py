"""`toolweave serve --workers N`: N processes serving one config on one port.

The parent reserves the port (bound with `SO_REUSEPORT`, never listening, so `--port 0` picks
one port for all), starts N `toolweave serve` children on it with `--reuse-port` (the kernel
spreads connections between them), waits until each listens, and announces the URL. Each
worker builds the config itself: its own upstream sessions (a stdio upstream runs once per
worker), its own handshake-era sessions; what is shared goes through `server.store`. Stopping
the parent (Ctrl-C, SIGTERM, SIGHUP), even while the workers still start, stops every worker and
exits 0; a worker that exits on its own stops them all (logged first: which worker, its pid, its exit
status or the signal that killed it), and the parent exits with its status, 128 + the signal's
number for a killed one, as a shell reports it (leave restarts to a process supervisor). A worker
whose parent is gone without stopping it (killed with SIGKILL, by the OOM killer) stops itself
as on SIGTERM (`stop_when_orphaned`), instead of serving on alone on the port.

Example:
    >>> worker_command(["serve", "gw.yaml", "--transport", "http"], port=8000)[-4:]
    ['--port', '8000', '--reuse-port', '--no-announce']
    >>> how_it_ended(-9), exit_status(-9)
    ('was killed by signal SIGKILL', 137)
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

import anyio

from toolweave.mcp.serve import reuse_port_socket
from toolweave.mcp.shutdown import STOP_SIGNALS

logger = logging.getLogger("toolweave.workers")
READY = "toolweave-worker-ready"
"""The line a worker prints on its standard output once it listens."""


def worker_command(arguments: Sequence[str], *, port: int) -> list[str]:
    """The command that starts one worker: the `toolweave` arguments, on the reserved `port`."""
    return [sys.executable, "-m", "toolweave", *arguments, "--port", str(port), "--reuse-port", "--no-announce"]


async def stop_when_orphaned(parent: int, every: float = 0.5) -> None:
    """Stop this worker gracefully (SIGTERM to itself: the drain) once its parent `parent` has
    ended; checked every `every` seconds, until cancelled.

    A parent that ends without stopping its workers (SIGKILL, the OOM killer) leaves them
    reparented, serving on alone with the config they started with: a supervisor that then starts
    the gateway again binds the same port beside them (`SO_REUSEPORT`), and the kernel spreads the
    connections between old and new.
    """
    while os.getppid() == parent:  # noqa: ASYNC110 - no event says that a parent process ended
        await anyio.sleep(every)
    logger.error("this worker's parent (pid %d) has ended: stopping", parent)
    os.kill(os.getpid(), signal.SIGTERM)


def serve_workers(
    arguments: Sequence[str],
    *,
    host: str,
    port: int,
    workers: int,
    on_ready: Callable[[int], None],
    ready_timeout: float = 60.0,
    grace: float = 10.0,
) -> int:
    """Run `workers` children serving on `host:port` until stopped; the exit status.

    `on_ready(port)` is called once every worker listens; `grace` is the workers' own `--grace`
    (a worker still running 5 s past it is killed, and named in the log).
    """
    reserved = reuse_port_socket(host, port)
    port = reserved.getsockname()[1]
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in STOP_SIGNALS}
    children: list[subprocess.Popen[str]] = []
    try:
        command = worker_command(arguments, port=port)
        quiet = [*command, "--no-warnings"]  # each worker builds the config: the first prints its warnings
        commands = [command, *[quiet] * (workers - 1)]
        children = [subprocess.Popen(each, stdout=subprocess.PIPE, text=True) for each in commands]
        if not _wait_ready(children, stop, ready_timeout):
            if stop.is_set():
                return 0
            status = _report_ended(children, within=2.0)  # its output ends just before it does
            if status is None:
                logger.error("not every worker listened within %gs; stopping them", ready_timeout)
            return status or 1
        on_ready(port)
        while not stop.is_set():
            status = _report_ended(children)
            if status is not None:
                return status or 1
            stop.wait(0.2)
        return 0
    finally:
        _stop(children, grace + 5.0)
        reserved.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _wait_ready(children: list[subprocess.Popen[str]], stop: threading.Event, timeout: float) -> bool:
    """Whether every child printed `READY` (False if one exited first, or on a stop or timeout).
    Each child's other lines (a tool's `print`) go on to this process's stdout as they come."""
    events: queue.Queue[bool] = queue.Queue()

    def watch(child: subprocess.Popen[str]) -> None:
        assert child.stdout is not None
        told, passing = False, sys.stdout is not None
        for line in child.stdout:  # read to the end: a full pipe would block the worker
            if not told and line.strip() == READY:
                told = True
                events.put(True)
            elif passing:
                try:
                    sys.stdout.write(line)
                    sys.stdout.flush()
                except (OSError, ValueError):  # this stdout is closed, its reader gone: read on, pass on no more
                    passing = False
        if not told:
            events.put(False)

    for child in children:
        threading.Thread(target=watch, args=(child,), daemon=True).start()
    deadline = time.monotonic() + timeout
    waiting = len(children)
    while waiting and not stop.is_set() and time.monotonic() < deadline:
        try:
            if not events.get(timeout=0.2):
                return False
        except queue.Empty:
            continue
        waiting -= 1
    return not waiting


def _report_ended(children: list[subprocess.Popen[str]], within: float = 0.0) -> int | None:
    """If a child has exited (or does `within` seconds): log which one and how (before the others
    are stopped), and return the parent's exit status for it (`exit_status`); else None."""
    deadline = time.monotonic() + within
    while True:
        for number, child in enumerate(children, 1):
            status = child.poll()
            if status is not None:
                count, how = len(children), how_it_ended(status)
                logger.error("worker %d of %d (pid %d) %s; stopping the others", number, count, child.pid, how)
                return exit_status(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def how_it_ended(status: int) -> str:
    """A child's end, from its `returncode` (negative: the signal that killed it)."""
    if status >= 0:
        return f"exited with status {status}"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = str(-status)
    return f"was killed by signal {name}"


def exit_status(status: int) -> int:
    """The exit status a shell shows for a child's `returncode`: 128 + N for a child killed by signal N."""
    return 128 - status if status < 0 else status


def _stop(children: list[subprocess.Popen[str]], grace: float = 15.0) -> None:
    """SIGTERM every child (uvicorn's graceful shutdown), then SIGKILL what is left after `grace`
    (logged: a worker killed ends without closing its upstreams or recording its tasks)."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + grace
    for number, child in enumerate(children, 1):
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            logger.error(
                "worker %d of %d (pid %d) had not stopped %gs after it was asked to: killing it",
                number,
                len(children),
                child.pid,
                grace,
            )
            child.kill()
            child.wait()
