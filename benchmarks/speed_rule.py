"""Issue 24's speed rule: does any speed ratio against LangChain drop by more than 5%
between two ragline checkouts?

    .venv/bin/python benchmarks/speed_rule.py --base /tmp/bench-base [--head .]
        [--blocks 60] [--only invoke,batch,...] [--counts-only] [--profile ROW]

The rows are those of ``runnables.py`` (import, core, single, events) and the
single-query rows of ``vectorstores.py`` at 1,000 documents (``vs ...``). LangChain is
the same in both runs; only ragline's code differs, so a ratio can only move through
ragline's cost or through noise. Two measures, each printed for ragline and LangChain
with their ratio:

1. **Calls per operation** (deterministic; the proxy to report beside time). Every
   Python function entry (``sys.setprofile``'s "call" event, which also counts each
   resumption of a generator or coroutine) and every C function called from Python
   ("c_call"), in every thread the operation starts, divided by the number of
   operations counted (after warm-up calls, so caches filled on a first call are not
   counted). Load does not move them. Three repetitions are taken; a row whose count
   still varies (event-loop polling, thread-pool hand-offs) prints its range. Calls
   made by the import system (a function-level ``import``; LangChain's MMR tries to
   import simsimd on every call) are counted apart, as "import system": their number
   depends on the folders on ``sys.path``, not only on the code. Both workers run with
   ``PYTHONHASHSEED=0``, so set orders (and the code paths they pick) are the same.
2. **CPU time, many short alternating blocks.** One long-lived worker process per
   checkout (its ``PYTHONPATH`` the checkout; each worker checks where ``ragline`` was
   imported from). A block times ``calls`` operations of ragline and then of LangChain
   (order swapped every block) with ``time.process_time`` (all threads of the worker;
   only one worker runs at a time, the other waits on its pipe), ~20 ms of CPU each. The
   workers take turns block by block, base/head then head/base (ABBA), so a drift in the
   machine's load falls on both. ``--generations`` pairs of workers run one after
   another, each for its share of ``--blocks``: a process can run the same code a few
   per cent faster or slower than another (where its memory landed), and only more
   processes average that out.

   Per row it prints the median and interquartile range of each library's time and of
   their ratio, then the rule's figure: the change of LangChain's time over ragline's
   from base to head (below 1: the ratio dropped). LangChain's code is the same on both
   sides, so that change is ragline's base time over its head time, taken per block
   pair; its median comes with a 95% bootstrap interval (generations resampled, then
   blocks within them) and a sign count. The verdict: "drop > 5% excluded" when the
   interval's lower end is at or above 0.95, "DROP > 5%" when its upper end is below,
   else "undecided". Printed beside it: the same change with each block's own LangChain
   time as the yardstick, and a control, LangChain's head/base time (1 but for noise
   and process differences). ``--convergence`` prints the interval's width after the
   first blocks of each generation and after the first generations: how many
   alternations make it narrower than 5%.

The import row runs a fresh interpreter per measurement (alternating the same way):
CPU time of the import plus a first ``invoke``; its calls are counted in the child.

``--profile ROW`` prints, for one row, ragline's per-function call counts in each
checkout (Python functions by file and name, C functions by their caller; every thread,
which cProfile does not see) and their difference: where a grown count comes from.

Run it niced on a shared machine (``nice -n 10``); faiss runs on one OpenMP thread.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
LIBS = ("ragline", "langchain")
# string hashes (so set orders, so some code paths) must not differ between the workers
SAME_HASHES = {"PYTHONHASHSEED": "0"}
TARGET_SECONDS = 0.02  # CPU time of one block of one library
WARMUP = 20


# ====================================================================== the rows (worker side)


def _unit_rows(count: int, dim: int, seed: int) -> Any:
    import numpy as np

    matrix = np.random.default_rng(seed).standard_normal((count, dim))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix.astype(np.float32)


def _lookup_class() -> type:
    """One Embeddings class for both libraries: a table lookup."""
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    from ragline.embeddings import Embeddings

    class Lookup(Embeddings, LCEmbeddings):  # type: ignore[misc]
        def __init__(self, table: dict[str, Any]) -> None:
            self.table = table

        def embed_documents(self, texts: list[str]) -> Any:
            return [self.table[text] for text in texts]

        def embed_query(self, text: str) -> Any:
            return self.table[text]

    return Lookup


def _core_rows() -> dict[str, dict[str, Callable[[int], Any]]]:
    """runnables.py's core section: trivial lambdas, so the figures are the frameworks'."""
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler as LCCollector

    from ragline.core import RunCollectorCallbackHandler, RunnableLambda

    def source(chunks: Any) -> Any:
        for _ in chunks:
            yield from ("tok" for _ in range(2000))

    def shout(chunks: Any) -> Any:
        for chunk in chunks:
            yield chunk.upper()

    bundles: dict[str, tuple[Any, Any, Any]] = {}
    lam: Any
    for name, lam, collector in (
        ("ragline", RunnableLambda, RunCollectorCallbackHandler),
        ("langchain", LCLambda, LCCollector),
    ):
        sequence: Any = lam(lambda x: x + 1) | lam(lambda x: x * 2) | lam(lambda x: x - 1)
        bundles[name] = (sequence, collector, lam(lambda x: x) | source | shout)
    inputs = list(range(200))

    def make(kind: str, name: str) -> Callable[[int], Any]:
        sequence, collector, streaming = bundles[name]
        if kind == "invoke":
            return lambda i: sequence.invoke(i)
        if kind == "collector":
            return lambda i: sequence.invoke(i, {"callbacks": [collector()]})
        if kind == "batch":
            return lambda i: sequence.batch(inputs)
        return lambda i: sum(1 for _ in streaming.stream("go"))

    return {
        row: {name: make(kind, name) for name in LIBS}
        for row, kind in (
            ("invoke, 3-step sequence", "invoke"),
            ("invoke with a run collector", "collector"),
            ("batch of 200", "batch"),
            ("stream 2,000 chunks", "stream"),
        )
    }


def _single_rows() -> dict[str, dict[str, Callable[[int], Any]]]:
    """runnables.py's single section: 1,000 documents, list[float] embeddings, each
    library's FAISS with its default metric; prompt | model | parser."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser
    from ragline.vectorstores import FAISS

    texts = [f"document {i} about topic {i % 37}" for i in range(1000)]
    queries = [f"question {j}" for j in range(200)]
    table = dict(zip(texts, _unit_rows(1000, 384, 1).tolist(), strict=True))
    table.update(zip(queries, _unit_rows(200, 384, 2).tolist(), strict=True))
    embeddings = _lookup_class()(table)
    stores = {
        "ragline": FAISS.from_texts(texts, embeddings),
        "langchain": LCFAISS.from_texts(texts, embeddings),
    }
    retrievers = {name: store.as_retriever() for name, store in stores.items()}
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

    def search(name: str) -> Callable[[int], Any]:
        return lambda i: stores[name].similarity_search(queries[i % 200], 4)

    def retrieve(name: str) -> Callable[[int], Any]:
        return lambda i: retrievers[name].invoke(queries[i % 200])

    def chain(name: str) -> Callable[[int], Any]:
        return lambda i: chains[name].invoke(question)

    return {
        "similarity_search(q, 4)": {name: search(name) for name in LIBS},
        "retriever.invoke(q)": {name: retrieve(name) for name in LIBS},
        "prompt | model | parser invoke": {name: chain(name) for name in LIBS},
    }


