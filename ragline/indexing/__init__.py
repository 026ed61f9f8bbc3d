"""ragline.indexing: index() with a record manager, re-writing only what changed; on Ray
with ``engine=RayEngine(...)``.

Public names load lazily (nothing heavy is imported here).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "IndexEngine": ".api",
    "IndexingException": ".api",
    "IndexingResult": ".api",
    "aindex": ".api",
    "index": ".api",
    "RecordManager": ".base",
    "InMemoryRecordManager": ".in_memory",
    "SQLRecordManager": ".sql",
    "RayEngine": "._ray",
    "RayProgress": "._ray",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
