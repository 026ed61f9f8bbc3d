"""ragline.splitters: cut documents into chunks (public names load lazily).

Character and recursive splitters (with per-language presets), token splitters
(tiktoken, Hugging Face tokenizers; ``split_text_on_tokens`` with a ``Tokenizer`` of your
own encode and decode), a Markdown-header splitter and a Markdown-section
splitter (chunks inside one section, with their heading path). Every splitter is a
Runnable: ``splitter.invoke(documents)`` returns the chunks. ``RecursiveJsonSplitter``
(LangChain's) cuts a JSON object into smaller JSON objects and ``HTMLHeaderTextSplitter``
(LangChain's; beautifulsoup4) cuts HTML at its headers; like LangChain's, neither is a
text splitter.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "TextSplitter": "._base",
    "CharacterTextSplitter": "._character",
    "RecursiveCharacterTextSplitter": "._character",
    "MarkdownTextSplitter": "._character",
    "PythonCodeTextSplitter": "._character",
    "LatexTextSplitter": "._character",
    "Language": "._languages",
    "LANGUAGE_BY_SUFFIX": "._languages",
    "language_for_path": "._languages",
    "TokenTextSplitter": "._tokens",
    "SentenceTransformersTokenTextSplitter": "._tokens",
    "Tokenizer": "._tokens",
    "split_text_on_tokens": "._tokens",
    "MarkdownHeaderTextSplitter": "._markdown",
    "MarkdownSectionSplitter": "._sections",
    "RecursiveJsonSplitter": "._json",
    "HTMLHeaderTextSplitter": "._html",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