def _event_rows() -> dict[str, dict[str, Callable[[int], Any]]]:
    """runnables.py's events section: astream_events v2 drained, fake models streaming."""
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
    texts = [f"document {i} about topic {i % 37}" for i in range(1000)]
    queries = [f"question {j}" for j in range(200)]
    table = dict(zip(texts, _unit_rows(1000, 384, 1).tolist(), strict=True))
    table.update(zip(queries, _unit_rows(200, 384, 2).tolist(), strict=True))
    embeddings = _lookup_class()(table)
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

    def drain(events: Any) -> int:
        async def count() -> int:
            return sum([1 async for _ in events])

        return loop.run_until_complete(count())

    def simple(name: str) -> Callable[[int], Any]:
        return lambda i: drain(chains[name].astream_events(question, version="v2"))

    def retrieval(name: str) -> Callable[[int], Any]:
        return lambda i: drain(rag[name].astream_events({"input": queries[i % 200]}, version="v2"))

    return {
        "astream_events prompt|model|parser": {name: simple(name) for name in LIBS},
        "astream_events retrieval chain": {name: retrieval(name) for name in LIBS},
    }


def _store_rows() -> dict[str, dict[str, Callable[[int], Any]]]:
    """vectorstores.py's single-query rows at 1,000 documents: numpy lookup embeddings,
    cosine (LangChain: inner product on normalized vectors), 1% of documents "rare"."""
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.vectorstores import FAISS as LCFAISS
        from langchain_community.vectorstores.utils import DistanceStrategy

    from ragline.embeddings import Embeddings
    from ragline.vectorstores import FAISS

    count, seed = 1000, 20251122 + 1000
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query_vectors = rng.standard_normal((1000, 384), dtype=np.float32)
    query_vectors /= np.linalg.norm(query_vectors, axis=1, keepdims=True)
    texts = [f"document {i} on topic {i % 97}" for i in range(count)]
    ids = [f"doc-{i}" for i in range(count)]
    metadatas = [{"group": "rare" if i % 100 == 0 else f"g{i % 7}", "n": i} for i in range(count)]
    queries = [f"query {j}" for j in range(1000)]
    rows = {text: i for i, text in enumerate(texts)}
    query_rows = {text: i for i, text in enumerate(queries)}
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    class Lookup(Embeddings, LCEmbeddings):  # type: ignore[misc]
        def embed_documents(self, texts: list[str]) -> Any:
            return vectors[[rows[text] for text in texts]]

        def embed_query(self, text: str) -> Any:
            return query_vectors[query_rows[text]]

    emb = Lookup()
    pairs = list(zip(texts, vectors, strict=True))
    ours = FAISS.from_embeddings(pairs, emb, metadatas, ids=ids, metric="cosine")
    lc = LCFAISS.from_embeddings(
        pairs,
        emb,
        metadatas,
        ids=ids,
        distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
        normalize_L2=True,
    )
    rare = {"group": "rare"}

    def q(i: int) -> str:
        return queries[i % 1000]

    return {
        "vs similarity_search k=4": {
            "ragline": lambda i: ours.similarity_search(q(i), 4),
            "langchain": lambda i: lc.similarity_search(q(i), 4),
        },
        "vs search with score": {
            "ragline": lambda i: ours.similarity_search_with_score(q(i), 4),
            "langchain": lambda i: lc.similarity_search_with_score(q(i), 4),
        },
        "vs search with relevance": {
            "ragline": lambda i: ours.similarity_search_with_relevance_scores(q(i), 4),
            "langchain": lambda i: lc.similarity_search_with_relevance_scores(q(i), 4),
        },
        "vs MMR k=4 fetch_k=20": {
            "ragline": lambda i: ours.max_marginal_relevance_search(q(i), 4, 20),
            "langchain": lambda i: lc.max_marginal_relevance_search(q(i), 4, 20),
        },
        "vs filtered search 1%": {
            "ragline": lambda i: ours.similarity_search(q(i), 4, filter=rare),
            "langchain": lambda i: lc.similarity_search(q(i), 4, filter=rare),
        },
    }


