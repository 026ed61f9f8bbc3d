"""CallbackManager as LangChain users know it: configure(), local and inheritable handlers,
tags and metadata, AsyncCallbackManager, the chat-model -> on_llm_start fallback, custom
events; and the cheap run machinery (one config check per entry, run ids made on use)."""

from __future__ import annotations

import asyncio
import inspect
import os
import pickle
import random
import threading
import uuid
from typing import Any

import pytest

from ragline.core import (
    BaseCallbackHandler,
    FakeListChatModel,
    HumanMessage,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.core import config as config_module
from ragline.core.callbacks import (
    AsyncCallbackHandler,
    AsyncCallbackManager,
    AsyncCallbackManagerForChainRun,
    CallbackManager,
    CallbackManagerForChainRun,
    StdOutCallbackHandler,
    adispatch_custom_event,
    dispatch_custom_event,
)


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        self.events.append(("chain_start", kwargs["name"], kwargs["tags"], kwargs["metadata"]))

    def on_custom_event(self, name, data, *, run_id, tags=None, metadata=None, **kwargs):
        self.events.append(("custom", name, data, run_id))


def test_configure_has_langchains_signature_and_semantics():
    inherited, local = Recorder(), Recorder()
    manager = CallbackManager.configure(
        [inherited],
        [local],
        False,
        ["it"],
        ["lt"],
        {"im": 1},
        {"lm": 2},
    )
    assert manager.handlers == [inherited, local]
    assert manager.inheritable_handlers == [inherited]
    assert (manager.tags, manager.inheritable_tags) == (["it", "lt"], ["it"])
    assert manager.metadata == {"im": 1, "lm": 2}
    assert manager.inheritable_metadata == {"im": 1}
    run = manager.on_chain_start(None, {"x": 1}, name="outer")
    child = run.get_child()
    assert (child.handlers, child.tags, child.metadata) == ([inherited], ["it"], {"im": 1})
    assert child.parent_run_id == run.run_id
    child.on_chain_start(None, {}, name="inner")
    assert local.events == [("chain_start", "outer", ["it", "lt"], {"im": 1, "lm": 2})]
    assert inherited.events == [
        ("chain_start", "outer", ["it", "lt"], {"im": 1, "lm": 2}),
        ("chain_start", "inner", ["it"], {"im": 1}),
    ]


def test_configure_from_a_manager_keeps_its_parent_and_adds_verbose_once():
    parent = uuid.uuid4()
    base = CallbackManager([Recorder()], parent_run_id=parent)
    manager = CallbackManager.configure(base, verbose=True)
    assert manager.parent_run_id == parent
    assert [type(h).__name__ for h in manager.handlers] == ["Recorder", "StdOutCallbackHandler"]
    again = CallbackManager.configure(manager, verbose=True)
    assert sum(isinstance(h, StdOutCallbackHandler) for h in again.handlers) == 1
    assert len(base.handlers) == 1  # configure copies, never changes the manager given


def test_local_handlers_of_a_manager_are_not_inherited_in_a_chain():
    """configure(local_callbacks=...) through a config: the root run reports to the local
    handler, its children do not (LangChain's get_child passes inheritable handlers)."""
    local, inherited = Recorder(), Recorder()
    manager = CallbackManager.configure([inherited], [local])
    chain = RunnableLambda(lambda x: x, name="a") | RunnableLambda(lambda x: x, name="b")
    chain.invoke(1, {"callbacks": manager})
    assert [e[1] for e in local.events] == ["RunnableSequence"]
    assert [e[1] for e in inherited.events] == ["RunnableSequence", "a", "b"]


def test_add_and_remove_never_change_lists_a_run_shares():
    first, second = Recorder(), Recorder()
    # given as inheritable too (LangChain's default passes nothing on to child runs)
    manager = CallbackManager([first], [first], tags=["a"], inheritable_tags=["a"])
    run = manager.on_chain_start(None, {}, name="r")
    manager.add_handler(second, inherit=False)
    manager.add_tags(["b"])
    manager.add_metadata({"k": 1}, inherit=False)
    assert (run.handlers, run.tags, run.metadata) == ([first], ["a"], {})
    assert manager.inheritable_handlers == [first]
    assert (manager.tags, manager.inheritable_tags) == (["a", "b"], ["a", "b"])
    assert (manager.metadata, manager.inheritable_metadata) == ({"k": 1}, {})
    manager.remove_handler(second)
    manager.remove_tags(["a"])
    manager.remove_metadata(["k"])
    assert (manager.handlers, manager.tags, manager.metadata) == ([first], ["b"], {})
    with pytest.raises(ValueError, match="Recorder is not a handler of this manager"):
        manager.remove_handler(second)


class LLMOnly(BaseCallbackHandler):
    """Seed 000's PerformanceCallbackHandler shape: only on_llm_start / on_llm_end."""

    def __init__(self) -> None:
        self.starts: list[tuple[list[str], str]] = []
        self.ends: list[Any] = []

    def on_llm_start(self, serialized, prompts, *, run_id, **kwargs):
        self.starts.append((prompts, kwargs["name"]))

    def on_llm_end(self, response, *, run_id, **kwargs):
        self.ends.append(response)


def test_a_handler_with_only_on_llm_start_sees_chat_model_runs_as_transcripts():
    handler = LLMOnly()
    model = FakeListChatModel(responses=["Paris."])
    model.invoke(
        [("system", "Be brief."), ("human", "Capital of France?")], {"callbacks": [handler]}
    )
    assert handler.starts == [  # name= is the config's run_name only, as LangChain's
        (["System: Be brief.\nHuman: Capital of France?"], None)
    ]
    assert [r.generations[0][0].text for r in handler.ends] == ["Paris."]


async def test_the_fallback_also_works_for_async_handlers():
    class AsyncLLMOnly(AsyncCallbackHandler):
        def __init__(self) -> None:
            self.prompts: list[list[str]] = []

        async def on_llm_start(self, serialized, prompts, *, run_id, **kwargs):
            self.prompts.append(prompts)

    handler = AsyncLLMOnly()
    await FakeListChatModel(responses=["x"]).ainvoke("hi", {"callbacks": [handler]})
    assert handler.prompts == [["Human: hi"]]


def test_ignore_chat_model_and_ignore_llm_skip_the_fallback():
    class Ignoring(LLMOnly):
        ignore_chat_model = True

    handler = Ignoring()
    FakeListChatModel(responses=["x"]).invoke("hi", {"callbacks": [handler]})
    assert handler.starts == [] and len(handler.ends) == 1


def test_a_failing_fallback_is_logged_as_the_chat_model_event_and_the_others_still_run(caplog):
    class BrokenLLMOnly(LLMOnly):
        def on_llm_start(self, serialized, prompts, *, run_id, **kwargs):
            raise RuntimeError("fallback bug")

    class IgnoresLLM(LLMOnly):
        ignore_llm = True  # no fallback: its on_llm_start is never called

    broken, ignoring, after = BrokenLLMOnly(), IgnoresLLM(), LLMOnly()
    with caplog.at_level("WARNING", logger="ragline.callbacks"):
        FakeListChatModel(responses=["x"]).invoke("hi", {"callbacks": [broken, ignoring, after]})
    assert [r.getMessage() for r in caplog.records] == [
        "callback BrokenLLMOnly.on_chat_model_start raised RuntimeError('fallback bug')"
    ]
    assert ignoring.starts == [] and ignoring.ends == []
    assert after.starts == [(["Human: hi"], None)] and len(after.ends) == 1


def test_a_run_manager_event_given_its_own_ids_again_raises_type_error():
    handler = LLMOnly()
    (run,) = CallbackManager([handler]).on_llm_start(None, ["p"], name="llm")
    with pytest.raises(TypeError, match="run_id"):
        run.on_llm_end("r", run_id=uuid.uuid4())
    assert handler.starts == [(["p"], "llm")] and handler.ends == []


class _Heard(BaseCallbackHandler):
    """Records the events of chain runs with the keywords each got."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.events.append(("chain_start", serialized, inputs, sorted(kwargs)))

    def on_chain_end(self, outputs, **kwargs):
        self.events.append(("chain_end", outputs, sorted(kwargs), kwargs["run_id"]))


class _Broken(BaseCallbackHandler):
    def on_chain_end(self, outputs, **kwargs):
        raise ValueError("broken end")

    def on_text(self, text, **kwargs):
        raise NotImplementedError("no on_text")


class _StrictEnd(BaseCallbackHandler):
    raise_error = True

    def on_chain_end(self, outputs, **kwargs):
        raise ValueError("strict end")


class _StrictLLMOnly(BaseCallbackHandler):
    raise_error = True  # its on_llm_start stands in for on_chat_model_start

    def on_llm_start(self, serialized, prompts, **kwargs):
        raise RuntimeError("strict fallback")


async def _done(result: Any) -> Any:
    """An async manager's methods give coroutines, a sync one's their results."""
    return await result if inspect.isawaitable(result) else result


@pytest.mark.parametrize("manager_class", [CallbackManager, AsyncCallbackManager])
async def test_sync_and_async_runs_treat_failing_handlers_alike(manager_class, caplog):
    heard = _Heard()
    manager = manager_class([_Broken(), heard])
    with caplog.at_level("WARNING", logger="ragline.callbacks"):
        run = await _done(manager.on_chain_start(None, {"q": 1}, name="n"))
        await _done(run.on_chain_end({"a": 1}))
        await _done(run.on_text("t"))
    assert [r.getMessage() for r in caplog.records] == [
        "callback _Broken.on_chain_end raised ValueError('broken end')",
        "callback _Broken.on_text raised NotImplementedError('no on_text')",
    ]
    assert heard.events == [  # the handler after the broken one still hears every event
        ("chain_start", None, {"q": 1}, ["metadata", "name", "parent_run_id", "run_id", "tags"]),
        ("chain_end", {"a": 1}, ["parent_run_id", "run_id", "tags"], run.run_id),
    ]
    strict = await _done(manager_class([_StrictEnd(), heard]).on_chain_start(None, {}, name="s"))
    with pytest.raises(ValueError, match="strict end"):
        await _done(strict.on_chain_end(2))
    assert heard.events[-1][0] == "chain_start"  # raise_error: later handlers miss the end
    chat = manager_class([_StrictLLMOnly()])
    with pytest.raises(RuntimeError, match="strict fallback") as caught:
        await _done(chat.on_chat_model_start(None, [[HumanMessage(content="hi")]], name="m"))
    assert isinstance(caught.value.__context__, NotImplementedError)


@pytest.mark.parametrize("manager_class", [CallbackManager, AsyncCallbackManager])
async def test_only_runs_with_handlers_make_ids_sync_and_async(manager_class):
    for handlers, heard in (([], False), ([_Heard()], True)):
        manager = manager_class(handlers, handlers)  # inherited: the child hears too
        chain = await _done(manager.on_chain_start(None, {}, name="c"))
        runs = [
            chain,
            await _done(chain.get_child().on_chain_start(None, {}, name="child")),
            await _done(manager.on_retriever_start(None, "q", name="r")),
            await _done(manager.on_tool_start(None, "x", name="t")),
            *await _done(manager.on_llm_start(None, ["p"], name="l")),
            *await _done(manager.on_chat_model_start(None, [[HumanMessage(content="hi")]])),
        ]
        await _done(runs[1].on_chain_end(1))
        await _done(runs[0].on_chain_end(1))
        await _done(runs[2].on_retriever_end([]))
        await _done(runs[3].on_tool_end("y"))
        await _done(runs[4].on_llm_end("r"))
        await _done(runs[5].on_llm_end("r"))
        assert [run._run_id is not None for run in runs] == [heard] * 6


def test_a_handler_added_to_a_run_after_its_start_gets_the_id_made_then():
    manager = CallbackManager([])
    run = manager.on_chain_start(None, {}, name="late")
    assert run._run_id is None
    heard = _Heard()
    run.handlers.append(heard)  # the run's list: the handler hears its later events
    run.on_chain_end(3)
    assert heard.events == [("chain_end", 3, ["parent_run_id", "run_id", "tags"], run.run_id)]
    assert run._run_id is not None


async def test_async_callback_manager_returns_async_run_managers():
    recorder = Recorder()
    manager = AsyncCallbackManager.configure([recorder], inheritable_tags=["t"])
    assert manager.is_async and not CallbackManager().is_async
    run = await manager.on_chain_start(None, {"q": 1}, name="step")
    assert isinstance(run, AsyncCallbackManagerForChainRun)
    assert isinstance(run, CallbackManagerForChainRun)
    await run.on_chain_end({"a": 1})  # a coroutine, as in LangChain
    assert recorder.events == [("chain_start", "step", ["t"], {})]


def test_dispatch_custom_event_reports_to_the_running_lambda():
    recorder = Recorder()

    def step(x):
        dispatch_custom_event("progress", {"done": x})
        return x

    collector = RunCollectorCallbackHandler()
    RunnableLambda(step, name="step").invoke(3, {"callbacks": [recorder, collector]})
    (run,) = collector.traced_runs
    assert [e for e in recorder.events if e[0] == "custom"] == [
        ("custom", "progress", {"done": 3}, run.id)
    ]


async def test_adispatch_custom_event_and_the_error_outside_a_run():
    recorder = Recorder()

    async def step(x):
        await adispatch_custom_event("tick", x)
        return x

    await RunnableLambda(step).ainvoke(7, {"callbacks": [recorder]})
    assert [e[1:3] for e in recorder.events if e[0] == "custom"] == [("tick", 7)]
    with pytest.raises(RuntimeError, match="needs a parent run"):
        dispatch_custom_event("x", 1)


def test_a_config_is_checked_once_per_entry_not_per_step(monkeypatch):
    """The run machinery must be cheap: a 4-step chain invoked with a config checks that
    config once, not once per step and merge."""
    calls = []
    original = config_module._check_values

    def counting(config):
        calls.append(dict(config))
        return original(config)

    monkeypatch.setattr(config_module, "_check_values", counting)
    chain = (
        RunnableLambda(lambda x: x + 1)
        | RunnableLambda(lambda x: x * 2)
        | RunnableLambda(lambda x: x - 1)
        | RunnableLambda(lambda x: x)
    )
    assert chain.invoke(1, {"tags": ["t"], "metadata": {"m": 1}}) == 3
    assert len(calls) == 1
    calls.clear()
    assert chain.invoke(1) == 3
    assert calls == []


def test_run_ids_are_made_on_first_use_and_are_stable_across_threads():
    manager = CallbackManager()
    run = manager.on_chain_start(None, {}, name="r")
    assert run._run_id is None  # nobody listens: no uuid made yet
    seen: list[uuid.UUID] = []
    barrier = threading.Barrier(8)

    def read() -> None:
        barrier.wait()
        seen.append(run.run_id)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(seen)) == 1 and seen[0] == run.run_id
    given = uuid.uuid4()
    assert manager.on_chain_start(None, {}, given, name="r").run_id == given


def test_child_runs_name_their_parent_even_when_ids_are_made_late():
    parents: list[Any] = []

    class Parents(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            parents.append(parent_run_id)

    def inner(x):
        # a handler joins only here: the outer run had no handler, so no id yet
        return RunnableLambda(lambda y: y, name="leaf").invoke(x, {"callbacks": [Parents()]})

    outer = RunnableLambda(inner, name="outer")
    assert outer.invoke(5) == 5
    (parent,) = parents
    assert isinstance(parent, uuid.UUID)  # the outer run's id, made when asked for


def test_async_run_managers_from_sync_manager_twins():
    async def main() -> Any:
        manager = CallbackManager([Recorder()])
        run = await manager.aon_chain_start(None, {}, name="x")
        await run.on_chain_end(1)
        return run

    assert isinstance(asyncio.run(main()), AsyncCallbackManagerForChainRun)


def test_made_run_ids_are_version_4_uuids_distinct_across_forked_children():
    manager = CallbackManager()
    ids = [manager.on_chain_start(None, {}, name="r").run_id for _ in range(500)]
    assert len(set(ids)) == 500
    for run_id in ids:
        assert type(run_id) is uuid.UUID
        assert (run_id.version, run_id.variant) == (4, uuid.RFC_4122)
        assert uuid.UUID(str(run_id)) == run_id and hash(run_id) == hash(uuid.UUID(str(run_id)))
        assert pickle.loads(pickle.dumps(run_id)) == run_id
    # the random source is reseeded in a forked child: two children make different ids
    children = []
    for _ in range(2):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: write one new run id and leave
            os.write(write_end, manager.on_chain_start(None, {}, name="r").run_id.bytes)
            os._exit(0)
        os.close(write_end)
        os.waitpid(pid, 0)
        children.append(os.read(read_end, 16))
        os.close(read_end)
    assert len(children[0]) == 16 and children[0] != children[1]


def test_run_ids_neither_move_nor_follow_the_programs_random_sequence():
    manager = CallbackManager()
    random.seed(7)
    expected = [random.random() for _ in range(3)]
    random.seed(7)
    first = manager.on_chain_start(None, {}, name="r").run_id
    assert [random.random() for _ in range(3)] == expected  # the program's numbers are its own
    random.seed(7)
    second = manager.on_chain_start(None, {}, name="r").run_id
    assert first != second  # seeding the program's generator repeats no run id


@pytest.mark.parametrize("manager_class", [CallbackManager, AsyncCallbackManager])
async def test_an_event_keyword_named_handlers_reaches_the_handlers_sync_and_async(manager_class):
    class Texts(BaseCallbackHandler):
        def __init__(self) -> None:
            self.texts: list[tuple[str, Any]] = []

        def on_text(self, text, **kwargs):
            self.texts.append((text, kwargs["handlers"]))

    handler = Texts()
    run = await _done(manager_class([handler]).on_chain_start(None, {}, name="n"))
    await _done(run.on_text("t", handlers="mine"))  # a keyword like any other
    assert handler.texts == [("t", "mine")]
