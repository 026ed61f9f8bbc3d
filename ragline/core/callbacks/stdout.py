"""StdOutCallbackHandler: what ``verbose=True`` prints."""

from __future__ import annotations

import sys
from typing import Any, TextIO
from uuid import UUID

from ragline.core.callbacks.base import BaseCallbackHandler

__all__ = ["StdOutCallbackHandler"]


class StdOutCallbackHandler(BaseCallbackHandler):
    """Print chain starts and ends, and any text runs report, to a stream.

    Args:
        stream: where to write (default ``sys.stdout``, looked up at each write so
            pytest's capture and redirects work).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> RunnableLambda(lambda x: x, name="echo").invoke(
        ...     1, {"callbacks": [StdOutCallbackHandler()]})  # doctest: +NORMALIZE_WHITESPACE
        > Entering new echo chain...
        > Finished chain.
        1
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def _write(self, text: str) -> None:
        stream = self._stream or sys.stdout
        stream.write(text)
        stream.flush()

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print ``> Entering new <name> chain...``."""
        self._write(f"\n> Entering new {kwargs.get('name') or 'chain'} chain...\n")

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print ``> Finished chain.``."""
        self._write("\n> Finished chain.\n")

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Print the error the chain raised."""
        self._write(f"\n> Chain failed: {type(error).__name__}: {error}\n")

    def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Print the text as is."""
        self._write(text + kwargs.get("end", "\n"))
