"""The examples in the vectorstores docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest

from ragline.core import Document
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore

MODULES = ["base", "_search_api", "filters", "utils", "in_memory", "retriever"]


def _fresh_globals() -> dict[str, Any]:
    """What the method examples assume: a small store (see VectorStore's docstring)."""
    embeddings = HashingEmbeddings(dimension=256)
    store = InMemoryVectorStore.from_texts(
        ["cats purr", "dogs bark", "stocks fell"],
        embeddings,
        metadatas=[{"topic": "pets"}, {"topic": "pets"}, {"topic": "finance"}],
        ids=["cats", "dogs", "stocks"],
    )
    return {
        "store": store,
        "embeddings": embeddings,
        "Document": Document,
        "InMemoryVectorStore": InMemoryVectorStore,
    }


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"ragline.vectorstores.{name}")
    tests = doctest.DocTestFinder().find(module)
    assert sum(len(test.examples) for test in tests) > 0
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        test.globs.update(_fresh_globals())  # a fresh store for every docstring
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
