"""Output parsers: turn a model's output (text or a message) into what the program needs.

A parser is a Runnable reported as a ``parser`` run. At the end of
``prompt | model | parser`` it streams: ``StrOutputParser`` passes each token on as it
arrives, and ``JsonOutputParser`` yields progressively more complete objects while the
JSON is still being written.

Example:
    >>> from ragline.core import FakeListChatModel
    >>> chain = FakeListChatModel(responses=["ok"]) | StrOutputParser()
    >>> list(chain.stream("hi"))
    ['o', 'k']
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Iterator
from typing import Any, Generic, TypeVar

from ragline.core._partial_json import PartialJsonScanner, parse_json_markdown
from ragline.core.callbacks.base import stream_taps
from ragline.core.config import ensure_config, get_current_config, use_config
from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import BaseMessage
from ragline.core.runnables.base import Runnable

__all__ = [
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "CommaSeparatedListOutputParser",
    "JsonOutputParser",
    "StrOutputParser",
]

T = TypeVar("T")
_EXCERPT = 200


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return value.text
    raise InvalidInputError(
        f"an output parser takes a str or a message, got {type(value).__name__}"
    )


class BaseOutputParser(Runnable[Any, T], Generic[T]):
    """Base of output parsers; implement ``parse(text)``.

    ``invoke`` accepts a string or a message (its text is parsed) and reports a
    ``parser`` run to callbacks.
    """

    @abstractmethod
    def parse(self, text: str) -> T:
        """Parse the model's text.

        Raises:
            InvalidInputError: the text is not what this parser expects.
        """

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> T:
        """Parse one model output (a str or a message)."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(
            lambda x: self.parse(_text_of(x)), input, config, run_type="parser"
        )

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> T:
        """Async ``invoke`` (parsing is quick, so it runs inline)."""
        self._reject_kwargs(kwargs)

        async def parse(value: Any) -> T:
            return self.parse(_text_of(value))

        return await self._acall_with_config(parse, input, config, run_type="parser")

    def get_format_instructions(self) -> str:
        """Instructions for the prompt that make the model's output parseable."""
        return ""

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        from ragline.core._json_schema import any_message_schema

        return {"anyOf": [{"type": "string"}, any_message_schema(defs)]}


class BaseTransformOutputParser(BaseOutputParser[T]):
    """A parser that streams: each input chunk is parsed and passed on at once."""

    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[T]:
        for chunk in chunks:
            yield self.parse(_text_of(chunk))

    def transform(self, input: Iterator[Any], config: Any = None, **kwargs: Any) -> Iterator[T]:
        """Parse a stream of chunks, yielding as each arrives."""
        self._reject_kwargs(kwargs)
        yield from _stream_run(self, input, self._parse_chunks, config, self._combine)

    def atransform(
        self, input: AsyncIterator[Any], config: Any = None, **kwargs: Any
    ) -> AsyncIterator[T]:
        """Async ``transform``."""
        self._reject_kwargs(kwargs)
        return _astream_run(self, input, self._aparse_chunks, config, self._combine)

    async def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[T]:
        async for chunk in chunks:
            yield self.parse(_text_of(chunk))

    def _combine(self, total: Any, piece: Any) -> Any:
        """How the run's output is built from the streamed pieces (here: added up)."""
        return total + piece

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[T]:
        """Parse one whole output, as a stream (one or more pieces)."""
        yield from self.transform(iter([input]), config, **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[T]:
        """Async ``stream``."""

        async def one() -> AsyncIterator[Any]:
            yield input

        return self.atransform(one(), config, **kwargs)


class StrOutputParser(BaseTransformOutputParser[str]):
    """The text of the model's output; streams token by token.

    Example:
        >>> from ragline.core import AIMessage
        >>> StrOutputParser().invoke(AIMessage("Paris"))
        'Paris'
    """

    def parse(self, text: str) -> str:
        return text

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string"}


class JsonOutputParser(BaseTransformOutputParser[Any]):
    """Parse JSON from the model, also inside a Markdown ```json fence.

    Streaming yields the object parsed so far each time a chunk makes it grow, e.g.
    ``{}``, ``{"answer": "Pa"}``, ``{"answer": "Paris"}`` ... (text that is not yet valid
    JSON is held back until more arrives).

    Example:
        >>> JsonOutputParser().invoke('```json\\n{"answer": "Paris"}\\n```')
        {'answer': 'Paris'}
    """

    def parse(self, text: str) -> Any:
        try:
            return parse_json_markdown(text)
        except ValueError as err:
            excerpt = text if len(text) <= _EXCERPT else text[: _EXCERPT - 3] + "..."
            raise InvalidInputError(f"model output is not valid JSON ({err}): {excerpt!r}") from err

    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[Any]:
        progress = _JsonProgress()
        for chunk in chunks:
            if progress.add(_text_of(chunk)):
                yield progress.last
        if progress.text and progress.last is _NOT_YET:
            self.parse(progress.text)  # nothing ever parsed: raise the full error

    async def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        progress = _JsonProgress()
        async for chunk in chunks:
            if progress.add(_text_of(chunk)):
                yield progress.last
        if progress.text and progress.last is _NOT_YET:
            self.parse(progress.text)

    def _combine(self, total: Any, piece: Any) -> Any:
        return piece  # each object replaces the previous one: it is not a delta

    def get_format_instructions(self) -> str:
        return "Return a JSON object and nothing else."


class _JsonProgress:
    """The text of one JSON stream so far and the last object parsed from it."""

    def __init__(self) -> None:
        self.text = ""
        self.last: Any = _NOT_YET
        self._scanner = PartialJsonScanner()  # resumes where the previous chunk ended

    def add(self, piece: str) -> bool:
        """Add a chunk; True when it makes the parsed object change."""
        self.text += piece
        try:
            parsed = parse_json_markdown(self.text, partial=True, scanner=self._scanner)
        except ValueError:
            return False  # not JSON yet (e.g. only the opening fence has arrived)
        if parsed == self.last:
            return False
        self.last = parsed
        return True


class CommaSeparatedListOutputParser(BaseOutputParser[list[str]]):
    """Split ``"a, b, c"`` into ``["a", "b", "c"]``.

    Example:
        >>> CommaSeparatedListOutputParser().parse("red, green,blue")
        ['red', 'green', 'blue']
    """

    def parse(self, text: str) -> list[str]:
        return [item.strip() for item in text.split(",") if item.strip()]

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}}

    def get_format_instructions(self) -> str:
        return "Answer with a comma-separated list of values, e.g. `foo, bar, baz`."


