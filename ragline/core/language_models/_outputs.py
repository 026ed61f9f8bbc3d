"""What models return: generations, their streamed chunks, and ``LLMResult``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragline.core.messages import AIMessageChunk, BaseMessage

__all__ = ["ChatGeneration", "ChatGenerationChunk", "Generation", "GenerationChunk", "LLMResult"]


@dataclass
class Generation:
    """One generated text, with provider-specific details.

    Example:
        >>> Generation("Paris").text
        'Paris'
    """

    text: str = ""
    generation_info: dict[str, Any] | None = None


@dataclass
class GenerationChunk(Generation):
    """A streamed piece of a ``Generation``; pieces add up with ``+``."""

    def __add__(self, other: GenerationChunk) -> GenerationChunk:
        info = {**(self.generation_info or {}), **(other.generation_info or {})}
        return GenerationChunk(self.text + other.text, info or None)


@dataclass(kw_only=True)
class ChatGeneration(Generation):
    """One generated chat message; ``text`` is the message's text.

    Example:
        >>> ChatGeneration(message=AIMessage("Paris")).text
        'Paris'
    """

    message: BaseMessage

    def __post_init__(self) -> None:
        self.text = self.message.text


@dataclass(kw_only=True)
class ChatGenerationChunk(ChatGeneration):
    """A streamed piece of a ``ChatGeneration`` (its message is an ``AIMessageChunk``)."""

    message: AIMessageChunk

    def __add__(self, other: ChatGenerationChunk) -> ChatGenerationChunk:
        info = {**(self.generation_info or {}), **(other.generation_info or {})}
        return ChatGenerationChunk(
            message=self.message + other.message, generation_info=info or None
        )


@dataclass
class LLMResult:
    """What ``generate`` returns and ``on_llm_end`` receives: one list of generations per
    input, plus provider output such as token usage.

    Example:
        >>> LLMResult([[Generation("a")], [Generation("b")]]).generations[1][0].text
        'b'
    """

    generations: list[list[Generation]]
    llm_output: dict[str, Any] | None = None
    run_ids: list[Any] = field(default_factory=list)
