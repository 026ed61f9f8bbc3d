"""Language-model bases: ``BaseChatModel`` (messages in, an AIMessage out) and ``BaseLLM``
(text in, text out), with callbacks, streaming and token counting written once.

Modules: ``_base.py`` (``BaseLanguageModel``: input conversion, runs, streaming, token
counts, the shared helpers), ``_chat.py`` (``BaseChatModel``), ``_llm.py`` (``BaseLLM``),
``_outputs.py`` (generations and ``LLMResult``).
"""

from ragline.core.language_models._base import (
    TOKEN_ENCODING,
    BaseLanguageModel,
    LanguageModelInput,
    chunk_text,
    stop_list,
)
from ragline.core.language_models._chat import BaseChatModel
from ragline.core.language_models._llm import BaseLLM
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    Generation,
    GenerationChunk,
    LLMResult,
)

__all__ = [
    "TOKEN_ENCODING",
    "BaseChatModel",
    "BaseLLM",
    "BaseLanguageModel",
    "ChatGeneration",
    "ChatGenerationChunk",
    "Generation",
    "GenerationChunk",
    "LLMResult",
    "LanguageModelInput",
    "chunk_text",
    "stop_list",
]
