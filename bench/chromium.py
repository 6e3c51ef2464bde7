"""Headless Debian chromium with its DevTools port open, for the real-browser checks.

bench/graphiql_screenshot.py and bench/browser_screenshot.py drive it over the DevTools
protocol; both need the same start, the same wait for the first page and the same clean exit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


def find_chromium() -> str | None:
    """Debian's chromium, or None: the checks skip rather than fail without one."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def page_socket(browser: str, port: int, extra_args: Sequence[str] = ()) -> Iterator[str]:
    """Start chromium and yield the DevTools WebSocket URL of its first page."""
    # Chromium's helper processes may still write to the profile as the browser exits.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        proc = subprocess.Popen(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--remote-debugging-port={port}",
                f"--user-data-dir={profile}",
                *extra_args,
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: its helpers end with it
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
            if not targets:
                raise RuntimeError(f"chromium opened no DevTools port {port}")
            yield str(targets[0]["webSocketDebuggerUrl"])
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
