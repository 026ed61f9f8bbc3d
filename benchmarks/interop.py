"""What the LangChain bridge (``ragline.interop.langchain``) adds to a call.

    .venv/bin/python benchmarks/interop.py [--chunks 10000] [--minilm] [--quick]

Each figure is an object called directly and the same object called through the
bridge, in the same run, interleaved round by round (``_timing.interleaved``: each
side's fastest round), and the overhead in percent (target: at most 5%).

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
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _timing import interleaved

TARGET = 5.0


def _report(title: str, native: str, bridged: str, figures: dict[str, float]) -> float:
    overhead = (figures[bridged] / figures[native] - 1) * 100
    print(
        f"  {title:<44} {figures[native] * 1e3:8.3f} ms  {figures[bridged] * 1e3:8.3f} ms"
        f"  {overhead:+6.1f}%  {'ok' if overhead <= TARGET else 'OVER TARGET'}"
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
    figures = interleaved(
        {
            "ragline": lambda i: ours.invoke(queries[i % 100]),
            "to_langchain": lambda i: bridged_ours.invoke(queries[i % 100]),
            "langchain": lambda i: theirs_retriever.invoke(queries[i % 100]),
            "from_langchain": lambda i: bridged_theirs.invoke(queries[i % 100]),
        },
        calls=calls,
        rounds=rounds,
        clock=time.process_time,
    )
    kind = "MiniLM" if minilm else "hashing-384"
    print(f"retriever.invoke, {chunks:,} chunks, {kind}   direct      bridged   overhead")
    return [
        _report("ragline retriever -> to_langchain", "ragline", "to_langchain", figures),
        _report(
            "LangChain FAISS retriever -> from_langchain", "langchain", "from_langchain", figures
        ),
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
        figures = interleaved(
            {
                "langchain": lambda i: theirs.invoke(f"question {i}"),
                "from_langchain": lambda i: bridged_theirs.invoke(f"question {i}"),
                "ragline": lambda i: ours.invoke(f"question {i}"),
                "to_langchain": lambda i: bridged_ours.invoke(f"question {i}"),
            },
            calls=calls,
            rounds=rounds,
            clock=time.process_time,
        )
        server.requests.clear()
    print("chat-model invoke, loopback OpenAI-protocol server   direct      bridged   overhead")
    return [
        _report(
            "langchain-openai ChatOpenAI -> from_langchain", "langchain", "from_langchain", figures
        ),
        _report("ragline ChatOpenAI -> to_langchain", "ragline", "to_langchain", figures),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--minilm", action="store_true", help="embed with the local MiniLM")
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds")
    args = parser.parse_args()
    calls, rounds = (30, 3) if args.quick else (100, 7)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    overheads = retrievers(args.chunks, args.minilm, calls, rounds)
    overheads += chat_models(calls, rounds)
    print(f"largest overhead: {max(overheads):+.1f}% (target: at most {TARGET:.0f}%)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