SECTIONS: dict[str, Callable[[], dict[str, dict[str, Callable[[int], Any]]]]] = {
    "core": _core_rows,
    "single": _single_rows,
    "events": _event_rows,
    "stores": _store_rows,
}
IMPORT_ROW = "import + first invoke"
IMPORTS = {
    "ragline": "from ragline.core import RunnableLambda",
    "langchain": "from langchain_core.runnables import RunnableLambda",
}


# ====================================================================== measuring (worker side)


# A failed ``import`` inside a function (LangChain's cosine_similarity tries simsimd on
# every call) walks sys.path: its call count depends on the folders, not on the code.
IMPORT_SYSTEM = "<frozen importlib"


def count_calls(function: Callable[[int], Any], operations: int, start: int) -> dict[str, int]:
    """Python calls and C calls of ``operations`` calls of ``function``, in every thread."""
    tally: dict[tuple[int, str], int] = defaultdict(int)
    ident = threading.get_ident

    def profiler(frame: Any, event: str, arg: Any) -> None:
        if frame.f_code.co_filename.startswith(IMPORT_SYSTEM):
            tally[ident(), "import"] += 1
        else:
            tally[ident(), event] += 1

    threading.setprofile(profiler)
    sys.setprofile(profiler)
    try:
        for i in range(start, start + operations):
            function(i)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    totals = {"call": 0, "c_call": 0, "import": 0}
    for (_, event), value in tally.items():
        if event in totals:
            totals[event] += value
    return totals


