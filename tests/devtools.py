"""A headless Debian chromium for tests, driven over the DevTools protocol (websockets).

Starts the browser with bench/chromium.py, opens a page and evaluates JavaScript in it,
awaiting promises, so a test can run `fetch()` or `new WebSocket()` exactly as a web page
would, with the browser's own CORS and origin rules applied.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import websockets

from bench.chromium import find_chromium, page_socket
from tests.live_server import free_port

INSTALL_HINT = "no chromium on PATH: install Debian's browser with `apt-get install -y chromium`"


class Page:
    """One browser tab; every call runs its own short DevTools session."""

    def __init__(self, socket_url: str) -> None:
        self.socket_url = socket_url

    def goto(self, url: str) -> None:
        asyncio.run(self._goto(url))

    def evaluate(self, expression: str) -> Any:
        """The value of `expression` (a promise is awaited), as JSON-able data."""
        return asyncio.run(self._evaluate(expression))

    async def _call(self, ws: Any, ids: Iterator[int], method: str, **params: Any) -> Any:
        msg_id = next(ids)
        await ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"DevTools {method}: {reply['error']}")
                return reply.get("result", {})

    async def _goto(self, url: str) -> None:
        async with websockets.connect(self.socket_url, max_size=2**24) as ws:
            ids = itertools.count(1)
            await self._call(ws, ids, "Page.enable")
            await self._call(ws, ids, "Page.navigate", url=url)
            while True:  # until the page's load event
                event = json.loads(await ws.recv())
                if event.get("method") == "Page.loadEventFired":
                    return

    async def _evaluate(self, expression: str) -> Any:
        async with websockets.connect(self.socket_url, max_size=2**24) as ws:
            result = await self._call(
                ws,
                itertools.count(1),
                "Runtime.evaluate",
                expression=expression,
                awaitPromise=True,
                returnByValue=True,
            )
            if "exceptionDetails" in result:
                raise RuntimeError(f"page raised: {result['exceptionDetails']}")
            return result.get("result", {}).get("value")


@contextmanager
def chromium_page() -> Iterator[Page]:
    """A fresh headless chromium's first tab; skips the test when no chromium is installed."""
    browser = find_chromium()
    if browser is None:
        pytest.skip(INSTALL_HINT)
    with page_socket(browser, free_port()) as socket_url:
        yield Page(socket_url)
