"""Parity: RouterRunnable against LangChain's.

The same runnables under the same keys in both libraries: ``invoke`` / ``ainvoke`` /
``batch`` (with ``return_exceptions``) / ``abatch`` / ``stream`` / ``astream`` results,
callables coerced to lambdas, the errors for an unknown key (one input, or any of a
batch before anything runs), and the runs a callback handler sees (the router reports
none of its own, in both).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.runnables import RouterInput as LCRouterInput
from langchain_core.runnables import RouterRunnable as LCRouterRunnable
from langchain_core.runnables import RunnableLambda as LCRunnableLambda

from ragline.core import BaseCallbackHandler
from ragline.core.runnables import RouterInput, RouterRunnable, RunnableLambda

COVERS = {"core.runnables.RouterRunnable", "core.runnables.RouterInput"}


def fail(x: Any) -> Any:
    raise RuntimeError(f"no {x}")


def routers() -> tuple[Any, Any]:
    def words(text: str) -> Any:
        yield from text.split()

    lc = LCRouterRunnable(
        {
            "add": LCRunnableLambda(lambda x: x + 1),
            "square": lambda x: x * x,
            "fail": fail,
            "words": LCRunnableLambda(words),
        }
    )
    rl = RouterRunnable(
        {
            "add": RunnableLambda(lambda x: x + 1),
            "square": lambda x: x * x,
            "fail": fail,
            "words": RunnableLambda(words),
        }
    )
    return lc, rl


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        value = call(*args, **kwargs)
    except Exception as err:
        return ("raised", type(err).__name__, str(err))
    return (
        "ok",
        [(type(v).__name__, str(v)) if isinstance(v, Exception) else v for v in value]
        if isinstance(value, list)
        else value,
    )


BATCH = [{"key": "add", "input": 1}, {"key": "square", "input": 4}, {"key": "fail", "input": 2}]


def test_calls_as_langchains():
    lc, rl = routers()
    for item in [
        {"key": "add", "input": 2},
        {"key": "square", "input": 5},
        {"key": "nope", "input": 1},
        {"key": "fail", "input": 3},
    ]:
        assert outcome(rl.invoke, item) == outcome(lc.invoke, item)
        assert outcome(lambda i: asyncio.run(rl.ainvoke(i)), item) == outcome(
            lambda i: asyncio.run(lc.ainvoke(i)), item
        )
    assert outcome(rl.batch, BATCH[:2]) == outcome(lc.batch, BATCH[:2])
    assert outcome(rl.batch, BATCH, return_exceptions=True) == outcome(
        lc.batch, BATCH, return_exceptions=True
    )
    bad = [*BATCH[:2], {"key": "nope", "input": 0}]
    assert outcome(rl.batch, bad) == outcome(lc.batch, bad)
    assert rl.batch([]) == lc.batch([]) == []
    assert outcome(lambda b: asyncio.run(rl.abatch(b, return_exceptions=True)), BATCH) == outcome(
        lambda b: asyncio.run(lc.abatch(b, return_exceptions=True)), BATCH
    )
    words = {"key": "words", "input": "one two three"}
    assert list(rl.stream(words)) == list(lc.stream(words))

    async def chunks(router: Any) -> list[Any]:
        return [c async for c in router.astream({"key": "add", "input": 41})]

    assert asyncio.run(chunks(rl)) == asyncio.run(chunks(lc))


def test_runs_a_handler_sees():
    class LCRecorder(LCBaseCallbackHandler):
        def __init__(self) -> None:
            self.names: list[str] = []

        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            self.names.append(kwargs.get("name") or "")

    class Recorder(BaseCallbackHandler):
        def __init__(self) -> None:
            self.names: list[str] = []

        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            self.names.append(kwargs.get("name") or "")

    lc, rl = routers()
    theirs, ours = LCRecorder(), Recorder()
    lc.invoke({"key": "add", "input": 1}, {"callbacks": [theirs]})
    rl.invoke({"key": "add", "input": 1}, {"callbacks": [ours]})
    assert ours.names == theirs.names == ["RunnableLambda"]


def test_router_input_is_the_same_typed_dict():
    assert RouterInput.__annotations__.keys() == LCRouterInput.__annotations__.keys()
    assert RouterInput.__required_keys__ == LCRouterInput.__required_keys__
    lc, rl = routers()
    assert rl.invoke(RouterInput(key="add", input=9)) == lc.invoke(
        LCRouterInput(key="add", input=9)
    )


def meeting_router(router_cls: Any, lambda_cls: Any, seen: list[Any]) -> Any:
    """A router whose runnables all wait for one another before answering."""
    barrier = threading.Barrier(3, timeout=60)

    def meet(x: int) -> int:
        barrier.wait()
        seen.append(x)
        return x * 10

    def meet_then_fail(x: int) -> int:
        barrier.wait()
        seen.append(x)
        raise RuntimeError(f"no {x}")

    return router_cls({"meet": lambda_cls(meet), "fail": lambda_cls(meet_then_fail)})


MEETING = [{"key": "meet", "input": 1}, {"key": "fail", "input": 2}, {"key": "meet", "input": 3}]


def test_batch_runs_the_inputs_at_once_as_langchains():
    """LangChain's batch runs every input in its own thread at once: three runnables that
    wait for one another all answer; a failure raises the first error in input order,
    after every input has run."""
    all_meet = [{"key": "meet", "input": i} for i in (1, 2, 3)]
    for batch, kwargs in [
        (all_meet, {}),
        (MEETING, {"return_exceptions": True}),
        (MEETING, {}),
    ]:
        ran: dict[str, list[Any]] = {"lc": [], "rl": []}
        lc = meeting_router(LCRouterRunnable, LCRunnableLambda, ran["lc"])
        rl = meeting_router(RouterRunnable, RunnableLambda, ran["rl"])
        expected = outcome(lc.batch, batch, **kwargs)
        assert outcome(rl.batch, batch, **kwargs) == expected
        assert sorted(ran["rl"]) == sorted(ran["lc"]) == [1, 2, 3]
    assert expected == ("raised", "RuntimeError", "no 2")


def peak_router(router_cls: Any, lambda_cls: Any, peak: list[int]) -> Any:
    """A router whose one runnable records how many of its calls run at the same time."""
    active = [0]
    lock = threading.Lock()

    def track(x: int) -> int:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        threading.Event().wait(0.05)
        with lock:
            active[0] -= 1
        return x

    async def atrack(x: int) -> int:
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        for _ in range(5):
            await asyncio.sleep(0)
        active[0] -= 1
        return x

    return router_cls({"track": lambda_cls(track, afunc=atrack)})


def test_batch_and_abatch_keep_max_concurrency_as_langchains():
    batch = [{"key": "track", "input": i} for i in range(4)]
    for limit in [1, 2, None]:
        config = {"max_concurrency": limit} if limit else None
        peaks: dict[str, list[int]] = {"lc": [0], "rl": [0]}
        lc = peak_router(LCRouterRunnable, LCRunnableLambda, peaks["lc"])
        rl = peak_router(RouterRunnable, RunnableLambda, peaks["rl"])
        assert asyncio.run(rl.abatch(batch, config)) == asyncio.run(lc.abatch(batch, config))
        assert peaks["rl"] == peaks["lc"] == [limit or 4]
        if limit == 1:  # one at a time in threads too (more is a matter of thread timing)
            peaks = {"lc": [0], "rl": [0]}
            lc = peak_router(LCRouterRunnable, LCRunnableLambda, peaks["lc"])
            rl = peak_router(RouterRunnable, RunnableLambda, peaks["rl"])
            assert rl.batch(batch, config) == lc.batch(batch, config) == [0, 1, 2, 3]
            assert peaks["rl"] == peaks["lc"] == [1]
