"""ragline.loaders: turn files, directories and web pages into Documents.

Every loader has ``load()``, the generator ``lazy_load()``, ``aload()`` and
``alazy_load()``; every document carries ``metadata["source"]``. Heavy parsers
(beautifulsoup4, pypdf) load only when a loader that needs them runs.
"""

from ragline.core._lazy import attach

__all__ = [
    "BSHTMLLoader",
    "BaseLoader",
    "CSVLoader",
    "DirectoryLoader",
    "JSONLoader",
    "MarkdownLoader",
    "PyPDFLoader",
    "TextLoader",
    "WebBaseLoader",
]
__getattr__, __dir__ = attach(
    __name__,
    {
        "BaseLoader": "._base",
        "TextLoader": "._text",
        "DirectoryLoader": "._directory",
        "BSHTMLLoader": "._html",
        "WebBaseLoader": "._web",
        "CSVLoader": "._csv",
        "JSONLoader": "._json",
        "MarkdownLoader": "._markdown",
        "PyPDFLoader": "._pdf",
    },
)
