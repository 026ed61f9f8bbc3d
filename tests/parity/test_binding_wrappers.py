"""Parity: ``with_config``, ``with_retry`` and ``with_listeners`` called on a binding.

LangChain's ``RunnableBinding`` answers them itself: ``with_config`` replaces each key
it is given (``tags``, ``metadata``, ``callbacks`` ...; a key not given is kept),
``with_retry`` retries what the binding binds and keeps the binding outside
(``RunnableBinding(bound=bound.with_retry(), ...)``), and ``with_listeners`` adds the
listeners to the same binding, where they see the binding's config. Each scenario runs
in both libraries and compares what a callback handler, ``collect_runs``, a listener and
``astream_events`` see.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks


class _Lib:
    def __init__(self, lam: Any, handler: Any, collect_runs: Any) -> None:
        self.RunnableLambda, self.BaseCallbackHandler, self.collect_runs = (
            lam,
            handler,
            collect_runs,
        )


LC = _Lib(
    lc_runnables.RunnableLambda, lc_callbacks.BaseCallbackHandler, lc_tracer_context.collect_runs
)
OURS = _Lib(rl.RunnableLambda, rl.BaseCallbackHandler, rl_callbacks.collect_runs)


def _handler(m: _Lib) -> Any:
    class Seen(m.BaseCallbackHandler):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
            self.seen.append(("start", kw.get("name"), kw.get("tags"), kw.get("metadata")))

        def on_chain_end(self, outputs: Any, **kw: Any) -> None:
            self.seen.append(("end", outputs, kw.get("tags")))

        def on_chain_error(self, error: Any, **kw: Any) -> None:
            self.seen.append(("error", str(error), kw.get("tags")))

    return Seen()


def add(x: int) -> int:
    return x + 1


def _flaky() -> Callable[[int], int]:
    calls: list[int] = []

    def flaky(x: int) -> int:
        calls.append(x)
        if len(calls) < 2:
            raise ValueError("boom")
        return x + 1

    return flaky


def _bound(m: _Lib, function: Callable[[int], int] = add) -> Any:
    return m.RunnableLambda(function).with_config(tags=["inner"], run_name="B", metadata={"m": 1})


def _retried(m: _Lib) -> Any:
    return _bound(m, _flaky()).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)


SCENARIOS: dict[str, Callable[[_Lib], Any]] = {
    "with_config twice": lambda m: _bound(m).with_config(tags=["outer"], metadata={"n": 2}),
    "with_config run_name only": lambda m: _bound(m).with_config(run_name="C"),
    "with_retry": lambda m: _bound(m).with_retry(stop_after_attempt=2),
    "with_retry that retries": _retried,
    "bind then with_retry": lambda m: m.RunnableLambda(add).bind().with_retry(),
    "with_retry then with_config": lambda m: _retried(m).with_config(tags=["after"]),
}
# streamed only: a retry's stream is the runnable's it wraps, bound or not
STREAMED = {**SCENARIOS, "plain with_retry": lambda m: m.RunnableLambda(add).with_retry()}
# LangChain streams a retry's runnable without retrying: these fail their first attempt
RETRIED = ("with_retry that retries", "with_retry then with_config")


def _observe(m: _Lib, scenario: str, asynchronous: bool) -> Any:
    runnable = SCENARIOS[scenario](m)
    handler = _handler(m)
    config = {"callbacks": [handler], "tags": ["z", "a0"], "metadata": {"call": True}}
    with m.collect_runs() as collector:
        if asynchronous:
            result = asyncio.run(runnable.ainvoke(1, config))
        else:
            result = runnable.invoke(1, config)
    run = collector.traced_runs[0]
    return result, type(runnable).__name__, handler.seen, _tree(run)


def _tree(run: Any) -> Any:
    return (run.name, run.tags, run.extra.get("metadata"), [_tree(c) for c in run.child_runs])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_runs_of_a_binding_s_wrappers_are_langchains(scenario: str, asynchronous: bool) -> None:
    assert _observe(OURS, scenario, asynchronous) == _observe(LC, scenario, asynchronous)


def test_with_config_on_a_binding_replaces_the_keys_it_is_given() -> None:
    def config(m: _Lib) -> Any:
        binding = _bound(m).with_config(tags=["outer"], metadata={"n": 2})
        return binding.config

    assert config(OURS) == config(LC) == {"tags": ["outer"], "run_name": "B", "metadata": {"n": 2}}


def _events(m: _Lib, scenario: str) -> list[Any]:
    async def run() -> list[Any]:
        runnable = STREAMED[scenario](m)
        return [
            (event["event"], event["name"], event["tags"], event["metadata"])
            async for event in runnable.astream_events(1, {"tags": ["z"]}, version="v2")
        ]

    return asyncio.run(run())


# a retry streams what it wraps, with no run of its own, as LangChain's (in a streamed
# sequence ragline's retry gathers its input before its run starts, to be able to retry)
@pytest.mark.parametrize("scenario", [name for name in STREAMED if name not in RETRIED])
def test_astream_events_of_a_binding_s_wrappers_are_langchains(scenario: str) -> None:
    assert _events(OURS, scenario) == _events(LC, scenario)


def test_a_retried_stream_is_the_bound_runnable_s_runs_alone() -> None:
    # LangChain raises here (its stream does not retry); ragline retries before the first
    # chunk: the failed attempt's run, then the next, each the binding's, no retry run
    assert _events(OURS, "with_retry that retries") == [
        ("on_chain_start", "B", ["inner", "z"], {"m": 1}),
        ("on_chain_start", "B", ["inner", "z"], {"m": 1}),
        ("on_chain_stream", "B", ["inner", "z"], {"m": 1}),
        ("on_chain_end", "B", ["inner", "z"], {"m": 1}),
    ]
    with pytest.raises(ValueError, match="boom"):
        _events(LC, "with_retry that retries")


def _subclassed(m: _Lib, binding_class: Any) -> list[Any]:
    class Loud(binding_class):  # type: ignore[misc,valid-type]
        def shout(self) -> str:
            return f"{type(self).__name__}:{type(self.bound).__name__}"

    loud = Loud(bound=m.RunnableLambda(add), kwargs={}, config={"tags": ["t"]})
    seen: list[Any] = []
    made = [
        loud.bind(),
        loud.with_config(run_name="r"),
        loud.with_listeners(on_end=lambda run: seen.append(run.outputs)),
        loud.with_retry(stop_after_attempt=2),
        loud.with_types(input_type=int),
        loud.with_config(tags=["u"]).bind().with_retry(),
    ]
    return [(b.shout(), b.invoke(1), b.config, b.custom_input_type) for b in made] + seen


def test_a_binding_subclass_keeps_its_class_through_each_wrapper() -> None:
    ours = _subclassed(OURS, rl.RunnableBinding)
    assert ours == _subclassed(LC, lc_runnables.RunnableBinding)
    assert ours[:3] == [
        ("Loud:RunnableLambda", 2, {"tags": ["t"]}, None),
        ("Loud:RunnableLambda", 2, {"tags": ["t"], "run_name": "r"}, None),
        ("Loud:RunnableLambda", 2, {"tags": ["t"]}, None),
    ]
    assert ours[3][0] == "Loud:RunnableRetry" and ours[4][3] is int


def _listened(m: _Lib, plain: bool) -> Any:
    seen: list[Any] = []

    def with_config(run: Any, config: Any) -> None:
        seen.append(
            (run.name, run.tags, config.get("tags"), config.get("metadata"), config["run_name"])
        )

    def without_config(run: Any) -> None:
        seen.append((run.name, run.tags, run.extra.get("metadata")))

    binding = _bound(m).with_listeners(on_end=without_config if plain else with_config)
    handler = _handler(m)
    results = [binding.invoke(1, {"tags": ["z"]})]
    # listeners stay when the binding's callbacks are replaced, as in LangChain
    replaced = binding.with_config(callbacks=[handler], tags=["t2"])
    results.append(replaced.invoke(2))
    return results, type(binding).__name__, seen, handler.seen


@pytest.mark.parametrize("plain", [True, False], ids=["listener(run)", "listener(run, config)"])
def test_with_listeners_on_a_binding_sees_the_binding_s_config(plain: bool) -> None:
    assert _listened(OURS, plain) == _listened(LC, plain)


def _printed(m: _Lib) -> list[str]:
    bindings = [
        m.RunnableLambda(add).with_listeners(on_end=print),
        _bound(m).with_listeners(on_end=print),
        _bound(m).with_config(tags=["outer"]),
        _bound(m).with_retry(),
    ]
    return [re.sub(r" at 0x[0-9a-f]+>", " at ...>", repr(b)) for b in bindings[:3]] + [
        f"{type(bindings[3]).__name__} {type(bindings[3].bound).__name__} {bindings[3].config}"
    ]


def test_printed_bindings_are_langchains() -> None:
    assert _printed(OURS) == _printed(LC)


def _listened_again(m: _Lib) -> list[Any]:
    seen: list[Any] = []
    binding = m.RunnableLambda(add).with_listeners(on_end=lambda run: seen.append(run.outputs))
    results = [binding.invoke(1), binding.invoke(2), binding.invoke(3, {"tags": ["t"]})]
    binding.config = {"tags": ["replaced"]}  # a binding's config set anew is read again
    with m.collect_runs() as collector:  # no call config: the binding's own, merged once
        results.append(binding.invoke(4))
        results.append(binding.invoke(5))
    return [results, seen, [_tree(run) for run in collector.traced_runs]]


def test_a_listener_binding_called_again_calls_its_listener_each_time() -> None:
    ours = _listened_again(OURS)
    assert ours == _listened_again(LC)
    assert ours == [
        [2, 3, 4, 5, 6],
        [{"output": n} for n in (2, 3, 4, 5, 6)],
        2 * [("add", ["replaced"], None, [])],
    ]
