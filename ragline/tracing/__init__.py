"""OpenTelemetry tracing: every run a span, parented as the run tree is (extra ``otel``).

Turn it on in code::

    import ragline.tracing
    ragline.tracing.configure()          # OTLP over HTTP, from the OTEL_* variables

or with the environment alone: ``RAGLINE_TRACING=otel`` (read when ``ragline`` is
imported) plus the standard ``OTEL_*`` variables. Content (prompts, messages, passages,
tool arguments) is recorded only with ``capture_content=True`` or
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``. See docs/tracing.md.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "CAPTURE_CONTENT_ENV": "._setup",
    "OpenTelemetryTracer": "._handler",
    "ServerSpan": "._server",
    "TRACING_ENV": "._setup",
    "configure": "._setup",
    "configure_from_environment": "._setup",
    "current_tracer": "._setup",
    "disable": "._setup",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
