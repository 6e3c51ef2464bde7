"""Structured logs: one JSON object per line, each carrying the request id it belongs to.

Operators ship these lines to a log store and join them on `request_id` (the same value the
client sent or received in X-Request-ID), and on `trace_id` / `span_id` with the traces of the
same request (graph/observability/tracing.py: present when the request is traced, or when the
caller sent a `traceparent`). `FACTGRAPH_LOG_FORMAT=text` gives plain lines for a terminal.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from graph.observability import tracing

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "message", "request_id", ...extra}`; tracebacks stay here."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or tracing.request_id.get()
        if rid:
            entry["request_id"] = rid
        traced = tracing.ids()
        if traced is not None:
            entry["trace_id"], entry["span_id"] = traced
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = tracing.request_id.get()
        return f"{line} [request_id={rid}]" if rid else line


def setup_logging(level: str = "info", fmt: str = "json", stream: TextIO | None = None) -> None:
    """Route factgraph's and uvicorn's loggers through one handler with the chosen format."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    quiet_driver()


def quiet_driver() -> None:
    """The driver's own lines for each retry of a managed transaction (WARNING) and each broken
    connection (ERROR): while Neo4j is away they repeat for every request; the outage itself
    is one WARNING of factgraph.neo4j, and the driver's lines remain at DEBUG."""
    for name in ("neo4j", "neo4j.session", "neo4j.io", "neo4j.pool"):
        if _quiet_driver not in logging.getLogger(name).filters:
            logging.getLogger(name).addFilter(_quiet_driver)


_DRIVER_NOISE = ("Transaction failed and will be retried", "<CONNECTION> error", "defunct")


def _quiet_driver(record: logging.LogRecord) -> bool:
    """Keep the driver's per-request retry and connection-failure lines at DEBUG only."""
    if record.levelno >= logging.WARNING and any(n in str(record.msg) for n in _DRIVER_NOISE):
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
    return True
