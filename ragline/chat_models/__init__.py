"""ragline.chat_models: chat models over HTTP (public names load lazily).

``ChatOpenAI`` speaks OpenAI's chat-completions protocol, so it also talks to vLLM,
Ollama, llama.cpp's server and LM Studio. Importing this package loads no ``openai``.
"""

from ragline.core._lazy import attach

_EXPORTS = {"ChatOpenAI": "._openai", "convert_to_openai_tool": "._openai"}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
