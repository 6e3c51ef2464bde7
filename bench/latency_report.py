"""The results of bench/latency.py as a Markdown table and a PNG plot, with the machine's name."""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


@dataclass
class Figure:
    """One measured series: latency percentiles (ms) and throughput, and its floor if any."""

    facts: int
    group: str  # search | floor | write | browse
    name: str  # hybrid, fulltext, ... or floor / write / browse names
    interface: str  # python | graphql | rest | cypher
    clients: int
    count: int
    p50: float
    p95: float
    p99: float
    mean: float
    qps: float
    errors: int = 0
    floor: str | None = None
    floor_p50: float | None = None
    floor_p95: float | None = None
    parts_ms: dict[str, float] = field(default_factory=dict)
    # Facts in the scope searched, when the database holds more (`facts`) in other scopes.
    scope_facts: int | None = None
    # The Neo4j version measured (docs/neo4j-versions.md); rows of both lines sit side by side.
    neo4j: str | None = None

    @property
    def layout(self) -> tuple[int, int]:
        return (self.facts, self.scope_facts or self.facts)

    @property
    def ratio_p50(self) -> float | None:
        return self.p50 / self.floor_p50 if self.floor_p50 else None

    @property
    def ratio_p95(self) -> float | None:
        return self.p95 / self.floor_p95 if self.floor_p95 else None

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ratio_p50"] = self.ratio_p50
        out["ratio_p95"] = self.ratio_p95
        return out


def machine() -> dict[str, str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    except OSError:
        pass
    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": mem,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "uptime": _uptime(),
    }


