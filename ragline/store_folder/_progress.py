"""What a person watching an indexing run sees: one bar for the whole run.

On a terminal, one bar counts the files loaded, then the chunks embedded (the documents
loaded and chunks skipped shown beside it), with the overall count, rate and time left;
a line says when the embedding model is loading (the first run also exports it to ONNX).
When the output is not a terminal (a pipe, a log file, CI) there is no bar: a line
every few seconds (``RAGLINE_PROGRESS_SECONDS``, default 5) says how many files are
loaded, then how many chunks of the total are embedded, at what rate and how long is
left, and one summary line at the end says what was embedded and how fast. The run's
first line says where the model embeds (device and precision). ``--quiet`` shows
nothing.

A distributed run (``--engine ray``) reads, embeds and writes at once, on many workers:
its bar counts the files read, with the documents, chunks embedded and chunks written
beside it, and its summary line gives the wall-clock rate over all workers.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ragline.embeddings import Embeddings

__all__ = ["IndexProgress"]


class IndexProgress:
    """Progress of one indexing run.

    Args:
        bar: draw a bar (on stderr); otherwise only ``note`` lines.
        note: where one-line messages go (``None``: nowhere).
    """

    def __init__(
        self, *, bar: bool, note: Callable[[str], None] | None = None, lines: bool = False
    ) -> None:
        self._note = note
        self._wants_bar = bar
        self._lines = lines and not bar  # periodic lines where no bar is drawn
        self._every = _line_seconds()
        self._last_line = time.monotonic()
        self._files = 0
        self._files_loaded = 0
        self._bar: Any = None
        self.documents = 0
        self.chunks = 0
        self.embedded = 0
        self.written = 0
        self._embed_seconds = 0.0
        self._workers = 0  # a distributed run's workers (0: this process embeds)
        # the model starts on the first files while the rest are read: what it embeds
        # before split() is counted, and shown once the bar counts chunks
        self._split = False
        self._counting = threading.Lock()  # the embedding thread counts while split() runs
        self._started = 0.0

    def note(self, message: str) -> None:
        """A one-line message (above the bar when there is one)."""
        if self._bar is not None:
            self._bar.write(message, file=sys.stderr)
        elif self._note is not None:
            self._note(message)

    # -- loading ----------------------------------------------------------------------

    def started(self, embeddings: Embeddings) -> None:
        """The run's first line: where and how the chunks are embedded."""
        where = getattr(embeddings, "describe_device", None)
        if callable(where):
            self.note(f"embedding on {where()}")

    def loading(self, files: int) -> None:
        """``files`` files are about to be loaded."""
        self._files = files
        if self._wants_bar and self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=files, unit="file", desc="loading", file=sys.stderr, **_screen())

    def file_loaded(self) -> None:
        self._files_loaded += 1
        if self._bar is not None:
            self._bar.update(1)
        elif self._due():
            self.note(f"loaded {self._files_loaded} of {self._files} files")

    def _due(self) -> bool:
        """Whether a progress line is due (only where no bar is drawn)."""
        if not self._lines:
            return False
        now = time.monotonic()
        if now - self._last_line < self._every:
            return False
        self._last_line = now
        return True

    # -- a distributed run --------------------------------------------------------------

    def distributed(self, files: int, workers: int) -> None:
        """A run on ``workers`` workers is about to read ``files`` files."""
        self._workers, self._started = workers, time.perf_counter()
        self.loading(files)
        self.note(f"reading {files} files, embedding on {workers} Ray workers")

    def loaded(self, item: Any, documents: int, error: str | None) -> None:
        """A worker read one file (``error``: it skipped it)."""
        self.documents += documents
        if self._bar is not None:
            self._bar.update(1)
            self._show_counts()

    def add_written(self, count: int) -> None:
        """``count`` chunks are in the store."""
        self.written += count
        self._show_counts()

    def _show_counts(self) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(
                f"{self.documents} documents, {self.embedded} chunks embedded, "
                f"{self.written} written"
            )

    # -- embedding --------------------------------------------------------------------

    def split(self, documents: int, chunks: int) -> None:
        """Loading is over: ``chunks`` chunks of ``documents`` documents go to the store."""
        with self._counting:
            self._split_now(documents, chunks)

    def _split_now(self, documents: int, chunks: int) -> None:
        self.documents, self.chunks = documents, chunks
        self._split = True
        if self._bar is not None:
            self._bar.unit = "chunk"
            self._bar.set_description("embedding", refresh=False)
            self._bar.set_postfix_str(f"{documents} documents", refresh=False)
            self._bar.reset(total=chunks)
            if self.embedded:
                self._bar.update(self.embedded)
        else:
            self.note(f"loaded {documents} documents, split into {chunks} chunks")
            if self.embedded and self._due():  # what the model did while files were read
                self.note(self._embedding_line())

    def watch(self, embeddings: Embeddings) -> Embeddings:
        """``embeddings``, counting what it embeds into this progress."""
        return _CountingEmbeddings(embeddings, self)

    def model_loading(self, embeddings: Embeddings) -> None:
        self.note(f"loading the embedding model: {_describe(embeddings)}")
        if self._bar is not None:
            self._bar.clear()  # the first load may log a line of its own (the ONNX export)

    def model_loaded(self) -> None:
        if self._bar is not None and self._split:  # else split() sets the bar
            self._bar.reset(total=self.chunks)  # the rate counts embedding, not loading
            self._bar.update(self.embedded)

    def add_embedded(self, count: int, seconds: float) -> None:
        with self._counting:
            self._add_embedded(count, seconds)

    def _add_embedded(self, count: int, seconds: float) -> None:
        self.embedded += count
        self._embed_seconds += seconds
        if not self._split and not self._workers:
            return  # still reading files: split() shows it
        if self._workers:  # a distributed bar counts files
            self._show_counts()
        elif self._bar is not None:
            self._bar.update(count)
        elif self._due():
            self.note(self._embedding_line())

    def _embedding_line(self) -> str:
        rate = self.embedded / self._embed_seconds if self._embed_seconds > 0 else 0.0
        total = max(self.chunks, self.embedded)
        left = (total - self.embedded) / rate if rate > 0 else 0.0
        share = 100 * self.embedded / total if total else 100.0
        return (
            f"embedded {self.embedded} of {total} chunks ({share:.0f}%), "
            f"{rate:.0f} chunks/s, {_duration(left)} left"
        )

    def finish(self, *, skipped: int) -> None:
        """The run is over: fill the bar (skipped chunks needed no embedding) or summarise."""
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.documents} documents, {skipped} unchanged")
            total = self._bar.total if self._workers else self.chunks
            self._bar.update(max(0, total - self._bar.n))
            self._bar.close()
            return
        if self._workers:
            wall = time.perf_counter() - self._started
            self.note(
                f"read {self.documents} documents into {self.chunks} chunks; embedded "
                f"{self.embedded} on {self._workers} Ray workers in {wall:.1f} s "
                f"({self.embedded / wall if wall > 0 else 0.0:.0f} chunks/s); {skipped} unchanged"
            )
            return
        rate = self.embedded / self._embed_seconds if self._embed_seconds > 0 else 0.0
        self.note(
            f"embedded {self.embedded} of {self.chunks} chunks in {self._embed_seconds:.1f} s"
            f" ({rate:.0f} chunks/s); {skipped} unchanged"
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _line_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("RAGLINE_PROGRESS_SECONDS", "5")))
    except ValueError:
        return 5.0


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 2 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _screen() -> dict[str, int]:
    """Size options for tqdm when the terminal reports none: tqdm would draw an empty
    bar on a terminal of 0 columns and 0 rows (a pseudo-terminal nobody sized)."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):
        return {}
    if size.columns > 0 and size.lines > 0:
        return {}  # tqdm asks the terminal itself
    fallback = shutil.get_terminal_size((100, 24))
    return {"ncols": fallback.columns or 100, "nrows": fallback.lines or 24}


def _describe(embeddings: Embeddings) -> str:
    identity = getattr(embeddings, "embedding_identity", None)
    if isinstance(identity, dict):
        return f"{identity.get('model')} ({identity.get('backend')} {identity.get('precision')})"
    return type(embeddings).__name__


class _CountingEmbeddings(Embeddings):
    """Delegates to ``inner``; reports texts embedded (and the first call's model load)."""

    def __init__(self, inner: Embeddings, progress: IndexProgress) -> None:
        self.inner = inner
        self.progress = progress
        self._warm = False

    def __getattr__(self, name: str) -> Any:  # embedding_identity, dimension ...
        return getattr(self.inner, name)

    def _warm_up(self) -> None:
        if self._warm:
            return
        self._warm = True
        warm_up = getattr(self.inner, "warm_up", None)
        if callable(warm_up):
            self.progress.model_loading(self.inner)
            warm_up()
            self.progress.model_loaded()

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        self._warm_up()
        started = time.perf_counter()
        vectors = self.inner.embed_documents_array(texts)
        self.progress.add_embedded(len(vectors), time.perf_counter() - started)
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries_array(texts)
