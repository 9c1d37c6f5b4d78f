"""A toolweave server served over stdio that records its own spans, one JSON object a line, in
the file named by `SPANS_FILE` (the second process of the trace-propagation tests)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from toolweave import Server


class FileExporter(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(self.path, "a", encoding="utf-8") as out:
            for span in spans:
                out.write(json.dumps(json.loads(span.to_json())) + "\n")
        return SpanExportResult.SUCCESS


server = Server("traced-upstream")


@server.tool
def echo(text: str, token: str = "") -> str:
    """Echo `text` (and prove `token` arrived, without showing it)."""
    return f"{text} ({len(token)}-character token)"


@server.tool
def leak(token: str) -> str:
    """Fail with the token in the message (the gateway must keep it out of its spans)."""
    raise RuntimeError(f"bad token {token}")


@server.tool
def pid() -> int:
    """This process's id (the tests kill it)."""
    return os.getpid()


if __name__ == "__main__":
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileExporter(os.environ["SPANS_FILE"])))
    trace.set_tracer_provider(provider)
    server.run()
