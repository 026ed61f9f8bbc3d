"""ragline.store_folder: the on-disk store folder that ``ragline index/query/ask`` share.

A store folder is a directory holding a vector store and everything needed to update and
query it the same way every time: the manifest ``ragline.json`` (the embedding it was
built with, the chunk settings, counts), the FAISS store and the record manager's
``records.sqlite`` (each chunk's content hash and source, so a re-run embeds only what
changed). The CLI, ``ragline serve`` and user code open it through this package::

    from ragline.store_folder import StoreFolder, index_paths, open_store

    index_paths(["docs/"], "my-store", embedding="hashing")   # what `ragline index` does
    store = open_store("my-store")                            # a VectorStore, ready to search

    with StoreFolder("my-store").writer() as writer:          # your own documents
        writer.index(chunks, cleanup="incremental")

Extension points:

- **Embeddings by name**: :func:`register_embedding` adds a backend the manifest can name.
- **Manifest entries**: keys of ``ragline.json`` this package does not know are kept in
  :attr:`Manifest.extras` and written back unchanged; a helper records its own entry
  there (namespaced by its name).

Public names load lazily (nothing heavy is imported here).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "DEFAULT_CHUNK_OVERLAP": "._folder",
    "DEFAULT_CHUNK_SIZE": "._folder",
    "FolderWriter": "._folder",
    "StoreFolder": "._folder",
    "open_store": "._folder",
    "Manifest": "._manifest",
    "EmbeddingBackend": "._embeddings",
    "embedding_names": "._embeddings",
    "make_embeddings": "._embeddings",
    "register_embedding": "._embeddings",
    "Corpus": "._corpus",
    "SkippedFile": "._corpus",
    "load_paths": "._corpus",
    "split_documents": "._corpus",
    "FolderIndexingResult": "._index",
    "index_paths": "._index",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
