"""Routes for operators on the HTTP app: `/healthz`, `/readyz` and (when asked) `/metrics`.

- `GET /healthz`: 200 while the process serves HTTP at all (a liveness probe);
- `GET /readyz`: 200 once the server runs (its lifespan started, its config loaded) and every
  upstream marked `required` (`RemoteServer(required=True)`, `required: true` in a config) is
  connected, until the server starts shutting down; 503 otherwise (a readiness probe: take the
  instance out of rotation);
- `GET /metrics`: toolweave's metrics, and any others of the process, in the Prometheus text
  format (`http_app(metrics=True)`; needs the `prometheus` extra).

`/metrics` serves `prometheus_client`'s default registry. toolweave installs a meter provider
exporting there unless the application installed one first; an application's own provider feeds
`/metrics` only with a `PrometheusMetricReader` of its own. When it has none (an OTLP-only
provider, as `opentelemetry-instrument` installs), toolweave's metrics go to that provider and
`/metrics` could only serve the process's others, as though no call had been made: instead the app
logs a WARNING when it is built and `/metrics` answers 503 with the reason, so a scraper reports
the target down rather than reading zeros.

All three are cheap (no upstream is asked anything). The probes are unauthenticated (probes
carry no tokens) and name no tool, prompt or upstream: they say how many upstreams are missing,
never which (which one is down is in the logs and in `toolweave.upstream.state`). The metrics
name every tool, so an app that verifies callers serves them only to a caller it recognises
(a scraper sends a bearer token), unless `http_app(metrics_public=True)`.

Example:
    >>> routes = health_routes(Server("demo"))
    >>> [route.path for route in routes]
    ['/healthz', '/readyz']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from opentelemetry import metrics
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from toolweave.core.extras import need
from toolweave.server.remote import RemoteServer
from toolweave.server.server import Server

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"
METRICS_PATH = "/metrics"
METRICS_SCOPE = "toolweave:metrics"
"""The scope a verified caller needs for `/metrics` by default (`http_app(metrics_scopes=...)`)."""
NOT_EXPORTED = (
    "toolweave's metrics are not exported to Prometheus in this process: the application's own meter "
    "provider receives them, and it has no PrometheusMetricReader (see the server's log)\n"
)
"""What `/metrics` answers (503) when the application's meter provider does not feed it."""
_OTEL_COLLECTORS = "opentelemetry.exporter.prometheus"
"""The module of the collector a `PrometheusMetricReader` registers with its registry."""

logger = logging.getLogger("toolweave.mcp")


def required_upstreams(server: Server) -> Iterator[RemoteServer]:
    """The remote servers marked `required` anywhere under `server` (mounted at any depth)."""
    seen: set[int] = set()
    stack: list[Server] = [server]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, RemoteServer) and current.required:
            yield current
        stack.extend(current.children())


def readiness(server: Server, *, shutting_down: bool = False) -> tuple[bool, str]:
    """Whether `server` is ready to serve, and why not (with no names in it); not while it is
    `shutting_down` (it refuses new requests then)."""
    if shutting_down:
        return False, "shutting down"
    if not server.running:
        return False, "not started"
    missing = sum(1 for remote in required_upstreams(server) if not remote.connected)
    if missing:
        return False, f"{missing} required upstream{'s' if missing > 1 else ''} not connected"
    return True, "ready"


def health_routes(server: Server, shutting_down: Callable[[], bool] | None = None) -> list[Route]:
    """`/healthz` and `/readyz` for `server`; `/readyz` is 503 once `shutting_down()` is true.

    A balancer's probes may come over a connection it keeps open: closing the listening socket
    does not end those, so the drain must be said in the answer as well.
    """

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        ready, why = readiness(server, shutting_down=shutting_down is not None and shutting_down())
        body = {"status": "ready" if ready else "not ready", "reason": why}
        return JSONResponse(body, status_code=200 if ready else 503)

    return [Route("/healthz", healthz, methods=["GET"]), Route("/readyz", readyz, methods=["GET"])]


def metrics_route() -> Route:
    """`/metrics` in the Prometheus text format, from the process's Prometheus registry.

    Installs a meter provider exporting to that registry when the application has not installed
    one of its own; with its own, the application adds a `PrometheusMetricReader` to it. Without
    one, it logs a WARNING and the route answers 503 (`NOT_EXPORTED`): see the module docs.

    Raises:
        ImportError: the `prometheus` extra is not installed (the message says how to install it).
    """
    install_prometheus_provider()
    from prometheus_client import REGISTRY, generate_latest

    if fed_by_opentelemetry(REGISTRY) is False:
        provider = type(metrics.get_meter_provider())
        logger.warning(
            "/metrics will answer 503: the application installed its own meter provider (%s.%s) before "
            "toolweave could install one, and it exports nothing to Prometheus. toolweave's metrics go to "
            "that provider. Add a PrometheusMetricReader() to it to serve them on /metrics, or leave "
            "/metrics out (http_app(metrics=False), serve without --metrics) and read them where it exports.",
            provider.__module__,
            provider.__qualname__,
        )

        async def not_exported(request: Request) -> Response:
            return Response(NOT_EXPORTED, status_code=503, media_type="text/plain; charset=utf-8")

        return Route(METRICS_PATH, not_exported, methods=["GET"])

    async def scrape(request: Request) -> Response:
        return Response(generate_latest(REGISTRY), media_type=PROMETHEUS_TEXT)

    return Route(METRICS_PATH, scrape, methods=["GET"])


def fed_by_opentelemetry(registry: Any) -> bool | None:
    """Whether a `PrometheusMetricReader` exports to `registry` (a `prometheus_client`
    `CollectorRegistry`); `None` when that cannot be told.

    The registry lists its collectors only in a private attribute, read here with a fallback
    (a test pins where it is): were it to move, `/metrics` serves the registry as it is.

    Example:
        >>> from prometheus_client import CollectorRegistry
        >>> from opentelemetry.exporter.prometheus import PrometheusMetricReader
        >>> registry = CollectorRegistry()
        >>> fed_by_opentelemetry(registry)
        False
        >>> reader = PrometheusMetricReader(registry=registry)
        >>> fed_by_opentelemetry(registry)
        True
    """
    collectors = getattr(registry, "_collector_to_names", None)
    if collectors is None:
        return None
    return any(type(collector).__module__.startswith(_OTEL_COLLECTORS) for collector in list(collectors))


def install_prometheus_provider() -> bool:
    """Install a meter provider that exports to Prometheus, unless one is installed; whether it did.

    Raises:
        ImportError: the `prometheus` extra is not installed (the message says how to install it).
    """
    from toolweave.telemetry.providers import metrics_configured

    missing = "metrics need the prometheus extra: pip install 'toolweave[prometheus]'"
    need("prometheus_client", missing)  # what /metrics reads
    PrometheusMetricReader = need("opentelemetry.exporter.prometheus", missing).PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider

    if metrics_configured():
        return False
    reader: Any = PrometheusMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    return True