def cpu_block(function: Callable[[int], Any], calls: int, start: int) -> float:
    """CPU seconds per call over ``calls`` calls (the whole process's CPU time)."""
    gc.collect()
    begin = time.process_time()
    for i in range(start, start + calls):
        function(i)
    return (time.process_time() - begin) / calls


def worker(sections: Sequence[str]) -> None:
    """Serve commands (one JSON object a line on stdin) until stdin closes."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    warnings.simplefilter("ignore")
    import faiss

    faiss.omp_set_num_threads(1)
    import ragline

    rows: dict[str, dict[str, Callable[[int], Any]]] = {}
    failed: dict[str, str] = {}
    for section in sections:
        try:
            rows.update(SECTIONS[section]())
        except Exception as error:  # a checkout that lacks a feature: say so, go on
            failed[section] = f"{type(error).__name__}: {error}"
    for functions in rows.values():
        for function in functions.values():
            for i in range(WARMUP):
                function(i)

    def reply(payload: Any) -> None:
        sys.stdout.write(json.dumps(payload) + "\n")
        sys.stdout.flush()

    reply(
        {
            "ragline": str(Path(ragline.__file__).resolve().parent.parent),
            "rows": list(rows),
            "failed": failed,
            "omp_threads": faiss.omp_get_max_threads(),
        }
    )
    tree = str(Path(ragline.__file__).resolve().parent.parent) + os.sep
    for line in sys.stdin:
        command = json.loads(line)
        kind = command["kind"]
        if kind == "calibrate":
            calls = {}
            for name, function in rows[command["row"]].items():
                begin, n = time.process_time(), 0
                while time.process_time() - begin < TARGET_SECONDS / 2:
                    function(n)
                    n += 1
                per_call = (time.process_time() - begin) / n
                calls[name] = max(1, round(TARGET_SECONDS / per_call))
            reply(calls)
        elif kind == "time":
            functions, calls, start = rows[command["row"]], command["calls"], command["start"]
            reply(
                {name: cpu_block(functions[name], calls[name], start) for name in command["order"]}
            )
        elif kind == "count":
            operations = command["operations"]
            reply(
                {
                    name: [
                        count_calls(function, operations, 0)  # inputs warmed up already
                        for _ in range(3)
                    ]
                    for name, function in rows[command["row"]].items()
                }
            )
        elif kind == "profile":
            reply(calls_by_function(rows[command["row"]]["ragline"], command["operations"], tree))


def calls_by_function(function: Callable[[int], Any], operations: int, tree: str) -> dict[str, int]:
    """How often each function ran in ``operations`` calls of ``function``, in every
    thread (cProfile sees only its own thread): Python functions as ``file:name``, C
    functions as ``caller file:name -> C function``, so a diff says where a call grew."""
    tally: dict[tuple[int, str], int] = defaultdict(int)
    ident = threading.get_ident

    def where(code: Any) -> str:
        return f"{code.co_filename.replace(tree, '')}:{code.co_name}"

    def profiler(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            tally[ident(), where(frame.f_code)] += 1
        elif event == "c_call":
            name = str(getattr(arg, "__qualname__", None) or getattr(arg, "__name__", "?"))
            owner = getattr(arg, "__self__", None)
            if "." not in name and owner is not None and not isinstance(owner, type(sys)):
                name = f"{type(owner).__name__}.{name}"  # a bound method of a C type
            tally[ident(), f"{where(frame.f_code)} -> {name}"] += 1

    threading.setprofile(profiler)
    sys.setprofile(profiler)
    try:
        for i in range(operations):
            function(i)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    totals: dict[str, int] = defaultdict(int)
    for (_, key), value in tally.items():
        totals[key] += value
    return totals


# ====================================================================== the parent


class Worker:
    """A worker process whose ``ragline`` comes from ``tree``."""

    def __init__(self, tree: Path, sections: Sequence[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", **SAME_HASHES}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.process = subprocess.Popen(
            [sys.executable, "-W", "ignore", str(HERE), "--worker", ",".join(sections)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )
        self.info = self.read()
        if Path(self.info["ragline"]) != tree.resolve():
            raise SystemExit(f"worker for {tree} imported ragline from {self.info['ragline']}")

    def read(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"worker exited with {self.process.wait()}")
        return json.loads(line)

    def ask(self, **command: Any) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def median_interval(
    groups: Sequence[Sequence[float]], *, resamples: int = 2000, seed: int = 24
) -> tuple[float, float, float]:
    """The median of all values and a 95% bootstrap interval for it, resampling the
    groups (worker generations: a process can be a few per cent faster or slower than
    another running the same code), then the values within each chosen group."""
    rng = random.Random(seed)
    medians = []
    for _ in range(resamples):
        sample: list[float] = []
        for group in rng.choices(groups, k=len(groups)):
            sample.extend(rng.choices(group, k=len(group)))
        medians.append(statistics.median(sample))
    medians.sort()
    return (
        statistics.median([value for group in groups for value in group]),
        medians[int(0.025 * resamples)],
        medians[int(0.975 * resamples) - 1],
    )


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def import_child(tree: Path, statement: str, count: bool) -> dict[str, Any]:
    """A fresh interpreter: CPU seconds (or calls) of ``statement`` + a first invoke."""
    code = (
        "import sys, time, json\n"
        "tally = {'call': 0, 'c_call': 0}\n"
        "def profiler(frame, event, arg):\n"
        "    if event in tally: tally[event] += 1\n"
        f"{'sys.setprofile(profiler)' if count else ''}\n"
        "begin = time.process_time()\n"
        f"{statement}\n"
        "RunnableLambda(lambda x: x).invoke(1)\n"
        "seconds = time.process_time() - begin\n"
        "sys.setprofile(None)\n"
        "print(json.dumps({'seconds': seconds, 'modules': len(sys.modules), **tally}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tree), **SAME_HASHES}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tree,
    ).stdout
    return json.loads(out.splitlines()[-1])  # type: ignore[no-any-return]


def profile(workers: dict[str, Worker], row: str, operations: int) -> None:
    """Print ragline's per-function call counts of one row that differ, head - base."""
    profiles = {
        side: w.ask(kind="profile", row=row, operations=operations) for side, w in workers.items()
    }
    keys = set(profiles["base"]) | set(profiles["head"])
    diff = sorted(
        ((profiles["head"].get(k, 0) - profiles["base"].get(k, 0), k) for k in keys),
        key=lambda item: (-abs(item[0]), item[1]),
    )
    print(f"\n== calls by function, ragline, {operations} operations of {row}: head - base")
    for delta, key in diff:
        if delta:
            base_n, head_n = profiles["base"].get(key, 0), profiles["head"].get(key, 0)
            print(f"  {delta:+7d}  {base_n:7d} -> {head_n:7d}  {key}")


