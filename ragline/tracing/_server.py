"""Server spans for ``ragline serve``: one per HTTP request, continuing the caller's trace.

The caller's W3C ``traceparent`` (and ``tracestate``, baggage) is read with the global
propagator, the request's span is made current while the app handles it, so the runs
the request starts (the chain, its retriever, the model call) become its children.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ServerSpan"]


class ServerSpan:
    """The span of one HTTP request (an ASGI ``scope``), current until :meth:`end`.

    Args:
        tracer: the ``Tracer`` to start it with.
        scope: the ASGI HTTP scope (method, path, headers, client).

    Example:
        >>> span = ServerSpan(tracer, scope)  # doctest: +SKIP
        >>> ...; span.end(200)  # doctest: +SKIP
    """

    __slots__ = ("_span", "_token")

    def __init__(self, tracer: Any, scope: dict[str, Any]) -> None:
        from opentelemetry import context, propagate, trace
        from opentelemetry.trace import SpanKind

        headers: dict[str, str] = {}
        for key, value in scope.get("headers") or ():
            name = key.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[name] = f"{headers[name]},{text}" if name in headers else text
        method = scope.get("method", "GET")
        path = scope.get("path", "/")
        attributes: dict[str, Any] = {
            "http.request.method": method,
            "url.path": path,
            "url.scheme": scope.get("scheme", "http"),
        }
        client = scope.get("client")
        if client:
            attributes["client.address"] = client[0]
        server = scope.get("server")
        if server:
            attributes["server.address"] = server[0]
            if server[1] is not None:
                attributes["server.port"] = server[1]
        if "user-agent" in headers:
            attributes["user_agent.original"] = headers["user-agent"]
        self._span = tracer.start_span(
            f"{method} {path}",
            context=propagate.extract(headers),
            kind=SpanKind.SERVER,
            attributes=attributes,
        )
        self._token = context.attach(trace.set_span_in_context(self._span))

    def end(self, status: int, error: BaseException | None = None) -> None:
        """End the span with the response's status (an error: what the app raised)."""
        from opentelemetry import context
        from opentelemetry.trace import Status, StatusCode

        context.detach(self._token)
        self._span.set_attribute("http.response.status_code", status)
        if error is not None:
            self._span.set_attribute("error.type", type(error).__qualname__)
            self._span.record_exception(error)
        if error is not None or status >= 500:
            self._span.set_status(Status(StatusCode.ERROR))
            if error is None:
                self._span.set_attribute("error.type", str(status))
        self._span.end()
