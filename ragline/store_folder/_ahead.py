"""Embedding ahead of the index run, so the model never waits on the rest of the pipeline.

``index()`` takes chunks in batches: it hashes them, looks their keys up, embeds the new
ones and writes them to the store and the records, one step after another, so the model
sits idle while the rest runs (on a GPU the rest is slower than the model). Here the
chunks a run will embed (those whose keys are not recorded yet) are known before it
starts; a thread embeds them, in order and in large blocks, while ``index()`` works, and
its embedding calls are answered from what the thread has done. A text the thread was
not given (or that it has not reached because it stopped) is embedded on the spot, so
what is stored never depends on the plan being right.
"""

from __future__ import annotations

import threading
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
    """

    def __init__(self, inner: Embeddings, *, block: int) -> None:
        self.inner = inner
        self.block = block
        # text -> its vectors not yet handed out, one per planned occurrence (two chunks
        # of one text are embedded and counted twice, as index() would without the plan)
        self._ready: dict[str, list[np.ndarray]] = {}
        self._planned: dict[str, int] = {}
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._finished = True
        self._error: BaseException | None = None

    def __getattr__(self, name: str) -> Any:  # embedding_identity, dimension ...
        return getattr(self.inner, name)

    def start(self, texts: Sequence[str]) -> None:
        """Embed ``texts`` (in this order) on a thread, ahead of the calls asking for them."""
        if not texts or self._thread is not None:
            return
        self._planned = {}
        for text in texts:
            self._planned[text] = self._planned.get(text, 0) + 1
        self._finished = False
        self._thread = threading.Thread(
            target=self._run, args=(list(texts),), name="ragline-embed-ahead", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop the thread after its current block (the run is over or failed)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self, texts: list[str]) -> None:
        try:
            for start in range(0, len(texts), self.block):
                if self._stop.is_set():
                    break
                part = texts[start : start + self.block]
                vectors = self.inner.embed_documents_array(part)
                with self._changed:
                    for text, vector in zip(part, vectors, strict=True):
                        self._ready.setdefault(text, []).append(vector)
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
            for position, text in enumerate(texts):
                if text not in self._planned:
                    continue
                while not self._ready.get(text) and not self._finished:
                    self._changed.wait()
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
