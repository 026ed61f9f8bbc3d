"""Shared pieces of the tracing tests: an SDK provider whose spans land in memory, and
the span tree as nested names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

import ragline.tracing


class Traced:
    """The provider, its in-memory exporter and the handler ``configure`` registered."""

    def __init__(self, capture_content: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.handler = ragline.tracing.configure(
            tracer_provider=self.provider, capture_content=capture_content
        )

    @property
    def spans(self) -> list[Any]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> Any:
        """The one finished span called ``name``."""
        (span,) = [span for span in self.spans if span.name == name]
        return span

    def tree(self) -> list[Any]:
        """The finished spans as ``(name, [children])`` pairs, siblings by start time."""
        return span_tree(self.spans)


def span_tree(spans: list[Any], parent_id: int | None = None) -> list[Any]:
    ids = {span.context.span_id for span in spans}
    children = [
        span
        for span in spans
        if (span.parent.span_id if span.parent and span.parent.span_id in ids else None)
        == parent_id
    ]
    children.sort(key=lambda span: span.start_time)
    return [(span.name, span_tree(spans, span.context.span_id)) for span in children]


@pytest.fixture
def traced() -> Iterator[Traced]:
    """Tracing on (content off), into memory; off again after the test."""
    tracing = Traced()
    yield tracing
    ragline.tracing.disable()


@pytest.fixture
def traced_with_content() -> Iterator[Traced]:
    """Tracing on with content capture."""
    tracing = Traced(capture_content=True)
    yield tracing
    ragline.tracing.disable()
