"""Prompt values: a formatted prompt, readable both as text and as messages."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ragline.core.messages import BaseMessage, HumanMessage, get_buffer_string

__all__ = ["ChatPromptValue", "ImagePromptValue", "PromptValue", "StringPromptValue"]


class PromptValue(ABC):
    """A formatted prompt, readable both as text and as messages."""

    @abstractmethod
    def to_string(self) -> str:
        """The prompt as one string (what a completion model receives)."""

    @abstractmethod
    def to_messages(self) -> list[BaseMessage]:
        """The prompt as messages (what a chat model receives)."""


@dataclass
class StringPromptValue(PromptValue):
    """A text prompt; as messages it is one human message.

    Example:
        >>> StringPromptValue("Hi").to_messages()
        [HumanMessage(content='Hi', additional_kwargs={}, response_metadata={})]
    """

    text: str

    def to_string(self) -> str:
        return self.text

    def __str__(self) -> str:  # LangChain's (pydantic's) printed form
        return f"text={self.text!r}"

    def to_messages(self) -> list[BaseMessage]:
        return [HumanMessage(self.text)]


@dataclass
class ChatPromptValue(PromptValue):
    """A list of messages; as text it is a ``Role: text`` transcript.

    Example:
        >>> from ragline.core import SystemMessage
        >>> ChatPromptValue([SystemMessage("Be brief."), HumanMessage("Hi")]).to_string()
        'System: Be brief.\\nHuman: Hi'
    """

    messages: list[BaseMessage]

    def to_string(self) -> str:
        return get_buffer_string(self.messages)

    def __str__(self) -> str:  # LangChain's (pydantic's) printed form
        return f"messages={self.messages!r}"

    def to_messages(self) -> list[BaseMessage]:
        return list(self.messages)


@dataclass
class ImagePromptValue(PromptValue):
    """An image, as an ``image_url`` dict (``url``, perhaps ``detail``): what an
    ``ImagePromptTemplate`` formats to. As text it is the url; as messages, one human
    message holding the dict.

    Example:
        >>> ImagePromptValue({"url": "https://x/y.png"}).to_string()
        'https://x/y.png'
    """

    image_url: dict[str, Any]

    def __post_init__(self) -> None:
        # LangChain's value keeps the two keys its ImageURL type has, detail first
        image_url = self.image_url
        self.image_url = {key: image_url[key] for key in ("detail", "url") if key in image_url}

    def to_string(self) -> str:
        return self.image_url.get("url", "")

    def __str__(self) -> str:  # LangChain's (pydantic's) printed form
        return f"image_url={self.image_url!r}"

    def to_messages(self) -> list[BaseMessage]:
        return [HumanMessage([self.image_url])]
