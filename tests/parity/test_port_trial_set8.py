"""Parity: differences found by the eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.retry import RunnableRetry as LCRunnableRetry

from ragline.core.runnables import RunnableLambda
from ragline.core.runnables.retry import RunnableRetry


def _retry_view(retry: Any) -> tuple[Any, ...]:
    return (
        type(retry).__name__,
        retry.retry_exception_types,
        retry.max_attempt_number,
        retry.wait_exponential_jitter,
        retry.exponential_jitter_params,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"retry_if_exception_type": (ConnectionError,), "stop_after_attempt": 4},
        {"wait_exponential_jitter": False, "exponential_jitter_params": {"initial": 2}},
    ],
)
def test_with_retry_has_langchains_attributes(kwargs: dict[str, Any]) -> None:
    theirs = LCRunnableLambda(lambda x: x).with_retry(**kwargs)
    ours = RunnableLambda(lambda x: x).with_retry(**kwargs)
    assert _retry_view(ours) == _retry_view(theirs)


def test_runnable_retry_takes_langchains_constructor_names() -> None:
    """LangChain's documented construction: RunnableRetry(bound=..., retry_exception_types=...,
    max_attempt_number=...): the attempts follow max_attempt_number."""

    def run(retry_cls: Any, lambda_cls: Any) -> tuple[Any, ...]:
        calls: list[int] = []

        def flaky(x: int) -> int:
            calls.append(x)
            raise ValueError("down")

        retry = retry_cls(
            bound=lambda_cls(flaky),
            retry_exception_types=(ValueError,),
            max_attempt_number=2,
            wait_exponential_jitter=False,
        )
        with pytest.raises(ValueError, match="down"):
            retry.invoke(1)
        return (*_retry_view(retry), len(calls))

    assert run(RunnableRetry, RunnableLambda) == run(LCRunnableRetry, LCRunnableLambda)
