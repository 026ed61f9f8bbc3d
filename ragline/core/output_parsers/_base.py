"""The parser bases, ``StrOutputParser`` and ``CommaSeparatedListOutputParser``.

A parser is a Runnable reported as a ``parser`` run. At the end of
``prompt | model | parser`` it streams: ``StrOutputParser`` passes each token on as it
arrives; parsers of whole outputs (JSON, tool calls) keep a :class:`StreamProgress` and
yield progressively more complete objects while the model is still writing.

Example:
    >>> from ragline.core import FakeListChatModel
    >>> chain = FakeListChatModel(responses=["ok"]) | StrOutputParser()
    >>> list(chain.stream("hi"))
    ['o', 'k']
"""

from __future__ import annotations

import builtins
import contextlib
import csv
import functools
import inspect
import io
import re
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from ragline.core.callbacks.base import stream_taps
from ragline.core.config import ensure_config, get_current_config, use_config
from ragline.core.exceptions import InvalidInputError
from ragline.core.fields import Fields, declared_fields
from ragline.core.messages import AnyMessage, BaseMessage
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.runs import combine_chunks
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = [
    "NOT_YET",
    "BaseGenerationOutputParser",
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "CommaSeparatedListOutputParser",
    "StrOutputParser",
    "StreamProgress",
    "excerpt",
    "text_of",
]

T = TypeVar("T")
_EXCERPT = 200
# Marks "nothing parsed yet" (None is a valid parse result).
NOT_YET: Any = object()
_NO_DEFAULT: Any = object()


def text_of(value: Any) -> str:
    """The text a parser reads: a str itself, or a message's text.

    Raises:
        InvalidInputError: ``value`` is neither.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return value.text
    raise InvalidInputError(
        f"an output parser takes a str or a message, got {type(value).__name__}"
    )


def excerpt(text: str) -> str:
    """``text`` cut to a length an error message can show."""
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 3] + "..."


def shown_fields(parser: Any) -> list[tuple[str, Any]]:
    """The declared fields of ``parser`` that differ from their defaults (and the required
    ones), in declaration order: what LangChain's pydantic parsers print."""
    shown = [("name", parser.name)] if parser.name else []
    hidden = getattr(parser, "_asdict_hidden", ())
    for name, spec in declared_fields(type(parser)).items():
        value = getattr(parser, name)
        if name not in hidden and (spec.required or value != spec.make_default()):
            shown.append((name, value))
    # what the constructor keeps (see BaseOutputParser._asdict_attrs): shown unless equal
    # to the class's default; without one it is required, so always shown
    for name in getattr(parser, "_asdict_attrs", ()):
        value, default = getattr(parser, name, None), getattr(type(parser), name, _NO_DEFAULT)
        if default is _NO_DEFAULT or value != default:
            shown.append((name, value))
    return shown


def _taking_name(init: Any) -> Any:
    """A parser's hand-written ``__init__`` that also takes ``name=`` (set after it ran)."""

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, name: Any = NOT_YET, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if name is not NOT_YET:
            self.name = name

    __init__.__ragline_generated__ = True  # type: ignore[attr-defined]  # wrapped once
    return __init__


def _names_a_name(init: Any) -> bool:
    """Whether a hand-written ``__init__`` has a parameter called ``name`` of its own."""
    try:
        parameter = inspect.signature(init).parameters.get("name")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind not in (
        parameter.VAR_POSITIONAL,
        parameter.VAR_KEYWORD,
    )


