"""Key-value byte stores: the storage under embedding caches, parent-document retrievers
and (later) chat histories and LLM caches.

``BaseStore[K, V]`` is the interface (LangChain's names): batch ``mget`` / ``mset`` /
``mdelete`` and ``yield_keys(prefix=None)``, with async twins. Three stores ship here:
``InMemoryByteStore`` and ``LocalFileStore`` (``_local.py``) and ``RedisStore``
(``_redis.py``, extra ``redis``: the client library is imported when a store is built).
``check_keys`` / ``check_pairs`` are the input checks every store shares.
``EncoderBackedStore`` (``_encoder_backed.py``) keeps any keys and values in one of them
through an encoder and a serializer.
"""

from ragline.core.stores._encoder_backed import EncoderBackedStore
from ragline.core.stores._local import (
    BaseStore,
    ByteStore,
    InMemoryByteStore,
    InMemoryStore,
    LocalFileStore,
    check_keys,
    check_pairs,
)
from ragline.core.stores._redis import RedisStore

__all__ = [
    "BaseStore",
    "ByteStore",
    "EncoderBackedStore",
    "InMemoryByteStore",
    "InMemoryStore",
    "LocalFileStore",
    "RedisStore",
    "check_keys",
    "check_pairs",
]
