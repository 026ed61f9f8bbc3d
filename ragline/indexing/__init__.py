"""ragline.indexing: index() with a record manager, re-writing only what changed.

Public names load lazily (nothing heavy is imported here).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "IndexingResult": ".api",
    "aindex": ".api",
    "index": ".api",
    "RecordManager": ".base",
    "InMemoryRecordManager": ".in_memory",
    "SQLRecordManager": ".sql",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
