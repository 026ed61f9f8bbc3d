"""Language-model bases: ``BaseChatModel`` (messages in, an AIMessage out) and ``BaseLLM``
(text in, text out), with callbacks, streaming and token counting written once.

Modules: ``_base.py`` (``BaseLanguageModel``: input conversion, runs, streaming, the
hooks in ragline's and LangChain's shapes), ``_tokens.py`` (token counting),
``_legacy.py`` (``generate``, ``predict`` and friends), ``_chat.py`` (``BaseChatModel``,
``SimpleChatModel``), ``_llm.py`` (``BaseLLM``, ``LLM``), ``_outputs.py`` (generations,
``ChatResult``, ``LLMResult``, ``RunInfo``).
"""

from ragline.core.language_models._base import (
    TOKEN_ENCODING,
    BaseLanguageModel,
    LanguageModelInput,
    chunk_text,
    stop_list,
)
from ragline.core.language_models._chat import BaseChatModel, SimpleChatModel, llm_output_of
from ragline.core.language_models._legacy import combine_llm_outputs
from ragline.core.language_models._llm import LLM, BaseLLM
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
    RunInfo,
)

__all__ = [
    "LLM",
    "TOKEN_ENCODING",
    "BaseChatModel",
    "BaseLLM",
    "BaseLanguageModel",
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatResult",
    "Generation",
    "GenerationChunk",
    "LLMResult",
    "LanguageModelInput",
    "RunInfo",
    "SimpleChatModel",
    "chunk_text",
    "combine_llm_outputs",
    "llm_output_of",
    "stop_list",
]
