"""``ragline index``: load, split, embed and save files into a store folder.

The work is :func:`ragline.store_folder.index_paths`; this module parses the options and
prints the result. Ctrl-C (SIGINT) or SIGTERM stops the run cleanly: it commits what it
has embedded at the next batch boundary, says so and exits with 130 (a second Ctrl-C
stops at once, keeping the last checkpoint). ``--engine ray`` reads, splits and embeds
on a Ray cluster (:class:`ragline.indexing.RayEngine`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragline.cli._common import CommandError, Commands, add_embedding_option, note, warn
from ragline.core import IndexingInterrupted, StoreLockedError

if TYPE_CHECKING:
    from ragline.retrievers import BM25Tokenizer


def add_index_command(commands: Commands) -> None:
    index = commands.add_parser("index", help="load, split, embed and save a FAISS store")
    index.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to index")
    index.add_argument("--store", required=True, help="folder to write the store to")
    index.add_argument("--glob", default="**/*", help="files to take from folders (default: **/*)")
    index.add_argument(
        "--chunk-size", type=int, default=None, help="default: the store's, else 1000"
    )
    index.add_argument(
        "--chunk-overlap", type=int, default=None, help="default: the store's, else 150"
    )
    add_embedding_option(
        index,
        "%(choices)s; default: what the store was built with, else minilm (ONNX Runtime "
        "when the onnx extra is installed, else torch; minilm-torch: always torch; "
        "minilm-int8: ONNX with int8 weights, other vectors)",
    )
    index.add_argument(
        "--device",
        default=None,
        metavar="DEVICE",
        help="where minilm embeds: auto (a CUDA GPU when torch sees one, else ONNX Runtime "
        "on the CPU), cpu, cuda (every local GPU) or cuda:N (default: RAGLINE_DEVICE, else "
        "auto); the vectors are the same on each",
    )
    index.add_argument(
        "--full", action="store_true", help="also delete the chunks of files not given in this run"
    )
    encoding = index.add_mutually_exclusive_group()
    encoding.add_argument(
        "--encoding", default=None, help="text encoding of the files (default: utf-8)"
    )
    encoding.add_argument(
        "--autodetect-encoding",
        action="store_true",
        help="try a byte-order mark, utf-8, cp1252, then latin-1 for each file",
    )
    index.add_argument(
        "--strict",
        action="store_true",
        help="fail on a file that cannot be read (default: skip it with a warning)",
    )
    index.add_argument(
        "--keywords",
        default=None,
        metavar="SPEC",
        help="how the keyword (bm25, hybrid) index tokenizes: 'plain' (word tokens), or a "
        "language with options, e.g. 'english,stem,stopwords' or 'french,stopwords' "
        "(stem needs the stem extra); default: the store's, else plain. A change rebuilds "
        "the keyword index",
    )
    index.add_argument(
        "--index",
        choices=("auto", "flat", "hnsw", "ivf-pq", "ivf-sq8"),
        default=None,
        help="the faiss index: auto (exact up to 100,000 chunks, then rebuilt once as "
        "ivf-sq8), flat (exact), hnsw (HNSW32,SQ8), ivf-sq8, ivf-pq; the compressed ones "
        "keep full vectors on disk for exact re-ranking (default: the store's, else auto)",
    )
    index.add_argument(
        "--rebuild",
        action="store_true",
        help="start from an empty store (re-embeds everything; repairs a corrupted store)",
    )
    index.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for another run writing the same store (default: fail at once)",
    )
    index.add_argument(
        "--checkpoint-every",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="save what is embedded this often, so a killed run loses little (default: 30)",
    )
    ray = index.add_argument_group("distributed (--engine ray)")
    ray.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: read and embed in this process (default); ray: read, split and embed "
        "on a Ray cluster (needs the ray extra), the store staying here",
    )
    ray.add_argument(
        "--address",
        default=None,
        help="the Ray cluster: auto, host:6379 or ray://host:10001 (default: the one "
        "RAY_ADDRESS names, else a local Ray started for this run)",
    )
    ray.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="embedding workers (default: one per CPU of the cluster)",
    )
    index.set_defaults(handler=command_index)


def command_index(args: argparse.Namespace) -> int:
    """Index PATHs into the store, re-embedding only chunks that changed since the last run."""
    from ragline.store_folder import index_paths

    size, overlap = args.chunk_size, args.chunk_overlap
    if (size is not None and size <= 0) or (
        size is not None and overlap is not None and not 0 <= overlap < size
    ):
        raise CommandError(f"need 0 <= --chunk-overlap < --chunk-size, got {overlap} and {size}")
    if args.engine != "ray" and (args.address is not None or args.workers is not None):
        raise CommandError("--address and --workers go with --engine ray")
    if args.workers is not None and args.workers < 1:
        raise CommandError(f"--workers must be at least 1, got {args.workers}")
    if args.device is not None:
        from ragline.core import RaglineError
        from ragline.embeddings._device import DEVICE_ENV, requested_device

        try:
            requested_device(args.device, where="--device")
        except RaglineError as error:
            raise CommandError(str(error)) from error
        os.environ[DEVICE_ENV] = args.device  # read where the embedding is made
    stop = threading.Event()
    try:
        # signals after the engine: ray.init installs a SIGTERM handler that kills the
        # process at once (exit 15), before the run could stop and shut Ray down
        with _engine(args) as engine, _stop_on_signals(stop):
            result = index_paths(
                args.paths,
                args.store,
                glob=args.glob,
                embedding=args.embedding,
                chunk_size=size,
                chunk_overlap=overlap,
                cleanup="full" if args.full else "incremental",
                encoding=args.encoding,
                autodetect_encoding=args.autodetect_encoding,
                strict=args.strict,
                keyword_tokenizer=_keyword_tokenizer(args.keywords),
                rebuild=args.rebuild,
                wait=args.wait,
                checkpoint_seconds=args.checkpoint_every,
                stop=stop,
                show_progress=not args.quiet and sys.stderr.isatty(),
                progress_lines=not args.quiet and not sys.stderr.isatty(),
                note=lambda message: note(args, message),
                engine=engine,
                index=args.index,
            )
    except IndexingInterrupted as interrupted:
        print(f"ragline: interrupted: {interrupted}", file=sys.stderr)
        return 130
    except StoreLockedError as locked:  # the library's hint names its argument, not the flag
        from ragline.store_folder._lock import WAIT_HINT

        raise CommandError(
            str(locked).replace(WAIT_HINT, "pass --wait SECONDS to wait for it")
        ) from locked
    for skipped in result["skipped_files"]:
        warn(f"skipped {skipped.path}: {skipped.reason}")
    if not args.quiet:
        print(
            f"added {result['num_added']}, updated {result['num_updated']}, "
            f"skipped {result['num_skipped']}, deleted {result['num_deleted']}"
        )
    if result["skipped_files"]:
        count = len(result["skipped_files"])
        warn(
            f"{count} file{'s' if count > 1 else ''} could not be read and "
            f"{'were' if count > 1 else 'was'} not indexed (--strict to fail instead; "
            f"--encoding or --autodetect-encoding for text in another encoding)"
        )
    note(args, f"{args.store} holds {result['stored_chunks']} chunks")
    return 0


def _keyword_tokenizer(spec: str | None) -> BM25Tokenizer | None:
    """``--keywords``: 'plain' or 'LANGUAGE[,stem][,stopwords]' (None: the store's)."""
    from ragline.retrievers import BM25Tokenizer

    if spec is None:
        return None
    if spec == "plain":
        return BM25Tokenizer()
    language, *options = spec.split(",")
    unknown = sorted(set(options) - {"stem", "stopwords"})
    if not language or unknown:
        raise CommandError(
            f"--keywords {spec!r}: give 'plain' or a language followed by ',stem' and/or "
            f"',stopwords', e.g. 'english,stem,stopwords'"
        )
    return BM25Tokenizer(
        language=language, stem="stem" in options, stopwords="stopwords" in options
    )


@contextlib.contextmanager
def _engine(args: argparse.Namespace) -> Iterator[Any]:
    """The run's RayEngine (``--engine ray``), disconnected at the end; else None."""
    if args.engine != "ray":
        yield None
        return
    from ragline.indexing import RayEngine

    # the engine's warnings (workers over what the cluster runs at once) as ours
    handler = _WarnHandler(logging.WARNING)
    engine_log = logging.getLogger("ragline.indexing")
    engine_log.addHandler(handler)
    try:
        with RayEngine(address=args.address, workers=args.workers) as engine:
            yield engine  # closed however the run ends: a Ray it started stops with it
    finally:
        engine_log.removeHandler(handler)


class _WarnHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        warn(record.getMessage())


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C / SIGTERM set ``stop`` (the run commits and stops); a second one stops now
    (a KeyboardInterrupt, so every ``finally`` runs: a Ray the run started is shut down
    rather than left running)."""

    def handle(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print(
            "ragline: stopping after the current batch, keeping what is embedded "
            "(Ctrl-C again to stop at once)",
            file=sys.stderr,
        )

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