def verdict(low: float, high: float) -> str:
    if low >= 0.95:
        return "drop > 5% excluded"
    if high < 0.95:
        return "DROP > 5%"
    return "undecided"


def report_row(
    row: str,
    counts: dict[str, dict[str, list[dict[str, float]]]] | None,
    times: dict[str, list[dict[str, float]]] | None,
    unit: float,
    convergence: bool,
) -> dict[str, Any]:
    """Print one row's figures; return them for --json.

    ``times[side]`` is a list of blocks ``{"ragline": s, "langchain": s, "generation": g}``,
    block ``j`` of the base paired with block ``j`` of the head.
    """
    result: dict[str, Any] = {"row": row}
    print(f"\n== {row}")
    if counts is not None:
        result["counts"] = counts
        for event, label in (
            ("call", "Python calls"),
            ("c_call", "C calls"),
            ("import", "import system"),
        ):
            if not all(event in counts[side][name][0] for side in counts for name in LIBS):
                continue
            cells = []
            for side in ("base", "head"):
                per = {name: [rep[event] for rep in counts[side][name]] for name in LIBS}

                def show(values: list[float]) -> str:
                    low, high = min(values), max(values)
                    return f"{low:.1f}" if low == high else f"{low:.1f}-{high:.1f}"

                ratio = (
                    f"{min(per['langchain']) / min(per['ragline']):.2f}"
                    if min(per["ragline"])
                    else "-"
                )
                cells.append(
                    f"{side}: ragline {show(per['ragline'])}, LC {show(per['langchain'])}, "
                    f"LC/ragline {ratio}"
                )
            print(f"  {label:13} per op  " + " | ".join(cells))
    if times is None:
        return result
    base, head = times["base"], times["head"]
    result["times"] = times
    for side, blocks in (("base", base), ("head", head)):
        cells = []
        for name in LIBS:
            q1, q2, q3 = quartiles([b[name] for b in blocks])
            cells.append(f"{name} {q2 * unit:.1f} ({q1 * unit:.1f}-{q3 * unit:.1f})")
        q1, q2, q3 = quartiles([b["langchain"] / b["ragline"] for b in blocks])
        print(f"  CPU {side}: " + ", ".join(cells) + f"; LC/ragline {q2:.3f} ({q1:.3f}-{q3:.3f})")

    def paired(value: Callable[[dict[str, float], dict[str, float]], float]) -> list[list[float]]:
        groups: dict[float, list[float]] = defaultdict(list)
        for b, h in zip(base, head, strict=True):
            groups[b["generation"]].append(value(b, h))
        return list(groups.values())

    # the rule's ratio is LangChain's time over ragline's; LangChain's code is the same on
    # both sides, so the ratio changes by ragline's base time over its head time
    rule = paired(lambda b, h: b["ragline"] / h["ragline"])
    normalized = paired(
        lambda b, h: (h["langchain"] / h["ragline"]) / (b["langchain"] / b["ragline"])
    )
    control = paired(lambda b, h: h["langchain"] / b["langchain"])
    mid, low, high = median_interval(rule)
    below = sum(value < 1 for group in rule for value in group)
    print(
        f"  ratio change head/base {mid:.3f} [{low:.3f}, {high:.3f}] ({below}/{len(base)} "
        f"blocks below 1, {len(rule)} worker generations) -> {verdict(low, high)}"
    )
    nmid, nlow, nhigh = median_interval(normalized)
    cmid, clow, chigh = median_interval(control)
    print(
        f"  (per-block LC/ragline head/base {nmid:.3f} [{nlow:.3f}, {nhigh:.3f}]; control, "
        f"LangChain's own time head/base {cmid:.3f} [{clow:.3f}, {chigh:.3f}])"
    )
    result.update(
        change=(mid, low, high),
        normalized=(nmid, nlow, nhigh),
        control=(cmid, clow, chigh),
        verdict=verdict(low, high),
    )
    if convergence:
        widths = []
        per_generation = min(len(group) for group in rule)
        for n in sorted({per_generation // 4, per_generation // 2, per_generation} - {0}):
            _, lo, hi = median_interval([group[:n] for group in rule])
            widths.append(f"{n * len(rule)} blocks: {hi - lo:.3f}")
        for g in range(2, len(rule)):
            _, lo, hi = median_interval(rule[:g])
            widths.append(f"{g} generations: {hi - lo:.3f}")
        print("  interval width after " + ", ".join(widths))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, help="the base checkout")
    parser.add_argument("--head", type=Path, default=HERE.parent.parent, help="default: this one")
    parser.add_argument("--blocks", type=int, default=60, help="alternations per row, in all")
    parser.add_argument(
        "--generations", type=int, default=4, help="worker pairs, one after another"
    )
    parser.add_argument("--import-blocks", type=int, default=20)
    parser.add_argument("--sections", default=",".join(["import", *SECTIONS]))
    parser.add_argument("--only", default="", help="comma-separated row names (substrings)")
    parser.add_argument("--counts-only", action="store_true")
    parser.add_argument("--convergence", action="store_true")
    parser.add_argument("--operations", type=int, default=5, help="operations per call count")
    parser.add_argument("--profile", metavar="ROW", help="per-function call diff of one row")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker.split(","))
        return
    if args.base is None:
        parser.error("--base is required")
    sections = [s for s in args.sections.split(",") if s in SECTIONS]
    trees = {"base": args.base.resolve(), "head": args.head.resolve()}
    for side, tree in trees.items():
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=tree
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=tree,
        ).stdout.strip()
        print(f"{side}: {tree} at {sha}{' (with uncommitted changes)' if dirty else ''}")
    print(f"load average at start {os.getloadavg()}, niceness {os.nice(0)}")
    results: list[dict[str, Any]] = []
    wanted = [part for part in args.only.split(",") if part]

    def chosen(row: str) -> bool:
        return not wanted or any(part in row for part in wanted)

    if "import" in args.sections.split(",") and chosen(IMPORT_ROW) and not args.profile:
        import_counts: dict[str, dict[str, list[dict[str, Any]]]] = {
            side: {name: [import_child(tree, IMPORTS[name], True)] for name in LIBS}
            for side, tree in trees.items()
        }
        print(
            "\n== import: modules loaded "
            + ", ".join(
                f"{side} ragline {import_counts[side]['ragline'][0]['modules']} LC "
                f"{import_counts[side]['langchain'][0]['modules']}"
                for side in trees
            )
        )
        times: dict[str, list[dict[str, float]]] | None = None
        if not args.counts_only:
            times = {"base": [], "head": []}
            for block in range(args.import_blocks):
                order = ("base", "head") if block % 2 == 0 else ("head", "base")
                names = LIBS if block % 2 == 0 else LIBS[::-1]
                for side in order:
                    times[side].append(
                        {
                            **{
                                name: import_child(trees[side], IMPORTS[name], False)["seconds"]
                                for name in names
                            },
                            "generation": block,  # every import is a fresh process
                        }
                    )
        results.append(
            report_row(IMPORT_ROW + " (ms)", import_counts, times, 1e3, args.convergence)
        )

    if sections:
        rows: list[str] = []
        counts: dict[str, Any] = {}
        calls: dict[str, dict[str, int]] = {}
        all_times: dict[str, dict[str, list[dict[str, float]]]] = {}
        generations = 1 if args.counts_only or args.profile else args.generations
        for generation in range(generations):
            # fresh workers each generation: a process's own speed (where its memory
            # landed, which core) is one more source of difference to average over
            workers = {side: Worker(tree, sections) for side, tree in trees.items()}
            if generation == 0:
                for side, worker_ in workers.items():
                    if worker_.info["failed"]:
                        print(f"{side} could not build: {worker_.info['failed']}")
                print(f"faiss OpenMP threads in the workers: {workers['base'].info['omp_threads']}")
                rows = [
                    row
                    for row in workers["head"].info["rows"]
                    if row in workers["base"].info["rows"] and chosen(row)
                ]
                if args.profile:
                    profile(workers, next(r for r in rows if args.profile in r), args.operations)
                    rows = []
                for row in rows:
                    counts[row] = {
                        side: {
                            name: [
                                {event: value / args.operations for event, value in rep.items()}
                                for rep in reps
                            ]
                            for name, reps in w.ask(
                                kind="count", row=row, operations=args.operations
                            ).items()
                        }
                        for side, w in workers.items()
                    }
                    calls[row] = workers["base"].ask(kind="calibrate", row=row)
                    all_times[row] = {"base": [], "head": []}
            if not args.counts_only:
                for row in rows:
                    for block in range(args.blocks // generations):
                        order = ("base", "head") if block % 2 == 0 else ("head", "base")
                        names = LIBS if block % 2 == 0 else LIBS[::-1]
                        for side in order:
                            figures = workers[side].ask(
                                kind="time", row=row, calls=calls[row], start=block * 7,
                                order=list(names),
                            )  # fmt: skip
                            all_times[row][side].append({**figures, "generation": generation})
            for worker_ in workers.values():
                worker_.close()
        for row in rows:
            results.append(
                report_row(
                    row + " (us)",
                    counts[row],
                    None if args.counts_only else all_times[row],
                    1e6,
                    args.convergence,
                )
            )
    print(f"\nload average at end {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
