"""Bounded work on ``ragline serve``: ``k``, ``fetch_k`` and batch length have limits
(422 naming the limit and the value), and a long search runs off the event loop, so a
slow request running at the same time does not hold up ``/healthz`` or a small
``/retrieve``. Real store folder, real server on loopback, real HTTP."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragline.core import Document, InvalidInputError
from ragline.serve import BackgroundServer, FolderSearch, create_store_app
from ragline.store_folder import StoreFolder, open_store

pytestmark = pytest.mark.network
CHUNKS = 8_000
WORDS = ["volcano", "lava", "crater", "magma", "glacier", "river", "delta", "dune", "reef"]


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8,000 chunks (hashing embedding): an MMR over all of them takes a while."""
    folder = tmp_path_factory.mktemp("limits") / "store"
    rng = random.Random(3)
    documents = [
        Document(" ".join(rng.choice(WORDS) for _ in range(40)), metadata={"source": f"f{i}.txt"})
        for i in range(CHUNKS)
    ]
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(documents)
    return folder


@pytest.fixture(scope="module")
def server(store_folder: Path) -> Iterator[BackgroundServer]:
    app = create_store_app(store_folder, k=2, max_k=3, max_fetch_k=4, max_batch_size=2)
    with BackgroundServer(app) as running:
        yield running


def post(server: BackgroundServer, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=60)


@pytest.mark.parametrize(
    ("request_input", "message"),
    [
        ({"query": "x", "k": 4}, "expected <= 3, got 4"),
        ({"query": "x", "k": 10**9}, "expected <= 3, got 1000000000"),
        ({"query": "x", "search_type": "mmr", "k": 2, "fetch_k": 10**9},
         "expected <= 4, got 1000000000"),
    ],
)  # fmt: skip
def test_k_and_fetch_k_over_their_limits_are_422(
    server: BackgroundServer, request_input: dict[str, Any], message: str
) -> None:
    response = post(server, "/retrieve/invoke", {"input": request_input})
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    name = "fetch_k" if "fetch_k" in request_input else "k"
    assert (problem["loc"], problem["msg"]) == (["input", name], message)


def test_ask_takes_the_same_limits(store_folder: Path) -> None:
    from ragline.core import FakeListChatModel

    app = create_store_app(store_folder, model=FakeListChatModel(responses=["a"]), k=2, max_k=3)
    with BackgroundServer(app) as running:
        response = httpx.post(running.url + "/ask/stream", json={"input": {"input": "x", "k": 9}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["msg"] == "expected <= 3, got 9"


def test_a_batch_over_the_limit_is_422(server: BackgroundServer) -> None:
    response = post(server, "/retrieve/batch", {"inputs": ["a", "b", "c"]})
    assert response.status_code == 422
    assert response.json()["detail"][0]["msg"] == (
        "a batch of 3 inputs is over this server's limit of 2 (max_batch_size); "
        "send smaller batches"
    )
    answered = post(server, "/retrieve/batch", {"inputs": ["volcano", "tides"]})
    assert answered.status_code == 200 and len(answered.json()["output"]) == 2


def test_the_limits_are_shown_on_healthz(server: BackgroundServer) -> None:
    limits = httpx.get(server.url + "/healthz").json()["limits"]
    assert limits == {"max_k": 3, "max_fetch_k": 4, "batch": 2}


def test_folder_search_refuses_k_over_its_limit_in_process(store_folder: Path) -> None:
    search = FolderSearch(open_store(store_folder), k=2, max_k=3)
    with pytest.raises(InvalidInputError, match=r"k=5 is over this server's limit of 3 \(max_k\)"):
        search.invoke({"query": "volcano", "k": 5})
    with pytest.raises(InvalidInputError, match="k=9 is over this server's limit of 3"):
        FolderSearch(open_store(store_folder), k=9, max_k=3)


def test_a_slow_request_does_not_hold_up_healthz_or_a_small_search(
    big_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of MMR searches (allowed by raised limits) runs while /healthz and a
    k=4 similarity search are asked. Each large search of the batch starts its work only
    once a probe (/healthz, then the small search) asked after it began waiting was
    answered: with the searches on the event loop, or the small search queued behind
    the batch, no probe would be answered while a large search waits, and the batch
    would be stuck (30 s bound, then the test fails). Not a comparison of latencies
    against the batch's length: on a loaded machine a pause can stretch any request."""
    slow_input = {"query": "volcano lava", "search_type": "mmr", "k": 200, "fetch_k": 2_000}
    searches = 3
    answered = [0]  # probes answered so far
    met: list[bool] = []  # per large search: a probe was answered while it waited
    waiting = threading.Event()  # a large search waits for a probe
    deadline: list[float] = []  # 30 s after the first wait: bounds a hang
    original_search = FolderSearch._search

    def waiting_search(self: FolderSearch, input: Any) -> Any:
        if input == slow_input:
            needed, index = answered[0] + 1, len(met)
            met.append(False)
            waiting.set()
            deadline.append(deadline[0] if deadline else time.monotonic() + 30)
            while answered[0] < needed and time.monotonic() < deadline[0]:
                time.sleep(0.005)
            met[index] = answered[0] >= needed
        return original_search(self, input)

    monkeypatch.setattr(FolderSearch, "_search", waiting_search)
    app = create_store_app(big_store, max_k=CHUNKS, max_fetch_k=CHUNKS, search_workers=1)
    with BackgroundServer(app) as server, httpx.Client(timeout=300) as client:
        assert client.get(server.url + "/healthz").status_code == 200
        done: dict[str, Any] = {}

        def slow() -> None:
            started = time.perf_counter()
            response = client.post(server.url + "/retrieve/batch",
                                   json={"inputs": [slow_input] * searches})  # fmt: skip
            done["status"], done["seconds"] = response.status_code, time.perf_counter() - started
            done["sizes"] = [len(found) for found in response.json()["output"]]

        thread = threading.Thread(target=slow)
        thread.start()
        latencies: list[float] = []
        with httpx.Client(timeout=120) as probe:
            while thread.is_alive():
                if not waiting.wait(0.05):
                    continue
                waiting.clear()
                started = time.perf_counter()
                assert probe.get(server.url + "/healthz").status_code == 200
                small = probe.post(server.url + "/retrieve/invoke",
                                   json={"input": {"query": "volcano", "k": 4}})  # fmt: skip
                assert small.status_code == 200 and len(small.json()["output"]) == 4
                latencies.append(time.perf_counter() - started)
                answered[0] += 1
        thread.join()
    print(f"\n{searches} slow searches {done['seconds']:.2f} s; {len(latencies)} probes, "
          f"slowest {1000 * max(latencies):.0f} ms")  # fmt: skip
    assert done["status"] == 200 and done["sizes"] == [200] * searches
    assert met == [True] * searches  # each large search saw a probe answered meanwhile
