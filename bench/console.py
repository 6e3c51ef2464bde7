"""How long the console takes to show a first page of results, in a real browser.

Seeds one scope with N facts (default 100,000) from bench/latency_corpus.py: real vectors by
the real model for a pool of core sentences, imported with `factgraph import --fast`; the
scope is kept for the next run unless --drop is given. Serves the app with uvicorn on
loopback and drives Debian's headless chromium (tests/browser.py). Each measurement runs in
the page: from setting the address (#/search?q=... or #/timeline...) until the first page of
results is in the document, so it includes the GraphQL round trip, JSON parsing and building
the DOM; the part spent in /graphql requests (Resource Timing) is reported beside it, so
the page's own cost shows. Every search asks a new question (no query-embedding cache hits).

    .venv/bin/python bench/console.py                     # 100,000 facts
    .venv/bin/python bench/console.py --facts 20000 --repeat 10
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.chromium import find_chromium
from bench.latency import fact_count, seed_scope
from bench.latency_corpus import Queries, core_pool, fact_rows, pool_vectors
from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory
from resolvers.app import create_app
from tests.browser import Page, chromium
from tests.live_server import serve

RESULTS = Path(__file__).parent / "results"

# In the page: set the address, wait until the view shows its first page, return the ms.
MEASURE = """(async () => {
  location.hash = '#/write';
  while (document.body.dataset.view !== 'write') await new Promise(r => setTimeout(r, 1));
  const t0 = performance.now();
  location.hash = %s;
  const done = () => document.querySelectorAll(%s).length > 0
    && !/Loading…|Searching…/.test(document.querySelector('main').innerText);
  while (!done()) {
    if (performance.now() - t0 > 30000) return [-1, 0];
    await new Promise(r => setTimeout(r, 1));
  }
  const total = performance.now() - t0;
  const api = performance.getEntriesByType('resource')
    .filter(e => e.name.endsWith('/graphql') && e.startTime >= t0)
    .reduce((sum, e) => sum + e.duration, 0);
  performance.clearResourceTimings();
  return [total, api];
})()"""


def measure(page: Page, fragment: str, rows: str) -> tuple[float, float]:
    """(ms until the first page shows, ms of it spent in /graphql requests)."""
    total, api = page.js(MEASURE % (json.dumps(fragment), json.dumps(rows)))
    if total < 0:
        raise RuntimeError(f"{fragment} showed no results within 30 s")
    return float(total), float(api)


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument(
        "--pool", type=int, default=None, help="distinct embedded sentences (facts / 30)"
    )
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--drop", action="store_true", help="delete the scope afterwards")
    parser.add_argument(
        "--no-seed",
        action="store_true",
        help="measure the scope as it is (after an interrupted seeding: see facts_in_scope)",
    )
    args = parser.parse_args()
    binary = find_chromium()
    if binary is None:
        print("skipped: no chromium on PATH (apt-get install -y chromium)")
        return 0

    memory = Memory.connect(Settings.from_env())
    scope = f"bench-console-{args.facts}-{args.seed}"
    if fact_count(memory, scope) < args.facts and not args.no_seed:
        # Each sentence takes one of DETAILS clauses: the pool must hold facts / 40 of them.
        pool = core_pool(args.seed, args.pool or max(2000, args.facts // 30))
        vectors = pool_vectors(memory.embedder, pool, memory.settings.home / "bench-cache")
        started = time.perf_counter()
        seed_scope(memory, scope, fact_rows(args.seed, args.facts, pool, vectors))
        print(f"seeded in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    count = fact_count(memory, scope)
    memory.embedder.warm_queries()
    results: dict[str, Any] = {}
    queries = Queries(args.seed)
    with (
        serve(create_app(memory=memory, require_auth=False)) as url,
        chromium(binary) as browser,
        browser.page() as page,
    ):
        page.goto(f"{url}/console#/write")  # sessionStorage belongs to the page's origin
        page.js(f"sessionStorage.setItem('factgraph.console.scope', {json.dumps(scope)})")
        page.goto(f"{url}/console?bench#/write")  # a new address: the page loads again
        # One unmeasured round of each, so the first sample is not the JIT's and pool's.
        measure(page, "#/timeline", "ol.timeline .fact-card")
        measure(page, f"#/search?q={quote(queries.next())}", ".hits .hit")
        cases: dict[str, Callable[[], tuple[float, float]]] = {
            "timeline, first page (20 facts)": lambda: measure(
                page, "#/timeline", "ol.timeline .fact-card"
            ),
            "search, first page (10 hits, hybrid, turn window 1)": lambda: measure(
                page, f"#/search?q={quote(queries.next())}", ".hits .hit"
            ),
        }
        for name, run in cases.items():
            samples = [run() for _ in range(args.repeat)]
            results[name] = {
                "shown": summary([total for total, _ in samples]),
                "in_graphql_requests": summary([api for _, api in samples]),
                "in_the_page": summary([total - api for total, api in samples]),
            }
        assert page.errors() == [], page.errors()
    if args.drop:
        delete_scope(memory.db, scope)
    memory.close()
    report = {
        "facts_in_scope": count,
        "repeat": args.repeat,
        "browser": "Debian chromium, headless, 1280x900",
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "cases": results,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"console-{args.facts}.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
