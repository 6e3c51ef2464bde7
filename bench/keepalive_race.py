"""Keep-alive race: reuse an idle connection just before the server's idle timeout.

The diagnosis behind issue 20's "4 of 5,951 requests got no answer". Each probe opens its own
connection, sends GET /metrics, stays idle for a gap drawn from [--lo, --hi] seconds, then
sends again on the same connection; per 20 ms bucket of the gap it prints how many of those
second requests got no HTTP answer (ReadError / RemoteProtocolError).

With uvicorn's default 5 s keep-alive timeout (FACTGRAPH_KEEP_ALIVE=5) and a loaded server,
reuses after 4.8-5.0 s of idleness fail: the server closes the idle connection while the
request is already on the wire (the client, httpx, keeps idle connections for 5 s too, and
its clock starts later, when it has read the response). With the server's timeout well above
the client's, none fail. Run it beside `bench/load.py --url ...` to load the server:

    .venv/bin/python bench/load.py --url http://127.0.0.1:8200 --seconds 75 --warmup 0 &
    .venv/bin/python bench/keepalive_race.py --url http://127.0.0.1:8200 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections import Counter

import httpx


async def probe(
    url: str,
    n: int,
    deadline: float,
    lo: float,
    hi: float,
    tries: Counter[float],
    failed: Counter[float],
    kinds: Counter[str],
) -> None:
    rng = random.Random(n)
    while time.monotonic() < deadline:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            try:
                await client.get("/metrics")
            except httpx.TransportError:
                continue
            gap = rng.uniform(lo, hi)
            await asyncio.sleep(gap)
            bucket = int(gap * 50) / 50
            tries[bucket] += 1
            try:
                await client.get("/metrics")
            except httpx.TransportError as exc:
                failed[bucket] += 1
                kinds[type(exc).__name__] += 1


async def run(args: argparse.Namespace) -> int:
    tries: Counter[float] = Counter()
    failed: Counter[float] = Counter()
    kinds: Counter[str] = Counter()
    deadline = time.monotonic() + args.seconds
    await asyncio.gather(
        *(
            probe(args.url, n, deadline, args.lo, args.hi, tries, failed, kinds)
            for n in range(args.probes)
        )
    )
    for bucket in sorted(tries):
        print(
            f"idle {bucket:.2f}-{bucket + 0.02:.2f} s: {tries[bucket]:4d} reuses, "
            f"{failed[bucket]:3d} without an answer"
        )
    print(f"no answer: {sum(failed.values())} of {sum(tries.values())} reuses {dict(kinds)}")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--probes", type=int, default=40)
    parser.add_argument("--lo", type=float, default=4.8)
    parser.add_argument("--hi", type=float, default=5.1)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
