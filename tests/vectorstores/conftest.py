"""Fixtures for the vector store tests: the ``store_factory`` every contract test runs on.

To put a backend through the contract suite, add ONE entry to ``FACTORY_BUILDERS``: a
name (``"<backend>-<metric>"``) mapped to a function that takes pytest's ``request``
(to reach other fixtures, e.g. a Redis server, or to ``pytest.skip``) and returns a
:class:`StoreFactory`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from ragline.vectorstores import FAISS, InMemoryVectorStore, VectorStore

pytest.register_assert_rewrite(f"{__package__}.contract")  # readable failures in the suite

from .contract import StoreFactory  # noqa: E402


def _in_memory(metric: str) -> Callable[[pytest.FixtureRequest], StoreFactory]:
    def build(request: pytest.FixtureRequest) -> StoreFactory:
        return StoreFactory(InMemoryVectorStore, metric=metric, options=lambda: {"metric": metric})

    return build


def _faiss(metric: str, **options: object) -> Callable[[pytest.FixtureRequest], StoreFactory]:
    # HNSW with masked deletes and an IVF index trained after 4 vectors put the
    # approximate paths (exact fallbacks, masking, training) through the contract too.
    def build(request: pytest.FixtureRequest) -> StoreFactory:
        pytest.importorskip("faiss")
        return StoreFactory(FAISS, metric=metric, options=lambda: {"metric": metric, **options})

    return build


def _redis(metric: str, **vector: object) -> Callable[[pytest.FixtureRequest], StoreFactory]:
    # every store gets its own index and key prefix, dropped with its documents afterwards
    redis_metric = {"cosine": "COSINE", "inner_product": "IP", "l2": "L2"}[metric]

    def build(request: pytest.FixtureRequest) -> StoreFactory:
        pytest.importorskip("redis")
        from ragline.vectorstores import Redis

        url = request.getfixturevalue("redis_url")  # tests/conftest.py starts the server

        def options() -> dict[str, object]:
            return {
                "redis_url": url,
                "index_name": f"contract-{uuid.uuid4().hex[:12]}",
                "vector_schema": {"distance_metric": redis_metric, **vector},
            }

        def cleanup(store: VectorStore) -> None:
            assert isinstance(store, Redis)
            store.drop_index(delete_documents=True)
            store.close()

        return StoreFactory(Redis, metric=metric, options=options, cleanup=cleanup)

    return build


FACTORY_BUILDERS: dict[str, Callable[[pytest.FixtureRequest], StoreFactory]] = {
    "faiss-cosine": _faiss("cosine"),
    "faiss-inner_product": _faiss("inner_product"),
    "faiss-l2": _faiss("l2"),
    "faiss_hnsw-cosine": _faiss("cosine", index_factory="HNSW8"),
    "faiss_ivf-l2": _faiss("l2", index_factory="IVF2,Flat", train_size=4, nprobe=2),
    "in_memory-cosine": _in_memory("cosine"),
    "in_memory-inner_product": _in_memory("inner_product"),
    "in_memory-l2": _in_memory("l2"),
    "redis-cosine": _redis("cosine"),
    "redis-inner_product": _redis("inner_product"),
    "redis-l2": _redis("l2"),
    "redis_hnsw-cosine": _redis("cosine", algorithm="HNSW", m=8, ef_runtime=50),
}


@pytest.fixture(params=sorted(FACTORY_BUILDERS))
def store_factory(request: pytest.FixtureRequest) -> Iterator[StoreFactory]:
    """Builds empty stores of one backend and metric; closes what it built afterwards."""
    factory = FACTORY_BUILDERS[request.param](request)
    yield factory
    factory.close()
