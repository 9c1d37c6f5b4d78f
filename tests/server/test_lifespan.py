"""A server's lifespan starts what it and the servers it mounts hold open, once, and stops it."""

from __future__ import annotations

import anyio
from anyio.abc import TaskGroup

from toolweave import Server
from toolweave.testing import connect


class Holder(Server):
    """A server that holds a resource open while it runs, and records when."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.log: list[str] = []

    async def hold_open(self, tasks: TaskGroup) -> None:
        self.log.append("open")
        tasks.start_soon(self._hold)

    async def _hold(self) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            self.log.append("close")


async def test_async_with_opens_and_closes_the_server() -> None:
    server = Holder("one")
    async with server:
        assert server.running and server.log == ["open"]
    assert not server.running and server.log == ["open", "close"]


async def test_mounted_and_imported_servers_start_and_stop_with_the_parent() -> None:
    mounted, imported, deep = Holder("mounted"), Holder("imported"), Holder("deep")
    mounted.mount(deep, prefix="deep")
    parent = Server("parent")
    parent.mount(mounted, prefix="m")
    parent.import_tools(imported, prefix="i")
    async with parent:
        assert [s.log for s in (mounted, imported, deep)] == [["open"]] * 3
    assert [s.log for s in (mounted, imported, deep)] == [["open", "close"]] * 3


async def test_entering_a_running_server_again_does_not_reopen_it() -> None:
    child = Holder("child")
    first, second = Server("first"), Server("second")
    first.mount(child, prefix="a")
    second.mount(child, prefix="b")
    async with first:
        async with second, child:
            assert child.log == ["open"]
        assert child.running
    assert child.log == ["open", "close"]


async def test_a_server_mounted_while_running_is_started() -> None:
    parent, late = Server("parent"), Holder("late")
    async with parent:
        parent.mount(late, prefix="late")
        with anyio.fail_after(2):
            while not late.log:  # noqa: ASYNC110 - polling state set by another task
                await anyio.sleep(0.01)
    assert late.log == ["open", "close"]


async def test_serving_through_an_mcp_client_runs_the_lifespan() -> None:
    child = Holder("child")
    parent = Server("parent")
    parent.mount(child, prefix="c")
    async with connect(parent) as client:
        await client.list_tools()
        assert child.log == ["open"]
    assert child.log == ["open", "close"]


async def test_async_with_in_two_tasks_leaving_in_the_order_they_came_stops_once_both_left() -> None:
    """Each task's `async with server:` exits its own entry, whichever task leaves first."""
    server = Holder("shared")
    first_in, second_in, first_out = anyio.Event(), anyio.Event(), anyio.Event()

    async def first() -> None:
        async with server:
            first_in.set()
            await second_in.wait()
        first_out.set()  # (the first entry's exit waits for the second to leave)

    async def second() -> None:
        await first_in.wait()
        async with server:
            second_in.set()
            await anyio.sleep(0.05)
            assert not first_out.is_set() and server.running

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(first)
            tasks.start_soon(second)
    assert not server.running and server.log == ["open", "close"]


async def until_running(server: Server) -> None:
    with anyio.fail_after(5):
        while not server.running:  # noqa: ASYNC110 - polling state set by another task
            await anyio.sleep(0.01)


async def test_a_child_two_parents_hold_runs_on_after_the_parent_that_started_it_stops() -> None:
    """The other parent takes it over (started again in its lifespan), instead of losing it."""
    child = Holder("child")
    first, second = Server("first"), Server("second")
    first.mount(child, prefix="a")
    second.mount(child, prefix="b")
    second_in, first_out = anyio.Event(), anyio.Event()

    async def run_first() -> None:
        async with first:
            await second_in.wait()
        first_out.set()

    async def run_second() -> None:
        await until_running(child)
        async with second:
            second_in.set()
            await first_out.wait()
            await until_running(child)
            assert (await second.call_tool("b_ping")).text == "pong"

    @child.tool
    def ping() -> str:
        return "pong"

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run_first)
            tasks.start_soon(run_second)
    assert not child.running and child.log == ["open", "close", "open", "close"]


async def test_unmounting_a_child_another_running_parent_holds_leaves_it_running() -> None:
    child = Holder("child")
    first, second = Server("first"), Server("second")
    mounted = first.mount(child, prefix="a")
    second.mount(child, prefix="b")
    async with first, second:
        first.unmount(mounted)
        await anyio.sleep(0.05)
        await until_running(child)
    assert not child.running and child.log[-1] == "close"


async def test_an_entry_waiting_for_a_start_that_was_cancelled_starts_the_server_itself() -> None:
    """It waited forever for a start that would never finish."""
    log: list[str] = []

    class SlowStart(Server):
        async def hold_open(self, tasks: TaskGroup) -> None:
            log.append("starting")
            await anyio.sleep(0.2)

    server = SlowStart("slow")
    first = anyio.CancelScope()

    async def enter_first() -> None:
        with first:
            async with server:
                await anyio.sleep_forever()

    async def enter_second() -> None:
        await anyio.sleep(0.05)  # while the first entry is starting
        async with server:
            assert server.running
            log.append("in")

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(enter_first)
            tasks.start_soon(enter_second)
            await anyio.sleep(0.1)
            first.cancel()
    assert log == ["starting", "starting", "in"] and not server.running
