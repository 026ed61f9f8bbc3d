"""Fixtures for the vector store tests: the ``store_factory`` every contract test runs on.

To put a backend through the contract suite, add ONE entry to ``FACTORY_BUILDERS``: a
name (``"<backend>-<metric>"``) mapped to a function that takes pytest's ``request``
(to reach other fixtures, e.g. a Redis server, or to ``pytest.skip``) and returns a
:class:`StoreFactory`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from ragline.vectorstores import InMemoryVectorStore

pytest.register_assert_rewrite(f"{__package__}.contract")  # readable failures in the suite

from .contract import StoreFactory  # noqa: E402


def _in_memory(metric: str) -> Callable[[pytest.FixtureRequest], StoreFactory]:
    def build(request: pytest.FixtureRequest) -> StoreFactory:
        return StoreFactory(InMemoryVectorStore, metric=metric, options=lambda: {"metric": metric})

    return build


FACTORY_BUILDERS: dict[str, Callable[[pytest.FixtureRequest], StoreFactory]] = {
    "in_memory-cosine": _in_memory("cosine"),
    "in_memory-inner_product": _in_memory("inner_product"),
    "in_memory-l2": _in_memory("l2"),
}


@pytest.fixture(params=sorted(FACTORY_BUILDERS))
def store_factory(request: pytest.FixtureRequest) -> Iterator[StoreFactory]:
    """Builds empty stores of one backend and metric; closes what it built afterwards."""
    factory = FACTORY_BUILDERS[request.param](request)
    yield factory
    factory.close()
