"""Turning tracing on: :func:`configure` (or ``RAGLINE_TRACING=otel``), :func:`disable`.

``configure`` registers one :class:`OpenTelemetryTracer` as a default callback handler
(``ragline.core.callbacks.manager.add_default_handler``), so every root run of the
process, and through it every child run, reports to it. Nothing is registered until it
is called: untraced programs pay one empty-tuple check per root run.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ragline.core._optional import require
from ragline.core.callbacks.manager import add_default_handler, remove_default_handler
from ragline.core.exceptions import ConfigurationError

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "TRACING_ENV",
    "configure",
    "configure_from_environment",
    "current_tracer",
    "disable",
]

TRACING_ENV = "RAGLINE_TRACING"
# the variable OpenTelemetry's GenAI instrumentations read for the same switch
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")
_INSTRUMENTATION = "ragline"

# the handler configure() registered, and the provider it built (None: the caller's)
_active: dict[str, Any] = {"handler": None, "provider": None}


def configure(
    *,
    tracer_provider: Any = None,
    exporter: Any = None,
    capture_content: bool | None = None,
    service_name: str | None = None,
) -> Any:
    """Trace every ragline run with OpenTelemetry from now on; returns the handler.

    Calling it again replaces the previous configuration.

    Args:
        tracer_provider: the ``TracerProvider`` to use (an application that already set
            up OpenTelemetry passes its own, or leaves both this and ``exporter`` out to
            use the global one it set).
        exporter: a span exporter (``OTLPSpanExporter()``, ``InMemorySpanExporter()``):
            ragline builds an SDK provider that sends spans to it in batches.
        capture_content: record prompts, messages, completions, queries, passages and
            tool arguments. Default: $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
            (``true`` / ``false``), else False.
        service_name: ``service.name`` of a provider ragline builds (default:
            $OTEL_SERVICE_NAME, else ``ragline``).

    With neither ``tracer_provider`` nor ``exporter`` and no global SDK provider set,
    ragline builds one from the standard variables: ``OTEL_TRACES_EXPORTER`` (``otlp``,
    the default, over HTTP/protobuf; ``console``, on stderr; ``none``), ``OTEL_EXPORTER_OTLP_*``
    (endpoint, headers, timeout), ``OTEL_TRACES_SAMPLER``, ``OTEL_RESOURCE_ATTRIBUTES``.
    A provider ragline builds becomes the global one when none is set, so the
    application's other instrumentation shares it.

    Raises:
        MissingDependencyError: opentelemetry-sdk (or the OTLP exporter) is missing.
        ConfigurationError: a bad $OTEL_TRACES_EXPORTER, protocol or content switch.

    Example:
        >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        ...     InMemorySpanExporter)  # doctest: +SKIP
        >>> spans = InMemorySpanExporter()  # doctest: +SKIP
        >>> configure(exporter=spans)  # doctest: +SKIP
    """
    trace = require("opentelemetry.trace", "otel", package="opentelemetry-api")
    if capture_content is None:
        capture_content = _content_switch()
    elif not isinstance(capture_content, bool):
        raise ConfigurationError(f"capture_content must be True or False, got {capture_content!r}")
    built = None
    if tracer_provider is None:
        if exporter is not None:
            tracer_provider = built = _sdk_provider([exporter], service_name)
        elif _global_is_sdk(trace):
            tracer_provider = trace.get_tracer_provider()
        else:
            tracer_provider = built = _sdk_provider(_exporters_from_environment(), service_name)
        if built is not None and not _global_is_sdk(trace):
            trace.set_tracer_provider(built)
    from ragline import __version__
    from ragline.tracing._handler import OpenTelemetryTracer

    tracer = tracer_provider.get_tracer(_INSTRUMENTATION, __version__)
    handler = OpenTelemetryTracer(tracer, capture_content=capture_content)
    disable()
    _active.update(handler=handler, provider=built)
    add_default_handler(handler)
    from ragline.embeddings.base import set_observer

    set_observer(handler)  # embeddings make no runs: their spans come from this hook
    return handler


def configure_from_environment() -> Any:
    """Act on $RAGLINE_TRACING: ``otel`` calls :func:`configure` (with the ``OTEL_*``
    variables), empty or ``off`` does nothing; returns the handler or None.

    Raises:
        ConfigurationError: any other value.
    """
    value = os.environ.get(TRACING_ENV, "").strip().lower()
    if value in ("", "off", "none"):
        return None
    if value != "otel":
        raise ConfigurationError(
            f"{TRACING_ENV}={os.environ[TRACING_ENV]!r} is not one of 'otel', 'off'"
        )
    return configure()


def disable() -> None:
    """Stop tracing new runs; a provider that ``configure`` built is flushed and shut
    down (one passed in is the caller's to shut down)."""
    handler, provider = _active["handler"], _active["provider"]
    _active.update(handler=None, provider=None)
    if handler is not None:
        remove_default_handler(handler)
        from ragline.embeddings.base import set_observer

        set_observer(None)
    if provider is not None:
        provider.shutdown()


def current_tracer() -> Any:
    """The ``Tracer`` of the handler :func:`configure` registered, or None when tracing
    is off (what ``ragline serve`` checks per request)."""
    handler = _active["handler"]
    return None if handler is None else handler._tracer


# ---- building a provider from the standard variables ---------------------------------
def _content_switch() -> bool:
    value = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigurationError(
        f"{CAPTURE_CONTENT_ENV}={os.environ[CAPTURE_CONTENT_ENV]!r} is not 'true' or 'false'"
    )


def _global_is_sdk(trace: Any) -> bool:
    sdk = require("opentelemetry.sdk.trace", "otel", package="opentelemetry-sdk")
    return isinstance(trace.get_tracer_provider(), sdk.TracerProvider)


def _sdk_provider(exporters: list[Any], service_name: str | None) -> Any:
    sdk = require("opentelemetry.sdk.trace", "otel", package="opentelemetry-sdk")
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = service_name or os.environ.get("OTEL_SERVICE_NAME") or "ragline"
    provider = sdk.TracerProvider(resource=Resource.create({SERVICE_NAME: name}))
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _exporters_from_environment() -> list[Any]:
    names = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    exporters = []
    for name in (part.strip() for part in names.split(",")):
        if name == "none":
            continue
        if name == "console":  # on stderr: stdout is a command's output (or MCP's stdio)
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            exporters.append(ConsoleSpanExporter(out=sys.stderr))
        elif name == "otlp":
            exporters.append(_otlp_exporter())
        else:
            raise ConfigurationError(
                f"OTEL_TRACES_EXPORTER names {name!r}; ragline knows 'otlp', 'console', 'none'"
            )
    return exporters


def _otlp_exporter() -> Any:
    protocol = (
        os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    if protocol == "http/protobuf":
        module = require(
            "opentelemetry.exporter.otlp.proto.http.trace_exporter",
            "otel-otlp",
            package="opentelemetry-exporter-otlp-proto-http",
        )
    elif protocol == "grpc":
        module = require(
            "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
            "otel",
            package="opentelemetry-exporter-otlp-proto-grpc",
        )
    else:
        raise ConfigurationError(
            f"OTLP protocol {protocol!r} is not 'http/protobuf' or 'grpc' "
            "(OTEL_EXPORTER_OTLP_PROTOCOL)"
        )
    return module.OTLPSpanExporter()
