"""StdOutCallbackHandler: what ``verbose=True`` prints."""

from __future__ import annotations

import sys
from typing import Any, TextIO
from uuid import UUID

from ragline.core.callbacks.base import BaseCallbackHandler

__all__ = ["StdOutCallbackHandler"]


class StdOutCallbackHandler(BaseCallbackHandler):
    """Print chain starts and ends, agents' steps, and any text runs report, to a stream.

    An agent's step prints as the ReAct transcript: the action's log (the model's
    thought, action and input), then ``observation_prefix`` + the tool's output +
    ``llm_prefix`` when the executor passes those prefixes, then the final answer's log.

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

    def on_agent_action(self, action: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print the action's log (what the model wrote to choose it)."""
        self._write(action.log)

    def on_tool_end(
        self,
        output: Any,
        *,
        run_id: UUID,
        observation_prefix: str | None = None,
        llm_prefix: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Print the observation, between the prefixes an agent gives."""
        text = str(getattr(output, "content", output))
        before = "" if observation_prefix is None else f"\n{observation_prefix}"
        after = "" if llm_prefix is None else f"\n{llm_prefix}"
        self._write(before + text + after)

    def on_agent_finish(self, finish: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print the final answer's log."""
        self._write(finish.log + "\n")

    def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Print the text as is."""
        self._write(text + kwargs.get("end", "\n"))
