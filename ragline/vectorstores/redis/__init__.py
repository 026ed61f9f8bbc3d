"""The Redis backend: documents as hashes indexed by RediSearch (Redis Stack, Redis 8).

Modules: ``_store.py`` (the ``Redis`` VectorStore), ``_filters.py`` (LangChain's filter
expressions, ``RedisTag("color") == "red"`` ..., as filter dicts), ``_schema.py`` (index
schema, value encoding and the filter language as RediSearch query syntax). The connection plumbing
(URLs, pipelined operations, error mapping) is shared with the Redis byte store and lives
in ``ragline.core._redis``. redis-py is imported when a store is built, not here.
"""

from ragline.vectorstores.redis._filters import (
    RedisFilter,
    RedisFilterExpression,
    RedisNum,
    RedisTag,
    RedisText,
)
from ragline.vectorstores.redis._store import Redis

__all__ = ["Redis", "RedisFilter", "RedisFilterExpression", "RedisNum", "RedisTag", "RedisText"]
