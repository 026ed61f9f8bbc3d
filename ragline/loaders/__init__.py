"""ragline.loaders: turn files, directories and web pages into Documents.

Every loader has ``load()``, the generator ``lazy_load()``, ``aload()`` and
``alazy_load()``; every document carries ``metadata["source"]``. Heavy parsers
(beautifulsoup4, pypdf) load only when a loader that needs them runs.
``PythonLoader`` reads a ``.py`` file in the encoding its source declares.
``DEFAULT_LOADER_MAPPING`` says which loader reads which file suffix.
``BeautifulSoupTransformer`` cleans loaded HTML documents down to the text of chosen tags.
``GenericLoader`` joins a blob loader (``FileSystemBlobLoader``) and a blob parser
(``TextParser``, ``MimeTypeBasedParser``), as LangChain's does.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BaseLoader": "._base",
    "TextLoader": "._text",
    "PythonLoader": "._python",
    "DirectoryLoader": "._directory",
    "BSHTMLLoader": "._html",
    "BeautifulSoupTransformer": "._html_transformer",
    "WebBaseLoader": "._web",
    "CSVLoader": "._csv",
    "JSONLoader": "._json",
    "MarkdownLoader": "._markdown",
    "PyPDFLoader": "._pdf",
    "PyPDFDirectoryLoader": "._pdf",
    "MergedDataLoader": "._merged",
    "GenericLoader": "._generic",
    "FileSystemBlobLoader": "._generic",
    "Blob": "._generic",
    "BlobLoader": "._generic",
    "BaseBlobParser": "._generic",
    "TextParser": "._generic",
    "MimeTypeBasedParser": "._generic",
    "DEFAULT_LOADER_MAPPING": "._mapping",
    "loader_for_path": "._mapping",
    "loader_mapping": "._mapping",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
