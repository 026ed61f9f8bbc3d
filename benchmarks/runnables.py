"""Runnable core overhead: ragline against langchain-core, measured in the same run.

    .venv/bin/python benchmarks/runnables.py [--only core,single] [--rounds 15]

Prints, for each measurement, ragline's figure, LangChain's, and the ratio (LangChain's
time over ragline's: above 1 means ragline is faster):

core (the runnable machinery, trivial lambdas so the figures are the frameworks' cost):
- import: a fresh interpreter importing RunnableLambda (best of 3), modules loaded;
- invoke: a three-step sequence of trivial lambdas, microseconds per call;
- invoke with a handler: the same with a run-recording callback handler attached;
- batch: 200 inputs through the same sequence, milliseconds per batch;
- stream: 2,000 chunks from a generator through a chunk-by-chunk step, microseconds
  per chunk.

single (the single-query paths users call most, issue 15): 1,000 documents with random
unit vectors of 384 dimensions, the embedder a dict lookup returning ``list[float]`` (as
LangChain's Embeddings contract says), faiss on one OpenMP thread; ragline's ``FAISS``
against ``langchain_community``'s, each with its default metric:
- ``similarity_search(q, 4)``, ``as_retriever().invoke(q)``;
- ``prompt | model | parser`` ``invoke`` with each library's fake chat model.

events (issue 15): ``astream_events(version="v2")`` drained over a prompt | model |
parser chain and over ``create_retrieval_chain`` (stuff chain, FAISS retriever of the
same 1,000 documents), each library's own fake chat model streaming a 40-character answer.

Timings are round-robin (each round times a block of calls of every competitor in
turn; a competitor's figure is its fastest round), so load from other processes on a
shared machine hurts both alike; ``os.getloadavg()`` is printed with the results, and
``--cpu`` measures the process's CPU time instead of wall time (steadier under load).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import interleaved

IMPORTS = {
    "ragline": "from ragline.core import RunnableLambda",
    "langchain-core": "from langchain_core.runnables import RunnableLambda",
}


def import_cost(statement: str) -> tuple[float, int]:
    code = (
        "import sys, time\n"
        "start = time.perf_counter()\n"
        f"{statement}\n"
        "RunnableLambda(lambda x: x).invoke(1)\n"
        "print(time.perf_counter() - start, len(sys.modules))\n"
    )
    best, modules = float("inf"), 0
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        seconds, count = out.split()
        best, modules = min(best, float(seconds)), int(count)
    return best, modules


def per_call(func: Callable[[], Any], repeat: int) -> float:
    func()  # warm up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            func()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def build(framework: str) -> dict[str, Any]:
    if framework == "ragline":
        from ragline.core import RunCollectorCallbackHandler, RunnableLambda

        def handler() -> Any:
            return RunCollectorCallbackHandler()
    else:
        from langchain_core.runnables import RunnableLambda
        from langchain_core.tracers.run_collector import RunCollectorCallbackHandler as LCCollector

        def handler() -> Any:
            return LCCollector()

    sequence = (
        RunnableLambda(lambda x: x + 1)
        | RunnableLambda(lambda x: x * 2)
        | RunnableLambda(lambda x: x - 1)
    )

    def source(chunks: Any) -> Any:
        for _ in chunks:
            yield from ("tok" for _ in range(2000))

    def shout(chunks: Any) -> Any:
        for chunk in chunks:
            yield chunk.upper()

    streaming = RunnableLambda(lambda x: x) | source | shout
    return {"sequence": sequence, "handler": handler, "streaming": streaming}


def core_rows() -> list[tuple[str, float, float]]:
    rows: list[tuple[str, float, float]] = []
    (r_time, r_mods), (l_time, l_mods) = (
        import_cost(IMPORTS[k]) for k in ("ragline", "langchain-core")
    )
    rows.append(("import + first invoke (ms)", r_time * 1e3, l_time * 1e3))
    rows.append(("modules loaded", r_mods, l_mods))

    ours, theirs = build("ragline"), build("langchain-core")
    for label, repeat, make in [
        ("invoke, 3-step sequence (us/call)", 2000, lambda b: lambda: b["sequence"].invoke(1)),
        (
            "invoke with a run collector (us/call)",
            1000,
            lambda b: lambda: b["sequence"].invoke(1, {"callbacks": [b["handler"]()]}),
        ),
    ]:
        rows.append(
            (label, per_call(make(ours), repeat) * 1e6, per_call(make(theirs), repeat) * 1e6)
        )

    inputs = list(range(200))
    rows.append(
        (
            "batch of 200 (ms/batch)",
            per_call(lambda: ours["sequence"].batch(inputs), 5) * 1e3,
            per_call(lambda: theirs["sequence"].batch(inputs), 5) * 1e3,
        )
    )
    for bundle in (ours, theirs):
        assert sum(1 for _ in bundle["streaming"].stream("go")) == 2000
    rows.append(
        (
            "stream 2,000 chunks (us/chunk)",
            per_call(lambda: sum(1 for _ in ours["streaming"].stream("go")), 5) / 2000 * 1e6,
            per_call(lambda: sum(1 for _ in theirs["streaming"].stream("go")), 5) / 2000 * 1e6,
        )
    )
    return rows


# ---------------------------------------------------------------------- single-query paths

DOCUMENTS, DIMENSION, QUERIES = 1000, 384, 200


def _vectors(count: int, seed: int) -> list[list[float]]:
    import numpy as np

    matrix = np.random.default_rng(seed).standard_normal((count, DIMENSION))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix.astype(np.float32).tolist()  # type: ignore[no-any-return]


def lookup_embeddings() -> tuple[Any, list[str], list[str]]:
    """One Embeddings for both libraries: a dict lookup returning ``list[float]``."""
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    from ragline.embeddings import Embeddings

    texts = [f"document {i} about topic {i % 37}" for i in range(DOCUMENTS)]
    queries = [f"question {j}" for j in range(QUERIES)]
    table = dict(zip(texts, _vectors(DOCUMENTS, 1), strict=True))
    table.update(zip(queries, _vectors(QUERIES, 2), strict=True))

    class LookupEmbeddings(Embeddings, LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [table[text] for text in texts]

        def embed_query(self, text: str) -> list[float]:
            return table[text]

    return LookupEmbeddings(), texts, queries


def single_query_rows(rounds: int) -> list[tuple[str, float, float]]:
    import faiss

    faiss.omp_set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser
    from ragline.vectorstores import FAISS

    embeddings, texts, queries = lookup_embeddings()
    ours, theirs = FAISS.from_texts(texts, embeddings), LCFAISS.from_texts(texts, embeddings)
    assert [d.page_content for d in ours.similarity_search(queries[0], 4)] == [
        d.page_content for d in theirs.similarity_search(queries[0], 4)
    ]  # same data, same neighbours: the two do the same work
    retrievers = {"ragline": ours.as_retriever(), "langchain": theirs.as_retriever()}
    messages = [("system", "You answer in {language}."), ("human", "{question}")]
    chains = {
        "ragline": ChatPromptTemplate.from_messages(messages)
        | FakeListChatModel(responses=["It is Paris."])
        | StrOutputParser(),
        "langchain": LCPrompt.from_messages(messages)
        | LCFakeChat(responses=["It is Paris."])
        | LCParser(),
    }
    question = {"language": "English", "question": "Capital of France?"}
    rows = []
    for label, functions in [
        (
            "similarity_search(q, 4) (us/call)",
            {
                "ragline": lambda i: ours.similarity_search(queries[i % QUERIES], 4),
                "langchain": lambda i: theirs.similarity_search(queries[i % QUERIES], 4),
            },
        ),
        (
            "retriever.invoke(q) (us/call)",
            {
                "ragline": lambda i: retrievers["ragline"].invoke(queries[i % QUERIES]),
                "langchain": lambda i: retrievers["langchain"].invoke(queries[i % QUERIES]),
            },
        ),
        (
            "prompt | model | parser invoke (us/call)",
            {
                "ragline": lambda i: chains["ragline"].invoke(question),
                "langchain": lambda i: chains["langchain"].invoke(question),
            },
        ),
    ]:
        seconds = interleaved(functions, calls=200, rounds=rounds, clock=CLOCK[0])
        rows.append((label, seconds["ragline"] * 1e6, seconds["langchain"] * 1e6))
    return rows


# ------------------------------------------------------------------------ astream_events


def _drain(loop: Any, events: Any) -> int:
    async def count() -> int:
        return sum([1 async for _ in events])

    return loop.run_until_complete(count())  # type: ignore[no-any-return]


def event_rows(rounds: int) -> list[tuple[str, float, float]]:
    """``astream_events`` (v2) over a prompt | model | parser chain and a retrieval chain
    (the stuff chain over a FAISS retriever, k=4), each library's fake chat model
    streaming a 40-character answer; every event is consumed."""
    import asyncio

    import faiss

    faiss.omp_set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.chains import create_retrieval_chain as lc_retrieval
        from langchain_classic.chains.combine_documents import (
            create_stuff_documents_chain as lc_stuff,
        )
        from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    from ragline.chains import create_retrieval_chain, create_stuff_documents_chain
    from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser
    from ragline.vectorstores import FAISS

    answer = "Paris is the capital of France, in Europe"
    embeddings, texts, queries = lookup_embeddings()
    messages = [("system", "Answer in {language}."), ("human", "{question}")]
    rag_messages = [("system", "Context: {context}"), ("human", "{input}")]
    chains = {
        "ragline": ChatPromptTemplate.from_messages(messages)
        | FakeListChatModel(responses=[answer])
        | StrOutputParser(),
        "langchain": LCPrompt.from_messages(messages) | LCFakeChat(responses=[answer]) | LCParser(),
    }
    rag = {
        "ragline": create_retrieval_chain(
            FAISS.from_texts(texts, embeddings).as_retriever(),
            create_stuff_documents_chain(
                FakeListChatModel(responses=[answer]),
                ChatPromptTemplate.from_messages(rag_messages),
            ),
        ),
        "langchain": lc_retrieval(
            LCFAISS.from_texts(texts, embeddings).as_retriever(),
            lc_stuff(LCFakeChat(responses=[answer]), LCPrompt.from_messages(rag_messages)),
        ),
    }
    question = {"language": "English", "question": "Capital of France?"}
    loop = asyncio.new_event_loop()
    counts = {
        name: (_drain(loop, chains[name].astream_events(question, version="v2")),
               _drain(loop, rag[name].astream_events({"input": queries[0]}, version="v2")))
        for name in chains
    }  # fmt: skip
    print(f"events per call (prompt|model|parser, retrieval chain): {counts}")
    rows = []
    for label, make in [
        (
            "astream_events prompt|model|parser (us/call)",
            lambda c: lambda i: _drain(loop, chains[c].astream_events(question, version="v2")),
        ),
        (
            "astream_events retrieval chain (us/call)",
            lambda c: (
                lambda i: _drain(
                    loop, rag[c].astream_events({"input": queries[i % QUERIES]}, version="v2")
                )
            ),
        ),
    ]:
        functions = {name: make(name) for name in ("ragline", "langchain")}
        seconds = interleaved(functions, calls=20, rounds=rounds, clock=CLOCK[0])
        rows.append((label, seconds["ragline"] * 1e6, seconds["langchain"] * 1e6))
    loop.close()
    return rows


SECTIONS = {"core": lambda rounds: core_rows(), "single": single_query_rows, "events": event_rows}
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--cpu", action="store_true", help="time CPU (process_time), not wall clock"
    )
    args = parser.parse_args()
    if args.cpu:
        CLOCK[0] = time.process_time
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows: list[tuple[str, float, float]] = []
    for section in args.only.split(","):
        rows.extend(SECTIONS[section](args.rounds))

    import langchain_core

    print(
        f"python {sys.version.split()[0]}, langchain-core {langchain_core.__version__}, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
        f"{'CPU' if args.cpu else 'wall'} time"
    )
    print(f"{'measure':44} {'ragline':>10} {'LangChain':>10} {'LC/ragline':>11}")
    for label, mine, other in rows:
        print(f"{label:44} {mine:10.1f} {other:10.1f} {other / mine:10.2f}x")


if __name__ == "__main__":
    main()
