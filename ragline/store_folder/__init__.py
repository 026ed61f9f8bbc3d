"""ragline.store_folder: the on-disk store folder that ``ragline index/query/ask`` share.

A store folder is a directory holding a vector store and everything needed to update and
query it the same way every time: the manifest ``ragline.json`` (the embedding it was
built with, the chunk settings, counts), the FAISS store and the record manager's
``records.sqlite`` (each chunk's content hash and source, so a re-run embeds only what
changed), committed together as one generation folder that the manifest names (see
``_folder.py`` for the layout and why a killed run never leaves it inconsistent). One
writer at a time holds the folder's lock (``ragline.lock``). The CLI, ``ragline serve``
and user code open it through this package::

    from ragline.store_folder import StoreFolder, index_paths, open_store

    index_paths(["docs/"], "my-store", embedding="hashing")   # what `ragline index` does
    store = open_store("my-store")                            # a VectorStore, ready to search

    with StoreFolder("my-store").writer() as writer:          # your own documents
        writer.index(chunks, cleanup="incremental")

Extension points:

- **Embeddings by name**: :func:`register_embedding` adds a backend the manifest can name.
- **Manifest entries**: keys of ``ragline.json`` this package does not know are kept in
  :attr:`Manifest.extras` and written back unchanged; a helper records its own entry
  there (namespaced by its name), e.g. ``writer.manifest.extras["bm25"] = {...}``.
- **Artifacts**: a :class:`FolderArtifact` registered by name (:func:`register_artifact`)
  is kept in step with the chunks by every index run and committed in the same
  generation as the store (a BM25 index, say); readers find it with
  :meth:`StoreFolder.artifact_path`.
- **Files of your own**: anything in the folder that is not ``ragline.json``,
  ``ragline.lock`` or a ``gen-*`` folder is left alone by every run (a chat history's
  SQLite file, say).

Public names load lazily (nothing heavy is imported here).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "DEFAULT_CHUNK_OVERLAP": "._folder",
    "DEFAULT_CHUNK_SIZE": "._folder",
    "FolderWriter": "._writer",
    "StoreFolder": "._folder",
    "open_store": "._folder",
    "Manifest": "._manifest",
    "FolderArtifact": "._artifacts",
    "artifact_names": "._artifacts",
    "register_artifact": "._artifacts",
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
    "source_filter": "._search",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
