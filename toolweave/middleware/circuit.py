"""`CircuitBreaker`: stop calling an upstream that keeps failing; try again after a pause.

Meant for remote mounts: `gateway.add_middleware(CircuitBreaker(tools="github_*"))` gives the
whole mounted server one circuit (`per_tool=True`: one per tool).

- **closed** (normal): calls go through; `failures` consecutive failures open the circuit.
- **open**: calls are turned away at once with a `Rejected` result
  (`Circuit open for tool 'x': retry in 12.5s`) for `reset_after` seconds.
- **half-open**: after that pause one probe call goes through (others are still turned away);
  if it succeeds the circuit closes, if it fails it opens again for another `reset_after`.

What counts as a failure: an exception that means the upstream did not answer — `UpstreamError`,
`ToolTimeout`, or any internal error. A `ToolError` (including invalid arguments and rejections)
is an answer, so it counts as a success, and so does an `isError` result, unless
`count_error_results=True` (for upstreams that report outages as error results). A cancelled
call counts as neither, unless its deadline has passed: a `Timeout` outside the breaker (the
order `Server(middleware=[Timeout(...)])` and a later `CircuitBreaker` give) ends it with a
cancellation, and the client gets a timeout: a failure, as a `Timeout` inside it would report.
So is any outcome that comes back after the deadline (a tool that ignored the cancellation, or
blocked the loop): the `Timeout` discards it and the client gets a timeout. A half-open probe its
caller cancelled lets the next call probe (on every replica, with a shared store).

On a server with a shared store (`Server(store="redis://...")`) each circuit lives there: a
circuit opened by failures on one replica is open on every replica, and only one replica's
probe goes through when it half-opens. A healthy call costs one round trip (reading the state);
failures and recoveries one more. When the store is unreachable each process uses its own
circuit (which also counts every outcome it sees, so it is warm when needed).

The `toolweave.circuit.state` gauge reports, per circuit, the state this process acts on: the
shared circuit's as its last call here found or left it (a replica turning calls away because
another opened the circuit reports it open), this process's own while the store is unreachable.
Each breaker's circuit has its own series, named by `label` (by default the server the breaker
is on, and the tools it selects).

Example:
    >>> breaker = CircuitBreaker(failures=3, reset_after=10)
    >>> breaker.circuit().state
    'closed'
    >>> from toolweave import Server
    >>> _ = Server("github", middleware=[breaker])
    >>> breaker.label
    'github'
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Literal

import anyio

from toolweave.core.deadlines import past
from toolweave.core.errors import PROTOCOL_ANSWERS, Rejected, ToolError, ToolTimeout, UpstreamError
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import positive, seconds
from toolweave.store.base import SharedCircuit, StoreUnavailable
from toolweave.telemetry import events

if TYPE_CHECKING:
    from toolweave.store.base import Store

State = Literal["closed", "open", "half_open"]


class Circuit:
    """The state of one circuit."""

    def __init__(self) -> None:
        self.state: State = "closed"
        self.failures = 0
        self.opened_at = 0.0
        self.probing = False
        self.reported: State | None = None
        """The state last reported in metrics: the one this process acts on (with a shared store,
        the shared circuit's as the last call found it, which `state` need not be)."""

    def __repr__(self) -> str:
        return f"Circuit(state={self.state!r}, failures={self.failures})"


def is_failure(error: BaseException) -> bool:
    """Whether `error` means the upstream failed (rather than answered with an error)."""
    if isinstance(error, UpstreamError | ToolTimeout):
        return True
    return not isinstance(error, (ToolError, *PROTOCOL_ANSWERS))


class CircuitBreaker(Middleware):
    """Fail fast while an upstream is down.

    Args:
        failures: Consecutive failures that open the circuit.
        reset_after: Seconds the circuit stays open before one probe call is let through.
        per_tool: One circuit per tool instead of one for every tool this applies to.
        count_error_results: Count `isError` results as failures too.
        label: The circuit's name in the `toolweave.circuit.state` metric (`per_tool=True`: followed
            by `/` and the tool's name). By default the name of the server the breaker is on,
            followed by the tools it selects when `tools` is given: `github`,
            `gateway names=['github_*']`, `github/search_issues`.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).
    """

    def __init__(
        self,
        failures: int = 5,
        reset_after: float = 30.0,
        *,
        per_tool: bool = False,
        count_error_results: bool = False,
        label: str | None = None,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        if isinstance(failures, bool) or not isinstance(failures, int) or failures < 1:
            raise ValueError(f"CircuitBreaker failures must be an integer >= 1, not {failures!r}")
        positive(reset_after, "CircuitBreaker reset_after", allow_none=False)
        self.failures = failures
        self.reset_after = reset_after
        self.per_tool = per_tool
        self.count_error_results = count_error_results
        self._label = label
        self._circuits: dict[str | None, Circuit] = {}
        self._store: Store | None = None
        self._scope = ""
        self._shared: dict[str | None, SharedCircuit | None] = {}

    def use_store(self, store: Store, scope: str) -> None:
        """Keep the circuits in `store` when it is shared."""
        self._store, self._scope = store, scope
        self._shared.clear()

    @property
    def label(self) -> str:
        """The circuit's name in metrics (a circuit per tool adds `/` and the tool's name)."""
        if self._label is not None:
            return self._label
        server = self._scope.rpartition(":")[0].rpartition("/")[2]  # "gw/github/github:0": github
        selects = self.tools.describe() if self.tools else ""
        return " ".join(part for part in (server, selects) if part) or "all tools"

    def shared_circuit(self, tool: str | None = None) -> SharedCircuit | None:
        """The shared state of `tool`'s circuit (or the shared one), when the store is shared."""
        key = tool if self.per_tool else None
        if key not in self._shared:
            store = self._store
            scope = self._scope if key is None else f"{self._scope}:{key}"
            self._shared[key] = (
                None if store is None else store.circuit(scope, failures=self.failures, reset_after=self.reset_after)
            )
        return self._shared[key]

    def circuit(self, tool: str | None = None) -> Circuit:
        """The circuit of `tool` (with `per_tool=True`) or the shared one."""
        key = tool if self.per_tool else None
        found = self._circuits.get(key)
        if found is None:
            found = self._circuits[key] = Circuit()
        return found

    def for_tool(self, tool: Tool) -> Middleware | None:
        """A guard bound to this tool's circuit."""
        if not self.applies_to(tool):
            return None
        return Guard(self, self.circuit(tool.name), self.shared_circuit(tool.name), tool.name)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Outside a compiled chain: guard with the circuit `for_tool` would choose."""
        name = call.tool.name
        return await Guard(self, self.circuit(name), self.shared_circuit(name), name).on_call_tool(call, call_next)


class Guard(Middleware):
    """A `CircuitBreaker` bound to one circuit (what a compiled chain holds)."""

    def __init__(
        self, owner: CircuitBreaker, circuit: Circuit, shared: SharedCircuit | None = None, tool: str = ""
    ) -> None:
        self.owner = owner
        self.circuit = circuit
        self.shared = shared
        self.tool = tool
        self.tools = owner.tools
        self.label = f"{owner.label}/{tool}" if owner.per_tool else owner.label
        """The circuit's name in metrics."""
        self._report(circuit.reported or circuit.state)

    @property
    def name(self) -> str:
        return "CircuitBreaker"

    def _report(self, state: State) -> None:
        """Report `state` as the one this process acts on (`toolweave.circuit.state`)."""
        self.circuit.reported = state
        events.circuit_changed(self.label, state)

    def _admit(self, call: ToolCall) -> bool:
        """Let the call through (True if it is the half-open probe) or raise `Rejected`."""
        circuit = self.circuit
        if circuit.state == "closed":
            return False
        name = call.tool.name
        if circuit.state == "open":
            left = circuit.opened_at + self.owner.reset_after - anyio.current_time()
            if left > 0:
                raise _open(name, left)
            circuit.state = "half_open"
            self._report("half_open")
        if circuit.probing:
            raise _probing(name)
        circuit.probing = True
        return True

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        if self.shared is not None:
            try:
                admitted = await self.shared.admit()
            except StoreUnavailable:  # the outage story: this process's own circuit decides
                self._report(self.circuit.state)
            else:
                return await self._shared_call(self.shared, admitted, call, call_next)
        probe = self._admit(call)
        circuit = self.circuit
        try:
            result = await call_next(call)
        except Exception as error:
            self._record(_in_time(call, not is_failure(error)), probe)
            raise
        except BaseException:  # cancelled: neither success nor failure, unless by the call's deadline
            if past(call.ctx.deadline):  # a `Timeout` outside ended it: the client sees a timeout
                self._record(False, probe)
            elif probe:
                circuit.probing = False
            raise
        self._record(_in_time(call, not (result.is_error and self.owner.count_error_results)), probe)
        return result

    def _record(self, ok: bool, probe: bool) -> None:
        circuit = self.circuit
        if probe:
            circuit.probing = False
        if ok:
            circuit.failures = 0
            if circuit.state != "closed":
                circuit.state = "closed"
                self._report("closed")
            return
        circuit.failures += 1
        if circuit.state == "half_open" or circuit.failures >= self.owner.failures:
            circuit.state = "open"
            circuit.opened_at = anyio.current_time()
            self._report("open")

    async def _shared_call(
        self, shared: SharedCircuit, admitted: tuple[str, float], call: ToolCall, call_next: CallNext
    ) -> ToolResult:
        """Run as the shared circuit `admitted`; record the outcome there (and here).

        A probe its caller cancelled is withdrawn: the next call on any replica probes.
        """
        state, value = admitted
        self._report(_ACTED_ON[state])
        name = call.tool.name
        if state == "open":
            raise _open(name, value)
        if state == "probing":
            raise _probing(name)
        probe = state == "probe"
        try:
            result = await call_next(call)
        except Exception as error:
            await self._record_shared(shared, _in_time(call, not is_failure(error)), probe, value)
            raise
        except BaseException:
            if past(call.ctx.deadline):  # a `Timeout` outside ended it: the client sees a timeout
                await self._record_shared(shared, False, probe, value)
            elif probe:
                with anyio.CancelScope(shield=True), contextlib.suppress(StoreUnavailable):
                    await shared.withdraw()
            raise
        answered = _in_time(call, not (result.is_error and self.owner.count_error_results))
        await self._record_shared(shared, answered, probe, value)
        return result

    async def _record_shared(self, shared: SharedCircuit, ok: bool, probe: bool, failures: float) -> None:
        """Record the outcome in the shared circuit (which had `failures` before this call) and in
        this process's; report the state the next call here will act on."""
        self._record(ok, False)
        if ok and not probe and not failures:
            return  # a healthy call on a clean circuit writes nothing
        with anyio.CancelScope(shield=True):
            try:
                await shared.record(ok, probe)
            except StoreUnavailable:  # the next calls fall back to this process's circuit
                self._report(self.circuit.state)
                return
        opened = not ok and (probe or failures + 1 >= self.owner.failures)
        self._report("open" if opened else "closed")


_ACTED_ON: dict[str, State] = {"closed": "closed", "open": "open", "probe": "half_open", "probing": "half_open"}
"""The state of the circuit a shared admission acts on (`SharedCircuit.admit`)."""


def _in_time(call: ToolCall, ok: bool) -> bool:
    """Whether an outcome that came back is a success: `ok`, and in time. Past the call's
    deadline the `Timeout` outside discards it and the client gets a timeout: a failure."""
    return ok and not past(call.ctx.deadline)


def _open(name: str, left: float) -> Rejected:
    events.circuit_open("open")
    return Rejected(f"Circuit open for tool '{name}': retry in {seconds(left)}s", retry_after=left, tool=name)


def _probing(name: str) -> Rejected:
    events.circuit_open("half_open")
    return Rejected(f"Circuit half-open for tool '{name}': a probe call is in progress; retry shortly", tool=name)