def _dumped(value: Any) -> Any:
    """``value`` as a pydantic dump shows a field: nested models (not classes) as dicts."""
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump() if dump is not None and not isinstance(value, type) else value


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class BaseOutputParser(Fields, Runnable[Any, T], Generic[T]):
    """Base of output parsers; implement ``parse(text)``.

    ``invoke`` accepts a string or a message (its text is parsed) and reports a
    ``parser`` run to callbacks. Parsers that read more than the text (tool calls)
    override ``_parse_output``, which receives the str or message itself. A subclass
    may declare options as annotated class attributes (``true_val: str = "YES"``) and
    is then constructed by keyword, as LangChain's pydantic parsers are.
    """

    __ragline_extra__ = "ignore"  # a stray keyword is dropped with a warning: LangChain's drops it
    # What asdict() shows besides the declared fields: attributes a constructor sets that
    # LangChain's parser has as fields (in its order), and declared fields it lacks.
    _asdict_attrs: ClassVar[tuple[str, ...]] = ()
    _asdict_hidden: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if (
            init is not None
            and not hasattr(init, "__ragline_generated__")
            and not _names_a_name(init)  # an __init__ taking name itself is left as written
        ):
            cls.__init__ = _taking_name(init)  # type: ignore[method-assign]

    def __init__(self, *, name: str | None = None, **kwargs: Any) -> None:
        # ``name`` (every LangChain parser's field, as every Runnable's): reported to
        # callbacks and shown by get_name(); a hand-written __init__ gets it by its wrapper
        super().__init__(**kwargs)
        if name is not None:
            self.name = name

    def __str__(self) -> str:  # LangChain's: the fields set, as a pydantic model prints them
        return " ".join(f"{name}={value!r}" for name, value in shown_fields(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in shown_fields(self))
        return f"{type(self).__name__}({shown})"

    @property
    def InputType(self) -> Any:
        """``str | AnyMessage``: a model's text or its message, as LangChain's parsers."""
        return str | AnyMessage

    @abstractmethod
    def parse(self, text: str) -> T:
        """Parse the model's text.

        Raises:
            OutputParserException: the text is not what this parser expects (an
                ``InvalidInputError``; ``llm_output`` holds the text).
        """

    def _parse_output(self, value: Any) -> T:
        return self.parse(text_of(value))

    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> T:
        """LangChain's entry point: parse the first generation of a model's result.

        Args:
            result: generations (``Generation`` / ``ChatGeneration``); the first is read.
            partial: accepted for LangChain compatibility; whole outputs are parsed.

        Example:
            >>> from ragline.core import Generation
            >>> StrOutputParser().parse_result([Generation(text="hi")])
            'hi'
        """
        if not result:
            raise InvalidInputError("parse_result needs at least one generation")
        message = getattr(result[0], "message", None)
        return self._parse_output(message if message is not None else result[0].text)

    async def aparse_result(self, result: Sequence[Any], *, partial: bool = False) -> T:
        """Async :meth:`parse_result` (parsing is quick, so it runs inline); a
        :class:`BaseGenerationOutputParser`'s ``ainvoke`` calls it, as LangChain's."""
        return self.parse_result(result, partial=partial)

    def parse_with_prompt(self, completion: str, prompt: Any) -> T:
        """Parse ``completion``; the prompt it answered is ignored here (a retrying
        parser uses it).

        Example:
            >>> StrOutputParser().parse_with_prompt("yes", None)
            'yes'
        """
        return self.parse(completion)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> T:
        """Parse one model output (a str or a message)."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._parse_output, input, config, run_type="parser")

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> T:
        """Async ``invoke`` (parsing is quick, so it runs inline)."""
        self._reject_kwargs(kwargs)

        async def parse(value: Any) -> T:
            return self._parse_output(value)

        return await self._acall_with_config(parse, input, config, run_type="parser")

    def get_format_instructions(self) -> str:
        """Instructions for the prompt that make the model's output parseable."""
        return ""

    def asdict(
        self, *, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """The parser as a dict: ``name``, every declared field (base classes' first) and,
        where the parser names its kind, ``_type``, as LangChain's parsers describe
        themselves. ``include`` / ``exclude`` pick fields by name.

        Example:
            >>> from ragline.core.output_parsers import BooleanOutputParser
            >>> BooleanOutputParser().asdict()
            {'name': None, 'true_val': 'YES', 'false_val': 'NO', '_type': 'boolean_output_parser'}
        """
        out: dict[str, Any] = {"name": self.name}
        hidden = self._asdict_hidden
        for field in [*declared_fields(type(self)), *self._asdict_attrs]:
            if field not in hidden:
                out[field] = _dumped(getattr(self, field, None))
        if include is not None:
            out = {key: value for key, value in out.items() if key in set(include)}
        for key in exclude or ():
            out.pop(key, None)
        # a parser without a kind name (LangChain's tool parsers, its enum parser) has none
        with contextlib.suppress(AttributeError, NotImplementedError):
            out["_type"] = self._type  # type: ignore[attr-defined]
        return out

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        from ragline.core._json_schema import any_message_schema

        return {"anyOf": [{"type": "string"}, any_message_schema(defs)]}

    # last in the class body: before it, ``dict`` in an annotation is the builtin
    def dict(
        self, *, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> builtins.dict[str, Any]:
        """The older name of :meth:`asdict` (LangChain deprecates it; it still works)."""
        return self.asdict(include=include, exclude=exclude)


class BaseGenerationOutputParser(BaseOutputParser[T]):
    """Base of parsers that read the model's generations rather than its text: implement
    ``parse_result(result, partial=False)``.

    ``invoke`` hands the override one generation: a message becomes
    ``[ChatGeneration(message=...)]`` (so a parser can read tool calls or other message
    fields), a string ``[Generation(text=...)]``, as LangChain's base of the same name.

    Example:
        >>> from ragline.core import AIMessage
        >>> class Shout(BaseGenerationOutputParser[str]):
        ...     def parse_result(self, result, *, partial=False):
        ...         return result[0].text.upper()
        >>> Shout().invoke(AIMessage("hi")), Shout().invoke("ok")
        ('HI', 'OK')
    """

    @abstractmethod
    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> T:
        """Parse the model's generations (``Generation`` / ``ChatGeneration``)."""

    def parse(self, text: str) -> T:
        """Parse ``text`` as one ``Generation``."""
        from ragline.core.language_models import Generation

        return self.parse_result([Generation(text=text)])

    def _parse_output(self, value: Any) -> T:
        return self.parse_result(_generations(value))

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> T:
        """Async ``invoke``: the generation goes to :meth:`aparse_result` (a parser may
        override it with async work), as LangChain's."""
        self._reject_kwargs(kwargs)

        async def parse(value: Any) -> T:
            return await self.aparse_result(_generations(value))

        return await self._acall_with_config(parse, input, config, run_type="parser")


def _generations(value: Any) -> list[Any]:
    """A model output as the one generation LangChain's generation parsers receive."""
    from ragline.core.language_models import ChatGeneration, Generation

    if isinstance(value, BaseMessage):
        return [ChatGeneration(message=value)]
    return [Generation(text=text_of(value))]


class StreamProgress:
    """What a streaming parser of whole outputs knows so far: subclasses implement
    ``add`` (take a chunk, return the object parsed so far or ``NOT_YET``) and ``finish``
    (the final object once the stream ended, or ``NOT_YET``; raises when the whole output
    does not parse). The parser yields each object that differs from the previous one."""

    def __init__(self) -> None:
        self.last: Any = NOT_YET

    def add(self, chunk: Any) -> Any:
        raise NotImplementedError

    def finish(self) -> Any:
        raise NotImplementedError

    def changed(self, parsed: Any) -> bool:
        """Record ``parsed``; True when it is new (worth yielding)."""
        if parsed is NOT_YET or parsed == self.last:
            return False
        self.last = parsed
        return True


class BaseTransformOutputParser(BaseOutputParser[T]):
    """A parser that streams: by default each input chunk is parsed and passed on at once;
    a parser of whole outputs returns a :class:`StreamProgress` from ``_progress``."""

    def _progress(self) -> StreamProgress | None:
        return None

    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[T]:
        progress = self._progress()
        for chunk in chunks:
            if progress is None:
                yield self._parse_output(chunk)
            elif progress.changed(progress.add(chunk)):
                yield progress.last
        if progress is not None and progress.changed(progress.finish()):
            yield progress.last

    async def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[T]:
        progress = self._progress()
        async for chunk in chunks:
            if progress is None:
                yield self._parse_output(chunk)
            elif progress.changed(progress.add(chunk)):
                yield progress.last
        if progress is not None and progress.changed(progress.finish()):
            yield progress.last

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

    def _combine(self, total: Any, piece: Any) -> Any:
        """How the run's output is built from the streamed pieces (here: added up; a
        parser of whole outputs replaces each object with the next)."""
        return total + piece

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[T]:
        """Parse one whole output: one piece, the ``invoke`` result (as LangChain's; its
        run starts with the input). A stream of chunks goes through ``transform``."""
        yield self.invoke(input, config, **kwargs)

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[T]:
        """Async ``stream``."""
        yield await self.ainvoke(input, config, **kwargs)


class StrOutputParser(BaseTransformOutputParser[str]):
    """The text of the model's output; streams token by token.

    Example:
        >>> from ragline.core import AIMessage
        >>> StrOutputParser().invoke(AIMessage("Paris"))
        'Paris'
    """

    @property
    def _type(self) -> str:
        return "default"

    def parse(self, text: str) -> str:
        return text

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string"}


class ListOutputParser(BaseTransformOutputParser[list[str]]):
    """The base of parsers whose output is a list of strings: a subclass writes
    ``parse(text) -> list[str]``, and may write ``parse_iter(text)`` (an iterator of
    regex matches whose first group is an item) to let streaming find items faster.

    Streaming yields ``[item]`` once each item is complete (another one started after
    it), then the items of what is left at the end; the run's output is all of them,
    added up, as LangChain's list parsers stream.

    Example:
        >>> class PipeList(ListOutputParser):
        ...     def parse(self, text: str) -> list[str]:
        ...         return text.split("|")
        >>> list(PipeList().transform(iter(["a|", "b|c"])))
        [['a'], ['b'], ['c']]
    """

    @abstractmethod
    def parse(self, text: str) -> list[str]:
        """The items of ``text``."""

    def parse_iter(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the items in ``text`` (group 1 is the item), for streaming.

        Raises:
            NotImplementedError: this parser has no regex; streaming uses ``parse``.
        """
        raise NotImplementedError

    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[list[str]]:
        items = _ItemStream(self)
        for chunk in chunks:
            yield from items.add(chunk)
        yield from items.finish()

    async def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[list[str]]:
        items = _ItemStream(self)
        async for chunk in chunks:
            for item in items.add(chunk):
                yield item
        for item in items.finish():
            yield item

    @property
    def OutputType(self) -> Any:
        return list[str]

    @property
    def _type(self) -> str:
        # LangChain's type keys; CombiningOutputParser refuses a plain "list" parser
        return "list"

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}}


class _ItemStream:
    """The text of a list stream not yet given out, split into finished items."""

    def __init__(self, parser: ListOutputParser) -> None:
        self.parser = parser
        self.buffer = ""

    def add(self, chunk: Any) -> list[list[str]]:
        self.buffer += text_of(chunk)
        try:
            matches = list(self.parser.parse_iter(self.buffer))
        except NotImplementedError:
            return self._split_by_parse()
        if len(matches) < 2:
            return []
        # the last match may still grow; what follows the one before it is kept
        self.buffer = self.buffer[matches[-2].end() :]
        return [[match.group(1)] for match in matches[:-1]]

    def _split_by_parse(self) -> list[list[str]]:
        items = self.parser.parse(self.buffer)
        if len(items) < 2:
            return []
        self.buffer = items[-1]  # the last item may still grow
        return [[item] for item in items[:-1]]

    def finish(self) -> list[list[str]]:
        return [[item] for item in self.parser.parse(self.buffer)]


class CommaSeparatedListOutputParser(ListOutputParser):
    """Split ``"a, b, c"`` into ``["a", "b", "c"]``, as LangChain's parser does: CSV
    rules (a quoted item may hold commas; spaces after a comma are dropped, other spaces
    kept; an empty item stays ``""``), and a line break also ends an item.

    Example:
        >>> CommaSeparatedListOutputParser().parse('red, green,"navy, dark"')
        ['red', 'green', 'navy, dark']
    """

    def parse(self, text: str) -> list[str]:
        rows = csv.reader(io.StringIO(text), delimiter=",", quotechar='"', skipinitialspace=True)
        try:
            return [item for row in rows for item in row]
        except csv.Error:  # a stray quote: plain splitting, as LangChain falls back to
            return [item.strip() for item in text.split(",")]

    def get_format_instructions(self) -> str:
        return "Answer with a comma-separated list of values, e.g. `foo, bar, baz`."

    @property
    def _type(self) -> str:
        return "comma-separated-list"


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
    seen: list[Any] = []  # the input chunks: the run reports them added up, as LangChain
    run: Any = None

    def pull() -> Iterator[Any]:
        nonlocal run
        while True:
            with use_config(outer):
                chunk = next(input, NOT_YET)
            if chunk is NOT_YET:
                return
            if run is None:
                run = parser._start_run({"input": ""}, config, "parser", streamed_input=True)
            seen.append(chunk)
            yield chunk

    output: Any = NOT_YET
    try:
        for parsed in parse_chunks(pull()):
            output = parsed if output is NOT_YET else combine(output, parsed)
            if run.handlers:
                _tap(run, parsed)
            yield parsed
    except GeneratorExit:
        if run is not None:
            run.on_chain_end(None if output is NOT_YET else output, inputs=combine_chunks(seen))
        raise
    except BaseException as err:
        if run is not None:
            run.on_chain_error(err, inputs=combine_chunks(seen))
        raise
    if run is not None:
        run.on_chain_end(None if output is NOT_YET else output, inputs=combine_chunks(seen))


async def _astream_run(
    parser: BaseTransformOutputParser[Any],
    input: AsyncIterator[Any],
    parse_chunks: Any,
    config: Any,
    combine: Any,
) -> AsyncIterator[Any]:
    outer = get_current_config()
    config = ensure_config(config)
    seen: list[Any] = []  # the input chunks: the run reports them added up, as LangChain
    run: Any = None
    upstream = input.__aiter__()

    async def pull() -> AsyncIterator[Any]:
        nonlocal run
        while True:
            with use_config(outer):
                chunk = await anext(upstream, NOT_YET)
            if chunk is NOT_YET:
                return
            if run is None:
                run = await parser._astart_run({"input": ""}, config, "parser", streamed_input=True)
            seen.append(chunk)
            yield chunk

    output: Any = NOT_YET
    pulled = pull()
    parsed_chunks = parse_chunks(pulled)
    try:
        async for parsed in parsed_chunks:
            output = parsed if output is NOT_YET else combine(output, parsed)
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
            await run.aon_chain_end(
                None if output is NOT_YET else output, inputs=combine_chunks(seen)
            )
        raise
    except BaseException as err:
        if run is not None:
            await run.aon_chain_error(err, inputs=combine_chunks(seen))
        raise
    if run is not None:
        await run.aon_chain_end(None if output is NOT_YET else output, inputs=combine_chunks(seen))
