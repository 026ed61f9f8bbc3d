"""Embedding ahead of the index run, so the model never waits on the rest of the pipeline.

``index()`` takes chunks in batches: it hashes them, looks their keys up, embeds the new
ones and writes them to the store and the records, one step after another, so the model
sits idle while the rest runs (on a GPU the rest is slower than the model). Here the
chunks a run will embed (those whose keys are not recorded yet) are known before it
starts; a thread embeds them, in order and in large blocks, while ``index()`` works, and
its embedding calls are answered from what the thread has done. A text the thread was
not given (or that it has not reached because it stopped) is embedded on the spot, so
what is stored never depends on the plan being right.

The plan can grow while the thread runs (:meth:`EmbedAhead.plan`): ``index_paths``
plans each group of files as soon as they are read, split and hashed, so the model
starts on the first files while the rest are still being read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragline.embeddings import Embeddings

__all__ = ["EmbedAhead"]


class EmbedAhead(Embeddings):
    """Delegates to ``inner``; :meth:`start` embeds planned texts on a thread ahead.

    Args:
        inner: the embeddings that compute the vectors.
        block: texts per call the thread makes.
        first_block: texts of the thread's first call (default: ``block``); smaller, the
            model starts as soon as that many texts are planned. The calls after it double
            in size up to ``block``, each ending at or before the next multiple of
            ``block`` texts (e.g. 512, 1,024, 2,048, 512, then 4,096s): a first block
            followed at once by a full one left a GPU idle while the full one was read
            and split.
    """

    def __init__(self, inner: Embeddings, *, block: int, first_block: int | None = None) -> None:
        self.inner = inner
        self.block = block
        self.first_block = block if first_block is None else max(1, min(first_block, block))
        # text -> its vectors not yet handed out, one per planned occurrence (two chunks
        # of one text are embedded and counted twice, as index() would without the plan)
        self._ready: dict[str, list[np.ndarray]] = {}
        self._planned: dict[str, int] = {}
        self._queue: list[str] = []  # planned texts, in order; the thread is at _next
        self._next = 0
        self._size = self.first_block  # texts of the thread's next call, at most
        self._complete = True  # no more texts will be planned
        self._waiting = 0  # calls waiting for a planned text (the thread then takes a short block)
        self._last_call_waited = False  # for caller_waited()
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._finished = True
        self._error: BaseException | None = None
        # the thread's pace: texts embedded, seconds its calls took, and when its current
        # call started (None between calls), for time_left()
        self._embedded = 0
        self._busy = 0.0
        self._call_started: float | None = None

    def __getattr__(self, name: str) -> Any:  # embedding_identity, dimension ...
        return getattr(self.inner, name)

    def start(self, texts: Sequence[str]) -> None:
        """Embed ``texts`` (in this order) on a thread, ahead of the calls asking for them;
        the whole plan (``plan(texts, last=True)``)."""
        self.plan(texts, last=True)

    def plan(self, texts: Sequence[str], *, last: bool) -> None:
        """Add ``texts`` to what the thread embeds (started by the first call); ``last``:
        nothing more will be planned, so the thread embeds a last, shorter block and ends.

        Until then it waits for a full block (or a call waiting for a planned text).
        Calls are answered from the plan as it stands: a text planned after it was asked
        for is embedded twice.
        """
        with self._changed:
            if self._thread is None:
                if not texts and last:
                    return
                self._complete = False
                self._finished = False
                self._thread = threading.Thread(
                    target=self._run, name="ragline-embed-ahead", daemon=True
                )
                self._thread.start()
            elif self._complete:
                return  # a plan that was declared complete does not grow
            for text in texts:
                self._planned[text] = self._planned.get(text, 0) + 1
            self._queue.extend(texts)
            self._complete = last
            self._changed.notify_all()

    def close(self) -> None:
        """Stop the thread after its current block (the run is over or failed)."""
        with self._changed:
            self._stop.set()
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join()

    def _take(self) -> list[str]:
        """The thread's next block: empty when the plan is done or the run stopped."""
        with self._changed:
            while not self._stop.is_set():
                available = len(self._queue) - self._next
                # the size grows (doubles) with every call, but a call ends where a block
                # of the whole plan ends: index() takes batches of a block, each waiting
                # for its last text, so a last call that straddled two batches left both
                # to be written after the model was done
                block = min(self._size, self.block - self._next % self.block)
                if available >= block or self._complete or (available and self._waiting):
                    part = self._queue[self._next : self._next + block]
                    self._next += len(part)
                    self._size = min(2 * self._size, self.block)
                    return part
                self._changed.wait()
            return []

    def time_left(self) -> tuple[float, float] | None:
        """About how long the thread still embeds, and how long a text takes it: the
        planned texts it has not done at the pace of its calls so far, less the time
        its current call has run. None while the plan may still grow or before a call
        ended (no pace yet); ``(0, pace)`` once the thread is done."""
        with self._changed:
            if not self._embedded or not (self._complete or self._finished):
                return None
            pace = self._busy / self._embedded
            if self._finished:
                return 0.0, pace
            left = (len(self._queue) - self._embedded) * pace
            started = self._call_started
            running = time.perf_counter() - started if started is not None else 0.0
            return max(0.0, left - running), pace

    def caller_waited(self) -> bool:
        """Whether the last :meth:`embed_documents_array` call waited for the thread: its
        caller is ahead of the model, so work it does before its next call runs while the
        model embeds instead of after (False before any call)."""
        with self._changed:
            return self._last_call_waited

    def _run(self) -> None:
        try:
            while part := self._take():
                started = self._call_started = time.perf_counter()
                vectors = self.inner.embed_documents_array(part)
                ended = time.perf_counter()
                with self._changed:
                    for text, vector in zip(part, vectors, strict=True):
                        self._ready.setdefault(text, []).append(vector)
                    self._embedded += len(part)
                    self._busy += ended - started
                    self._call_started = None
                    self._changed.notify_all()
        except BaseException as error:  # raised again on the asking thread
            self._error = error
        finally:
            with self._changed:
                self._finished = True
                self._changed.notify_all()

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        found: dict[int, np.ndarray] = {}
        with self._changed:
            self._last_call_waited = False
            for position, text in enumerate(texts):
                if text not in self._planned:
                    continue
                while not self._ready.get(text) and not self._finished:
                    self._last_call_waited = True
                    self._waiting += 1
                    self._changed.notify_all()  # a thread waiting for a full block goes on
                    self._changed.wait()
                    self._waiting -= 1
                if not self._ready.get(text) and self._error is not None:
                    raise self._error
                vectors = self._ready.get(text)
                if vectors:
                    found[position] = vectors.pop(0)
                    self._planned[text] -= 1  # a repeat beyond the plan is embedded on the spot
                    if not self._planned[text]:
                        del self._planned[text], self._ready[text]
        missing = [position for position in range(len(texts)) if position not in found]
        if missing:
            computed = self.inner.embed_documents_array([texts[i] for i in missing])
            found.update(zip(missing, computed, strict=True))
        if not texts:
            return self.inner.embed_documents_array(texts)
        return np.stack([found[position] for position in range(len(texts))])

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries_array(texts)
