"""ragline.splitters: cut documents into chunks (public names load lazily).

Character and recursive splitters (with per-language presets), token splitters
(tiktoken, Hugging Face tokenizers) and a Markdown-header splitter.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "TextSplitter": "._base",
    "CharacterTextSplitter": "._character",
    "RecursiveCharacterTextSplitter": "._character",
    "Language": "._languages",
    "TokenTextSplitter": "._tokens",
    "SentenceTransformersTokenTextSplitter": "._tokens",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
