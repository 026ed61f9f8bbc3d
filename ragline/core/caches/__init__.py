"""LLM caches: an identical prompt to an identical model is answered from the cache.

``set_llm_cache(InMemoryCache())`` turns caching on for every model; a model's own
``cache=`` option overrides it (``True``: the global cache, ``False``: never, or a cache
of its own). Backends: ``InMemoryCache`` (bounded, least-recently-used first out),
``SQLiteCache`` (a file, standard-library sqlite3), ``SQLAlchemyCache`` (a table in
any database SQLAlchemy reaches, in the same layout) and ``RedisCache`` (shared by
processes, optional TTL). They all pass one contract suite.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BaseCache": "._base",
    "RETURN_VAL_TYPE": "._base",
    "get_llm_cache": "._base",
    "set_llm_cache": "._base",
    "InMemoryCache": "._memory",
    "SQLiteCache": "._sqlite",
    "RedisCache": "._redis",
    "SQLAlchemyCache": "._sqlalchemy",
    "FullLLMCache": "._sqlalchemy",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
