"""What OpenTelemetry tracing costs (issue 27): traced against untraced, in the same run.

    .venv/bin/python benchmarks/tracing.py [--rounds 31] [--no-minilm] [--no-local-model]

Traced means ``ragline.tracing.configure`` with an SDK ``TracerProvider`` whose
``BatchSpanProcessor`` hands the spans to an exporter that drops them (as a deployment
sends them from a background thread; the export itself is not ragline's cost). Content
capture is off (the default). Rows:

- ``retriever.invoke, bare``: FAISS (flat inner product, one OpenMP thread) of N
  documents with random unit vectors of 384 dimensions, the query embedder a dict
  lookup (the search and the framework, no model), k=4; N = 1,000 and 10,000;
- ``retriever.invoke, MiniLM query``: the same over 1,000 documents with the query
  embedded by MiniLM (ragline's offline default, a real model run in process, CPU,
  one thread): the retriever as an application calls it (traced, the query's
  embedding gets its own span). The 3% target's row, and its no-op-tracer row
  (ragline's handler with the API's no-op tracer, whose spans take the public
  ``start_span`` path: with the SDK's tracer ragline makes its spans below that path,
  ragline.tracing._sdk_spans, so since then the traced call can run fewer distinct
  functions than the no-op one, and the no-op row is no longer ragline's part alone);
- ``prompt | model | parser``: ``ChatPromptTemplate | chat model | StrOutputParser``
  ``invoke``, the model a fake that answers at once (the bare framework), then a real
  local model: a small GPT-2 with random weights built in process from its
  configuration (nothing is downloaded), 24 tokens by greedy ``generate`` on the CPU,
  one thread (``local_model_chain``). The 5% target's row;
- ``control``: the same untraced call on both sides: what this machine's noise looks
  like in the same measurement;
- ``off``: the same ``retriever.invoke`` and chain with tracing configured and then
  disabled, against the same calls with the default-handler check and the retriever's
  listener lookup taken out (the code as it was before tracing existed, patched in for
  the comparison); and an embedding call with tracing configured and then disabled
  against the method the class defines (the hook around the embedding methods is
  installed by ``configure`` and removed by ``disable``: the two are the same function,
  and the script says so). Target: nothing measurable.

Timing (``paired``): each round runs a block of calls of one side, then of the other,
the order swapped every round; a round gives one ratio (with it / baseline) from two
blocks measured a few milliseconds apart, so that a burst of load from other processes
falls on one round's pair rather than on one side. Per row: the median per-call time of
each side over the rounds, the median of the per-round ratios and their 25th-75th
percentiles (the spread), in CPU time of this process (the batch processor's export
thread included) and in wall time. A target is met when the median ratio is within it;
an ``off`` row is "not measurable" when the middle half of its ratios holds 1.

Then the garbage collector's share per row and side: the mean time per call spent in
collections and the full collections seen (a traced call's spans wait in the batch
processor's queue, reach the oldest generation, and so bring full collections, which
walk every object in the process: with MiniLM loaded, about half a million). A full
collection lands in one round, which the median ratio leaves out; the mean shows it.

Last, the function calls one bare ``retriever.invoke`` makes untraced, with the no-op
tracer and traced (cProfile's count: all, ragline's, OpenTelemetry's): a figure that load
does not move, to compare commits by on a shared machine.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
    """Switches tracing on (a batch processor, spans dropped) and off. ``noop``: the
    OpenTelemetry API's no-op tracer instead of the SDK's (ragline's handler runs, no
    span is made; the handler's public span path, not the direct one it takes with the
    SDK)."""

    active: _Tracing | None = None  # the one switched on, if any

    def __init__(self, *, noop: bool = False) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )
        from opentelemetry.trace import NoOpTracerProvider

        class Dropped(SpanExporter):
            exported = 0

            def export(self, spans: Any) -> SpanExportResult:
                Dropped.exported += len(spans)
                return SpanExportResult.SUCCESS

        self.exporter = Dropped
        self.provider: Any = NoOpTracerProvider()
        if not noop:
            self.provider = TracerProvider()
            self.provider.add_span_processor(BatchSpanProcessor(Dropped()))

    def on(self) -> None:
        import ragline.tracing

        ragline.tracing.configure(tracer_provider=self.provider)
        _Tracing.active = self

    def off(self) -> None:
        import ragline.tracing

        ragline.tracing.disable()
        _Tracing.active = None


def toggled(tracing: _Tracing, traced: bool, call: Callable[[int], Any]) -> Callable[[int], Any]:
    """``call`` with tracing switched on or off first (a tuple swap, in both)."""
    switch = tracing.on if traced else tracing.off
    wanted = tracing if traced else None

    def run(i: int) -> Any:
        if _Tracing.active is not wanted:
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


def local_model_chain(new_tokens: int = 24) -> Any | None:
    """``prompt | model | parser`` whose chat model is a real local model run in
    process: a small GPT-2 (2 layers, 128 wide, a byte vocabulary) with random
    weights, built from its configuration (nothing is downloaded), greedy ``generate``
    of ``new_tokens`` tokens on the CPU, one thread. Its answers are noise; its cost
    per reply is a small local model's (tens of ms). None (and a note) without torch
    and transformers."""
    try:
        import torch
        from transformers import GPT2Config, GPT2LMHeadModel
        from transformers.utils import logging as transformers_logging
    except ImportError as err:
        print(f"(local-model row skipped: {err})")
        return None
    from ragline.core import ChatPromptTemplate, SimpleChatModel, StrOutputParser

    torch.set_num_threads(1)
    torch.manual_seed(0)
    transformers_logging.set_verbosity_error()
    config = GPT2Config(vocab_size=256, n_positions=512, n_embd=128, n_layer=2, n_head=4,
                        bos_token_id=0, eos_token_id=0)  # fmt: skip
    network = GPT2LMHeadModel(config).eval()

    class TinyLocalChat(SimpleChatModel):
        @property
        def _llm_type(self) -> str:
            return "tiny-local-gpt2"

        def _call(self, messages: Any, stop: Any = None, **kwargs: Any) -> str:
            prompt = "\n".join(message.text for message in messages).encode()[-400:]
            ids = torch.tensor([list(prompt)])
            with torch.no_grad():
                out = network.generate(ids, attention_mask=torch.ones_like(ids),
                                       max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                                       do_sample=False, pad_token_id=0)  # fmt: skip
            return bytes(out[0, ids.shape[1] :].tolist()).decode("latin-1")

    prompt = ChatPromptTemplate.from_messages(
        [("system", "You answer in {language}."), ("human", "{question}")]
    )
    return prompt | TinyLocalChat() | StrOutputParser()


class Paired:
    """Two competitors' seconds per call, round by round (a round: ``calls`` calls of
    each, back to back); wall and CPU time both."""

    def __init__(self) -> None:
        self.wall: tuple[list[float], list[float]] = ([], [])
        self.cpu: tuple[list[float], list[float]] = ([], [])
        # per side: calls made, seconds in the garbage collector, full (gen 2) collections
        self.calls = [0, 0]
        self.gc_seconds = [0.0, 0.0]
        self.full_collections = [0, 0]

    def summary(self, clock: str) -> tuple[float, float, float, float, float]:
        """Median per-call seconds of each, the median of the per-round ratios (second
        / first) and their 25th and 75th percentiles."""
        first, second = self.wall if clock == "wall" else self.cpu
        ratios = [b / a for a, b in zip(first, second, strict=True) if a > 0]
        low, _, high = statistics.quantiles(ratios, n=4, method="inclusive")
        return (statistics.median(first), statistics.median(second),
                statistics.median(ratios), low, high)  # fmt: skip

    def added(self, clock: str) -> float:
        """The median of the per-round differences (second - first), seconds per call:
        what the second costs more, paired as the ratios are."""
        first, second = self.wall if clock == "wall" else self.cpu
        return statistics.median(b - a for a, b in zip(first, second, strict=True))


def paired(
    first: Callable[[int], Any], second: Callable[[int], Any], *, calls: int, rounds: int
) -> Paired:
    """Time ``first`` and ``second`` in alternation: each round runs ``calls`` calls of
    one, then of the other, the order swapped every round (so neither always runs
    second, after the other warmed a cache or while a burst of load began); a round's
    ratio compares two blocks a few milliseconds apart."""
    for function in (first, second):
        for i in range(min(calls, 20)):  # warm up
            function(i)
    result = Paired()
    collecting = _Collections()
    gc.callbacks.append(collecting)
    try:
        for round_ in range(rounds):
            order = ((0, first), (1, second)) if round_ % 2 == 0 else ((1, second), (0, first))
            for side, function in order:
                collecting.seconds, collecting.full = 0.0, 0
                wall, cpu = time.perf_counter(), time.process_time()
                for i in range(calls):
                    function(i)
                result.wall[side].append((time.perf_counter() - wall) / calls)
                result.cpu[side].append((time.process_time() - cpu) / calls)
                result.calls[side] += calls
                result.gc_seconds[side] += collecting.seconds
                result.full_collections[side] += collecting.full
    finally:
        gc.callbacks.remove(collecting)
    return result


class _Collections:
    """A ``gc.callbacks`` entry: seconds spent in collections and full collections seen
    (tracing's spans wait in the batch processor's queue, so they outlive a few young
    collections and reach the oldest generation; a full collection walks every object
    of the process, a loaded model's included)."""

    def __init__(self) -> None:
        self.seconds, self.full, self.began = 0.0, 0, 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.began = time.perf_counter()
            return
        self.seconds += time.perf_counter() - self.began
        self.full += info["generation"] == 2


# label, what is compared, the paired timings, the target ("3%", "5%", "off" or "")
Row = tuple[str, str, Paired, str]


def rows(rounds: int, *, minilm: bool = True, local_model: bool = True) -> list[Row]:
    tracing, noop = _Tracing(), _Tracing(noop=True)
    results: list[Row] = []

    def traced_pair(call: Callable[[int], Any], calls: int) -> Paired:
        return paired(toggled(tracing, False, call), toggled(tracing, True, call),
                      calls=calls, rounds=rounds)  # fmt: skip

    def noop_pair(call: Callable[[int], Any], calls: int) -> Paired:
        return paired(toggled(tracing, False, call), toggled(noop, True, call),
                      calls=calls, rounds=rounds)  # fmt: skip

    for documents in (1_000, 10_000):
        retriever, queries = retriever_of(documents)

        def search(i: int, retriever: Any = retriever, queries: list[str] = queries) -> Any:
            return retriever.invoke(queries[i % QUERIES])

        assert len(search(0)) == 4
        results.append((f"retriever.invoke, bare, {documents:,} docs", "traced",
                        traced_pair(search, 100 if documents == 1_000 else 20), ""))  # fmt: skip
        if documents == 1_000:
            results.append(("  ragline's part (no-op tracer)", "ragline",
                            noop_pair(search, 100), ""))  # fmt: skip
            control = toggled(tracing, False, search)
            results.append(("control: untraced vs untraced, same", "control",
                            paired(control, control, calls=100, rounds=rounds), ""))  # fmt: skip
    embedded_retriever = minilm_retriever() if minilm else None
    if embedded_retriever is not None:
        retriever, queries = embedded_retriever

        def embedded(i: int, retriever: Any = retriever, queries: list[str] = queries) -> Any:
            return retriever.invoke(queries[i % len(queries)])

        results.append(("retriever.invoke, MiniLM query, 1,000 docs", "traced",
                        traced_pair(embedded, 10), "3%"))  # fmt: skip
        results.append(("  ragline's part (no-op tracer)", "ragline",
                        noop_pair(embedded, 10), ""))  # fmt: skip
        control = toggled(tracing, False, embedded)
        results.append(("control: untraced vs untraced, same", "control",
                        paired(control, control, calls=10, rounds=rounds), ""))  # fmt: skip
    chain = chain_of(0.0)
    results.append(("prompt | model | parser, instant fake", "traced",
                    traced_pair(lambda i: chain.invoke(chain_input(i)), 100), ""))  # fmt: skip
    results.append(("  ragline's part (no-op tracer)", "ragline",
                    noop_pair(lambda i: chain.invoke(chain_input(i)), 100), ""))  # fmt: skip
    local = local_model_chain() if local_model else None
    if local is not None:
        local.invoke(chain_input(0))
        results.append(("prompt | local GPT-2 (24 tokens) | parser", "traced",
                        traced_pair(lambda i: local.invoke(chain_input(i)), 3), "5%"))  # fmt: skip
    tracing.on()
    tracing.off()  # configured once, then off: what 'off' means below
    retriever, queries = retriever_of(1_000)
    for label, call, calls in (
        ("off: retriever.invoke, 1,000 docs", lambda i: retriever.invoke(queries[i % QUERIES]),
         100),
        ("off: prompt | model (instant) | parser", lambda i: chain.invoke(chain_input(i)), 100),
    ):  # fmt: skip
        results.append((label, "off", paired(pre_tracing(call), same_call_patched(call),
                                             calls=calls, rounds=rounds), "off"))  # fmt: skip
    from ragline.embeddings import HashingEmbeddings

    hashing = HashingEmbeddings(dimension=64)
    method = type(hashing).embed_query  # tracing off: the class's own function, unwrapped
    unhooked = getattr(method, "__wrapped__", method)  # (older code kept a hook on it)
    print("(embed_query with tracing configured then disabled: "
          + ("the tracing hook around the method)" if unhooked is not method
             else "the class's own function, no hook)"))  # fmt: skip
    results.append(("off: embed_query (hashing, 64 dims)", "off",
                    paired(lambda i: unhooked(hashing, queries[i % QUERIES]),
                           lambda i: hashing.embed_query(queries[i % QUERIES]),
                           calls=200, rounds=rounds), "off"))  # fmt: skip
    tracing.provider.force_flush()
    print(f"(spans exported and dropped: {tracing.exporter.exported:,})")
    return results


def call_counts() -> list[tuple[str, int, int, int, int, int]]:
    """Function calls made by one ``retriever.invoke`` (FAISS, 1,000 docs, the lookup
    embedder) untraced, with the no-op tracer and traced: all, ragline's, OpenTelemetry's
    (cProfile's count of Python functions and builtins called), then the distinct Python
    functions run and OpenTelemetry's share of them. Unlike the timings, the same on a
    loaded machine: what a change to the traced path removed or added. The distinct
    count is the one that tracks the MiniLM row: there each call's tracing code runs
    after a forward pass that evicted the caches, so a function costs its cache misses
    once per call, however often it is called."""
    import cProfile
    import pstats

    retriever, queries = retriever_of(1_000)
    counted = []
    for label, tracing in (("untraced", None), ("no-op tracer", _Tracing(noop=True)),
                           ("traced", _Tracing())):  # fmt: skip
        if tracing is not None:
            tracing.on()
        for i in range(20):  # warm: caches and lazy imports filled
            retriever.invoke(queries[i])
        profile = cProfile.Profile()
        profile.runcall(retriever.invoke, queries[0])
        if tracing is not None:
            tracing.off()
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        by_file = [(key[0], calls) for key, (_, calls, *_) in stats.items()]

        def under(package: str, by_file: list[tuple[str, int]] = by_file) -> int:
            return sum(calls for path, calls in by_file if f"{os.sep}{package}{os.sep}" in path)

        every = sum(calls for _, calls in by_file)
        python = [path for path, _ in by_file if path != "~"]  # "~": builtins
        otel = sum(f"{os.sep}opentelemetry{os.sep}" in path for path in python)
        counted.append((label, every, under("ragline"), under("opentelemetry"),
                        len(python), otel))  # fmt: skip
    return counted


def verdict(target: str, ratio: float, low: float, high: float) -> str:
    if target == "off":  # nothing measurable: the middle half of the ratios holds 1
        return "not measurable" if low <= 1.0 <= high else "MEASURABLE"
    if target:
        limit = 1 + float(target.rstrip("%")) / 100
        return f"<= {target}: " + ("met" if ratio <= limit else "NOT met")
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM rows")
    parser.add_argument("--no-local-model", action="store_true", help="skip the GPT-2 row")
    args = parser.parse_args()
    if args.rounds < 3:
        parser.error("--rounds must be at least 3")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # MiniLM's loading bar
    before = os.getloadavg()[0]
    measured = rows(args.rounds, minilm=not args.no_minilm,
                    local_model=not args.no_local_model)  # fmt: skip
    print(f"load average (1 min) {before:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"{os.cpu_count()} cores; {args.rounds} rounds, medians")  # fmt: skip
    for clock in ("cpu", "wall"):
        print(f"\n{'CPU time of this process' if clock == 'cpu' else 'wall time'} per call")
        print(f"{'measurement':44}{'baseline':>11}{'with it':>11}{'added':>10}{'ratio':>8}"
              f"{'p25..p75':>15}  verdict")  # fmt: skip
        for label, _, timings, target in measured:
            first, second, ratio, low, high = timings.summary(clock)
            spread = f"{low:.3f}..{high:.3f}"
            added = timings.added(clock) * 1e6
            print(f"{label:44}{first * 1e6:9.1f}us{second * 1e6:9.1f}us{added:8.1f}us"
                  f"{ratio:8.3f}{spread:>15}  {verdict(target, ratio, low, high)}")  # fmt: skip
    print("\ngarbage collector: mean us per call in collections, and full collections "
          "(baseline / with it)")  # fmt: skip
    for label, _, timings, _ in measured:
        base, with_it = (timings.gc_seconds[side] * 1e6 / max(timings.calls[side], 1)
                         for side in (0, 1))  # fmt: skip
        print(f"  {label:44}{base:9.1f}us{with_it:9.1f}us"
              f"{timings.full_collections[0]:6} /{timings.full_collections[1]:3}")  # fmt: skip
    print("\nfunction calls in one retriever.invoke (bare, 1,000 docs; cProfile): all, "
          "ragline's, OpenTelemetry's; distinct Python functions run, OpenTelemetry's")  # fmt: skip
    for label, every, ours, otel, distinct, distinct_otel in call_counts():
        print(f"  {label:14}{every:6}{ours:6}{otel:6}{distinct:8}{distinct_otel:6}")
    print(
        "\n(baseline untraced and 'with it' traced; control rows: the same untraced call "
        "on both sides (the noise); 'off' rows: baseline the code before tracing (for "
        "embed_query the method without the hook), 'with it' tracing configured then "
        "disabled. added: the median of the per-round differences; ratio: the median of "
        "the per-round ratios; p25..p75: their middle half. A model-backed row's ratio "
        "depends on the model's speed on the machine: compare 'added' across runs)"
    )


if __name__ == "__main__":
    main()
