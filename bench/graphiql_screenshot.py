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
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

import websockets

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
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("skipped: no chromium on PATH")
        return 0
    port = int(os.environ.get("CDP_PORT", "9347"))
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--remote-debugging-port={port}",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            targets: list[dict[str, Any]] = []
            for _ in range(50):
                time.sleep(0.2)
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
                        targets = [t for t in json.load(r) if t.get("type") == "page"]
                    if targets:
                        break
                except OSError:
                    continue
            page_url = f"{base}/graphql"
            response = asyncio.run(_drive(targets[0]["webSocketDebuggerUrl"], page_url, out))
        finally:
            proc.terminate()
            proc.wait()
    print(f"screenshot: {out}")
    print(f"result pane: {response!r}")
    return 0 if "embedder" in response else 1


if __name__ == "__main__":
    sys.exit(main())
