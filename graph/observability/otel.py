"""OpenTelemetry's SDK, installed from the standard OTEL_* variables when a service starts.

The code traces through the API alone (graph/observability/tracing.py), which records nothing
by itself. `factgraph serve` and `factgraph mcp` call `install_from_env()`: with the `otel`
extra installed (`pip install 'factgraph[otel]'`: the SDK and the OTLP/HTTP exporter) and an
exporter asked for, it sets the global tracer provider; otherwise it does nothing, and tracing
costs what the API's non-recording spans cost.

An exporter is asked for by OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ form), or by naming
one in OTEL_TRACES_EXPORTER (`otlp`, `console`, any installed exporter's entry point; `none`
turns tracing off). Everything else is the SDK's own reading of the variables it documents:
OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the service name defaults to "factgraph"),
OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*, OTEL_EXPORTER_OTLP_(TRACES_)HEADERS / TIMEOUT /
COMPRESSION / CERTIFICATE, OTEL_PROPAGATORS. OTEL_SDK_DISABLED=true leaves the SDK out. `otlp`
speaks OTLP over HTTP/protobuf (port 4318) unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL is
`grpc`, which needs `opentelemetry-exporter-otlp-proto-grpc` installed beside. A provider
someone else installed first (`opentelemetry-instrument factgraph serve`, an application that
embeds the service) is left as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import TYPE_CHECKING

from opentelemetry import trace

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

log = logging.getLogger("factgraph.otel")

SERVICE_NAME = "factgraph"
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
_OTLP_BY_PROTOCOL = {"http/protobuf": "otlp_proto_http", "grpc": "otlp_proto_grpc"}
_ENTRY_POINTS = "opentelemetry_traces_exporter"


class OtelConfigError(ValueError):
    """The OTEL_* variables ask for something that cannot be set up."""


def exporter_names(env: Mapping[str, str]) -> list[str]:
    """The trace exporters the variables ask for, as entry-point names; [] for none."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    named = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if not named:
        named = "otlp" if any(env.get(name, "").strip() for name in _ENDPOINTS) else "none"
    wanted = [part.strip() for part in named.split(",") if part.strip()]
    if "none" in wanted:
        return []
    protocol = next((env[p].strip() for p in _PROTOCOLS if env.get(p, "").strip()), None)
    protocol = protocol or "http/protobuf"
    if "otlp" in wanted and protocol not in _OTLP_BY_PROTOCOL:
        raise OtelConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: factgraph exports OTLP as "
            f"{' or '.join(_OTLP_BY_PROTOCOL)}"
        )
    return [_OTLP_BY_PROTOCOL[protocol] if name == "otlp" else name for name in wanted]


def provider_from_env(env: Mapping[str, str]) -> TracerProvider | None:
    """A tracer provider exporting where the variables say, or None when they ask for none.

    `env` (os.environ in the service) says whether to export and with which exporters; the
    SDK's classes read their own variables (endpoint, headers, resource, sampler, batching)
    from os.environ. Raises OtelConfigError when an exporter asked for is not installed (the
    SDK itself, without the `otel` extra).
    """
    names = exporter_names(env)
    if not names:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise OtelConfigError(
            "the OTEL_* variables ask for traces to be exported, but OpenTelemetry's SDK is not "
            "installed: pip install 'factgraph[otel]' (or unset OTEL_EXPORTER_OTLP_ENDPOINT)"
        ) from exc
    exporters = [_exporter(name) for name in names]
    detected = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    if str(detected.attributes.get("service.name", "")).startswith("unknown_service"):
        detected = detected.merge(Resource({"service.name": SERVICE_NAME}))
    resource = Resource({"service.version": _version()}).merge(detected)  # the variables win
    provider = TracerProvider(resource=resource)  # sampler: OTEL_TRACES_SAMPLER
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))  # OTEL_BSP_*
    return provider


def install_from_env(env: Mapping[str, str]) -> TracerProvider | None:
    """Set the global tracer provider from the variables (see the module's docstring); the
    provider flushes its spans when the process exits. None when nothing was installed.

    Variables that cannot be acted on (the SDK missing, an unknown protocol) are a WARNING
    and the service runs untraced: tracing is not worth an outage."""
    current = trace.get_tracer_provider()
    if not isinstance(current, trace.ProxyTracerProvider):
        log.info("an OpenTelemetry tracer provider is already installed; using it")
        return None
    try:
        provider = provider_from_env(env)
    except OtelConfigError as exc:
        log.warning("traces are not exported: %s", exc)
        return None
    if provider is None:
        return None
    trace.set_tracer_provider(provider)
    log.info(
        "OpenTelemetry traces exported (%s)",
        ", ".join(exporter_names(env)),
        extra={"service_name": provider.resource.attributes.get("service.name")},
    )
    return provider


def _exporter(name: str) -> SpanExporter:
    found = entry_points(group=_ENTRY_POINTS, name=name)
    if not found:
        package = {
            "otlp_proto_http": "factgraph[otel]",
            "otlp_proto_grpc": "opentelemetry-exporter-otlp-proto-grpc",
        }.get(name, f"the package providing the {name!r} trace exporter")
        raise OtelConfigError(f"trace exporter {name!r} is not installed: pip install '{package}'")
    exporter_class = next(iter(found)).load()
    exporter: SpanExporter = exporter_class()  # reads its OTEL_EXPORTER_* variables itself
    return exporter


def _version() -> str:
    try:
        return version("factgraph")
    except PackageNotFoundError:
        return "0"
