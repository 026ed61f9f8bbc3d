"""ragline.indexing: pinned public names and docstring examples that run."""

from __future__ import annotations

import doctest
import importlib

import pytest

import ragline.indexing


def test_public_names_are_pinned() -> None:
    assert ragline.indexing.__all__ == [
        "InMemoryRecordManager",
        "IndexEngine",
        "IndexingException",
        "IndexingResult",
        "RayEngine",
        "RayProgress",
        "RecordManager",
        "SQLRecordManager",
        "aindex",
        "index",
    ]


@pytest.mark.parametrize("name", ["api", "base", "in_memory", "sql"])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"ragline.indexing.{name}")
    tests = doctest.DocTestFinder().find(module)
    assert sum(len(test.examples) for test in tests) > 0
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
