"""RunnableParallel pairs every branch's output with its own key, on every path.

A planted bug (the async path zipping results with the keys in another order) once passed
the whole suite: every test used keys already in sorted order, or branches with equal
outputs. Here the keys are deliberately unsorted, every branch's output names its branch
and its input, and the branches finish in the reverse of their key order (different
delays), so any mix-up between keys, outputs or inputs shows.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ragline.core import RunnableLambda, RunnableParallel, RunnablePassthrough

KEYS = ["zeta", "alpha", "mid", "beta"]  # not sorted, not reverse-sorted


def _branch(key: str, delay: float) -> RunnableLambda[Any, Any]:
    def sync(value: Any) -> str:
        time.sleep(delay)
        return f"{key}({value})"

    async def async_(value: Any) -> str:
        await asyncio.sleep(delay)
        return f"{key}({value})"

    return RunnableLambda(sync, afunc=async_)


def _parallel() -> RunnableParallel[Any]:
    # the first key sleeps longest: completion order is the reverse of key order
    delays = [0.04, 0.03, 0.02, 0.01]
    steps = {key: _branch(key, delay) for key, delay in zip(KEYS, delays, strict=True)}
    return RunnableParallel(steps)


def _expected(value: Any) -> dict[str, str]:
    return {key: f"{key}({value})" for key in KEYS}


def test_invoke_pairs_outputs_with_their_keys() -> None:
    result = _parallel().invoke("q")
    assert result == _expected("q") and list(result) == KEYS


async def test_ainvoke_pairs_outputs_with_their_keys() -> None:
    result = await _parallel().ainvoke("q")
    assert result == _expected("q") and list(result) == KEYS


@pytest.mark.parametrize("max_concurrency", [None, 1, 3])
def test_batch_pairs_outputs_with_keys_and_inputs(max_concurrency: int | None) -> None:
    inputs = ["i0", "i1", "i2"]
    config = {"max_concurrency": max_concurrency} if max_concurrency else None
    assert _parallel().batch(inputs, config) == [_expected(value) for value in inputs]


@pytest.mark.parametrize("max_concurrency", [None, 1, 3])
async def test_abatch_pairs_outputs_with_keys_and_inputs(max_concurrency: int | None) -> None:
    inputs = ["i0", "i1", "i2"]
    config = {"max_concurrency": max_concurrency} if max_concurrency else None
    assert await _parallel().abatch(inputs, config) == [_expected(value) for value in inputs]


def _merged(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for chunk in chunks:
        for key, value in chunk.items():
            assert value.startswith(f"{key}("), (key, value)  # each chunk pairs right too
            merged[key] = merged.get(key, "") + value
    return merged


def test_stream_pairs_outputs_with_their_keys() -> None:
    assert _merged(list(_parallel().stream("s"))) == _expected("s")


async def test_astream_pairs_outputs_with_their_keys() -> None:
    chunks = [chunk async for chunk in _parallel().astream("s")]
    assert _merged(chunks) == _expected("s")


async def test_a_rag_shaped_chain_keeps_question_and_context_apart() -> None:
    """The shape users write: {"question": passthrough, "context": retriever-like} in a
    sequence, with assign after it; sync and async agree and nothing swaps."""

    async def slow_context(question: str) -> str:
        await asyncio.sleep(0.03)
        return f"docs about {question}"

    context = RunnableLambda(lambda q: f"docs about {q}", afunc=slow_context)
    chain = {"question": RunnablePassthrough(), "context": context} | RunnablePassthrough.assign(
        answer=lambda d: f"{d['question']} <- {d['context']}"
    )
    expected = {
        "question": "etna",
        "context": "docs about etna",
        "answer": "etna <- docs about etna",
    }
    assert chain.invoke("etna") == expected
    assert await chain.ainvoke("etna") == expected
    assert await chain.abatch(["etna", "bread"]) == [
        expected,
        {"question": "bread", "context": "docs about bread", "answer": "bread <- docs about bread"},
    ]
