"""The FAISS backend: a faiss index behind string ids, saved as index file plus JSON.

Modules: ``_store.py`` (the ``FAISS`` VectorStore), ``_index.py`` (the faiss index with
string-id labels, deletes and masks), ``_filters.py`` (the filter language as faiss id
selectors), ``_files.py`` (``save_local`` / ``load_local``: no pickle, atomic renames),
``_records.py`` (the documents: in memory, or a saved SQLite file plus the changes since).
faiss itself is imported when a store is built, not here.
"""

from ragline.vectorstores.faiss._store import FAISS

__all__ = ["FAISS"]
