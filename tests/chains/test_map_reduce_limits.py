"""Map-reduce at its exact limits: a group of mapped outputs whose rendered size is
exactly ``token_max`` fits (it is not split), one output of exactly ``token_max`` tokens
is accepted, one token more is split or refused; sync and async agree.

A planted bug (``>=`` for ``>`` when grouping) once passed the whole suite: no test
reached the boundary. Token counts here are words, so every size is hand-checkable.
"""

from __future__ import annotations

from typing import Any

import pytest

from ragline.chains import MapReduceDocumentsChain
from ragline.core import ChatPromptTemplate, Document, FakeListChatModel, InvalidInputError


def words(text: str) -> int:
    return len(text.split())


def _chain(responses: list[str], token_max: int) -> tuple[MapReduceDocumentsChain, Any]:
    model = FakeListChatModel(responses=responses)
    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])
    chain = MapReduceDocumentsChain(
        model,
        question_prompt=prompt,
        collapse_prompt=prompt,
        combine_prompt=prompt,
        token_max=token_max,
        token_counter=words,
        max_concurrency=1,
    )
    return chain, model


def _prompts(model: Any) -> list[str]:
    return [call[0].content for call in model.calls]


DOCS = [Document(f"doc {i}") for i in range(4)]
MAPPED = ["a b c", "d e f", "g h i", "j k l"]  # 3 words each


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_group_of_exactly_token_max_is_one_group(use_async: bool) -> None:
    """token_max=6 and outputs of 3 words: 12 in all do not fit, so they collapse, in
    pairs of exactly 6 words (two collapse calls, not four)."""
    chain, model = _chain([*MAPPED, "X", "Y", "final"], token_max=6)
    inputs = {"context": DOCS}
    result = await chain.ainvoke(inputs) if use_async else chain.invoke(inputs)
    assert result == "final"
    assert _prompts(model)[4:] == ["a b c\n\nd e f", "g h i\n\nj k l", "X\n\nY"]


@pytest.mark.parametrize("use_async", [False, True])
async def test_one_token_over_splits_the_group(use_async: bool) -> None:
    """token_max=5: a pair (6 words) is one over, so each output is its own group."""
    chain, model = _chain([*MAPPED, "W", "X", "Y", "Z", "final"], token_max=5)
    inputs = {"context": DOCS}
    result = await chain.ainvoke(inputs) if use_async else chain.invoke(inputs)
    assert result == "final"
    assert _prompts(model)[4:] == [*MAPPED, "W\n\nX\n\nY\n\nZ"]


def test_everything_exactly_token_max_is_not_collapsed() -> None:
    chain, model = _chain(["a b c", "d e f", "final"], token_max=6)
    assert chain.invoke({"context": DOCS[:2]}) == "final"
    assert _prompts(model)[2:] == ["a b c\n\nd e f"]  # straight to reduce


def test_one_output_of_exactly_token_max_is_accepted_and_one_more_is_not() -> None:
    chain, model = _chain(["a b c d", "e", "X", "Y", "final"], token_max=4)
    assert chain.invoke({"context": DOCS[:2]}) == "final"
    assert _prompts(model)[2:] == ["a b c d", "e", "X\n\nY"]
    chain, _ = _chain(["a b c d e", "f"], token_max=4)
    with pytest.raises(InvalidInputError, match="mapped document 0 alone is 5 tokens"):
        chain.invoke({"context": DOCS[:2]})
