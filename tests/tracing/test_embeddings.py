"""Embedding spans: embeddings make no runs, so a hook around their entry points gives
each outermost embedding call a span, the child of the running run's span."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace import StatusCode

import ragline.tracing
from ragline.embeddings import (
    DeterministicFakeEmbedding,
    Embeddings,
    OpenAIEmbeddings,
    SentenceTransformerEmbeddings,
)
from ragline.embeddings import base as embeddings_base
from ragline.vectorstores import InMemoryVectorStore
from tests._openai_server import EMBEDDINGS_PATH, OpenAITestServer, Reply, embedding_response

from .conftest import Traced


def own(span: Any) -> dict[str, Any]:
    return {key: value for key, value in span.attributes.items() if key != "ragline.run.id"}


def test_a_retriever_embedding_its_query_gets_a_child_span(traced: Traced) -> None:
    # a cosine store embeds this fake through its lists (LangChain's float64 draws)
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_texts(["cats purr", "dogs bark"], ids=["c", "d"])
    store.as_retriever(search_kwargs={"k": 1}).invoke("cats purr")
    assert traced.tree() == [("embeddings", []), ("retrieval", [("embeddings", [])])]
    indexing, query = sorted(
        (s for s in traced.spans if s.name == "embeddings"), key=lambda s: s.start_time
    )
    assert indexing.parent is None  # no run: a root span here
    assert own(indexing) == {
        "gen_ai.operation.name": "embeddings",
        "ragline.embeddings.class": "DeterministicFakeEmbedding",
        "ragline.embeddings.method": "embed_documents",
        "ragline.embeddings.input_count": 2,
        "gen_ai.embeddings.dimension.count": 16,
    }
    assert own(query) == {
        "gen_ai.operation.name": "embeddings",
        "ragline.embeddings.class": "DeterministicFakeEmbedding",
        "ragline.embeddings.method": "embed_query",
        "ragline.embeddings.input_count": 1,
        "gen_ai.embeddings.dimension.count": 16,
    }


def test_indexing_outside_a_run_is_a_child_of_the_current_span(traced: Traced) -> None:
    tracer = traced.provider.get_tracer("app")
    with tracer.start_as_current_span("index my notes") as app_span:
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
        store.add_texts(["a", "b", "c"])
    span = traced.named("embeddings")
    assert span.parent.span_id == app_span.get_span_context().span_id
    assert span.attributes["ragline.embeddings.input_count"] == 3


def test_the_minilm_model_span(traced: Traced) -> None:
    embeddings = SentenceTransformerEmbeddings()
    vector = embeddings.embed_query("where is Etna?")
    assert len(vector) == 384
    (span,) = traced.spans
    assert span.name == "embeddings sentence-transformers/all-MiniLM-L6-v2"
    assert span.attributes["gen_ai.request.model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert span.attributes["ragline.embeddings.method"] == "embed_query"
    assert span.attributes["gen_ai.embeddings.dimension.count"] == 384


def test_an_openai_protocol_server_reports_input_tokens(traced: Traced) -> None:
    with OpenAITestServer() as server:
        reply = embedding_response([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]], model="embed-x")
        reply["usage"] = {"prompt_tokens": 11, "total_tokens": 11}
        server.enqueue(EMBEDDINGS_PATH, Reply(body=reply))
        embeddings = OpenAIEmbeddings(model="embed-x", base_url=server.base_url, api_key="k")
        assert embeddings.embed_documents(["one two", "three four five"])[1] == [0.0, 1.0, 0.0]
    (span,) = traced.spans
    assert own(span) == {
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.model": "embed-x",
        "gen_ai.provider.name": "openai",
        "ragline.embeddings.class": "OpenAIEmbeddings",
        "ragline.embeddings.method": "embed_documents",
        "ragline.embeddings.input_count": 2,
        "gen_ai.embeddings.dimension.count": 3,
        "gen_ai.usage.input_tokens": 11,
    }
    assert span.name == "embeddings embed-x"


async def test_async_retrieval_embeds_under_its_span(traced: Traced) -> None:
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    await store.aadd_texts(["cats purr"], ids=["c"])
    await store.as_retriever(search_kwargs={"k": 1}).ainvoke("cats")
    assert traced.tree() == [("embeddings", []), ("retrieval", [("embeddings", [])])]


class Broken(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model unloaded")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("model unloaded")


def test_a_failing_embedding_ends_its_span_with_the_error(traced: Traced) -> None:
    with pytest.raises(RuntimeError, match="model unloaded"):
        Broken().embed_query("x")
    (span,) = traced.spans
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "RuntimeError"
    assert [event.name for event in span.events] == ["exception"]


async def test_a_failing_async_embedding_ends_its_span_with_the_error(traced: Traced) -> None:
    with pytest.raises(RuntimeError, match="model unloaded"):
        await Broken().aembed_documents(["x", "y"])
    (span,) = traced.spans
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["ragline.embeddings.method"] == "aembed_documents"
    assert span.attributes["ragline.embeddings.input_count"] == 2
    assert span.attributes["error.type"] == "RuntimeError"
    assert [event.name for event in span.events] == ["exception"]


def test_a_subclass_calling_its_parent_makes_one_span(traced: Traced) -> None:
    class Scaled(DeterministicFakeEmbedding):
        def embed_query(self, text: str) -> list[float]:
            return [2 * x for x in super().embed_query(text)]

    Scaled(size=4).embed_query("x")
    assert [span.name for span in traced.spans] == ["embeddings"]
    assert traced.spans[0].attributes["ragline.embeddings.class"] == "Scaled"


def test_tracing_off_installs_no_observer(traced: Traced) -> None:
    assert embeddings_base._observer is not None
    ragline.tracing.disable()
    assert embeddings_base._observer is None
    DeterministicFakeEmbedding(size=4).embed_query("x")
    assert traced.spans == []


def _plain_query(self: Any, text: str) -> list[float]:
    return [1.0, float(len(text))]


def _plain_documents(self: Any, texts: list[str]) -> list[list[float]]:
    return [[1.0, float(len(text))] for text in texts]


class Plain(Embeddings):  # defined with tracing off, from functions the test can name
    embed_query = _plain_query
    embed_documents = _plain_documents


def _hooked(cls: type) -> list[str]:
    """The entry points of ``cls`` that hold the tracing hook rather than its own function."""
    return [
        name
        for name, value in vars(cls).items()
        if name in embeddings_base._ASYNC_ENTRY_POINTS
        and getattr(value, "__ragline_observed__", False)
    ]


def test_tracing_off_leaves_the_embedding_methods_as_defined(traced: Traced) -> None:
    class DefinedWhileTraced(DeterministicFakeEmbedding):
        def embed_query(self, text: str) -> list[float]:
            return super().embed_query(text)

    assert vars(Plain)["embed_query"] is not _plain_query  # on: hooked, and traced
    assert Plain().embed_query("abc") == [1.0, 3.0]
    DefinedWhileTraced(size=4).embed_query("x")
    assert [span.attributes["ragline.embeddings.class"] for span in traced.spans] == [
        "Plain",
        "DefinedWhileTraced",
    ]
    ragline.tracing.disable()
    # off: every class holds exactly the functions it defined, no hook around them
    assert vars(Plain)["embed_query"] is _plain_query
    assert vars(Plain)["embed_documents"] is _plain_documents
    assert Plain.embed_query is _plain_query
    for cls in (Embeddings, Plain, DefinedWhileTraced, DeterministicFakeEmbedding,
                SentenceTransformerEmbeddings, OpenAIEmbeddings):  # fmt: skip
        assert _hooked(cls) == [], cls
    assert [cls.__name__ for cls in embeddings_base._classes if _hooked(cls)] == []
    DefinedWhileTraced(size=4).embed_query("x")
    assert len(traced.spans) == 2  # no new span
    # on again: the same classes are hooked again
    again = Traced()
    assert vars(Plain)["embed_query"].__wrapped__ is _plain_query
    Plain().embed_documents(["a", "bb"])
    assert [span.attributes["ragline.embeddings.method"] for span in again.spans] == [
        "embed_documents"
    ]
