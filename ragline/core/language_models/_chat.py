"""``BaseChatModel``: messages in, an ``AIMessage`` out."""

from __future__ import annotations

import copy
from typing import Any

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.language_models._base import BaseLanguageModel
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
)
from ragline.core.messages import AIMessage, AIMessageChunk, BaseMessage
from ragline.core.prompts import PromptValue


class BaseChatModel(BaseLanguageModel[AIMessage]):
    """Base of chat models: messages in, an ``AIMessage`` out.

    Implement ``_generate(self, messages, stop=None, **bound) -> AIMessage``; optionally
    ``_stream`` yielding ``AIMessageChunk`` pieces, ``_agenerate`` and ``_astream``.
    Set ``self.streaming = True`` to make ``invoke`` stream internally (callbacks then
    receive every token).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["Hi!"])
        >>> [chunk.content for chunk in model.stream("hello")]
        ['H', 'i', '!']
    """

    def _model_input(self, prompt: PromptValue) -> list[BaseMessage]:
        return prompt.to_messages()

    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return manager.on_chat_model_start(None, [model_input], **options)

    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return await manager.aon_chat_model_start(None, [model_input], **options)

    def _check_output(self, output: Any) -> AIMessage:
        if isinstance(output, AIMessageChunk):
            return output.to_message()
        if not isinstance(output, AIMessage):
            raise TypeError(
                f"{type(self).__name__}._generate must return an AIMessage, "
                f"got {type(output).__name__}"
            )
        return output

    def _check_chunk(self, chunk: Any) -> AIMessageChunk:
        if not isinstance(chunk, AIMessageChunk):
            raise TypeError(
                f"{type(self).__name__}._stream must yield AIMessageChunk pieces, "
                f"got {type(chunk).__name__}"
            )
        return chunk

    def _generation_chunk(self, chunk: Any) -> ChatGenerationChunk:
        return ChatGenerationChunk(message=chunk)

    def _to_generation(self, output: Any) -> ChatGeneration:
        return ChatGeneration(message=output)

    def _from_generation(self, generation: Any) -> AIMessage:
        # a copy: the caller may change the reply without changing the cached one
        message = getattr(generation, "message", None)
        if isinstance(message, AIMessage):
            return self._check_output(copy.copy(message))
        return AIMessage(generation.text)  # a text-only generation cached by an LLM

    def _finish(self, aggregate: Any) -> AIMessage:
        return (aggregate or AIMessageChunk("")).to_message()

    def _as_chunk(self, output: AIMessage) -> AIMessageChunk:
        return AIMessageChunk(
            output.content,
            additional_kwargs=output.additional_kwargs,
            response_metadata=output.response_metadata,
            name=output.name,
            id=output.id,
            tool_calls=output.tool_calls,
            invalid_tool_calls=output.invalid_tool_calls,
            usage_metadata=output.usage_metadata,
        )
