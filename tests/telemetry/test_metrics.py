"""Metrics: the counts equal the calls made, by tool, origin and outcome; upstream and circuit
state; `/metrics` parses as Prometheus text."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from pathlib import Path

import anyio
import httpx2
import mcp
from prometheus_client.parser import text_string_to_metric_families

from tests.auth.issuer import Issuer, unsigned
from tests.auth.test_http_auth import protected
from tests.conftest import subprocess_env
from tests.serving import serving
from tests.telemetry.conftest import Metrics
from toolweave import AuthInfo, Context, RemoteServer, Server, ToolError
from toolweave.core.tool import ToolAnnotations
from toolweave.mcp.health import METRICS_SCOPE
from toolweave.middleware import CircuitBreaker, RateLimit, Retry, Timeout
from toolweave.server.remote import Backoff
from toolweave.transforms import Rename, SearchTools

HERE = Path(__file__).resolve().parent


def calls(recorded: Metrics, tool: str, origin: str, outcome: str) -> int:
    point = {"gen_ai.tool.name": tool, "toolweave.origin": origin, "toolweave.outcome": outcome}
    return int(recorded.value("toolweave.tool.calls", **point))


def gateway_with_outcomes() -> Server:
    billing = Server("billing")

    @billing.tool
    def invoice(number: int) -> str:
        if number < 0:
            raise ToolError("no such invoice")
        return f"invoice {number}"

    gateway = Server("gateway", middleware=[RateLimit(rate=0.001, burst=3, tools="billing_*")])

    @gateway.tool
    def add(a: int, b: int) -> int:
        return a + b

    @gateway.tool
    def broken() -> str:
        raise KeyError("x")

    gateway.mount(billing, prefix="billing")
    return gateway


async def test_call_counts_equal_the_calls_made_by_tool_origin_and_outcome(recorded: Metrics) -> None:
    async with mcp.Client(gateway_with_outcomes().as_mcp()) as client:
        for a in range(4):
            await client.call_tool("add", {"a": a, "b": 1})
        await client.call_tool("add", {"a": "not a number", "b": 1})
        await client.call_tool("broken", {})
        await client.call_tool("billing_invoice", {"number": 1})
        await client.call_tool("billing_invoice", {"number": -1})
        await client.call_tool("billing_invoice", {"number": 2})
        await client.call_tool("billing_invoice", {"number": 3})  # the fourth: over the burst of 3
        with contextlib.suppress(mcp.MCPError):
            await client.call_tool("no_such_tool", {})

    assert calls(recorded, "add", "local", "ok") == 4
    assert calls(recorded, "add", "local", "invalid_arguments") == 1
    assert calls(recorded, "broken", "local", "error") == 1
    assert calls(recorded, "billing_invoice", "billing", "ok") == 2
    assert calls(recorded, "billing_invoice", "billing", "tool_error") == 1
    assert calls(recorded, "billing_invoice", "billing", "rejected") == 1
    assert calls(recorded, "(unknown)", "(unknown)", "unknown_tool") == 1
    assert recorded.value("toolweave.tool.rate_limited", **{"gen_ai.tool.name": "billing_invoice"}) == 1
    durations = recorded.value(
        "toolweave.tool.duration",
        **{"gen_ai.tool.name": "add", "toolweave.origin": "local", "toolweave.outcome": "ok"},
    )
    assert durations == 4  # the histogram's count
    assert recorded.value("toolweave.tool.active", **{"gen_ai.tool.name": "add", "toolweave.origin": "local"}) == 0


async def test_calls_in_flight_are_counted_while_they_run(recorded: Metrics) -> None:
    server = Server("busy")
    started, release = anyio.Event(), anyio.Event()

    @server.tool
    async def wait() -> str:
        started.set()
        await release.wait()
        return "done"

    point = {"gen_ai.tool.name": "wait", "toolweave.origin": "local"}
    async with mcp.Client(server.as_mcp()) as client, anyio.create_task_group() as tasks:
        tasks.start_soon(client.call_tool, "wait", {})
        await started.wait()
        during = recorded.value("toolweave.tool.active", **point)
        release.set()
    assert (during, recorded.value("toolweave.tool.active", **point)) == (1, 0)


async def test_timeouts_are_counted(recorded: Metrics) -> None:
    server = Server("slow", middleware=[Timeout(default=0.05)])

    @server.tool
    async def nap() -> str:
        await anyio.sleep(5)
        return "rested"

    async with mcp.Client(server.as_mcp()) as client:
        await client.call_tool("nap", {})
        await client.call_tool("nap", {})
    assert recorded.value("toolweave.tool.timeouts", **{"gen_ai.tool.name": "nap"}) == 2
    assert calls(recorded, "nap", "local", "timeout") == 2


def shop(name: str) -> Server:
    """A server whose own middleware rate-limits `invoice`, retries `flaky` once and times `slow` out."""
    middleware = [
        RateLimit(rate=0.001, burst=1, tools="invoice"),
        Retry(attempts=2, backoff=0, tools="flaky"),
        Timeout(default=0.05, tools="slow"),
    ]
    server = Server(name, middleware=middleware)
    failures = [RuntimeError("once")]
    server.add_tool(lambda: "paid", name="invoice")

    def flaky() -> str:
        if failures:
            raise failures.pop()
        return "fine"

    async def slow() -> str:
        await anyio.sleep(5)
        return "late"

    server.add_tool(flaky, annotations=ToolAnnotations(idempotent_hint=True))
    server.add_tool(slow)
    return server


async def test_middleware_counters_of_a_mounted_server_name_the_tool_the_client_called(recorded: Metrics) -> None:
    """`rate_limited`, `retries` and `timeouts` carry the label `toolweave.tool.calls` carries: the
    exposed name (after the gateway's own renames), one series per exposed tool."""
    gateway = Server("gateway")
    gateway.mount(shop("a"), prefix="shop")
    gateway.mount(shop("b"), prefix="billing")
    gateway.add_transform(Rename("pay"), tools="billing_invoice")
    async with mcp.Client(gateway.as_mcp()) as client:
        for name in ["shop_invoice", "shop_invoice", "pay", "pay", "pay"]:
            await client.call_tool(name, {})
        for name in ["shop_flaky", "billing_flaky", "shop_slow", "billing_slow"]:
            await client.call_tool(name, {})

    assert counted(recorded, "rate_limited") == {"shop_invoice": 1, "pay": 2}
    assert calls(recorded, "pay", "billing", "rejected") == 2
    assert counted(recorded, "retries") == {"shop_flaky": 1, "billing_flaky": 1}
    assert counted(recorded, "timeouts") == {"shop_slow": 1, "billing_slow": 1}


def counted(recorded: Metrics, metric: str) -> dict[str, int]:
    """What the test added to `toolweave.tool.<metric>`, by tool label."""
    name = f"toolweave.tool.{metric}"
    added = {dict(point)["gen_ai.tool.name"]: recorded.value(name, **dict(point)) for point in recorded.series(name)}
    return {tool: count for tool, count in added.items() if count}


async def test_a_call_through_search_tools_has_the_outcome_of_the_tool_it_reaches(recorded: Metrics) -> None:
    """A rate limit, a timeout or a masked failure behind `SearchTools`' `call_tool` is the call's
    outcome (not the `tool_error` it answers with), and middleware counters name the tool reached."""
    gateway = Server("gateway")
    gateway.mount(shop("a"), prefix="shop")
    gateway.mount(shop("b"), prefix="billing")

    @gateway.tool
    def broken() -> str:
        raise KeyError("x")

    gateway.add_transform(SearchTools())
    async with mcp.Client(gateway.as_mcp()) as client:
        for name in ["shop_invoice", "shop_invoice", "billing_invoice", "shop_slow", "broken", "no_such_tool"]:
            await client.call_tool("call_tool", {"name": name})

    assert calls(recorded, "call_tool", "local", "ok") == 2
    assert calls(recorded, "call_tool", "local", "rejected") == 1
    assert calls(recorded, "call_tool", "local", "timeout") == 1
    assert calls(recorded, "call_tool", "local", "error") == 1
    assert calls(recorded, "call_tool", "local", "tool_error") == 1  # the name no tool has
    assert counted(recorded, "rate_limited") == {"shop_invoice": 1}
    assert counted(recorded, "timeouts") == {"shop_slow": 1}


async def test_a_failure_behind_search_tools_of_an_in_process_call_is_not_the_served_calls(recorded: Metrics) -> None:
    """A tool that calls another server's `call_tool` in-process with its own `Context`, and
    handles the error result it gets, answered `ok`."""
    inner = Server("inner")

    @inner.tool
    def broken() -> str:
        raise KeyError("x")

    inner.add_transform(SearchTools())
    outer = Server("outer")

    @outer.tool
    async def handles(ctx: Context) -> str:
        result = await inner.call_tool("call_tool", {"name": "broken"}, ctx=ctx)
        return "handled" if result.is_error else "fine"

    async with inner, mcp.Client(outer.as_mcp()) as client:
        assert (await client.call_tool("handles", {})).content[0].text == "handled"  # type: ignore[union-attr]
    assert calls(recorded, "handles", "local", "ok") == 1


async def test_a_circuit_state_is_reported_as_it_changes(recorded: Metrics) -> None:
    server = Server("fragile", middleware=[CircuitBreaker(failures=1, reset_after=60, per_tool=True)])

    @server.tool
    def fragile() -> str:
        raise RuntimeError("down")

    server.catalog  # noqa: B018 - compiled: the circuit exists
    state = {"toolweave.circuit": "fragile/fragile"}  # the server, then the tool
    closed = recorded.value("toolweave.circuit.state", **state, **{"toolweave.circuit.state": "closed"})
    async with mcp.Client(server.as_mcp()) as client:
        await client.call_tool("fragile", {})
        refused = await client.call_tool("fragile", {})
    assert closed == 1 and refused.is_error
    assert recorded.value("toolweave.circuit.state", **state, **{"toolweave.circuit.state": "open"}) == 1
    assert recorded.value("toolweave.circuit.state", **state, **{"toolweave.circuit.state": "closed"}) == 0


async def test_an_upstream_killed_is_down_then_restarted_and_up(recorded: Metrics, tmp_path: Path) -> None:
    remote = RemoteServer.stdio(
        sys.executable,
        [str(HERE / "traced_upstream.py")],
        env=subprocess_env(SPANS_FILE=str(tmp_path / "spans.jsonl")),
        name="watched",
        backoff=Backoff(initial=0.5, maximum=0.5),
    )
    gateway = Server("gateway")
    gateway.mount(remote, prefix="watched")

    def states() -> list[str]:
        """The states at 1 for the upstream (one: a state set)."""
        return [
            state
            for state in ("up", "restarting", "down")
            if recorded.value(
                "toolweave.upstream.state", **{"toolweave.upstream": "watched", "toolweave.upstream.state": state}
            )
        ]

    async with gateway:
        first = states()
        pid = (await gateway.call_tool("watched_pid", {})).structured_content["result"]  # type: ignore[index]
        kill(pid)
        with anyio.fail_after(10):
            while remote.connected:  # noqa: ASYNC110 - no event for a lost session
                await anyio.sleep(0.02)
        lost = states()  # waiting out the 0.5 s backoff
        with anyio.fail_after(10):
            while (seen := states()) == ["down"]:  # noqa: ASYNC110 - no event for a restart beginning
                await anyio.sleep(0.005)
        await remote.wait_connected()
        again = states()
    assert (first, lost, seen, again) == (["up"], ["down"], ["restarting"], ["up"])
    assert recorded.value("toolweave.upstream.restarts", **{"toolweave.upstream": "watched"}) >= 1
    stopped = recorded.series("toolweave.upstream.state")
    assert not [point for point in stopped if ("toolweave.upstream", "watched") in point]  # no longer reported


def kill(pid: int) -> None:
    import os
    import signal

    os.kill(pid, signal.SIGKILL)


async def test_metrics_scraped_over_http_parse_as_prometheus_text(recorded: Metrics) -> None:
    server = Server("scraped")
    server.add_tool(lambda: "pong", name="ping")
    app = server.http_app(metrics=True)
    async with serving(app) as base:
        async with mcp.Client(base + "/mcp") as client:
            await client.call_tool("ping", {})
            await client.call_tool("ping", {})
        async with httpx2.AsyncClient() as http:
            scraped = await http.get(base + "/metrics")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    families = {family.name: family for family in text_string_to_metric_families(scraped.text)}
    samples = [
        sample
        for sample in families["toolweave_tool_calls"].samples
        if sample.labels.get("gen_ai_tool_name") == "ping"
        and sample.labels.get("toolweave_outcome") == "ok"  # (another test's `ping` may have been refused)
        and sample.name.endswith("_total")
    ]
    assert len(samples) == 1 and samples[0].value >= 2
    assert samples[0].labels["toolweave_origin"] == "local"
    assert "toolweave_tool_duration_seconds" in families


async def test_metrics_name_every_tool_so_only_callers_with_the_metrics_scope_scrape_them(
    issuer: Issuer, recorded: Metrics
) -> None:
    async with protected(issuer, metrics=True, allow_anonymous=True) as url, httpx2.AsyncClient() as http:
        anonymous = await http.get(url + "/metrics")
        forgery = unsigned(issuer.claims(), {"alg": "none"})
        forged = await http.get(url + "/metrics", headers={"authorization": f"Bearer {forgery}"})
        unscoped = await http.get(url + "/metrics", headers={"authorization": f"Bearer {issuer.token(scope='notes')}"})
        caller = await http.get(url + "/metrics", headers={"authorization": f"Bearer {issuer.token()}"})
        scope = f"tools {METRICS_SCOPE}"
        scraper = await http.get(url + "/metrics", headers={"authorization": f"Bearer {issuer.token(scope=scope)}"})
        probe = await http.get(url + "/healthz")
    # a caller who may use the tools still may not read metrics naming the ones hidden from it
    assert [anonymous.status_code, forged.status_code, unscoped.status_code, caller.status_code] == [401, 401, 403, 403]
    assert "resource_metadata=" in anonymous.headers["www-authenticate"]
    assert scraper.status_code == 200 and scraper.headers["content-type"].startswith("text/plain")
    assert probe.status_code == 200


async def test_metrics_scopes_can_be_chosen(issuer: Issuer, recorded: Metrics) -> None:
    async with (
        protected(issuer, metrics=True, metrics_scopes=["ops"]) as url,
        httpx2.AsyncClient() as http,
    ):
        caller = await http.get(url + "/metrics", headers={"authorization": f"Bearer {issuer.token()}"})
        ops = await http.get(url + "/metrics", headers={"authorization": f"Bearer {issuer.token(scope='tools ops')}"})
    assert (caller.status_code, ops.status_code) == (403, 200)


async def test_metrics_public_serves_them_to_anyone(issuer: Issuer, recorded: Metrics) -> None:
    async with protected(issuer, metrics=True, metrics_public=True) as url, httpx2.AsyncClient() as http:
        anonymous = await http.get(url + "/metrics")
        call = await http.post(url + "/mcp", json={})
    assert anonymous.status_code == 200 and call.status_code == 401


async def test_metrics_stay_private_with_an_authenticate_hook_that_allows_anonymous_callers(recorded: Metrics) -> None:
    def scraper_only(headers: Mapping[str, str]) -> AuthInfo | None:
        if headers.get("x-scraper") != "yes":
            return None
        return AuthInfo(subject="prometheus", scopes=(METRICS_SCOPE,))

    server = Server("hooked")
    server.add_tool(lambda: "pong", name="hooked_ping")
    app = server.http_app(authenticate=scraper_only, allow_anonymous=True, metrics=True)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        async with mcp.Client(base + "/mcp") as client:  # anonymous callers may call tools
            called = await client.call_tool("hooked_ping", {})
        anonymous = await http.get(base + "/metrics")
        scraper = await http.get(base + "/metrics", headers={"x-scraper": "yes"})
    assert called.content[0].text == "pong"
    assert (anonymous.status_code, scraper.status_code) == (401, 200)


async def test_circuit_breakers_on_two_mounted_servers_are_two_series(recorded: Metrics) -> None:
    """Both were labelled "all tools", so the one that opened and the one still closed were one series."""
    gateway = Server("gateway")
    for name in ("billing", "github"):
        child = Server(name, middleware=[CircuitBreaker(failures=1, reset_after=60)])
        child.add_tool(_fails if name == "github" else (lambda: "ok"), name="work")
        gateway.mount(child, prefix=name)
    async with mcp.Client(gateway.as_mcp()) as client:
        await client.call_tool("github_work", {})
        await client.call_tool("billing_work", {})

    def circuit(name: str, state: str) -> int:
        return int(
            recorded.value("toolweave.circuit.state", **{"toolweave.circuit": name, "toolweave.circuit.state": state})
        )

    assert (circuit("github", "open"), circuit("github", "closed")) == (1, 0)
    assert (circuit("billing", "open"), circuit("billing", "closed")) == (0, 1)


def _fails() -> str:
    raise ConnectionError("down")


async def test_a_circuit_breaker_can_be_given_its_label(recorded: Metrics) -> None:
    server = Server("gateway", middleware=[CircuitBreaker(label="github upstream", tools="github_*")])
    server.add_tool(lambda: "ok", name="github_work")
    server.catalog  # noqa: B018 - compiled: the circuit exists
    state = {"toolweave.circuit": "github upstream", "toolweave.circuit.state": "closed"}
    assert recorded.value("toolweave.circuit.state", **state) == 1
