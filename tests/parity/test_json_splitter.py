"""Parity: ``RecursiveJsonSplitter`` against LangChain's (langchain_text_splitters).

The trial's OpenAPI-like object, and 300 seeded random JSON objects (nested objects,
lists, long and non-ASCII strings, empty objects) under several size limits, are split
through both: ``split_json`` (with and without ``convert_lists``), ``split_text``
(``ensure_ascii`` both ways), ``create_documents`` with metadatas, the default
``min_chunk_size``, and the input left unchanged.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from langchain_text_splitters import RecursiveJsonSplitter as LCRecursiveJsonSplitter

from ragline.splitters import RecursiveJsonSplitter

COVERS = {"splitters.RecursiveJsonSplitter"}

OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "LangSmith", "version": "0.1.0"},
    "paths": {
        "/api/v1/sessions/{session_id}": {
            "get": {"tags": ["tracer-sessions"], "summary": "Read Tracer Session"}
        },
        "/api/v1/runs": {"post": {"summary": "Create Run", "tags": ["run"]}},
    },
}


def random_object(rng: random.Random) -> dict[str, Any]:
    def value(depth: int) -> Any:
        roll = rng.random()
        if depth < 3 and roll < 0.35:
            return {f"k{rng.randint(0, 30)}": value(depth + 1) for _ in range(rng.randint(0, 5))}
        if depth < 3 and roll < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        if roll < 0.7:
            return "w" * rng.randint(0, 60) + "é"
        return rng.randint(0, 10**6)

    return {f"top{i}": value(0) for i in range(rng.randint(1, 6))}


def test_the_trial_object():
    ours, theirs = (
        RecursiveJsonSplitter(max_chunk_size=90),
        LCRecursiveJsonSplitter(max_chunk_size=90),
    )
    assert ours.split_json(OPENAPI) == theirs.split_json(OPENAPI)
    assert len(ours.split_json(OPENAPI)) > 1
    assert ours.split_text(OPENAPI) == theirs.split_text(json_data=OPENAPI)
    docs = ours.create_documents(texts=[OPENAPI, {"a": 1}], metadatas=[{"s": 1}, {"s": [2]}])
    lc_docs = theirs.create_documents(texts=[OPENAPI, {"a": 1}], metadatas=[{"s": 1}, {"s": [2]}])
    assert [(d.page_content, d.metadata) for d in docs] == [
        (d.page_content, d.metadata) for d in lc_docs
    ]
    assert str(docs[0]) == str(lc_docs[0])


def test_default_sizes():
    for size in (None, 60, 250, 300, 2000):
        kwargs = {} if size is None else {"max_chunk_size": size}
        ours, theirs = RecursiveJsonSplitter(**kwargs), LCRecursiveJsonSplitter(**kwargs)
        assert (ours.max_chunk_size, ours.min_chunk_size) == (
            theirs.max_chunk_size,
            theirs.min_chunk_size,
        )


def test_random_objects_split_the_same():
    rng = random.Random(24)
    for _ in range(300):
        data = random_object(rng)
        before = copy.deepcopy(data)
        limit = rng.choice([20, 50, 90, 150, 300])
        smallest = rng.choice([None, None, 10, 80])
        ours = RecursiveJsonSplitter(max_chunk_size=limit, min_chunk_size=smallest)
        theirs = LCRecursiveJsonSplitter(max_chunk_size=limit, min_chunk_size=smallest)
        for lists in (False, True):
            assert ours.split_json(data, lists) == theirs.split_json(data, lists), (data, limit)
        ascii_flag = rng.random() < 0.5
        assert ours.split_text(data, True, ascii_flag) == theirs.split_text(data, True, ascii_flag)
        assert data == before
