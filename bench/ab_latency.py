"""GraphQL hybrid search of two or more code trees, taking turns on one kept store.

Sequential `bench/latency.py` runs of two commits differ by more than a change costs: this
machine's floor moved 11-16 ms p50 from one run to the next. Here each arm is a service of its
own (`bench/latency.py --serve` from that arm's tree, on the same Neo4j), and the arms take
turns request by request, in a shuffled order each round, so every arm meets the same minutes.
Each request is a new question (bench/latency_corpus.py Queries), so no arm's query-embedding
cache helps it; each service gets one request a round, so none is busier than the others.
An arm may add GraphQL search options (`newerFirst: false`) to price one of them; arms of one
tree share its service, and a service that answers more requests a round answers each faster
(1.7 ms here: its threads never go idle), so compare such arms with each other only.

The store is bench/latency.py's scope (`--facts 100000 --seed-only` keeps one); NEO4J_URI names
the server every arm uses. A tree is a checkout (`git worktree add --detach ../old COMMIT`) whose
`.factgraph/models` holds the model (a link to this checkout's). Reported per arm: p50, p95 and
the mean, and the mean difference from the first arm with its standard error. Not part of
`make test`; run it alone on a quiet machine.

    .venv/bin/python bench/ab_latency.py --arm filed=../old --arm main=. --rounds 1500
    .venv/bin/python bench/ab_latency.py --arm main=. --arm no-newer=.:'{"newerFirst": false}'
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.latency import SEARCH_GQL, percentile, scope_name, service
from bench.latency_corpus import Queries


@dataclass
class Arm:
    name: str
    tree: Path
    options: dict[str, Any] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Arm:
        """NAME=TREE or NAME=TREE:OPTIONS_JSON."""
        name, _, rest = text.partition("=")
        tree, _, options = rest.partition(":")
        if not name or not tree:
            raise argparse.ArgumentTypeError(f"--arm NAME=TREE[:JSON], got {text!r}")
        return cls(name, Path(tree).resolve(), json.loads(options) if options else {})


def search(conn: http.client.HTTPConnection, scope: str, arm: Arm, question: str) -> float:
    """One GraphQL search; its wall time in ms."""
    variables = {"scope": scope, "text": question, "options": arm.options}
    body = {"query": SEARCH_GQL, "variables": variables}
    started = time.perf_counter()
    conn.request("POST", "/graphql", json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    raw = response.read()
    elapsed = (time.perf_counter() - started) * 1000.0
    answer = json.loads(raw)
    if response.status != 200 or answer.get("errors"):
        raise RuntimeError(f"{arm.name}: GraphQL {response.status}: {str(answer)[:300]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--arm", type=Arm.parse, action="append", required=True)
    parser.add_argument("--facts", type=int, default=100_000, help="the kept scope's size")
    parser.add_argument("--seed", type=int, default=42, help="the kept scope's seed")
    parser.add_argument("--warmup", type=int, default=600, help="rounds not measured")
    parser.add_argument("--rounds", type=int, default=1500, help="measured rounds")
    args = parser.parse_args()
    arms: list[Arm] = args.arm
    if len(arms) < 2:
        parser.error("two arms at least")
    scope = scope_name(args.facts, args.seed)
    trees = sorted({arm.tree for arm in arms})
    with ExitStack() as stack:
        bases = {
            tree: stack.enter_context(service(Path(f"/tmp/ab_latency_{i}.log"), tree))[0]
            for i, tree in enumerate(trees)
        }
        conns = {}
        for arm in arms:  # a connection per arm, so that each arm's requests keep their own
            host, port = bases[arm.tree].removeprefix("http://").split(":")
            conns[arm.name] = http.client.HTTPConnection(host, int(port), timeout=60)
        questions = Queries(args.seed + 1)  # other questions than bench/latency.py asks
        rng = random.Random(args.seed)
        for round_ in range(args.warmup + args.rounds):
            turn = list(arms)
            rng.shuffle(turn)
            for arm in turn:
                took = search(conns[arm.name], scope, arm, questions.next())
                if round_ >= args.warmup:
                    arm.times.append(took)
    first = arms[0]
    print(f"{args.rounds} rounds after {args.warmup}, scope {scope}")
    for arm in arms:
        diffs = [a - b for a, b in zip(arm.times, first.times, strict=True)]
        error = statistics.stdev(diffs) / len(diffs) ** 0.5 if arm is not first else 0.0
        print(
            f"{arm.name:<16} p50 {percentile(arm.times, 0.5):6.1f}  "
            f"p95 {percentile(arm.times, 0.95):6.1f}  mean {statistics.mean(arm.times):6.2f} ms"
            f"  | {statistics.mean(diffs):+.2f} ± {error:.2f} ms against {first.name}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
