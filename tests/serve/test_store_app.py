"""``create_store_app`` (what ``ragline serve`` runs): /retrieve, /ask, /chat, /healthz
and the page's files, on a real store folder and a real server."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragline.core import ConfigurationError, Document, FakeListChatModel, ServerError
from ragline.serve import BackgroundServer, RemoteRunnable, create_store_app
from ragline.store_folder import open_store

pytestmark = pytest.mark.network
ANSWER = "Mars has the largest volcano."


@pytest.fixture(scope="module")
def server(store_folder: Path) -> Iterator[BackgroundServer]:
    model = FakeListChatModel(responses=[ANSWER], sleep=0.001)
    with BackgroundServer(create_store_app(store_folder, model=model, k=2)) as running:
        yield running


@pytest.fixture(scope="module")
def modelless(store_folder: Path) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_store_app(store_folder)) as running:
        yield running


def sources(documents: list[Document]) -> list[str]:
    return [Path(d.metadata["source"]).name for d in documents]


def test_healthz_describes_what_is_served(server: BackgroundServer, store_folder: Path) -> None:
    assert httpx.get(server.url + "/healthz").json() == {
        "status": "ok",
        "store": store_folder.name,
        "documents": 4,
        "embedding": "hashing",
        "model": "FakeListChatModel",
        "chain_type": "stuff",
        "search_types": ["similarity", "mmr", "similarity_score_threshold", "bm25", "hybrid"],
        "search_type": "similarity",
        "k": 2,
        "limits": {"max_k": 100, "max_fetch_k": 1000, "batch": 100},
        "auth": False,
    }


def test_retrieve_is_the_stores_search_with_relevance(
    server: BackgroundServer, store_folder: Path
) -> None:
    """The same documents and relevance scores as the store searched in-process."""
    expected = open_store(store_folder).similarity_search_with_relevance_scores("volcano", k=3)
    found = RemoteRunnable(server.url + "/retrieve").invoke({"query": "volcano", "k": 3})
    assert [d.id for d in found] == [d.id for d, _ in expected]
    assert [d.metadata["relevance_score"] for d in found] == pytest.approx(
        [score for _, score in expected]
    )
    assert sources(found)[0] == "mars.txt"
    assert found[0].page_content == expected[0][0].page_content


def test_retrieve_takes_a_plain_query_with_the_servers_k(server: BackgroundServer) -> None:
    assert len(RemoteRunnable(server.url + "/retrieve").invoke("volcano")) == 2


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"search_type": "bm25", "k": 4}, ["mars.txt"]),  # only documents sharing a term
        ({"search_type": "hybrid", "k": 1}, ["mars.txt"]),
        ({"search_type": "mmr", "k": 2, "fetch_k": 4}, None),
        ({"filter": {"source": "nowhere.txt"}, "k": 4}, []),
        ({"search_type": "similarity_score_threshold", "score_threshold": 0.99}, []),
    ],
)
def test_retrieve_search_types_and_filters(
    server: BackgroundServer, options: dict[str, Any], expected: list[str] | None
) -> None:
    found = RemoteRunnable(server.url + "/retrieve").invoke({"query": "volcano", **options})
    if expected is None:  # mmr: k distinct documents, each with its relevance
        assert len({d.id for d in found}) == 2
        assert all(0 <= d.metadata["relevance_score"] <= 1 for d in found)
    else:
        assert sources(found) == expected


def test_retrieve_filter_by_source(server: BackgroundServer, store_folder: Path) -> None:
    cats = str(store_folder.parent / "corpus" / "cats.md")
    found = RemoteRunnable(server.url + "/retrieve").invoke(
        {"query": "volcano", "k": 4, "filter": {"source": cats}}
    )
    assert sources(found) == ["cats.md"]


@pytest.mark.parametrize(
    ("request_input", "message"),
    [
        ({"query": "x", "search_type": "simlarity"}, "input.search_type: expected one of"),
        ({"query": "x", "kk": 3}, "input.kk: unexpected key"),
        ({"query": "x", "k": 0}, "input.k: expected >= 1"),
        (
            {"query": "x", "filter": {"source": {"$regex": "a"}}},
            "unknown filter operator '\\$regex'",
        ),
    ],
)
def test_bad_search_requests_are_422(
    server: BackgroundServer, request_input: dict[str, Any], message: str
) -> None:
    with pytest.raises(ServerError, match=message) as caught:
        RemoteRunnable(server.url + "/retrieve").invoke(request_input)
    assert caught.value.status_code == 422


def test_ask_answers_with_its_sources(server: BackgroundServer) -> None:
    result = RemoteRunnable(server.url + "/ask").invoke({"input": "Which volcano is largest?"})
    assert result["answer"] == ANSWER
    assert result["input"] == "Which volcano is largest?"
    assert len(result["context"]) == 2 and sources(result["context"])[0] == "mars.txt"
    assert isinstance(result["context"][0].metadata["relevance_score"], float)


def test_ask_streams_the_context_then_the_answer(server: BackgroundServer) -> None:
    chunks = list(RemoteRunnable(server.url + "/ask").stream({"input": "volcano?", "k": 1}))
    assert chunks[0] == {"input": "volcano?", "k": 1}  # as LangChain's: each key when ready
    assert list(chunks[1]) == ["context"] and sources(chunks[1]["context"]) == ["mars.txt"]
    assert all(list(chunk) == ["answer"] for chunk in chunks[2:])
    assert len(chunks) > 4  # the answer in pieces
    assert "".join(chunk["answer"] for chunk in chunks[2:]) == ANSWER


def test_ask_streams_its_runs_events(server: BackgroundServer) -> None:
    """/ask/stream_events: the search's retriever runs, then the model's tokens."""
    remote = RemoteRunnable(server.url + "/ask")

    async def collect() -> list[dict[str, Any]]:
        kinds = ["retriever", "chat_model"]
        return [e async for e in remote.astream_events({"input": "volcano?"}, include_types=kinds)]

    events = asyncio.run(collect())
    assert [(e["event"], e["name"]) for e in events[:4]] == [
        ("on_retriever_start", "retrieve_documents"),
        ("on_retriever_start", "VectorStoreRetriever"),
        ("on_retriever_end", "VectorStoreRetriever"),
        ("on_retriever_end", "retrieve_documents"),
    ]
    found = events[3]["data"]["output"]
    assert all(isinstance(d, Document) for d in found) and sources(found)[0] == "mars.txt"
    assert [e["event"] for e in events[4:]] == [
        "on_chat_model_start",
        *["on_chat_model_stream"] * len(ANSWER),
        "on_chat_model_end",
    ]
    assert "".join(e["data"]["chunk"].content for e in events[5:-1]) == ANSWER


def test_chat_keeps_the_conversation_per_session(
    server: BackgroundServer, store_folder: Path
) -> None:
    chat = RemoteRunnable(server.url + "/chat")
    s1, s2 = (httpx.post(server.url + "/chat/session").json()["session_id"] for _ in range(2))
    first = chat.invoke({"input": "Tell me about Mars"}, {"configurable": {"session_id": s1}})
    assert first["answer"] == ANSWER and first["chat_history"] == []
    second = chat.invoke({"input": "And its volcano?"}, {"configurable": {"session_id": s1}})
    assert [m.content for m in second["chat_history"]] == ["Tell me about Mars", ANSWER]
    other = chat.invoke({"input": "Hi"}, {"configurable": {"session_id": s2}})
    assert other["chat_history"] == []
    with sqlite3.connect(store_folder / "serve-chat.sqlite") as db:
        rows = db.execute("SELECT session_id, message FROM message_store ORDER BY id").fetchall()
    assert [(s, json.loads(m)["data"]["content"]) for s, m in rows] == [
        (s1, "Tell me about Mars"),
        (s1, ANSWER),
        (s1, "And its volcano?"),
        (s1, ANSWER),
        (s2, "Hi"),
        (s2, ANSWER),
    ]


def test_without_a_model_ask_and_chat_say_how_to_configure_one(
    modelless: BackgroundServer,
) -> None:
    for path in ("/ask/invoke", "/ask/stream", "/chat/stream"):
        response = httpx.post(modelless.url + path, json={"input": {"input": "x"}})
        assert response.status_code == 503
        assert response.json()["detail"].startswith("no chat model configured: start")
    with pytest.raises(ServerError, match="OPENAI_BASE_URL") as caught:
        RemoteRunnable(modelless.url + "/ask").invoke({"input": "x"})
    assert caught.value.status_code == 503
    assert httpx.get(modelless.url + "/healthz").json()["model"] is None
    assert len(RemoteRunnable(modelless.url + "/retrieve").invoke("volcano")) == 4


def test_the_page_and_its_files_are_served(server: BackgroundServer) -> None:
    page = httpx.get(server.url + "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js"></script>' in page.text
    script = httpx.get(server.url + "/static/app.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "async function stream(" in script.text
    assert httpx.get(server.url + "/static/app.css").status_code == 200
    assert httpx.get(server.url + "/static/secrets.txt").status_code == 404
    # offline: nothing on the page comes from another host
    for text in (page.text, script.text):
        assert "http://" not in text.replace("http://127.0.0.1", "") and "https://" not in text


def test_an_api_key_guards_the_api_but_not_the_page(store_folder: Path) -> None:
    app = create_store_app(store_folder, api_key="k-123")
    with BackgroundServer(app) as server:
        assert httpx.get(server.url + "/").status_code == 200
        assert httpx.get(server.url + "/healthz").json()["auth"] is True
        refused = httpx.post(server.url + "/retrieve/invoke", json={"input": "volcano"})
        assert refused.status_code == 401
        found = RemoteRunnable(server.url + "/retrieve", api_key="k-123").invoke("volcano")
        assert len(found) == 4


@pytest.mark.parametrize(
    ("chain_type", "responses", "answer"),
    [
        # two map calls (one per passage), then the reduce call
        ("map_reduce", ["Mars: a volcano", "Moon: tides", "Olympus Mons."], "Olympus Mons."),
        # an answer from the first passage, refined with the second
        ("refine", ["A volcano.", "Olympus Mons, on Mars."], "Olympus Mons, on Mars."),
        # each passage answered and scored; the best-scored answer wins
        ("map_rerank", ["Olympus Mons\nScore: 90", "the tides\nScore: 10"], "Olympus Mons"),
    ],
)
def test_ask_answers_with_the_chain_type_it_was_given(
    store_folder: Path, chain_type: str, responses: list[str], answer: str
) -> None:
    model = FakeListChatModel(responses=responses)
    app = create_store_app(store_folder, model=model, chain_type=chain_type, k=2)
    with BackgroundServer(app) as server:
        assert httpx.get(server.url + "/healthz").json()["chain_type"] == chain_type
        result = RemoteRunnable(server.url + "/ask").invoke({"input": "Which volcano?"})
    assert result["answer"] == answer
    assert len(result["context"]) == 2


def test_an_unknown_chain_type_is_refused_before_serving(store_folder: Path) -> None:
    with pytest.raises(ConfigurationError, match="chain_type 'stuf' is not one of 'stuff'"):
        create_store_app(store_folder, model=FakeListChatModel(responses=["x"]), chain_type="stuf")
