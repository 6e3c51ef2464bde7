"""Check GraphiQL in a real browser: headless chromium loads /graphql, runs a query, screenshots.

Why a browser: the page's assets used to come from a CDN, and only a browser shows whether
the page renders offline. Drives chromium over the DevTools protocol (websockets); exits 0
with "skipped" when no chromium is installed.

    python bench/graphiql_screenshot.py [http://127.0.0.1:8400] [out.png]
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
from typing import Any

import websockets

from bench.chromium import find_chromium, page_socket

QUERY = "{ health { ok neo4j embedder } }"


async def _drive(ws_url: str, page_url: str, out: str) -> str:
    async with websockets.connect(ws_url, max_size=2**26) as ws:
        ids = iter(range(1, 10_000))

        async def call(method: str, **params: Any) -> dict[str, Any]:
            msg_id = next(ids)
            await ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("id") == msg_id:
                    return dict(reply.get("result", {}))

        async def evaluate(expression: str) -> Any:
            result = await call("Runtime.evaluate", expression=expression, returnByValue=True)
            return result.get("result", {}).get("value")

        await call(
            "Emulation.setDeviceMetricsOverride",
            width=1400,
            height=800,
            deviceScaleFactor=1,
            mobile=False,
        )
        await call("Page.navigate", url=page_url)
        for _ in range(60):
            await asyncio.sleep(0.5)
            if await evaluate("!!document.querySelector('.graphiql-execute-button')"):
                break
        editor = "document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror"
        await evaluate(f"{editor}.setValue({json.dumps(QUERY)})")
        await evaluate("document.querySelector('.graphiql-execute-button').click()")
        response = ""
        for _ in range(40):
            await asyncio.sleep(0.5)
            response = str(
                await evaluate("(document.querySelector('.result-window') || {}).innerText || ''")
            )
            if "embedder" in response:
                break
        shot = await call("Page.captureScreenshot", format="png")
        with open(out, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return response


def main() -> int:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8400"
    out = sys.argv[2] if len(sys.argv) > 2 else "graphiql.png"
    browser = find_chromium()
    if browser is None:
        print("skipped: no chromium on PATH")
        return 0
    port = int(os.environ.get("CDP_PORT", "9347"))
    with page_socket(browser, port) as ws_url:
        response = asyncio.run(_drive(ws_url, f"{base}/graphql", out))
    print(f"screenshot: {out}")
    print(f"result pane: {response!r}")
    return 0 if "embedder" in response else 1


if __name__ == "__main__":
    sys.exit(main())