def _uptime() -> str:
    try:
        return subprocess.run(
            ["uptime"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return "?"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(
    figures: Sequence[Figure],
    info: dict[str, str],
    rss: dict[int, list[tuple[int, float]]],
    notes: Sequence[str],
) -> str:
    lines = [
        "# factgraph latency against Neo4j's floor",
        "",
        f"Run {info.get('started', '?')} to {info.get('finished', '?')} (UTC) by "
        "`bench/latency.py`.",
        "",
        "| machine | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in info.items() if k != "runs"),
        "",
        "Latencies in milliseconds over distinct queries (no query-embedding cache hits).",
        "The floor of a search is what Neo4j and the model alone cost for the same query: the",
        "raw index call(s) over the Python driver with the same limit the engine uses, plus the",
        "query embedding where the search embeds; ratio = factgraph / floor. A single-client",
        "row's floor is sampled beside it, in alternating blocks of 20 queries (paired), so a",
        "drift of the machine's speed during the run falls on both; 8-client rows are set",
        "against the floor rows measured alone at the start of the size. Each size is measured",
        "after a warm-up of searches of every kind and a few writes (Neo4j's JIT compiles its",
        "index searches over the first thousand or so calls; Lucene merges the segments the",
        "seeding import left only at a later write).",
        "",
    ]
    for layout in sorted({f.layout for f in figures}):
        facts = layout[0]
        lines += [
            f"## {layout_title(layout)}",
            "",
            "| what | via | clients | n | p50 | p95 | p99 | req/s | floor p50 | floor p95 "
            "| ratio p50 | ratio p95 |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for f in figures:
            if f.layout != layout:
                continue
            err = f" ({f.errors} errors)" if f.errors else ""
            lines.append(
                f"| {f.group}: {f.name}{err} | {f.interface} | {f.clients} | {f.count} "
                f"| {_num(f.p50)} | {_num(f.p95)} | {_num(f.p99)} | {_num(f.qps, 0)} "
                f"| {_num(f.floor_p50)} | {_num(f.floor_p95)} "
                f"| {_num(f.ratio_p50, 2)} | {_num(f.ratio_p95, 2)} |"
            )
        lines.append("")
        parts = [f for f in figures if f.layout == layout and f.parts_ms]
        if parts:
            lines += [
                "Where a single-client Python API search spends its time (median ms of the "
                "engine's own timings):",
                "",
                "| search | " + " | ".join(sorted({k for f in parts for k in f.parts_ms})) + " |",
                "|---|" + "--:|" * len({k for f in parts for k in f.parts_ms}),
            ]
            keys = sorted({k for f in parts for k in f.parts_ms})
            for f in parts:
                lines.append(
                    f"| {f.name} | " + " | ".join(_num(f.parts_ms.get(k)) for k in keys) + " |"
                )
            lines.append("")
    for facts, samples in sorted(rss.items()):
        if not samples:
            continue
        first, last = samples[0][1], samples[-1][1]
        peak = max(s for _, s in samples)
        lines += [
            f"## Service memory at {facts:,} facts",
            "",
            f"Resident set of the service process across {samples[-1][0]:,} GraphQL searches: "
            f"{first:.0f} MiB after warm-up, {last:.0f} MiB at the end, peak {peak:.0f} MiB "
            f"({last - first:+.0f} MiB).",
            "",
            "| searches | RSS MiB |",
            "|--:|--:|",
            *(f"| {n:,} | {mib:.0f} |" for n, mib in samples[:: max(1, len(samples) // 10)]),
            "",
        ]
    if notes:
        lines += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    return "\n".join(lines)


def plot(
    figures: Sequence[Figure],
    rss: dict[int, list[tuple[int, float]]],
    info: dict[str, str],
    path: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({f.layout for f in figures if f.group == "search"})
    panels = len(sizes) + (1 if any(rss.values()) else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(11, 4.2 * panels), squeeze=False)
    colours = {"python": "#4c72b0", "graphql": "#dd8452", "rest": "#55a868", "floor": "#8c8c8c"}
    for ax, layout in zip(axes[:, 0], sizes, strict=False):
        single = [
            f for f in figures if f.layout == layout and f.group == "search" and f.clients == 1
        ]
        names = list(dict.fromkeys(f.name for f in single))
        width = 0.2
        for offset, interface in enumerate(("python", "graphql", "rest", "floor")):
            xs, p50s, p95s = [], [], []
            for i, name in enumerate(names):
                match = [f for f in single if f.name == name and f.interface == interface]
                if interface == "floor":
                    match = [f for f in single if f.name == name and f.interface == "python"]
                    if match and match[0].floor_p50 is not None:
                        xs.append(i + (offset - 1.5) * width)
                        p50s.append(match[0].floor_p50)
                        p95s.append(match[0].floor_p95 or 0.0)
                    continue
                if match:
                    xs.append(i + (offset - 1.5) * width)
                    p50s.append(match[0].p50)
                    p95s.append(match[0].p95)
            if not xs:
                continue
            ax.bar(xs, p50s, width, color=colours[interface], label=f"{interface} p50")
            ax.scatter(xs, p95s, color=colours[interface], marker="_", s=300, zorder=3)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=8)
        ax.set_ylabel("ms, log scale (bar p50, tick p95)")
        ax.set_yscale("log")
        ax.axhline(50, color="#c44e52", linestyle=":", linewidth=1)
        ax.set_title(f"search latency, {layout_title(layout)}, 1 client (dotted: 50 ms aim)")
        ax.legend(fontsize=8, ncol=4)
    if any(rss.values()):
        ax = axes[-1, 0]
        for facts, samples in sorted(rss.items()):
            if samples:
                ax.plot([n for n, _ in samples], [m for _, m in samples], label=f"{facts:,} facts")
        ax.set_xlabel("GraphQL searches served")
        ax.set_ylabel("service RSS (MiB)")
        peak = max((m for s in rss.values() for _, m in s), default=1.0)
        ax.set_ylim(0, peak * 1.25)
        ax.set_title("service resident memory")
        ax.legend(fontsize=8)
    fig.suptitle(f"factgraph latency: {info.get('cpu', '')}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def layout_title(layout: tuple[int, int]) -> str:
    facts, searched = layout
    if searched == facts:
        return f"{facts:,} facts"
    return f"{facts:,} facts, searching a scope of {searched:,}"


def store_markdown(store: dict[str, dict[str, Any]]) -> list[str]:
    """What the store weighed on disk at each layout, and the memory the server ran with."""
    if not store:
        return []
    lines = [
        "## Store size and memory",
        "",
        "Measured after each layout's warm-up. The page cache serves the store files and native",
        "indexes; the full-text and vector indexes are Lucene files read through the OS file",
        "cache. Rows measured before 2026-11-26 10:00 UTC ran with a page cache sized from the",
        "page-cached part at start-up; since then graph/platform/neo4j_memory.py gives it 35% of",
        "the machine from the first start (Neo4j takes it only as the store uses it).",
        "",
        "| layout | database on disk | page-cached part | Lucene indexes | heap | page cache "
        "| Neo4j RSS | service RSS |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for key, row in store.items():
        lines.append(
            f"| {key} | {row.get('database_mib', 0):,.0f} MiB "
            f"| {row.get('page_cached_mib', 0):,.0f} MiB | {row.get('lucene_mib', 0):,.0f} MiB "
            f"| {row.get('heap', '-')} "
            f"| {row.get('pagecache', '-')} | {row.get('neo4j_rss_mib', 0):,.0f} MiB "
            f"| {row.get('service_rss_mib', 0):,.0f} MiB |"
        )
    return [*lines, ""]


def scaling_markdown(figures: Sequence[Figure]) -> list[str]:
    """One table per Neo4j version, a column per layout, for the main searches: does
    factgraph grow as its floor grows?"""
    versions = sorted(
        {f.neo4j or "?" for f in figures if f.group == "search"},
        key=lambda v: [int(x) for x in v.split(".") if x.isdigit()],
    )
    lines: list[str] = []
    for version in versions:
        mine = [f for f in figures if (f.neo4j or "?") == version]
        layouts = sorted({f.layout for f in mine if f.group == "search"})
        if len(layouts) < 2:
            continue
        lines += [
            f"## Against size, Neo4j {version}",
            "",
            "Single client, each row with its paired floor; the ratio staying flat as the size",
            "grows means factgraph's search grows no faster than Neo4j's and the model's own cost.",
            "",
            "| search | via | " + " | ".join(layout_title(x) for x in layouts) + " |",
            "|---|---|" + "--:|" * len(layouts),
        ]
        for name in ("hybrid", "fulltext", "vector"):
            for interface in ("graphql", "python"):
                cells = []
                for layout in layouts:
                    match = [
                        f
                        for f in mine
                        if f.layout == layout
                        and f.group == "search"
                        and f.name == name
                        and f.interface == interface
                        and f.clients == 1
                    ]
                    if not match:
                        cells.append("-")
                        continue
                    f = match[0]
                    cells.append(
                        f"{f.p50:.1f} / {f.p95:.1f} (floor {_num(f.floor_p95)}, "
                        f"x{_num(f.ratio_p95, 2)})"
                    )
                lines.append(f"| {name} | {interface} | " + " | ".join(cells) + " |")
        lines += ["", "Cells: p50 / p95 ms (floor p95, ratio at p95).", ""]
    return lines


def plot_scaling(figures: Sequence[Figure], path: Path) -> None:
    """Search p95 through GraphQL against the database's size (log axes), beside its paired
    floor: does search grow as the floor does? One panel per Neo4j version measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    versions = sorted(
        {f.neo4j or "?" for f in figures if f.group == "search"},
        key=lambda v: [int(x) for x in v.split(".") if x.isdigit()],
    )
    if not versions:
        return
    fig, axes = plt.subplots(1, len(versions), figsize=(6 * len(versions), 4.6), squeeze=False)
    colours = {"hybrid": "#dd8452", "fulltext": "#4c72b0", "vector": "#55a868"}
    for ax, version in zip(axes[0], versions, strict=True):
        for name, colour in colours.items():
            for whole, marker, style in ((True, "o", "-"), (False, "s", "--")):
                rows = sorted(
                    (
                        f
                        for f in figures
                        if f.group == "search"
                        and (f.neo4j or "?") == version
                        and f.name == name
                        and f.interface == "graphql"
                        and f.clients == 1
                        and (f.scope_facts is None) == whole
                    ),
                    key=lambda f: f.facts,
                )
                if not rows:
                    continue
                xs = [f.facts for f in rows]
                label = name + ("" if whole else " (a 1% scope)")
                ax.plot(xs, [f.p95 for f in rows], style, marker=marker, color=colour, label=label)
                floors = [f.floor_p95 for f in rows]
                if all(v is not None for v in floors):
                    ax.plot(
                        xs,
                        floors,
                        ":",
                        marker=marker,
                        color=colour,
                        alpha=0.5,
                        label=f"{label}: floor",
                    )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(50, color="#c44e52", linestyle=":", linewidth=1)
        ax.set_xlabel("facts in the database (log)")
        ax.set_ylabel("p95 ms through GraphQL, 1 client (log)")
        ax.set_title(f"Neo4j {version}: search p95 and its paired floor")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
