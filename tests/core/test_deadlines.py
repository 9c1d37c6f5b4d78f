"""Which watchdog `watchdog()` finds: the running loop's, per thread, never a stale one."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from toolweave.core.deadlines import Watchdog, watchdog


async def _mine() -> tuple[Watchdog | None, asyncio.AbstractEventLoop]:
    return watchdog(), asyncio.get_running_loop()


def test_each_loop_run_in_turn_on_one_thread_gets_its_own_watchdog() -> None:
    first, first_loop = asyncio.run(_mine())
    second, second_loop = asyncio.run(_mine())
    assert first is not None and first.loop is first_loop
    assert second is not None and second.loop is second_loop and second is not first


def test_outside_a_running_loop_there_is_no_watchdog() -> None:
    asyncio.run(_mine())  # this thread ran a loop: what was found for it must not outlive it
    assert watchdog() is None


def test_loops_running_at_once_on_two_threads_each_find_their_own() -> None:
    found: dict[str, tuple[Watchdog | None, asyncio.AbstractEventLoop]] = {}
    both_running = threading.Barrier(2)

    async def meet(name: str) -> None:
        watchdog()
        await asyncio.to_thread(both_running.wait, 5)  # both loops run now
        found[name] = await _mine()

    threads = [threading.Thread(target=asyncio.run, args=(meet(name),)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    (dog_a, loop_a), (dog_b, loop_b) = found["a"], found["b"]
    assert dog_a is not None and dog_a.loop is loop_a
    assert dog_b is not None and dog_b.loop is loop_b


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded, use of fork:DeprecationWarning")  # (3.12+)
def test_a_process_forked_while_a_loop_runs_finds_no_watchdog_of_its_parents_loop() -> None:
    async def fork() -> tuple[int, int]:
        assert watchdog() is not None
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the parent's loop is not running here
            os.write(write, b"none" if watchdog() is None else b"found")
            os._exit(0)
        os.close(write)
        return pid, read

    pid, read = asyncio.run(fork())
    answer = os.read(read, 16)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"none"
