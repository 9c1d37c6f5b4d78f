"""Run every benchmark in several fresh processes and print one table (and JSON).

    python -m benchmarks.run                # full run: every module in 3 processes (a long while)
    python -m benchmarks.run --quick        # a bounded smoke run (one process, seconds)
    python -m benchmarks.run --json out.json --markdown benchmarks/RESULTS.md
    python -m benchmarks.run middleware     # only modules whose name contains "middleware"

Each module runs `--processes` times, each time in a new Python process (so caches, heap and
import state start cold alike). A row's figure is the median over the processes of that
process's median; its spread is the lowest and highest of them. A ratio is taken inside each
process (against the baseline row measured in the same rounds) and its median reported, with its
spread. `bench_scale` starts fresh processes for each measurement itself and runs once.
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
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio

import benchmarks
from benchmarks.timing import Row

SINGLE_PROCESS = {"bench_scale"}
"""Modules that spawn a fresh process per measurement themselves."""


@dataclass(frozen=True)
class Figure:
    """One row merged over processes: median and spread of the value and of its ratio."""

    row: Row
    value: float
    low: float
    high: float
    ratio: tuple[float, float, float] | None  # median, low, high
    processes: int


def modules(only: list[str] | None) -> list[str]:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    return [name for name in names if not only or any(part in name for part in only)]


def merge(runs: list[list[Row]]) -> list[Figure]:
    """Rows of the same module from several processes, merged (order of the first run)."""
    figures = []
    for row in runs[0]:
        key = (row.group, row.name)
        values, ratios = [], []
        for rows in runs:
            by_key = {(r.group, r.name): r for r in rows}
            mine = by_key.get(key)
            if mine is None:
                continue
            values.append(mine.median_us)
            base = by_key.get((row.group, row.baseline)) if row.baseline else None
            if base is not None and base.median_us:
                ratios.append(mine.median_us / base.median_us)
        ratio = (statistics.median(ratios), min(ratios), max(ratios)) if ratios else None
        figures.append(Figure(row, statistics.median(values), min(values), max(values), ratio, len(values)))
    return figures


def table(figures: list[Figure]) -> str:
    lines = []
    group = None
    for figure in figures:
        row = figure.row
        if row.group != group:
            group = row.group
            lines.append(f"\n{group}")
            lines.append(f"  {'path':<56} {'median':>12} {'spread':>19} {'ratio':>7} {'(spread)':>13}  target")
        spread = f"{figure.low:.2f}–{figure.high:.2f}" if figure.processes > 1 else ""
        ratio = ratio_spread = ""
        if figure.ratio is not None:
            middle, low, high = figure.ratio
            ratio = f"{middle:.2f}×"
            ratio_spread = f"({low:.2f}–{high:.2f})" if figure.processes > 1 else ""
        suffix = " ".join(filter(None, [row.target, f"({row.note})" if row.note else ""]))
        lines.append(
            f"  {row.name:<56} {figure.value:>10.2f}{row.unit:<2} {spread:>19} {ratio:>7} {ratio_spread:>13}  {suffix}"
        )
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
        load = Path("/proc/loadavg").read_text().split()[0]
        return f"{cpu}, {cores} cores, {memory} GiB, {platform.system()} {platform.release()}; load {load} at the end"
    except OSError:
        return cpu


def markdown(figures: list[Figure], quick: bool, processes: int) -> str:
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
        f"- every module in {processes} fresh processes (`bench_scale`: a fresh process per measurement,",
        "  3 of each unless noted); the garbage collector enabled throughout; the paths of a group timed",
        "  in the same interleaved rounds, FastMCP's included. `median` is the median of the processes'",
        "  medians, `spread` their lowest and highest; `ratio` is taken inside each process against the",
        "  group's baseline row, then its median (and spread) reported. `target`: the goal set for the row.",
        "",
        "```",
        table(figures).strip("\n"),
        "```",
        "",
    ]
    return "\n".join(head)


async def collect(names: list[str], quick: bool) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        rows.extend(await module.collect(quick))
    return rows


def in_fresh_process(name: str, quick: bool) -> list[Row]:
    """`collect` of one module in a new Python process."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rows.json"
        command = [sys.executable, "-m", "benchmarks.run", "--child", "--json", str(out), name]
        subprocess.run([*command, *(["--quick"] if quick else [])], check=True, timeout=3600)
        return [Row(**fields) for fields in json.loads(out.read_text())["rows"]]


def run(names: list[str], quick: bool, processes: int) -> list[Figure]:
    """Every module in its fresh processes; a module that fails is reported and left out."""
    figures: list[Figure] = []
    for name in names:
        count = 1 if name in SINGLE_PROCESS else processes
        try:
            runs = [in_fresh_process(name, quick) for _ in range(count)]
        except (subprocess.SubprocessError, OSError) as error:
            print(f"{name} failed, left out: {error}", file=sys.stderr, flush=True)
            continue
        figures += merge(runs)
        print(table(merge(runs)), flush=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="bounded smoke run (one process per module)")
    parser.add_argument("--processes", type=int, default=3, help="fresh processes per module (default 3)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--markdown", type=Path, help="also write the table, machine and date as Markdown here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("only", nargs="*", help="run only modules whose name contains one of these")
    options = parser.parse_args()
    logging.disable(logging.CRITICAL)
    names = modules(options.only)
    if options.child:
        rows = anyio.run(collect, names, options.quick)
        options.json.write_text(json.dumps({"python": sys.version, "rows": [asdict(row) for row in rows]}))
        sys.exit(0)
    processes = 1 if options.quick else options.processes
    result = run(names, options.quick, processes)
    print(f"\npython {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print(table(result))
    if options.markdown:
        options.markdown.write_text(markdown(result, options.quick, processes))
    if options.json:
        rows = [{**asdict(f.row), "median": f.value, "low": f.low, "high": f.high, "ratio": f.ratio} for f in result]
        payload = {"python": sys.version, "processes": processes, "rows": rows}
        options.json.write_text(json.dumps(payload, indent=2))
