"""StdOutCallbackHandler: what ``verbose=True`` prints, and the colours it prints in.

The printed form is LangChain's, byte for byte, so a program's captured output is the
same in both: the chain lines are bold and follow a blank line, and text a run reports
with a colour (an agent's thoughts, each tool's observation, a formatted prompt, each
step of a sequence) is wrapped in that colour's ANSI codes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO, cast
from uuid import UUID

from ragline.core.callbacks.base import BaseCallbackHandler

__all__ = [
    "FileCallbackHandler",
    "StdOutCallbackHandler",
    "get_color_mapping",
    "get_colored_text",
    "print_text",
]

# The colours a handler can print in, as ANSI select-graphic-rendition codes.
_COLOR_CODES = {
    "blue": "36;1",
    "yellow": "33;1",
    "pink": "38;5;200",
    "green": "32;1",
    "red": "31;1",
}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def get_colored_text(text: str, color: str) -> str:
    """``text`` in ``color`` (one of blue, yellow, pink, green, red), bold and italic.

    Example:
        >>> get_colored_text("hi", "green")
        '\\x1b[32;1m\\x1b[1;3mhi\\x1b[0m'
    """
    try:
        code = _COLOR_CODES[color]
    except KeyError:
        raise ValueError(f"color {color!r} is not one of {', '.join(_COLOR_CODES)}") from None
    return f"\x1b[{code}m\x1b[1;3m{text}{_RESET}"


def get_color_mapping(
    items: Sequence[str], excluded_colors: Sequence[str] | None = None
) -> dict[str, str]:
    """Give each item a colour, in turn, cycling through the colours not excluded.

    Example:
        >>> get_color_mapping(["a", "b", "c", "d"], excluded_colors=["green", "red"])
        {'a': 'blue', 'b': 'yellow', 'c': 'pink', 'd': 'blue'}
    """
    colors = [c for c in _COLOR_CODES if c not in (excluded_colors or ())]
    if not colors:
        raise ValueError("every color is excluded: no color is left to map items to")
    return {item: colors[index % len(colors)] for index, item in enumerate(items)}


def print_text(
    text: str, color: str | None = None, end: str = "", file: TextIO | None = None
) -> None:
    """Print ``text`` (in ``color`` when given) followed by ``end``, to ``file`` (default
    ``sys.stdout``), flushing a given file: what a verbose handler prints with.

    Example:
        >>> print_text("done", end="\\n")
        done
    """
    print(get_colored_text(text, color) if color else text, end=end, file=file)
    if file is not None:
        file.flush()


class StdOutCallbackHandler(BaseCallbackHandler):
    """Print chain starts and ends, agents' steps, and any text runs report, to a stream.

    An agent's step prints as the ReAct transcript: the action's log (the model's
    thought, action and input), then ``observation_prefix`` + the tool's output +
    ``llm_prefix`` when the executor passes those prefixes, then the final answer's log.
    Text given a ``color`` (or any text, when the handler has one) prints in it.

    Args:
        color: the colour of text that is reported without one (default: plain).
        stream: where to write (default ``sys.stdout``, looked up at each write so
            pytest's capture and redirects work).

    Example:
        >>> import io
        >>> from ragline.core import RunnableLambda
        >>> out = io.StringIO()
        >>> RunnableLambda(lambda x: x, name="echo").invoke(
        ...     1, {"callbacks": [StdOutCallbackHandler(stream=out)]})
        1
        >>> out.getvalue().replace("\\x1b", "^")
        '\\n\\n^[1m> Entering new echo chain...^[0m\\n\\n^[1m> Finished chain.^[0m\\n'
    """

    # a subclass whose own __init__ skips this one's still writes to sys.stdout, as
    # LangChain's does (its chain lines need no attribute; text needs ``color``)
    _stream: TextIO | None = None

    def __init__(self, color: str | None = None, *, stream: TextIO | None = None) -> None:
        self.color = color
        self._stream = stream

    def _write(self, text: str) -> None:
        stream = self._stream or sys.stdout
        stream.write(text)
        stream.flush()

    def _print(self, text: Any, color: str | None, end: str = "") -> None:
        """Text a run reports: in its colour, else in the handler's, else plain."""
        color = color or self.color
        self._write((get_colored_text(text, color) if color else str(text)) + end)

    # the codes around the chain lines: bold here, none in FileCallbackHandler's file
    _chain_codes = (_BOLD, _RESET)

    def _chain_line(self, text: str) -> str:
        before, after = self._chain_codes
        return f"{before}{text}{after}"

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print ``> Entering new <name> chain...`` in bold, after a blank line (the
        ``name=`` given, even ``None``, as LangChain's handler prints it; else the
        serialized name)."""
        if "name" in kwargs:
            name = kwargs["name"]
        elif serialized:
            name = serialized.get("name", serialized.get("id", ["<unknown>"])[-1])
        else:
            name = "<unknown>"
        self._write(f"\n\n{self._chain_line(f'> Entering new {name} chain...')}\n")

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Print ``> Finished chain.`` in bold, after a line break."""
        self._write(f"\n{self._chain_line('> Finished chain.')}\n")

    def on_agent_action(
        self, action: Any, *, run_id: UUID, color: str | None = None, **kwargs: Any
    ) -> None:
        """Print the action's log (what the model wrote to choose it)."""
        self._print(action.log, color)

    def on_tool_end(
        self,
        output: Any,
        *,
        run_id: UUID,
        color: str | None = None,
        observation_prefix: str | None = None,
        llm_prefix: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Print the observation, between the prefixes an agent gives."""
        if observation_prefix is not None:
            self._write(f"\n{observation_prefix}")
        self._print(getattr(output, "content", output), color)
        if llm_prefix is not None:
            self._write(f"\n{llm_prefix}")

    def on_agent_finish(
        self, finish: Any, *, run_id: UUID, color: str | None = None, **kwargs: Any
    ) -> None:
        """Print the final answer's log."""
        self._print(finish.log, color, end="\n")

    def on_text(
        self, text: str, *, run_id: UUID, color: str | None = None, end: str = "", **kwargs: Any
    ) -> None:
        """Print the text, in ``color`` if given, followed by ``end`` (default nothing)."""
        self._print(text, color, end)


class FileCallbackHandler(StdOutCallbackHandler):
    """What :class:`StdOutCallbackHandler` prints, written to a file instead: the chain
    lines without bold, text given a colour in its ANSI codes, as LangChain's handler
    writes them.

    The file is opened (UTF-8) when the handler is made; ``close()`` or a ``with`` block
    closes it.

    Args:
        filename: the file to write.
        mode: how to open it (``"a"`` appends, the default; ``"w"`` starts it over).
        color: the colour of text reported without one (default: plain).

    Example:
        >>> import os, tempfile
        >>> from ragline.core import RunnableLambda
        >>> path = os.path.join(tempfile.mkdtemp(), "run.log")
        >>> with FileCallbackHandler(path) as handler:
        ...     RunnableLambda(lambda x: x, name="echo").invoke(1, {"callbacks": [handler]})
        1
        >>> open(path).read()
        '\\n\\n> Entering new echo chain...\\n\\n> Finished chain.\\n'
    """

    _chain_codes = ("", "")

    def __init__(self, filename: str, mode: str = "a", color: str | None = None) -> None:
        self.filename = filename
        self.mode = mode
        self.file = cast(TextIO, open(filename, mode, encoding="utf-8"))  # noqa: SIM115
        super().__init__(color, stream=self.file)

    def __enter__(self) -> FileCallbackHandler:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Flush and close the file (again: nothing)."""
        self.file.close()  # flushes first; closing a closed file does nothing

    def __del__(self) -> None:
        if hasattr(self, "file"):  # not when open() failed in __init__
            self.close()
