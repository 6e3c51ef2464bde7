"""A real headless chromium, driven over the DevTools protocol, for the tests and benches.

The console's journeys start Debian's `chromium` once per test module with a fresh profile;
each test gets a page in a browser context of its own (its own session storage). The CORS
tests take a page of a browser of their own (`chromium_page`) and run `fetch()` or
`new WebSocket()` in it exactly as a web page would, under the browser's own origin rules.

Clicks and typing go through `Input.*` (real mouse and keyboard events), not through JavaScript
calls on elements, so a control that a person could not reach fails here too. Waits poll the
page and give up after a generous limit: they detect a broken page, they do not measure speed.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect
from websockets.sync.connection import Connection as WebSocket

from bench.chromium import find_chromium

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
)
WAIT_LIMIT = 30.0
INSTALL_HINT = "install Debian's chromium: apt-get update && apt-get install -y chromium"


class BrowserError(AssertionError):
    """The page did not reach the state a journey waited for, or threw."""


class Connection:
    """One WebSocket to the browser; page sessions are multiplexed over it (flat mode)."""

    # The base class: websockets 15 (which google-adk pins) types connect()'s answer as it,
    # 16 and later as its ClientConnection subclass.
    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        msg_id = self.next_id
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv(timeout=WAIT_LIMIT * 2))
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str, session: str, seen: int) -> dict[str, Any]:
        """The first `method` event of `session` after the first `seen` events."""
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self.events)
            reply = json.loads(self.ws.recv(timeout=WAIT_LIMIT * 2))
            if "method" in reply:
                self.events.append(reply)


class Page:
    """A tab: navigate, type, click, read, wait, screenshot."""

    def __init__(self, conn: Connection, session: str, context_id: str) -> None:
        self.conn = conn
        self.session = session
        self.context_id = context_id
        self.width = 1280  # the window's width, set by viewport()

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self.conn.call(method, self.session, **params)

    # -- reading the page ------------------------------------------------------------------
    def js(self, expression: str) -> Any:
        """Evaluate in the page (promises awaited); JavaScript exceptions fail the test."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def errors(self) -> list[str]:
        """Uncaught exceptions and console.error calls of this page so far."""
        out = []
        for event in self.conn.events:
            if event.get("sessionId") != self.session:
                continue
            if event["method"] == "Runtime.exceptionThrown":
                details = event["params"]["exceptionDetails"]
                out.append(str(details.get("exception", {}).get("description") or details))
            elif event["method"] == "Runtime.consoleAPICalled" and event["params"]["type"] in (
                "error",
                "assert",
            ):
                out.append(" ".join(str(a.get("value", a)) for a in event["params"]["args"]))
        return out

    def text(self, selector: str) -> str:
        return str(
            self.js(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")
        )

    def texts(self, selector: str) -> list[str]:
        found = self.js(
            f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.innerText)"
        )
        return [str(t) for t in found or []]

    def exists(self, selector: str) -> bool:
        return bool(self.js(f"!!document.querySelector({json.dumps(selector)})"))

    def wait(self, expression: str, what: str) -> Any:
        """Poll a JavaScript expression until it is truthy; fail naming `what` otherwise."""
        deadline = time.monotonic() + WAIT_LIMIT
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                body = self.text("main")[:2000]
                raise BrowserError(f"waited for {what}; the page shows:\n{body}")
            time.sleep(0.05)

    def wait_for(self, selector: str, containing: str = "") -> str:
        """Wait until an element matching `selector` shows `containing`; return its text."""
        sel = json.dumps(selector)
        want = json.dumps(containing)
        found = self.wait(
            f"[...document.querySelectorAll({sel})].map(e => e.innerText)"
            f".find(t => t && t.includes({want}))",
            f"{selector} containing {containing!r}",
        )
        return str(found)

    # -- acting on it ----------------------------------------------------------------------
    def load(self, url: str) -> None:
        """Navigate to any page and wait for the new document's load event."""
        seen = len(self.conn.events)
        self.call("Page.navigate", url=url)
        self.conn.wait_event("Page.loadEventFired", self.session, seen)

    def goto(self, url: str) -> None:
        """Navigate to a console page and wait until its script has marked it ready."""
        self.call("Page.navigate", url=url)
        self.wait(
            "document.readyState === 'complete' && document.body?.dataset.ready === 'true'",
            f"{url} to load",
        )

    def go_hash(self, fragment: str) -> None:
        """Follow an in-page address (hash routing), as a typed URL or a link would.

        The page routes on `hashchange`, a task of its own; this returns once the console has
        started the view of the new address (`body[data-route]`), so what a test reads next
        belongs to it and not to the view before.
        """
        now = self.js(
            f"(() => {{ const before = location.hash; location.hash = {json.dumps(fragment)};"
            " return location.hash === before ? null : location.hash; })()"
        )
        if now is not None:
            self.wait(
                f"document.body.dataset.route === {json.dumps(now)}", f"the view of {fragment}"
            )

    def _centre(self, selector: str) -> tuple[float, float]:
        sel = json.dumps(selector)
        box = self.wait(
            f"(() => {{ const e = document.querySelector({sel}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return r.width && r.height ? [r.x + r.width / 2, r.y + r.height / 2] : null; })()",
            f"{selector} to be visible",
        )
        return float(box[0]), float(box[1])

    def click(self, selector: str) -> None:
        x, y = self._centre(selector)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def fill(self, selector: str, value: str) -> None:
        """Focus the control, select what it holds, and type `value` over it."""
        self.click(selector)
        self.js(f"document.querySelector({json.dumps(selector)}).select()")
        if value:
            self.call("Input.insertText", text=value)
        else:
            self.press("Backspace")

    def press(self, key: str) -> None:
        codes = {"Enter": 13, "Tab": 9, "Escape": 27, "Backspace": 8}
        params: dict[str, Any] = {"key": key, "code": key, "windowsVirtualKeyCode": codes[key]}
        if key == "Enter":
            params["text"] = "\r"
        self.call("Input.dispatchKeyEvent", type="keyDown", **params)
        self.call(
            "Input.dispatchKeyEvent",
            type="keyUp",
            key=key,
            code=key,
            windowsVirtualKeyCode=codes[key],
        )

    def viewport(self, width: int, height: int = 900) -> None:
        """Show the page in a window this wide (420: a phone held upright)."""
        self.width = width
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def screenshot(self, path: Path) -> None:
        """The whole page (not only the viewport), as wide as the window, as PNG."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        height = min(int(size["height"]) + 1, 4000)
        width = self.width
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))


class Browser:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    @contextmanager
    def page(self) -> Iterator[Page]:
        """A new tab in a browser context of its own; closed afterwards."""
        context = self.conn.call("Target.createBrowserContext")["browserContextId"]
        target = self.conn.call("Target.createTarget", url="about:blank", browserContextId=context)[
            "targetId"
        ]
        session = self.conn.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        page = Page(self.conn, session, context)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.viewport(1280)
        try:
            yield page
        finally:
            self.conn.call("Target.closeTarget", targetId=target)
            self.conn.call("Target.disposeBrowserContext", browserContextId=context)


@contextmanager
def chromium(binary: str) -> Iterator[Browser]:
    """Start headless chromium with a fresh profile; stop it and its helpers afterwards."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: its helpers end with it
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + WAIT_LIMIT
            while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("chromium did not open its DevTools port")
                time.sleep(0.05)
            port, path = port_file.read_text().splitlines()[:2]
            with connect(f"ws://127.0.0.1:{port}{path}", max_size=2**27) as ws:
                yield Browser(Connection(ws))
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()


@contextmanager
def chromium_page() -> Iterator[Page]:
    """A page of a fresh headless chromium; skips the test when no chromium is installed."""
    binary = find_chromium()
    if binary is None:
        pytest.skip(f"no chromium on PATH; {INSTALL_HINT}")
    with chromium(binary) as browser, browser.page() as page:
        yield page
