"""``BaseLLM``: text in, text out (message input rendered as a transcript)."""

from __future__ import annotations

from typing import Any

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.language_models._base import BaseLanguageModel
from ragline.core.language_models._outputs import (
    Generation,
    GenerationChunk,
)
from ragline.core.prompts import PromptValue


class BaseLLM(BaseLanguageModel[str]):
    """Base of text-completion models: a string in, a string out.

    Implement ``_generate(self, prompt, stop=None, **bound) -> str``; optionally
    ``_stream`` yielding string pieces, ``_agenerate`` and ``_astream``. Message input
    is rendered as a ``Role: text`` transcript.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> FakeListLLM(responses=["4"]).invoke("2 + 2 =")
        '4'
    """

    def _model_input(self, prompt: PromptValue) -> str:
        return prompt.to_string()

    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return manager.on_llm_start(None, [model_input], **options)

    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return await manager.aon_llm_start(None, [model_input], **options)

    def _check_output(self, output: Any) -> str:
        if not isinstance(output, str):
            raise TypeError(
                f"{type(self).__name__}._generate must return a str, got {type(output).__name__}"
            )
        return output

    def _check_chunk(self, chunk: Any) -> str:
        if not isinstance(chunk, str):
            raise TypeError(
                f"{type(self).__name__}._stream must yield str pieces, got {type(chunk).__name__}"
            )
        return chunk

    def _generation_chunk(self, chunk: Any) -> GenerationChunk:
        return GenerationChunk(chunk)

    def _to_generation(self, output: Any) -> Generation:
        return Generation(output)

    def _from_generation(self, generation: Generation) -> str:
        return generation.text

    def _finish(self, aggregate: Any) -> str:
        return aggregate or ""

    def _as_chunk(self, output: str) -> str:
        return output
