"""Run every benchmark side by side and print one table (and JSON).

    python -m benchmarks.run            # full run (a few minutes)
    python -m benchmarks.run --quick    # a bounded smoke run (seconds)
    python -m benchmarks.run --json out.json --markdown benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import logging
import os
import pkgutil
import platform
import sys
from dataclasses import asdict
from pathlib import Path

import anyio

import benchmarks
from benchmarks.timing import Row


def modules(only: list[str] | None) -> list[str]:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    return [name for name in names if not only or any(part in name for part in only)]


def table(rows: list[Row]) -> str:
    lines = []
    by_key = {(row.group, row.name): row for row in rows}
    group = None
    for row in rows:
        if row.group != group:
            group = row.group
            lines.append(f"\n{group}")
            lines.append(f"  {'path':<52} {'median':>12} {'ratio':>10}  target")
        ratio = ""
        base = by_key.get((row.group, row.baseline)) if row.baseline else None
        if base is not None and base.median_us:
            ratio = f"{row.median_us / base.median_us:.2f}×"
        suffix = " ".join(filter(None, [row.target, f"({row.note})" if row.note else ""]))
        lines.append(f"  {row.name:<52} {row.median_us:>10.2f}{row.unit:<2} {ratio:>10}  {suffix}")
    return "\n".join(lines)


def machine() -> str:
    """One line describing where the figures were measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        cores = os.cpu_count()
        memory = next(
            int(line.split()[1]) // 1024**2
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        return f"{cpu}, {cores} cores, {memory} GiB, {platform.system()} {platform.release()}"
    except OSError:
        return cpu


def markdown(rows: list[Row], quick: bool) -> str:
    """The table as a Markdown page: date, machine, versions, then every group."""
    import importlib.metadata as metadata

    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("toolweave", "mcp", "pydantic", "anyio", "fastmcp")
    )
    head = [
        "# Benchmark results",
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- machine: {machine()}",
        f"- python {platform.python_version()}; {versions}",
        f"- command: `python -m benchmarks.run{' --quick' if quick else ''}`",
        "- medians of repeated batches, all paths measured side by side in one run; ratios are against the",
        "  row named in the group's baseline (`target` is the goal from the issue or docs/architecture.md §9).",
        "",
        "```",
        table(rows).strip("\n"),
        "```",
        "",
    ]
    return "\n".join(head)


async def main(only: list[str] | None, quick: bool) -> list[Row]:
    rows: list[Row] = []
    for name in modules(only):
        module = importlib.import_module(f"benchmarks.{name}")
        rows.extend(await module.collect(quick))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="bounded smoke run")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--markdown", type=Path, help="also write the table, machine and date as Markdown here")
    parser.add_argument("only", nargs="*", help="run only modules whose name contains one of these")
    options = parser.parse_args()
    logging.disable(logging.CRITICAL)
    result = anyio.run(main, options.only, options.quick)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print(table(result))
    if options.markdown:
        options.markdown.write_text(markdown(result, options.quick))
    if options.json:
        payload = {"python": sys.version, "rows": [asdict(row) for row in result]}
        options.json.write_text(json.dumps(payload, indent=2))
