"""What OpenTelemetry tracing costs (issue 27): traced against untraced, in the same run.

    .venv/bin/python benchmarks/tracing.py [--rounds 15] [--cpu] [--no-minilm]

Traced means ``ragline.tracing.configure`` with an SDK ``TracerProvider`` whose
``BatchSpanProcessor`` hands the spans to an exporter that drops them (as a deployment
sends them from a background thread; the export itself is not ragline's cost). Content
capture is off (the default). Rows, each ``untraced``, ``traced`` and the ratio:

- ``retriever.invoke``: FAISS (flat inner product, one OpenMP thread) of N documents with
  random unit vectors of 384 dimensions, the query embedder a dict lookup (so the figure
  is the search and the framework, not a model), k=4; N = 1,000 and 10,000;
- ``prompt | model | parser``: ``ChatPromptTemplate | FakeListChatModel | StrOutputParser``
  ``invoke``; the fake model answers at once (the bare framework), then after a fixed
  20 ms and 50 ms of think time per reply (a FAKE model with a sleep, standing in for a
  local model: a small one on a GPU answers in tens of ms; no real chat model runs here);
- ``retriever.invoke`` with MiniLM (ragline's offline default, a real model run in
  process, CPU, one thread) embedding the query, over FAISS of 1,000 documents: the
  retriever as an application calls it (traced, the query embedding gets its own span);
- tracing off: the same ``retriever.invoke`` and chain with tracing configured and then
  disabled, against the same calls where the default-handler check and the retriever's
  listener lookup are taken out (the code as it was before tracing existed, patched in
  for the comparison); and an embedding call through the tracing hook (tracing off)
  against the same method without it.

Targets (issue 27): at most 3% on ``retriever.invoke``, at most 5% on the chain with a
local model, nothing measurable when off. Timings are round-robin (``_timing.interleaved``:
each competitor's figure is its fastest round), so load from other processes hurts all
alike; ``--cpu`` counts this process's CPU time instead of wall time (the batch
processor's export thread then counts too; a model's sleep does not, so the latency
rows then show the framework's CPU alone).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import interleaved

DIMENSION, QUERIES = 384, 200


def _vectors(count: int, seed: int) -> list[list[float]]:
    import numpy as np

    matrix = np.random.default_rng(seed).standard_normal((count, DIMENSION))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix.astype(np.float32).tolist()  # type: ignore[no-any-return]


def retriever_of(documents: int) -> tuple[Any, list[str]]:
    """A FAISS retriever (k=4) over ``documents`` random unit vectors; the queries."""
    import faiss

    from ragline.embeddings import Embeddings
    from ragline.vectorstores import FAISS

    faiss.omp_set_num_threads(1)
    texts = [f"document {i} about topic {i % 37}" for i in range(documents)]
    queries = [f"question {j}" for j in range(QUERIES)]
    table = dict(zip(texts, _vectors(documents, 1), strict=True))
    table.update(zip(queries, _vectors(QUERIES, 2), strict=True))

    class LookupEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [table[text] for text in texts]

        def embed_query(self, text: str) -> list[float]:
            return table[text]

    store = FAISS.from_texts(texts, LookupEmbeddings(), ids=[f"d{i}" for i in range(documents)])
    return store.as_retriever(search_kwargs={"k": 4}), queries


def chain_of(latency: float) -> Any:
    """``prompt | model | parser`` whose fake chat model takes ``latency`` seconds per
    reply (a stand-in for a local model; 0: it answers at once)."""
    from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser

    class LocalModel(FakeListChatModel):
        def _generate(self, messages: Any, stop: Any = None, response_format: Any = None) -> Any:
            if latency:
                time.sleep(latency)
            return super()._generate(messages, stop, response_format)

    prompt = ChatPromptTemplate.from_messages(
        [("system", "You answer in {language}."), ("human", "{question}")]
    )
    return prompt | LocalModel(responses=["It is Paris."]) | StrOutputParser()


def minilm_retriever() -> tuple[Any, list[str]] | None:
    """A FAISS retriever whose queries are embedded by MiniLM (ragline's offline
    default, on the CPU, one thread): what ``retriever.invoke`` costs in an
    application. None (and a note) when the model is not installed."""
    try:
        import torch

        torch.set_num_threads(1)  # one thread, as faiss: steady figures on a shared machine
        from ragline.embeddings import HuggingFaceEmbeddings

        embeddings = HuggingFaceEmbeddings()
        embeddings.embed_query("warm up")
    except Exception as err:  # a missing optional model skips one row
        print(f"(MiniLM row skipped: {err})")
        return None
    from ragline.vectorstores import FAISS

    texts = [f"document {i} about topic {i % 37}" for i in range(1_000)]
    store = FAISS.from_texts(texts, embeddings)
    queries = [f"what is topic {j}?" for j in range(50)]
    return store.as_retriever(search_kwargs={"k": 4}), queries


def chain_input(i: int) -> dict[str, str]:
    return {"language": "English", "question": f"Capital of France? ({i})"}


class _Tracing:
    """Switches tracing on (a batch processor, spans dropped) and off."""

    def __init__(self) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )

        class Dropped(SpanExporter):
            exported = 0

            def export(self, spans: Any) -> SpanExportResult:
                Dropped.exported += len(spans)
                return SpanExportResult.SUCCESS

        self.exporter = Dropped
        self.provider = TracerProvider()
        self.provider.add_span_processor(BatchSpanProcessor(Dropped()))

    def on(self) -> None:
        import ragline.tracing

        ragline.tracing.configure(tracer_provider=self.provider)

    def off(self) -> None:
        import ragline.tracing

        ragline.tracing.disable()


def toggled(tracing: _Tracing, traced: bool, call: Callable[[int], Any]) -> Callable[[int], Any]:
    """``call`` with tracing switched on or off first (a tuple swap, in both)."""
    switch = tracing.on if traced else tracing.off
    from ragline.core.callbacks import manager

    def run(i: int) -> Any:
        if (manager._default_handlers != ()) != traced:
            switch()
        return call(i)

    return run


def pre_tracing(call: Callable[[int], Any]) -> Callable[[int], Any]:
    """``call`` run with the code as it was before tracing: no default-handler check at
    root runs, no listener lookup in the retriever."""
    from ragline.core.callbacks import manager
    from ragline.vectorstores import retriever as retriever_module

    current_roots, current_listeners = (
        manager._with_context_handlers,
        retriever_module.current_run_listeners,
    )

    def old_roots(handlers: Any) -> list[Any]:
        extra = manager._context_handlers.get()
        if not extra:
            return list(handlers or ())
        own = list(handlers or ())
        return own + [handler for handler in extra if handler not in own]

    def run(i: int) -> Any:
        manager._with_context_handlers = old_roots
        retriever_module.current_run_listeners = lambda event: None
        try:
            return call(i)
        finally:
            manager._with_context_handlers = current_roots
            retriever_module.current_run_listeners = current_listeners

    return run


def same_call_patched(call: Callable[[int], Any]) -> Callable[[int], Any]:
    """``call`` with the same patch-and-restore steps as :func:`pre_tracing`, but
    restoring the current code: so both sides of the 'off' row pay the patching."""
    from ragline.core.callbacks import manager
    from ragline.vectorstores import retriever as retriever_module

    roots, listeners = manager._with_context_handlers, retriever_module.current_run_listeners

    def run(i: int) -> Any:
        manager._with_context_handlers = roots
        retriever_module.current_run_listeners = listeners
        try:
            return call(i)
        finally:
            manager._with_context_handlers = roots
            retriever_module.current_run_listeners = listeners

    return run


def rows(
    rounds: int, clock: Callable[[], float], *, minilm: bool = True
) -> list[tuple[str, float, float, str]]:
    tracing = _Tracing()
    results = []
    for documents in (1_000, 10_000):
        retriever, queries = retriever_of(documents)

        def search(i: int, retriever: Any = retriever, queries: list[str] = queries) -> Any:
            return retriever.invoke(queries[i % QUERIES])

        assert len(search(0)) == 4
        figures = interleaved(
            {"untraced": toggled(tracing, False, search), "traced": toggled(tracing, True, search)},
            calls=100 if documents == 1_000 else 40,
            rounds=rounds,
            clock=clock,
        )
        results.append((f"retriever.invoke, {documents:,} docs", figures["untraced"],
                        figures["traced"], "us"))  # fmt: skip
    for latency, calls in ((0.0, 100), (0.02, 10), (0.05, 4)):
        chain = chain_of(latency)

        def answer(i: int, chain: Any = chain) -> Any:
            return chain.invoke(chain_input(i))

        assert answer(0) == "It is Paris."
        figures = interleaved(
            {"untraced": toggled(tracing, False, answer), "traced": toggled(tracing, True, answer)},
            calls=calls,
            rounds=rounds,
            clock=clock,
        )
        label = "instant fake" if latency == 0 else f"fake, {latency * 1000:g} ms think"
        results.append((f"prompt | model ({label}) | parser", figures["untraced"],
                        figures["traced"], "us"))  # fmt: skip
    embedded_retriever = minilm_retriever() if minilm else None
    if embedded_retriever is not None:
        retriever, queries = embedded_retriever

        def embedded(i: int, retriever: Any = retriever, queries: list[str] = queries) -> Any:
            return retriever.invoke(queries[i % len(queries)])

        figures = interleaved(
            {"untraced": toggled(tracing, False, embedded),
             "traced": toggled(tracing, True, embedded)},
            calls=20,
            rounds=rounds,
            clock=clock,
        )  # fmt: skip
        results.append(("retriever.invoke, MiniLM query, 1,000 docs", figures["untraced"],
                        figures["traced"], "us"))  # fmt: skip
    tracing.on()
    tracing.off()  # configured once, then off: what 'off' means below
    retriever, queries = retriever_of(1_000)
    chain = chain_of(0.0)
    for label, call in (
        ("off: retriever.invoke, 1,000 docs", lambda i: retriever.invoke(queries[i % QUERIES])),
        ("off: prompt | model (instant) | parser", lambda i: chain.invoke(chain_input(i))),
    ):
        figures = interleaved(
            {"before tracing": pre_tracing(call), "tracing off": same_call_patched(call)},
            calls=100,
            rounds=rounds,
            clock=clock,
        )
        results.append((label, figures["before tracing"], figures["tracing off"], "us"))
    from ragline.embeddings import HashingEmbeddings

    hashing = HashingEmbeddings(dimension=64)
    unhooked = type(hashing).embed_query.__wrapped__  # the method without the tracing hook
    figures = interleaved(
        {"no hook": lambda i: unhooked(hashing, queries[i % QUERIES]),
         "hook, tracing off": lambda i: hashing.embed_query(queries[i % QUERIES])},
        calls=200,
        rounds=rounds,
        clock=clock,
    )  # fmt: skip
    results.append(("off: embed_query (hashing, 64 dims)", figures["no hook"],
                    figures["hook, tracing off"], "us"))  # fmt: skip
    tracing.provider.force_flush()
    print(f"(spans exported and dropped: {tracing.exporter.exported:,})")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of wall time")
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM row")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    measured = rows(args.rounds, clock, minilm=not args.no_minilm)
    print(f"load average {os.getloadavg()[0]:.2f}; {'CPU' if args.cpu else 'wall'} time, "
          f"best of {args.rounds} rounds")  # fmt: skip
    print(f"{'measurement':42} {'baseline':>12} {'with it':>12} {'ratio':>8}")
    for label, baseline, measured_time, _ in measured:
        print(f"{label:42} {baseline * 1e6:10.1f}us {measured_time * 1e6:10.1f}us "
              f"{measured_time / baseline:8.3f}")  # fmt: skip
    print(
        "(baseline untraced, 'with it' traced; the 'off' rows: baseline the code before "
        "tracing (the embedding row: the method without the hook), 'with it' tracing "
        "configured then disabled)"
    )


if __name__ == "__main__":
    main()
