"""The UserWarning for a dropped constructor keyword (2848b41) names the user's line,
also when a ragline factory builds the object (StructuredTool.from_function)."""

from __future__ import annotations

import asyncio
import sys
import warnings
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from ragline.core import ChatPromptTemplate, FakeListChatModel, RunnableLambda
from ragline.core.tools._function import StructuredTool, Tool


def _double(x: int) -> int:
    """Double x."""
    return 2 * x


def _line() -> int:
    return sys._getframe(1).f_lineno


def test_a_factorys_dropped_keyword_is_reported_at_the_users_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = _line() + 1
        StructuredTool.from_function(_double, handle_tool_errors=True)
        second = _line() + 1
        Tool.from_function(_double, name="double", description="d", handle_tool_errors=True)
        third = _line() + 1
        FakeListChatModel(responses=["a"], temperature=0)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (UserWarning, __file__, first),
        (UserWarning, __file__, second),
        (UserWarning, __file__, third),
    ]
    assert str(caught[0].message).startswith(
        "StructuredTool() ignores 'handle_tool_errors': not among its fields ("
    )


def _sequence_calls(chain: Any) -> list[Callable[..., Any]]:
    """Each RunnableSequence call method, run to its end with the given keywords."""

    async def drain(stream: Any) -> list[Any]:
        return [chunk async for chunk in stream]

    async def one() -> AsyncIterator[Any]:
        yield {"q": "x"}

    async def ainvoke(**kw: Any) -> Any:  # awaited here: the warning names this line
        return await chain.ainvoke({"q": "x"}, **kw)

    async def abatch(**kw: Any) -> Any:
        return await chain.abatch([{"q": "x"}], **kw)

    return [
        lambda **kw: chain.invoke({"q": "x"}, **kw),
        lambda **kw: asyncio.run(ainvoke(**kw)),
        lambda **kw: chain.batch([{"q": "x"}], **kw),
        lambda **kw: asyncio.run(abatch(**kw)),
        lambda **kw: list(chain.stream({"q": "x"}, **kw)),
        lambda **kw: list(chain.transform(iter([{"q": "x"}]), **kw)),
        lambda **kw: asyncio.run(drain(chain.astream({"q": "x"}, **kw))),
        lambda **kw: asyncio.run(drain(chain.atransform(one(), **kw))),
    ]


def test_a_sequence_reports_a_config_keyword_at_the_users_line_in_every_method() -> None:
    chain = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["a"])
    for call in _sequence_calls(chain):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(tags=["t"], max_concurrency=2)
        assert [(w.category, w.filename) for w in caught] == [(UserWarning, __file__)]
        assert "ignores max_concurrency, tags given as a keyword argument" in str(caught[0].message)


def test_a_sequence_refuses_other_keywords_in_every_method() -> None:
    prompt_first = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["a"])
    lambda_first = RunnableLambda(lambda x: x) | ChatPromptTemplate.from_template("{q}")
    # a config key is dropped (with its warning) before the other keyword is refused; a
    # function first refuses the config key itself
    for chain, keywords, named, warned in [
        (prompt_first, {"tags": ["t"], "temperature": 0}, "temperature", [True]),
        (lambda_first, {"tags": ["t"]}, "tags", []),
    ]:
        for call in _sequence_calls(chain):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with pytest.raises(TypeError, match=f"takes no keyword options, got {named};"):
                    call(**keywords)
            assert ["ignores tags given as a keyword" in str(w.message) for w in caught] == warned