_NOT_YET: Any = object()


# The parser's run starts when its first input chunk arrives and ends when the input is
# exhausted (or the consumer stops early), reporting the combined text as its input.
# Upstream chunks are pulled in the caller's context, not in this run's: a model streaming
# into this parser is the parser's sibling in the run tree, not its child.
def _tap(run: Any, parsed: Any) -> None:
    for tap in stream_taps(run.handlers):  # astream_events: on_parser_stream
        tap.on_stream_chunk(parsed, run_id=run.run_id)


def _stream_run(
    parser: BaseTransformOutputParser[Any],
    input: Iterator[Any],
    parse_chunks: Any,
    config: Any,
    combine: Any,
) -> Iterator[Any]:
    outer = get_current_config()
    config = ensure_config(config)
    texts: list[str] = []
    run: Any = None

    def pull() -> Iterator[Any]:
        nonlocal run
        while True:
            with use_config(outer):
                chunk = next(input, _NOT_YET)
            if chunk is _NOT_YET:
                return
            if run is None:
                run = parser._start_run(None, config, "parser", streamed_input=True)
            texts.append(_text_of(chunk))
            yield chunk

    output: Any = _NOT_YET
    try:
        for parsed in parse_chunks(pull()):
            output = parsed if output is _NOT_YET else combine(output, parsed)
            if run.handlers:
                _tap(run, parsed)
            yield parsed
    except GeneratorExit:
        if run is not None:
            run.on_chain_end(None if output is _NOT_YET else output, inputs="".join(texts))
        raise
    except BaseException as err:
        if run is not None:
            run.on_chain_error(err, inputs="".join(texts))
        raise
    if run is not None:
        run.on_chain_end(None if output is _NOT_YET else output, inputs="".join(texts))


async def _astream_run(
    parser: BaseTransformOutputParser[Any],
    input: AsyncIterator[Any],
    parse_chunks: Any,
    config: Any,
    combine: Any,
) -> AsyncIterator[Any]:
    outer = get_current_config()
    config = ensure_config(config)
    texts: list[str] = []
    run: Any = None
    upstream = input.__aiter__()

    async def pull() -> AsyncIterator[Any]:
        nonlocal run
        while True:
            with use_config(outer):
                chunk = await anext(upstream, _NOT_YET)
            if chunk is _NOT_YET:
                return
            if run is None:
                run = await parser._astart_run(None, config, "parser", streamed_input=True)
            texts.append(_text_of(chunk))
            yield chunk

    output: Any = _NOT_YET
    pulled = pull()
    parsed_chunks = parse_chunks(pulled)
    try:
        async for parsed in parsed_chunks:
            output = parsed if output is _NOT_YET else combine(output, parsed)
            if run.handlers:
                _tap(run, parsed)
            yield parsed
    except GeneratorExit:
        # Async generators are not closed when dropped: close the upstream stream (a
        # model's) now, so its run ends and its HTTP response is released.
        for source in (parsed_chunks, pulled, upstream):
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()
        if run is not None:
            await run.aon_chain_end(None if output is _NOT_YET else output, inputs="".join(texts))
        raise
    except BaseException as err:
        if run is not None:
            await run.aon_chain_error(err, inputs="".join(texts))
        raise
    if run is not None:
        await run.aon_chain_end(None if output is _NOT_YET else output, inputs="".join(texts))
