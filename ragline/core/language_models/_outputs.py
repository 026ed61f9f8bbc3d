"""What models return: generations, their streamed chunks, ``ChatResult`` and ``LLMResult``.

The names and fields are LangChain's (``langchain_core.outputs``), as plain dataclasses.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar
from uuid import UUID

from ragline.core.messages import AIMessageChunk, BaseMessage

__all__ = [
    "RUN_KEY",
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatResult",
    "Generation",
    "GenerationChunk",
    "LLMResult",
    "RunInfo",
]


@dataclass
class Generation:
    """One generated text, with provider-specific details.

    Example:
        >>> Generation("Paris").text
        'Paris'
    """

    type: ClassVar[str] = "Generation"

    text: str = ""
    generation_info: dict[str, Any] | None = None

    def _shown(self) -> list[tuple[str, Any]]:
        # LangChain's printed form leaves out a field that holds its default (a plain
        # generation's text never is; ChatGeneration overrides this)
        shown: list[tuple[str, Any]] = [("text", self.text)]
        if self.generation_info is not None:
            shown.append(("generation_info", self.generation_info))
        return shown

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self._shown())
        return f"{type(self).__name__}({fields})"

    def __str__(self) -> str:
        return " ".join(f"{name}={value!r}" for name, value in self._shown())


@dataclass(repr=False)
class GenerationChunk(Generation):
    """A streamed piece of a ``Generation``; pieces add up with ``+``.

    Example:
        >>> (GenerationChunk("Pa") + GenerationChunk("ris")).text
        'Paris'
    """

    type: ClassVar[str] = "GenerationChunk"

    def __add__(self, other: GenerationChunk) -> GenerationChunk:
        if not isinstance(other, GenerationChunk):
            return NotImplemented
        info = {**(self.generation_info or {}), **(other.generation_info or {})}
        return GenerationChunk(self.text + other.text, info or None)


@dataclass(kw_only=True, repr=False)
class ChatGeneration(Generation):
    """One generated chat message; ``text`` is the message's text.

    Example:
        >>> from ragline.core import AIMessage
        >>> ChatGeneration(message=AIMessage("Paris")).text
        'Paris'
    """

    type: ClassVar[str] = "ChatGeneration"

    message: BaseMessage

    def __post_init__(self) -> None:
        self.text = self.message.text

    def _shown(self) -> list[tuple[str, Any]]:
        # the text is left out when empty; the message comes last
        shown = [(name, value) for name, value in super()._shown() if name != "text" or value]
        return [*shown, ("message", self.message)]


@dataclass(kw_only=True, repr=False)
class ChatGenerationChunk(ChatGeneration):
    """A streamed piece of a ``ChatGeneration`` (its message is an ``AIMessageChunk``)."""

    type: ClassVar[str] = "ChatGenerationChunk"

    message: AIMessageChunk

    def __add__(self, other: Any) -> ChatGenerationChunk:
        others = other if isinstance(other, list) else [other]
        message, info = self.message, dict(self.generation_info or {})
        for chunk in others:
            if not isinstance(chunk, ChatGenerationChunk):
                return NotImplemented
            message = message + chunk.message
            info.update(chunk.generation_info or {})
        return ChatGenerationChunk(message=message, generation_info=info or None)


@dataclass(frozen=True)
class RunInfo:
    """The id of the run that produced a result (``LLMResult.run``, and a chain's or an
    agent executor's output under ``RUN_KEY`` with ``include_run_info=True``)."""

    run_id: UUID


RUN_KEY = "__run"  # where a legacy call's output carries its RunInfo (LangChain's key)


@dataclass
class ChatResult:
    """What a chat model's LangChain-style ``_generate`` returns: its generations (usually
    one) and provider output such as ``{"token_usage": {...}, "model_name": ...}``.

    Example:
        >>> from ragline.core import AIMessage
        >>> ChatResult([ChatGeneration(message=AIMessage("hi"))]).generations[0].text
        'hi'
    """

    generations: list[ChatGeneration]
    llm_output: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f"generations={self.generations!r} llm_output={self.llm_output!r}"


@dataclass(eq=False)
class LLMResult:
    """What ``generate`` returns and ``on_llm_end`` receives: one list of generations per
    input, provider output such as token usage, and the ids of the runs (``generate``'s
    only: ``on_llm_end`` gets ``run=None``, as LangChain's handlers do).

    Two results are equal when their generations and ``llm_output`` are (``run`` aside).

    Example:
        >>> LLMResult([[Generation("a")], [Generation("b")]]).generations[1][0].text
        'b'
    """

    type: ClassVar[str] = "LLMResult"

    generations: list[list[Generation]]
    llm_output: dict[str, Any] | None = None
    run: list[RunInfo] | None = None

    def __repr__(self) -> str:
        return f"LLMResult({self._fields(', ')})"

    def __str__(self) -> str:
        return self._fields(" ")

    def _fields(self, separator: str) -> str:
        # LangChain's printed form, its ``type`` field last
        return separator.join(
            f"{name}={value!r}"
            for name, value in (
                ("generations", self.generations),
                ("llm_output", self.llm_output),
                ("run", self.run),
                ("type", self.type),
            )
        )

    @property
    def run_ids(self) -> list[UUID]:
        """The ids of the runs that produced this result."""
        return [info.run_id for info in self.run or []]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LLMResult):
            return NotImplemented
        return self.generations == other.generations and self.llm_output == other.llm_output

    def flatten(self) -> list[LLMResult]:
        """One ``LLMResult`` per input's generation list.

        Token usage is counted once: it stays with the first result, and the others carry
        ``llm_output`` with an empty ``token_usage`` (so summing usage over the flattened
        results does not count it twice).

        Example:
            >>> result = LLMResult([[Generation("a")], [Generation("b")]],
            ...                    {"token_usage": {"total_tokens": 5}})
            >>> [(r.generations[0][0].text, r.llm_output) for r in result.flatten()]
            [('a', {'token_usage': {'total_tokens': 5}}), ('b', {'token_usage': {}})]
        """
        flat = []
        for index, generations in enumerate(self.generations):
            llm_output = self.llm_output
            if index and llm_output is not None:
                llm_output = copy.deepcopy(llm_output)
                llm_output["token_usage"] = {}
            flat.append(LLMResult([generations], llm_output))
        return flat
