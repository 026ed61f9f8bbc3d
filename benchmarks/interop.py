"""What the LangChain bridge (``ragline.interop.langchain``) adds to a call.

    .venv/bin/python benchmarks/interop.py [--chunks 10000] [--minilm] [--quick]

Each figure is an object called directly and the same object called through the
bridge, in the same run: each round times ``calls`` calls of one, then of the other; the
overhead is given two ways, in percent: "fastest" compares each side's fastest round,
"paired" is the median over rounds of their ratio; the larger is held to the target
(at most 5%).

1. ``retriever.invoke`` (k=4) on a FAISS store of ``--chunks`` chunks (hashing
   embedding of dimension 384, or the local MiniLM model with ``--minilm``):
   - ragline's retriever, and ``to_langchain(retriever)`` (a LangChain ``BaseRetriever``);
   - langchain-community's FAISS retriever over the same texts and embedding, and
     ``from_langchain(retriever)`` (a ragline retriever).
2. chat-model ``invoke`` of a local model: an OpenAI-protocol server on a loopback port
   (the one the tests use, ``tests/_openai_server.py``, answering at once, so the
   model's own time is as small as it gets and the bridge's share is largest):
   - langchain-openai's ``ChatOpenAI``, and ``from_langchain(model)``;
   - ragline's ``ChatOpenAI``, and ``to_langchain(model)``.

FAISS searches on one thread. Times are this process's CPU time
(``time.process_time``; the loopback server is a thread of this process, so its work
counts on both sides alike): on a shared machine, waiting for a core is not the
bridge's cost. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


TARGET = 5.0


def paired(
    pairs: dict[str, tuple[Any, Any]], *, calls: int, rounds: int
) -> dict[str, tuple[float, float, float]]:
    """Per pair (direct, bridged): the fastest round of each (seconds per call, CPU time)
    and the median over rounds of bridged / direct timed back to back in one round, so a
    burst of load on the shared machine moves both sides of a ratio alike."""
    for direct, bridged in pairs.values():
        for i in range(min(calls, 10)):
            direct(i)
            bridged(i)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in pairs}
    for _ in range(rounds):
        for name, (direct, bridged) in pairs.items():
            spent = []
            for function in (direct, bridged):
                start = time.process_time()
                for i in range(calls):
                    function(i)
                spent.append((time.process_time() - start) / calls)
            times[name].append((spent[0], spent[1]))
    return {
        name: (
            min(d for d, _ in found),
            min(b for _, b in found),
            statistics.median(b / d for d, b in found),
        )
        for name, found in times.items()
    }


def _report(title: str, figures: tuple[float, float, float]) -> float:
    """Print one line; the overhead judged is the larger of the two estimates."""
    direct, bridged, ratio = figures
    fastest, paired_median = (bridged / direct - 1) * 100, (ratio - 1) * 100
    overhead = max(fastest, paired_median)
    print(
        f"  {title:<46} {direct * 1e3:7.3f} ms {bridged * 1e3:7.3f} ms"
        f"  {fastest:+6.1f}%  {paired_median:+6.1f}%  {'ok' if overhead <= TARGET else 'OVER'}"
    )
    return overhead


def _embeddings(minilm: bool) -> Any:
    if minilm:
        from ragline.embeddings import HuggingFaceEmbeddings

        return HuggingFaceEmbeddings()
    from ragline.embeddings import HashingEmbeddings

    return HashingEmbeddings(dimension=384)


def retrievers(chunks: int, minilm: bool, calls: int, rounds: int) -> list[float]:
    import faiss

    from ragline.interop.langchain import from_langchain, to_langchain
    from ragline.vectorstores import FAISS

    faiss.omp_set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # langchain-community's notice
        from langchain_community.vectorstores import FAISS as LCFAISS

    texts = [
        f"note {i} on topic {i % 97}, filed under {i % 13} with {i * 7}" for i in range(chunks)
    ]
    embeddings = _embeddings(minilm)
    vectors = embeddings.embed_documents(texts)
    store = FAISS.from_embeddings(list(zip(texts, vectors, strict=True)), embeddings)
    ours = store.as_retriever(search_kwargs={"k": 4})
    lc_embeddings = to_langchain(embeddings)  # both LangChain sides embed through it
    theirs = LCFAISS.from_embeddings(list(zip(texts, vectors, strict=True)), lc_embeddings)
    theirs_retriever = theirs.as_retriever(search_kwargs={"k": 4})
    queries = [f"topic {i} filed under {i % 13}" for i in range(100)]
    bridged_ours, bridged_theirs = to_langchain(ours), from_langchain(theirs_retriever)
    assert [d.page_content for d in bridged_ours.invoke(queries[0])] == [
        d.page_content for d in ours.invoke(queries[0])
    ]
    figures = paired(
        {
            "to": (
                lambda i: ours.invoke(queries[i % 100]),
                lambda i: bridged_ours.invoke(queries[i % 100]),
            ),
            "from": (
                lambda i: theirs_retriever.invoke(queries[i % 100]),
                lambda i: bridged_theirs.invoke(queries[i % 100]),
            ),
        },
        calls=calls,
        rounds=rounds,
    )
    kind = "MiniLM" if minilm else "hashing-384"
    print(f"retriever.invoke, {chunks:,} chunks, {kind}")
    print(f"  {'':<46} {'direct':>10} {'bridged':>10}  fastest  paired")
    return [
        _report("ragline retriever -> to_langchain", figures["to"]),
        _report("LangChain FAISS retriever -> from_langchain", figures["from"]),
    ]


def chat_models(calls: int, rounds: int) -> list[float]:
    from langchain_openai import ChatOpenAI as LCChatOpenAI

    from ragline.chat_models import ChatOpenAI
    from ragline.interop.langchain import from_langchain, to_langchain
    from tests._openai_server import OpenAITestServer

    with OpenAITestServer() as server:
        theirs = LCChatOpenAI(base_url=server.base_url, api_key="local", model="local-model")
        ours = ChatOpenAI(base_url=server.base_url, api_key="local", model="local-model")
        bridged_theirs, bridged_ours = from_langchain(theirs), to_langchain(ours)
        assert bridged_theirs.invoke("hi").content == theirs.invoke("hi").content == "echo: hi"
        assert bridged_ours.invoke("hi").content == "echo: hi"
        figures = paired(
            {
                "from": (
                    lambda i: theirs.invoke(f"question {i}"),
                    lambda i: bridged_theirs.invoke(f"question {i}"),
                ),
                "to": (
                    lambda i: ours.invoke(f"question {i}"),
                    lambda i: bridged_ours.invoke(f"question {i}"),
                ),
            },
            calls=calls,
            rounds=rounds,
        )
        server.requests.clear()
    print("chat-model invoke, loopback OpenAI-protocol server")
    print(f"  {'':<46} {'direct':>10} {'bridged':>10}  fastest  paired")
    return [
        _report("langchain-openai ChatOpenAI -> from_langchain", figures["from"]),
        _report("ragline ChatOpenAI -> to_langchain", figures["to"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--minilm", action="store_true", help="embed with the local MiniLM")
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds")
    args = parser.parse_args()
    calls, rounds = (30, 5) if args.quick else (50, 21)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    overheads = retrievers(args.chunks, args.minilm, calls, rounds)
    overheads += chat_models(calls, rounds)
    print(f"largest overhead: {max(overheads):+.1f}% (target: at most {TARGET:.0f}%)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
