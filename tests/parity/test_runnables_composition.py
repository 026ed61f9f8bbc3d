"""Parity: composition runnables (branch, assign, pick, retry, fallbacks, sequence,
generator, ``@chain``) against langchain_core's, on invoke, batch and stream.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import langchain_core.runnables as lc_runnables
import pytest
from langchain_core.runnables.base import coerce_to_runnable as lc_coerce

import ragline.core as rl_core
import ragline.core.runnables as rl_runnables
from tests.parity._observe import observe

COVERS = {
    "core.RunnableBranch",
    "core.RunnableAssign",
    "core.RunnablePick",
    "core.RunnableRetry",
    "core.RunnableSequence",
    "core.RunnableWithFallbacks",
    "core.RunnableGenerator",
    "core.chain",
    "core.runnables.coerce_to_runnable",
}


def _namespace(*modules: Any) -> SimpleNamespace:
    names: dict[str, Any] = {}
    for module in modules:
        names.update({n: getattr(module, n) for n in dir(module) if not n.startswith("_")})
    return SimpleNamespace(**names)


LC = _namespace(lc_runnables)
LC.coerce_to_runnable = lc_coerce
RL = _namespace(rl_runnables, rl_core)


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


def _branch(m: Any) -> Any:
    lam = m.RunnableLambda
    return m.RunnableBranch(
        (lambda x: x > 10, lam(lambda x: "big")),
        (lambda x: x > 5, lam(lambda x: "mid")),
        lam(lambda x: "small"),
    )


def test_branch() -> None:
    theirs, ours = both(
        lambda m: [
            [_branch(m).invoke(v) for v in (1, 7, 20)],
            _branch(m).batch([1, 7, 20]),
            list(_branch(m).stream(7)),
            type(_branch(m)).__name__,
        ]
    )
    assert ours == theirs
    assert ours[0] == ["small", "mid", "big"]


def test_assign_and_pick() -> None:
    def run(m: Any) -> Any:
        assign = m.RunnablePassthrough.assign(y=lambda d: d["x"] * 2)
        return [
            assign.invoke({"x": 3}),
            list(assign.stream({"x": 3})),
            type(assign).__name__,
            (assign | m.RunnablePick("y")).invoke({"x": 1}),
            m.RunnablePick(["a", "c"]).invoke({"a": 1, "b": 2, "c": 3}),
            m.RunnablePick(["a", "z"]).invoke({"a": 1}),
            assign.pick(["x"]).invoke({"x": 5}),
            m.RunnableAssign(m.RunnableParallel(z=lambda d: 0)).invoke({"x": 1}),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == [{"x": 3}, {"y": 6}]


def test_picking_one_missing_key_raises_a_listed_difference() -> None:
    """differences-from-langchain.md: LangChain's RunnablePick('z') gives None for a missing key."""
    assert LC.RunnablePick("z").invoke({"a": 1}) is None
    with pytest.raises(KeyError, match="'z'"):
        RL.RunnablePick("z").invoke({"a": 1})


def test_retry() -> None:
    def run(m: Any) -> Any:
        calls: list[int] = []

        def flaky(x: int) -> int:
            calls.append(x)
            if len(calls) < 3:
                raise ValueError("boom")
            return x + 1

        def broken(x: int) -> int:
            calls.append(x)
            raise KeyError("k")

        retried = m.RunnableLambda(flaky).with_retry(
            stop_after_attempt=3, wait_exponential_jitter=False
        )
        seen: list[Any] = [retried.invoke(1), len(calls), type(retried).__name__]
        calls.clear()
        try:
            m.RunnableLambda(broken).with_retry(
                stop_after_attempt=2,
                wait_exponential_jitter=False,
                retry_if_exception_type=(KeyError,),
            ).invoke(1)
        except KeyError as err:
            seen.append(repr(err))
        seen.append(len(calls))
        calls.clear()
        try:
            m.RunnableLambda(broken).with_retry(
                stop_after_attempt=3,
                wait_exponential_jitter=False,
                retry_if_exception_type=(ValueError,),
            ).invoke(1)
        except KeyError:
            seen.append(len(calls))  # not retried
        return seen

    theirs, ours = both(run)
    assert ours == theirs == [2, 3, "RunnableRetry", "KeyError('k')", 2, 1]


def test_fallbacks() -> None:
    def broken(x: Any) -> Any:
        raise KeyError("k")

    def run(m: Any) -> Any:
        lam = m.RunnableLambda
        seen = [
            lam(broken).with_fallbacks([lam(lambda x: "fb")]).invoke(1),
            lam(broken)
            .with_fallbacks([lam(lambda d: repr(d["exception"]))], exception_key="exception")
            .invoke({"a": 1}),
            type(lam(broken).with_fallbacks([lam(lambda x: 1)])).__name__,
            lam(broken).with_fallbacks([lam(lambda x: "b")]).batch([1, 2]),
        ]
        for fallbacks, handled in (([lam(broken)], (Exception,)), ([lam(str)], (ValueError,))):
            try:
                lam(broken).with_fallbacks(fallbacks, exceptions_to_handle=handled).invoke(1)
            except KeyError as err:
                seen.append(repr(err))
        return seen

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == "KeyError('k')"


def test_sequence() -> None:
    def run(m: Any) -> Any:
        lam = m.RunnableLambda
        seq = lam(lambda x: x + 1) | lam(lambda x: x * 2) | lam(str)
        return [
            type(seq).__name__,
            seq.invoke(1),
            seq.batch([1, 2]),
            list(seq.stream(3)),
            len(seq.steps),
            len(seq.middle),
            type(seq.first).__name__,
            m.RunnableSequence(lam(lambda x: x + 1), lam(lambda x: x * 3)).invoke(1),
            m.RunnableSequence(first=lam(lambda x: x + 1), last=lam(lambda x: x * 3)).invoke(1),
            (lam(lambda x: x) | {"a": lambda x: x, "b": lambda x: -x}).invoke(2),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == "4"


def test_generator_and_chain_decorator() -> None:
    def upper(chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            yield chunk.upper()

    def run(m: Any) -> Any:
        @m.chain
        def triple(x: int) -> int:
            return x * 3

        generator = m.RunnableGenerator(upper)
        return [
            generator.invoke("ab"),
            list(generator.stream("ab")),
            list((m.RunnableLambda(lambda x: x) | generator).stream("cd")),
            triple.invoke(2),
            triple.batch([1, 2]),
            type(triple).__name__,
            triple.name,
            type(m.coerce_to_runnable(lambda x: x)).__name__,
            type(m.coerce_to_runnable({"a": lambda x: x})).__name__,
            m.coerce_to_runnable({"a": lambda x: x + 1}).invoke(1),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[:4] == ["AB", ["AB"], ["CD"], 6]
