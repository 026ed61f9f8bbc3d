"""Keyword-index rows computed in a helper process, beside a GPU encoder (issue 25).

On a GPU the encoder embeds ~14,000 chunks/s, and the rest of ``index_paths`` runs on
one Python thread holding the GIL: the run is as fast as that thread. Tokenizing the new
chunks for the keyword index was its largest stage (~23 us of CPU per 1,000-character
chunk of ~100). :class:`RowsWorker` moves it into a child interpreter (a fresh
interpreter running :func:`main`: no fork of a process with threads, and
nothing of the parent's runtime registrations is needed), which keeps the run's term
numbering and answers each group of texts with its rows (``_text_index._Numbering.rows``,
the same function and numbering as in-process, so the same arrays). The parent's two
threads only pickle texts in and rows out.

The helper can only save time. Whatever goes wrong (it cannot start, dies, answers
garbage, or is slow past :data:`WAIT_SECONDS`), :class:`RowsWorker.results` returns
None from then on, and the caller computes the rows itself. It runs in its own session
(a Ctrl-C at the terminal reaches the parent only) and ends when its input closes:
:meth:`RowsWorker.close`, or the parent's death.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

__all__ = ["RowsWorker"]

# how long a commit waits for rows it asked for before computing them itself (the child
# is faster than the thread feeding it, so it is only ever reached when it is stuck)
WAIT_SECONDS = 60.0

Rows = tuple[np.ndarray, np.ndarray, np.ndarray]
_STOP = object()
_CHILD = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "from ragline.store_folder._rows_worker import main; main()"
)


class RowsWorker:
    """A child process turning groups of texts into keyword-index rows, in order.

    Args:
        vocabulary: the terms the numbering starts from (the index the next commit
            starts from).
        tokenizer: the keyword index's tokenizer options (``BM25Tokenizer.to_dict()``).
    """

    def __init__(self, vocabulary: Sequence[str], tokenizer: dict[str, Any]) -> None:
        # this ragline and this process's import path, not the working directory's (-I:
        # no current folder, PYTHON* variables or user site on the path; -c puts ours)
        root = str(Path(__file__).resolve().parents[2])
        path = json.dumps([root, *(entry for entry in sys.path if entry)])
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-c", _CHILD, path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C at the terminal is the parent's to handle
        )
        self.broken = False
        self._pending = 0  # groups sent whose rows are not collected
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._outbox.put((list(vocabulary), dict(tokenizer)))
        assert self._process.stdin is not None and self._process.stdout is not None
        for target, stream in ((self._send, self._process.stdin),
                               (self._receive, self._process.stdout)):  # fmt: skip
            threading.Thread(
                target=target, args=(stream,), name="ragline-keyword-rows", daemon=True
            ).start()

    @classmethod
    def start(cls, vocabulary: Sequence[str], tokenizer: dict[str, Any]) -> RowsWorker | None:
        """A started worker, or None where no child interpreter can be started (none
        known, or a frozen application: its executable would run the program again)."""
        if not sys.executable or getattr(sys, "frozen", False):
            return None
        try:
            return cls(vocabulary, tokenizer)
        except OSError:
            return None

    def submit(self, texts: Sequence[str]) -> None:
        """Ask for the rows of ``texts`` (after those asked before); returns at once."""
        self._pending += 1
        self._outbox.put(list(texts))

    def results(self) -> list[tuple[Rows, list[str]]] | None:
        """The rows of every group submitted and not collected yet, in order, each with
        the terms it added to the numbering; None when the worker failed (then always)."""
        collected = []
        while self._pending and not self.broken:
            try:
                answer = self._inbox.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                answer = None
            if not _well_formed(answer):
                self.broken = True
                self.close()
                return None
            self._pending -= 1
            collected.append(((answer[0], answer[1], answer[2]), answer[3]))
        return None if self.broken else collected

    def close(self) -> None:
        """End the child (its input closes) and reap it."""
        self._outbox.put(_STOP)
        process = self._process
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _send(self, stream: BinaryIO) -> None:
        if hasattr(signal, "SIGPIPE"):
            # a dead child is an EPIPE error here, never a SIGPIPE that ends this process
            # where the program restored its default action (command-line tools do)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})
        try:
            while (message := self._outbox.get()) is not _STOP:
                pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
                stream.flush()
        except (OSError, ValueError, pickle.PicklingError):
            self._inbox.put(None)  # the child is gone: whoever waits learns it now
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def _receive(self, stream: BinaryIO) -> None:
        try:
            while True:
                self._inbox.put(pickle.load(stream))
        except Exception:  # EOF (the child ended) or a damaged answer
            self._inbox.put(None)
        finally:
            with contextlib.suppress(OSError):
                stream.close()


def _well_formed(answer: Any) -> bool:
    return (
        isinstance(answer, tuple)
        and len(answer) == 4
        and all(isinstance(part, np.ndarray) for part in answer[:3])
        and isinstance(answer[3], list)
    )


def _serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The child: numbering kept across groups, one answer per group, until EOF."""
    from ragline.retrievers import BM25Tokenizer
    from ragline.store_folder._text_index import _Numbering

    vocabulary, options = pickle.load(requests)
    tokenizer = BM25Tokenizer.from_dict(options)
    numbers = _Numbering(vocabulary)
    while True:
        try:
            texts = pickle.load(requests)
        except EOFError:
            return
        known = len(numbers.vocabulary)
        answer = (*numbers.rows(texts, tokenizer), numbers.vocabulary[known:])
        pickle.dump(answer, answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


def main() -> None:
    """The child's entry point (see ``_CHILD``)."""
    # answers go to the real stdout only: anything printed while working goes to stderr
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr
    try:
        _serve(sys.stdin.buffer, answers)
    except (BrokenPipeError, KeyboardInterrupt):  # the parent is gone or stopped: so are we
        with contextlib.suppress(OSError):
            answers.close()  # what is left unsent is dropped (closed even if flushing fails)
