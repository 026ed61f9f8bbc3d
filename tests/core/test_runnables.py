"""Runnable basics: invoke/batch/ainvoke/abatch, composition, lambdas, parallel, passthrough."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from ragline.core import (
    InvalidInputError,
    MissingVariableError,
    RunCollectorCallbackHandler,
    Runnable,
    RunnableAssign,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnablePick,
    RunnableSequence,
    chain,
)
from ragline.core.runnables import RunnableGenerator


class AddOne(Runnable[int, int]):
    """A minimal subclass: only invoke."""

    def invoke(self, input, config=None, **kwargs):
        return self._call_with_config(lambda x: x + 1, input, config)


class ConcurrencyProbe:
    """Counts how many calls run at the same time. A call holds on until ``expect``
    calls have run at once, so reaching the peak does not depend on how fast a loaded
    machine starts threads or tasks (with only a fixed pause it did); the wait ends 30 s
    after the first call at the latest, which only bounds a hang (the peak then says
    what went wrong). Then it stays ``pause`` s more, the time for calls over a limit
    to show up."""

    def __init__(self, expect: int, pause: float = 0.03) -> None:
        self.expect = expect
        self.pause = pause
        self.active = 0
        self.peak = 0
        self.deadline: float | None = None
        self.changed = threading.Condition()

    def _enter(self) -> None:
        with self.changed:
            if self.deadline is None:
                self.deadline = time.monotonic() + 30
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.changed.notify_all()

    def _waiting(self) -> bool:
        assert self.deadline is not None
        return self.peak < self.expect and time.monotonic() < self.deadline

    def __call__(self, x):
        self._enter()
        with self.changed:
            while self._waiting():
                self.changed.wait(0.1)
        time.sleep(self.pause)
        with self.changed:
            self.active -= 1
        return x

    async def acall(self, x):
        self._enter()
        while self._waiting():
            await asyncio.sleep(0.001)
        await asyncio.sleep(self.pause)
        self.active -= 1
        return x


# ---- the base class defaults -------------------------------------------------------------
def test_subclass_with_only_invoke_gets_everything_else():
    runnable = AddOne()
    assert runnable.invoke(1) == 2
    assert runnable.batch([1, 2, 3]) == [2, 3, 4]
    assert list(runnable.stream(1)) == [2]
    assert list(runnable.transform(iter([1, 2]))) == [4]  # chunks combined first: 1 + 2
    assert runnable.get_name() == "AddOne"


async def test_subclass_async_defaults():
    runnable = AddOne()
    assert await runnable.ainvoke(1) == 2
    assert await runnable.abatch([1, 2]) == [2, 3]
    assert [c async for c in runnable.astream(5)] == [6]


def test_batch_keeps_order_and_returns_exceptions_in_place():
    def invert(x):
        time.sleep(0.01 * (3 - x))  # later inputs finish first
        return 6 // x

    results = RunnableLambda(invert).batch([1, 0, 2, 3], return_exceptions=True)
    assert results[0] == 6 and results[2:] == [3, 2]
    assert isinstance(results[1], ZeroDivisionError)


def test_batch_raises_the_first_error_without_return_exceptions():
    with pytest.raises(ZeroDivisionError):
        RunnableLambda(lambda x: 1 // x).batch([1, 0, 2])


async def test_abatch_returns_exceptions_in_place():
    async def invert(x):
        return 6 // x

    results = await RunnableLambda(invert).abatch([2, 0], return_exceptions=True)
    assert results[0] == 3 and isinstance(results[1], ZeroDivisionError)
    with pytest.raises(ZeroDivisionError):
        await RunnableLambda(invert).abatch([2, 0])


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_batch_honours_max_concurrency(limit):
    probe = ConcurrencyProbe(expect=limit)
    assert RunnableLambda(probe).batch(list(range(8)), {"max_concurrency": limit}) == list(range(8))
    assert probe.peak == limit


def test_batch_without_a_limit_runs_concurrently():
    probe = ConcurrencyProbe(expect=4)
    RunnableLambda(probe).batch(list(range(4)))
    assert probe.peak == 4


@pytest.mark.parametrize("limit", [1, 2])
async def test_abatch_honours_max_concurrency(limit):
    probe = ConcurrencyProbe(expect=limit)
    lam = RunnableLambda(probe.acall)
    assert await lam.abatch(list(range(6)), {"max_concurrency": limit}) == list(range(6))
    assert probe.peak == limit


def test_batch_with_one_config_per_input():
    collector = RunCollectorCallbackHandler()
    RunnableLambda(lambda x: x, name="echo").batch(
        [1, 2],
        [{"callbacks": [collector], "tags": ["one"]}, {"callbacks": [collector], "tags": ["two"]}],
    )
    assert sorted((r.inputs["input"], tuple(r.tags)) for r in collector.traced_runs) == [
        (1, ("one",)),
        (2, ("two",)),
    ]


def test_batch_of_nothing():
    assert RunnableLambda(lambda x: x).batch([]) == []


# ---- composition --------------------------------------------------------------------------
def test_pipe_builds_a_flat_sequence_with_first_middle_last():
    a, b, c = (RunnableLambda(lambda x: x, name=n) for n in "abc")
    seq = a | b | c
    assert isinstance(seq, RunnableSequence)
    assert seq.first is a and seq.middle == [b] and seq.last is c
    assert seq.steps == [a, b, c]
    assert a.pipe(b, c).steps == [a, b, c]


def test_callables_and_dicts_are_coerced():
    seq = (lambda x: x + 1) | RunnableLambda(lambda x: x * 10) | {"n": lambda x: x, "s": str}
    assert isinstance(seq.first, RunnableLambda)
    assert isinstance(seq.last, RunnableParallel)
    assert seq.invoke(1) == {"n": 20, "s": "20"}
    left = {"a": lambda x: x} | RunnableLambda(lambda d: d["a"] * 2)
    assert left.invoke(4) == 8


def test_generator_functions_become_runnable_generators():
    def words(chunks):
        for chunk in chunks:
            yield from chunk.split()

    seq = RunnableLambda(lambda x: x) | words
    assert isinstance(seq.last, RunnableGenerator)
    assert list(seq.stream("a b c")) == ["a", "b", "c"]


def test_composing_something_else_is_a_type_error():
    with pytest.raises(TypeError, match="cannot compose a int into a chain"):
        RunnableLambda(lambda x: x) | 3


def test_a_sequence_needs_two_steps():
    with pytest.raises(InvalidInputError, match="at least 2 steps, got 1"):
        RunnableSequence(RunnableLambda(lambda x: x))


def test_composites_reject_keyword_options():
    with pytest.raises(TypeError, match="takes no keyword options, got stop"):
        (RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)).invoke(1, stop=["x"])


def test_sequence_batch_calls_each_step_batch_once():
    calls = []

    class Recording(Runnable[int, int]):
        def invoke(self, input, config=None, **kwargs):
            return input * 2

        def batch(self, inputs, config=None, *, return_exceptions=False, **kwargs):
            calls.append(list(inputs))
            return super().batch(inputs, config, return_exceptions=return_exceptions)

    seq = RunnableLambda(lambda x: x + 1) | Recording()
    assert seq.batch([1, 2, 3]) == [4, 6, 8]
    assert calls == [[2, 3, 4]]


def test_sequence_batch_drops_failed_inputs_and_reports_runs():
    collector = RunCollectorCallbackHandler()
    later = []

    def check(x):
        if x == 2:
            raise ValueError("two")
        return x

    seq = RunnableLambda(check, name="check") | RunnableLambda(
        lambda x: later.append(x) or x, name="later"
    )
    results = seq.batch([1, 2, 3], {"callbacks": [collector]}, return_exceptions=True)
    assert results[0] == 1 and results[2] == 3 and isinstance(results[1], ValueError)
    assert sorted(later) == [1, 3]
    runs = sorted(collector.traced_runs, key=lambda r: r.inputs["input"])
    assert [(r.inputs, r.outputs, type(r.exception).__name__) for r in runs] == [
        ({"input": 1}, {"output": 1}, "NoneType"),
        ({"input": 2}, {}, "ValueError"),
        ({"input": 3}, {"output": 3}, "NoneType"),
    ]
    assert [r.tree() for r in runs] == [
        ("RunnableSequence", [("check", []), ("later", [])]),
        ("RunnableSequence", [("check", [])]),
        ("RunnableSequence", [("check", []), ("later", [])]),
    ]
    with pytest.raises(ValueError, match="two"):
        seq.batch([1, 2, 3])


async def test_sequence_abatch():
    async def double(x):
        return x * 2

    seq = RunnableLambda(double) | RunnableLambda(lambda x: x + 1)
    assert await seq.abatch([1, 2, 3]) == [3, 5, 7]
    results = await (seq | (lambda x: 10 // (x - 3))).abatch([1, 2], return_exceptions=True)
    assert isinstance(results[0], ZeroDivisionError) and results[1] == 5


# ---- lambdas --------------------------------------------------------------------------
def test_lambda_names():
    def shout(x):
        return x

    assert RunnableLambda(shout).get_name() == "shout"
    assert RunnableLambda(lambda x: x).get_name() == "RunnableLambda"
    assert RunnableLambda(lambda x: x, name="custom").get_name() == "custom"


async def test_async_lambda_is_truly_async():
    thread_ids = set()
    probe = ConcurrencyProbe(expect=5)

    async def work(x):
        thread_ids.add(threading.get_ident())
        return await probe.acall(x) * 2

    lam = RunnableLambda(work)
    assert await asyncio.gather(*(lam.ainvoke(i) for i in range(5))) == [0, 2, 4, 6, 8]
    assert probe.peak == 5  # all five awaited at once
    assert thread_ids == {threading.get_ident()}  # ran on the event loop, not in threads


def test_async_only_lambda_cannot_be_invoked_synchronously():
    async def work(x):
        return x

    with pytest.raises(TypeError, match="wraps an async function; use ainvoke"):
        RunnableLambda(work).invoke(1)


async def test_lambda_with_sync_and_async_functions():
    async def afunc(x):
        return "async"

    lam = RunnableLambda(lambda x: "sync", afunc)
    assert lam.invoke(1) == "sync"
    assert await lam.ainvoke(1) == "async"


def test_lambda_returning_a_runnable_invokes_it_as_a_child():
    collector = RunCollectorCallbackHandler()
    inner = RunnableLambda(lambda x: x * 100, name="inner")
    router = RunnableLambda(lambda x: inner, name="router")
    assert router.invoke(2, {"callbacks": [collector]}) == 200
    assert collector.traced_runs[0].tree() == ("router", [("inner", [])])
    assert list(router.stream(3)) == [300]


def test_chain_decorator():
    @chain
    def count_words(text):
        return len(text.split())

    assert isinstance(count_words, RunnableLambda)
    assert count_words.get_name() == "count_words"
    assert (count_words | (lambda n: n * 2)).invoke("a b c") == 6


# ---- parallel ---------------------------------------------------------------------------
def test_parallel_runs_branches_concurrently_in_threads():
    probe = ConcurrencyProbe(expect=3)
    par = RunnableParallel({"a": probe, "b": probe, "c": probe})
    assert par.invoke(7) == {"a": 7, "b": 7, "c": 7}
    assert probe.peak == 3


def test_parallel_honours_max_concurrency():
    probe = ConcurrencyProbe(expect=2)
    par = RunnableParallel({k: probe for k in "abcd"})
    par.invoke(1, {"max_concurrency": 2})
    assert probe.peak == 2


async def test_parallel_ainvoke_runs_async_branches_as_tasks():
    probe = ConcurrencyProbe(expect=2)
    par = RunnableParallel(a=RunnableLambda(probe.acall), b=RunnableLambda(probe.acall))
    assert await par.ainvoke(3) == {"a": 3, "b": 3}
    assert probe.peak == 2


def test_parallel_keyword_form_name_and_error():
    par = RunnableParallel({"x": lambda v: v}, y=lambda v: -v)
    assert par.invoke(2) == {"x": 2, "y": -2}
    assert par.get_name() == "RunnableParallel<x,y>"

    def boom(v):
        raise LookupError("branch failed")

    with pytest.raises(LookupError, match="branch failed"):
        RunnableParallel(ok=lambda v: v, bad=boom).invoke(1)
    with pytest.raises(InvalidInputError, match="RunnableParallel keys must be str, got 1"):
        RunnableParallel({1: lambda v: v})


# ---- passthrough, assign, pick ------------------------------------------------------------
def test_passthrough_and_side_effect():
    seen = []
    assert RunnablePassthrough().invoke({"a": 1}) == {"a": 1}
    assert RunnablePassthrough(seen.append).invoke("x") == "x"
    assert list(RunnablePassthrough(seen.append).stream("y")) == ["y"]
    assert seen == ["x", "y"]


def test_assign_adds_keys_computed_from_the_input():
    assign = RunnablePassthrough.assign(
        total=lambda d: d["a"] + d["b"], double=lambda d: d["a"] * 2
    )
    assert isinstance(assign, RunnableAssign)
    assert assign.invoke({"a": 1, "b": 2}) == {"a": 1, "b": 2, "total": 3, "double": 2}
    assert assign.get_name() == "RunnableAssign<total,double>"


def test_assign_and_pick_methods_on_any_runnable():
    seq = RunnableLambda(lambda x: {"q": x}).assign(length=lambda d: len(d["q"]))
    assert seq.invoke("four") == {"q": "four", "length": 4}
    assert seq.pick("length").invoke("four") == 4
    assert seq.pick(["q"]).invoke("four") == {"q": "four"}


def test_assign_needs_a_dict():
    with pytest.raises(InvalidInputError, match="RunnableAssign<x> needs a dict input, got str"):
        RunnablePassthrough.assign(x=lambda d: 1).invoke("text")


def test_pick_errors_name_the_keys():
    with pytest.raises(MissingVariableError) as info:
        RunnablePick("answer").invoke({"context": [], "input": "q"})
    assert (
        str(info.value)
        == "RunnablePick<answer>: input has no key 'answer'; its keys are ['context', 'input']"
    )
    assert RunnablePick(["a", "zz"]).invoke({"a": 1, "b": 2}) == {"a": 1}
    with pytest.raises(InvalidInputError):
        RunnablePick(3)  # type: ignore[arg-type]


async def test_assign_async():
    async def size(d):
        return len(d["text"])

    assert await RunnablePassthrough.assign(size=size).ainvoke({"text": "abc"}) == {
        "text": "abc",
        "size": 3,
    }


# ---- map ----------------------------------------------------------------------------------
def test_map_applies_to_each_element_as_child_runs():
    collector = RunCollectorCallbackHandler()
    doubled = RunnableLambda(lambda x: x * 2, name="double").map()
    assert doubled.invoke([1, 2, 3], {"callbacks": [collector]}) == [2, 4, 6]
    (run,) = collector.traced_runs
    assert run.name == "RunnableEach<double>"
    assert sorted(c.inputs["input"] for c in run.children) == [1, 2, 3]
    with pytest.raises(InvalidInputError, match="RunnableEach<double> needs a list input, got int"):
        doubled.invoke(3)


async def test_map_async():
    async def inc(x):
        return x + 1

    assert await RunnableLambda(inc).map().ainvoke([1, 2]) == [2, 3]


# ---- public names -------------------------------------------------------------------------
def test_public_names_of_the_runnables_and_callbacks_packages():
    import ragline.core.callbacks as callbacks
    import ragline.core.runnables as runnables

    assert runnables.__all__ == [
        "AddableDict",
        "ConfigurableField",
        "ConfigurableFieldMultiOption",
        "ConfigurableFieldSingleOption",
        "ConfigurableFieldSpec",
        "CurveStyle",
        "Edge",
        "Graph",
        "Input",
        "Node",
        "NodeStyles",
        "Output",
        "RouterInput",
        "RouterRunnable",
        "RunLog",
        "RunLogPatch",
        "Runnable",
        "RunnableAssign",
        "RunnableBinding",
        "RunnableBindingBase",
        "RunnableBranch",
        "RunnableConfigurableAlternatives",
        "RunnableConfigurableFields",
        "RunnableEach",
        "RunnableEachBase",
        "RunnableGenerator",
        "RunnableLambda",
        "RunnableMap",
        "RunnableParallel",
        "RunnablePassthrough",
        "RunnablePick",
        "RunnableRetry",
        "RunnableSequence",
        "RunnableSerializable",
        "RunnableWithFallbacks",
        "RunnableWithMessageHistory",
        "add_chunks",
        "chain",
        "coerce_to_runnable",
    ]
    assert callbacks.__all__ == [
        "AsyncCallbackHandler",
        "AsyncCallbackManager",
        "AsyncCallbackManagerForChainGroup",
        "AsyncCallbackManagerForChainRun",
        "AsyncCallbackManagerForLLMRun",
        "AsyncCallbackManagerForRetrieverRun",
        "AsyncCallbackManagerForToolRun",
        "AsyncIteratorCallbackHandler",
        "BaseCallbackHandler",
        "BaseCallbackManager",
        "BaseRunManager",
        "BaseTracer",
        "CallbackManager",
        "CallbackManagerForChainGroup",
        "CallbackManagerForChainRun",
        "CallbackManagerForLLMRun",
        "CallbackManagerForRetrieverRun",
        "CallbackManagerForToolRun",
        "Callbacks",
        "ConsoleCallbackHandler",
        "FileCallbackHandler",
        "FinalStreamingStdOutCallbackHandler",
        "FunctionCallbackHandler",
        "OpenAICallbackHandler",
        "RetryState",
        "RootListenersHandler",
        "Run",
        "RunCollectorCallbackHandler",
        "StdOutCallbackHandler",
        "StreamingStdOutCallbackHandler",
        "UsageMetadataCallbackHandler",
        "adispatch_custom_event",
        "atrace_as_chain_group",
        "collect_runs",
        "dispatch_custom_event",
        "get_openai_callback",
        "get_usage_metadata_callback",
        "print_text",
        "trace_as_chain_group",
        "wait_for_all_tracers",
    ]
    for name in runnables.__all__:
        assert getattr(runnables, name) is not None
    for name in callbacks.__all__:
        assert getattr(callbacks, name) is not None


def test_parallel_batch_runs_each_branch_batch_once_and_fails_per_input():
    calls = []

    class Recording(Runnable[int, int]):
        def invoke(self, input, config=None, **kwargs):
            if input == 0:
                raise ZeroDivisionError("zero")
            return 10 // input

        def batch(self, inputs, config=None, *, return_exceptions=False, **kwargs):
            calls.append(list(inputs))
            return super().batch(inputs, config, return_exceptions=return_exceptions)

    par = RunnableParallel(div=Recording(), same=RunnablePassthrough())
    results = par.batch([1, 0, 5], return_exceptions=True)
    assert results[0] == {"div": 10, "same": 1} and results[2] == {"div": 2, "same": 5}
    assert isinstance(results[1], ZeroDivisionError)
    assert calls == [[1, 0, 5]]
    with pytest.raises(ZeroDivisionError):
        par.batch([1, 0])


@pytest.mark.parametrize("limit", [1, 2])
def test_parallel_batch_honours_max_concurrency_across_branches(limit):
    probe = ConcurrencyProbe(expect=limit)
    par = RunnableParallel(a=probe, b=probe, c=probe)
    assert par.batch([1, 2, 3], {"max_concurrency": limit}) == [
        {"a": i, "b": i, "c": i} for i in (1, 2, 3)
    ]
    assert probe.peak == limit


async def test_parallel_and_assign_abatch():
    async def neg(x):
        return -x

    par = RunnableParallel(n=neg, p=lambda x: x)
    assert await par.abatch([1, 2]) == [{"n": -1, "p": 1}, {"n": -2, "p": 2}]
    assign = RunnablePassthrough.assign(n=lambda d: -d["v"])
    results = await assign.abatch([{"v": 1}, "bad"], return_exceptions=True)
    assert results[0] == {"v": 1, "n": -1}
    assert isinstance(results[1], InvalidInputError)
    assert assign.batch([{"v": 2}]) == [{"v": 2, "n": -2}]
    with pytest.raises(InvalidInputError, match="needs a dict input, got str"):
        assign.batch(["bad"])
