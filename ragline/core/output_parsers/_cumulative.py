"""``BaseCumulativeTransformOutputParser``: a streaming parser that re-reads all it has.

Each chunk is added to what came before (as generation chunks, so a message's fields add
up too) and the whole is parsed again with ``parse_result(..., partial=True)``; every
result that differs from the previous one is yielded (or, with ``diff=True``, what
``_diff`` makes of the two). A subclass writes ``parse_result`` (and ``parse``), as
LangChain's JSON parsers do; one that needs its own loop overrides ``_transform`` /
``_atransform``, LangChain's hooks, which this class's streaming calls.

Example:
    >>> from ragline.core import Generation
    >>> class Words(BaseCumulativeTransformOutputParser):
    ...     def parse(self, text):
    ...         return text.split()
    ...     def parse_result(self, result, *, partial=False):
    ...         return self.parse(result[0].text)
    >>> list(Words().transform(iter(["a b", " c"])))
    [['a', 'b'], ['a', 'b', 'c']]
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import BaseMessage, BaseMessageChunk
from ragline.core.output_parsers._base import BaseTransformOutputParser

T = TypeVar("T")


def _as_generation_chunk(chunk: Any) -> Any:
    """A streamed piece as the generation chunk that adds up with the others."""
    from ragline.core.language_models import ChatGenerationChunk, GenerationChunk

    message: Any = None  # any message chunk: a generation chunk adds up each kind
    if isinstance(chunk, BaseMessageChunk):
        message = chunk
    elif isinstance(chunk, BaseMessage):
        # a whole message in a stream: a chunk of it, so later pieces add to it
        message = BaseMessageChunk(
            content=chunk.content,
            additional_kwargs=dict(chunk.additional_kwargs),
            response_metadata=dict(chunk.response_metadata),
            name=chunk.name,
            id=chunk.id,
        )
    else:
        return GenerationChunk(text=chunk)
    return ChatGenerationChunk(message=message)


def _added(total: Any, piece: Any) -> Any:
    """``total + piece``; for a stream that mixes whole messages and message chunks (two
    message classes, which ``+`` keeps apart), the piece's common fields (content,
    additional_kwargs, response_metadata, name) join the first piece's class and keep its
    id, as LangChain's parsers add them."""
    try:
        return total + piece
    except TypeError:
        from ragline.core.language_models import ChatGenerationChunk

        if not (isinstance(total, ChatGenerationChunk) and isinstance(piece, ChatGenerationChunk)):
            raise
    fields = BaseMessageChunk._merged_fields(total.message, piece.message)
    fields["id"] = total.message.id
    info = {**(total.generation_info or {}), **(piece.generation_info or {})}
    return ChatGenerationChunk(
        message=dataclasses.replace(total.message, **fields), generation_info=info or None
    )


class BaseCumulativeTransformOutputParser(BaseTransformOutputParser[T]):
    """Base of parsers that stream by parsing everything received so far (see the
    module docstring). ``diff``: yield ``_diff(previous, current)`` instead of each
    new result."""

    diff: bool = False

    def _diff(self, prev: Any, next: Any) -> Any:
        """What to yield for a new result when ``diff`` is on; a subclass decides."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _diff")

    def _parse_output(self, value: Any) -> T:
        # a whole output goes through parse_result, the subclass's entry point
        from ragline.core.output_parsers._base import _generations

        return self.parse_result(_generations(value))

    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> T:
        """Parse the first generation's text with ``parse`` (a subclass that reads partial
        output overrides this)."""
        if not result:
            raise InvalidInputError("parse_result needs at least one generation")
        return self.parse(result[0].text)

    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[Any]:
        return self._transform(chunks)

    def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        return self._atransform(chunks)

    def _transform(self, input: Iterator[Any]) -> Iterator[Any]:
        previous: Any = None
        total: Any = None
        for chunk in input:
            piece = _as_generation_chunk(chunk)
            total = piece if total is None else _added(total, piece)
            parsed = self.parse_result([total], partial=True)
            if parsed is not None and parsed != previous:
                yield self._diff(previous, parsed) if self.diff else parsed
                previous = parsed

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[Any]:
        previous: Any = None
        total: Any = None
        async for chunk in input:
            piece = _as_generation_chunk(chunk)
            total = piece if total is None else _added(total, piece)
            parsed = await self.aparse_result([total], partial=True)
            if parsed is not None and parsed != previous:
                yield self._diff(previous, parsed) if self.diff else parsed
                previous = parsed

    def _combine(self, total: Any, piece: Any) -> Any:
        # the run's output: pieces that add up (text) are added, others replace
        try:
            return total + piece
        except TypeError:
            return piece


class StreamsByProgress:
    """Put first among the bases of a parser that is a
    :class:`BaseCumulativeTransformOutputParser` by class, as its LangChain namesake is
    (``isinstance`` checks and subclasses see the same tree), but follows its own
    :class:`~ragline.core.output_parsers._base.StreamProgress` when streaming and parses
    a whole result with its ``_parse_output``: the JSON and tool-call parsers. Each such
    parser writes ``_parse_partial`` (what ``parse_result(..., partial=True)`` returns).

    A subclass that overrides ``parse_result`` (LangChain's hook, usually calling
    ``super().parse_result(result, partial=partial)``) is run LangChain's way: ``invoke``
    hands it the generation, and streaming re-reads everything so far with
    ``partial=True``, as :class:`BaseCumulativeTransformOutputParser` does.
    """

    _parse_chunks = BaseTransformOutputParser._parse_chunks
    _aparse_chunks = BaseTransformOutputParser._aparse_chunks

    if TYPE_CHECKING:

        def _parse_output(self, value: Any) -> Any: ...

        def _parse_partial(self, value: Any) -> Any: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.parse_result is StreamsByProgress.parse_result:
            return  # ragline's parsers: nothing to reroute, no cost per call
        if cls._parse_output is not _parse_through_result:  # the first such subclass
            cls._parse_whole = cls._parse_output  # type: ignore[method-assign]
        cls._parse_output = _parse_through_result  # type: ignore[method-assign,assignment]
        cls._parse_chunks = BaseCumulativeTransformOutputParser._parse_chunks  # type: ignore[assignment]
        cls._aparse_chunks = BaseCumulativeTransformOutputParser._aparse_chunks  # type: ignore[assignment]

    def _parse_whole(self, value: Any) -> Any:
        return self._parse_output(value)

    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> Any:
        """Parse the first generation (its message, else its text); ``partial``: what a
        cut-off output parses to so far, ``None`` when nothing yet."""
        if not result:
            raise InvalidInputError("parse_result needs at least one generation")
        message = getattr(result[0], "message", None)
        value = message if message is not None else result[0].text
        return self._parse_partial(value) if partial else self._parse_whole(value)

    def _diff(self, prev: Any, next: Any) -> Any:
        from ragline.core.output_parsers._json import json_patch

        return json_patch(prev, next)


def _parse_through_result(self: Any, value: Any) -> Any:
    # invoke's parse for a subclass with its own parse_result
    from ragline.core.output_parsers._base import _generations

    return self.parse_result(_generations(value))
