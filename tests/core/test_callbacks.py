"""Callbacks: event order, run tree, event keyword arguments, handlers, the manager API."""

from __future__ import annotations

import asyncio
import io
import logging
import uuid

import pytest

from ragline.core import (
    AsyncCallbackHandler,
    BaseCallbackHandler,
    CallbackManager,
    HumanMessage,
    RecursionLimitError,
    Run,
    RunCollectorCallbackHandler,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    StdOutCallbackHandler,
)


class Recorder(BaseCallbackHandler):
    """Keeps (event, first positional argument, kwargs) for every event."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object, dict]] = []

    def _add(self, event, payload, kwargs):
        self.events.append((event, payload, kwargs))

    def on_chain_start(self, serialized, inputs, **kwargs):
        self._add("chain_start", inputs, kwargs)

    def on_chain_end(self, outputs, **kwargs):
        self._add("chain_end", outputs, kwargs)

    def on_chain_error(self, error, **kwargs):
        self._add("chain_error", error, kwargs)

    def on_llm_start(self, serialized, prompts, **kwargs):
        self._add("llm_start", prompts, kwargs)

    def on_llm_new_token(self, token, **kwargs):
        self._add("llm_new_token", token, kwargs)

    def on_llm_end(self, response, **kwargs):
        self._add("llm_end", response, kwargs)

    def on_text(self, text, **kwargs):
        self._add("text", text, kwargs)


def _sequence_with_parallel():
    add = RunnableLambda(lambda x: x + 1, name="add")
    both = RunnableParallel(
        double=RunnableLambda(lambda x: x * 2, name="double"), same=RunnablePassthrough(name="same")
    )
    total = RunnableLambda(lambda d: d["double"] + d["same"], name="total")
    return (add | both | total).with_config(run_name="pipeline")


def test_sequence_with_parallel_event_order():
    collector = RunCollectorCallbackHandler()
    # max_concurrency=1: the branches run one at a time, in key order, so the order is exact
    result = _sequence_with_parallel().invoke(1, {"callbacks": [collector], "max_concurrency": 1})
    assert result == 6
    assert collector.timeline() == [
        ("chain_start", "pipeline", None),
        ("chain_start", "add", "pipeline"),
        ("chain_end", "add", "pipeline"),
        ("chain_start", "RunnableParallel<double,same>", "pipeline"),
        ("chain_start", "double", "RunnableParallel<double,same>"),
        ("chain_end", "double", "RunnableParallel<double,same>"),
        ("chain_start", "same", "RunnableParallel<double,same>"),
        ("chain_end", "same", "RunnableParallel<double,same>"),
        ("chain_end", "RunnableParallel<double,same>", "pipeline"),
        ("chain_start", "total", "pipeline"),
        ("chain_end", "total", "pipeline"),
        ("chain_end", "pipeline", None),
    ]


def test_run_tree_inputs_and_outputs():
    collector = RunCollectorCallbackHandler()
    _sequence_with_parallel().invoke(1, {"callbacks": [collector]})
    (root,) = collector.traced_runs
    name, (add, parallel_tree, total) = root.tree()
    # the parallel branches run on threads, so they may start (and be listed) in either order
    assert (name, add, total) == ("pipeline", ("add", []), ("total", []))
    assert (parallel_tree[0], sorted(parallel_tree[1])) == (
        "RunnableParallel<double,same>",
        [("double", []), ("same", [])],
    )
    # LangChain's shapes: a value that is not a dict is kept under "input" / "output"
    assert (root.inputs, root.outputs, root.run_type) == ({"input": 1}, {"output": 6}, "chain")
    parallel = root.children[1]
    assert (parallel.inputs, parallel.outputs) == ({"input": 2}, {"double": 4, "same": 2})
    assert sorted(c.name for c in parallel.children) == ["double", "same"]
    assert all(child.parent_run_id == parallel.id for child in parallel.children)
    assert [e["name"] for e in root.events] == ["start", "end"]
    assert root.end_time is not None and root.end_time >= root.start_time


def test_every_event_carries_ids_and_tags_and_a_start_its_metadata():
    recorder = Recorder()
    inner = RunnableLambda(lambda x: x, name="inner")
    outer = RunnableLambda(lambda x: inner.invoke(x), name="outer")
    outer.invoke("hi", {"callbacks": [recorder], "tags": ["t1"], "metadata": {"user": "ann"}})
    names = [(event, kw.get("name")) for event, _, kw in recorder.events]
    assert names == [
        ("chain_start", "outer"),
        ("chain_start", "inner"),
        ("chain_end", None),
        ("chain_end", None),
    ]
    for event, _payload, kwargs in recorder.events:
        assert isinstance(kwargs["run_id"], uuid.UUID)
        assert kwargs["tags"] == ["t1"]
        # LangChain's run managers pass the metadata with the start event only
        assert kwargs.get("metadata") == ({"user": "ann"} if event == "chain_start" else None)
    outer_id = recorder.events[0][2]["run_id"]
    inner_id = recorder.events[1][2]["run_id"]
    assert recorder.events[0][2]["parent_run_id"] is None
    assert recorder.events[1][2]["parent_run_id"] == outer_id
    assert recorder.events[2][2]["run_id"] == inner_id
    assert recorder.events[3][2]["run_id"] == outer_id
    # a lambda's start says run_type=None, as LangChain's (a run record's type is "chain")
    assert "run_type" in recorder.events[0][2] and recorder.events[0][2]["run_type"] is None


def test_run_id_and_run_name_apply_to_the_root_run_only():
    collector = RunCollectorCallbackHandler()
    run_id = uuid.uuid4()
    chain = RunnableLambda(lambda x: x, name="a") | RunnableLambda(lambda x: x, name="b")
    chain.invoke(0, {"callbacks": [collector], "run_id": run_id, "run_name": "mine"})
    root = collector.traced_runs[0]
    assert (root.id, root.name) == (run_id, "mine")
    assert [c.name for c in root.children] == ["a", "b"]
    assert all(c.id != run_id for c in root.children)


def test_error_is_reported_on_the_failing_run_and_its_parents():
    collector = RunCollectorCallbackHandler()

    def boom(x):
        raise KeyError("missing")

    chain = RunnableLambda(lambda x: x, name="ok") | RunnableLambda(boom, name="boom")
    with pytest.raises(KeyError):
        chain.invoke(1, {"callbacks": [collector]})
    assert collector.timeline() == [
        ("chain_start", "RunnableSequence", None),
        ("chain_start", "ok", "RunnableSequence"),
        ("chain_end", "ok", "RunnableSequence"),
        ("chain_start", "boom", "RunnableSequence"),
        ("chain_error", "boom", "RunnableSequence"),
        ("chain_error", "RunnableSequence", None),
    ]
    root = collector.traced_runs[0]
    assert isinstance(root.exception, KeyError) and root.exception is root.children[1].exception
    assert root.error.startswith("KeyError('missing')Traceback (most recent call last):")
    assert root.error.endswith("\nKeyError: 'missing'") and root.outputs == {}


def test_manager_api_for_a_model_run_with_tokens():
    """The way a language model reports itself: start, tokens, end, child config."""
    collector = RunCollectorCallbackHandler()
    manager = CallbackManager.configure(
        {"callbacks": [collector], "tags": ["m"], "metadata": {"k": 1}}
    )
    (run,) = manager.on_llm_start(
        None, ["say hi"], name="FakeLLM", invocation_params={"stop": ["\n"]}
    )
    run.on_llm_new_token("h")
    run.on_llm_new_token("i", chunk="i-chunk")
    run.on_text("a note")
    child = RunnableLambda(lambda x: x.upper(), name="child")
    assert child.invoke("x", run.child_config({"tags": ["m"]})) == "X"
    run.on_llm_end({"text": "hi"})
    (llm,) = collector.traced_runs
    assert (llm.name, llm.run_type, llm.inputs, llm.outputs) == (
        "FakeLLM",
        "llm",
        {"prompts": ["say hi"]},
        {"text": "hi"},  # not an LLMResult: kept as given
    )
    assert (llm.tags, llm.metadata) == (["m"], {"k": 1})
    assert llm.extra["invocation_params"] == {"stop": ["\n"]}
    # LangChain's run events: tokens with their keywords, no text
    assert [e["name"] for e in llm.events] == ["start", "new_token", "new_token", "end"]
    assert [e["kwargs"] for e in llm.events[1:3]] == [
        {"token": "h"},
        {"token": "i", "chunk": "i-chunk"},
    ]
    assert ("text", "FakeLLM", None) in collector.timeline()
    assert llm.tree() == ("FakeLLM", [("child", [])])


def test_chat_model_and_retriever_runs_and_errors():
    collector = RunCollectorCallbackHandler()
    manager = CallbackManager([collector])
    (chat,) = manager.on_chat_model_start(None, [[HumanMessage("hello")]], name="Chat")
    chat.on_llm_error(RuntimeError("down"))
    retriever = manager.on_retriever_start(None, "q", name="Docs")
    retriever.on_retriever_end(["doc"])
    bad = manager.on_retriever_start(None, "q2", name="Docs")
    bad.on_retriever_error(ValueError("x"))
    # LangChain's collector records a chat model as an LLM run of transcript lines, and a
    # failed one with an empty result
    empty = {"generations": [[]], "llm_output": None, "run": None, "type": "LLMResult"}
    assert [
        (r.name, r.run_type, r.inputs, r.outputs, type(r.exception).__name__)
        for r in collector.traced_runs
    ] == [
        ("Chat", "llm", {"prompts": ["Human: hello"]}, empty, "RuntimeError"),
        ("Docs", "retriever", {"query": "q"}, {"documents": ["doc"]}, "NoneType"),
        ("Docs", "retriever", {"query": "q2"}, {}, "ValueError"),
    ]
    assert [event for event, _ in collector.event_log] == [
        "chat_model_start",
        "llm_error",
        "retriever_start",
        "retriever_end",
        "retriever_start",
        "retriever_error",
    ]


def test_a_failing_handler_is_logged_and_ignored(caplog):
    class Broken(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, **kwargs):
            raise RuntimeError("handler bug")

    with caplog.at_level(logging.WARNING, logger="ragline.callbacks"):
        assert RunnableLambda(lambda x: x + 1).invoke(1, {"callbacks": [Broken()]}) == 2
    assert "Broken.on_chain_start raised RuntimeError('handler bug')" in caplog.text


def test_a_handler_with_raise_error_stops_the_run():
    class Strict(BaseCallbackHandler):
        raise_error = True

        def on_chain_start(self, serialized, inputs, **kwargs):
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        RunnableLambda(lambda x: x).invoke(1, {"callbacks": [Strict()]})


def test_ignore_flags_skip_events():
    class NoChains(Recorder):
        ignore_chain = True

    handler = NoChains()
    RunnableLambda(lambda x: x).invoke(1, {"callbacks": [handler]})
    (run,) = CallbackManager([handler]).on_llm_start(None, ["p"], name="llm")
    run.on_llm_end("r")
    assert [event for event, _, _ in handler.events] == ["llm_start", "llm_end"]


class AsyncRecorder(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, str | None]] = []

    async def on_chain_start(self, serialized, inputs, **kwargs):
        await asyncio.sleep(0)
        self.events.append(("start", kwargs["name"]))

    async def on_chain_end(self, outputs, **kwargs):
        await asyncio.sleep(0)
        self.events.append(("end", outputs))


async def test_async_handler_is_awaited_in_async_code():
    handler = AsyncRecorder()

    async def add(x):
        return x + 1

    chain = RunnableLambda(add, name="a") | RunnableLambda(add, name="b")
    assert await chain.ainvoke(1, {"callbacks": [handler]}) == 3
    assert handler.events == [
        ("start", "RunnableSequence"),
        ("start", "a"),
        ("end", 2),
        ("start", "b"),
        ("end", 3),
        ("end", 3),
    ]


def test_async_handler_also_works_from_sync_code():
    handler = AsyncRecorder()
    assert RunnableLambda(lambda x: x * 3, name="triple").invoke(2, {"callbacks": [handler]}) == 6
    assert handler.events == [("start", "triple"), ("end", 6)]


async def test_async_handler_from_sync_code_inside_a_running_loop():
    handler = AsyncRecorder()
    # invoke (sync) while this thread runs an event loop: the handler runs on a helper loop
    assert RunnableLambda(lambda x: x, name="echo").invoke(5, {"callbacks": [handler]}) == 5
    assert handler.events == [("start", "echo"), ("end", 5)]


def test_stdout_handler_prints_chain_starts_ends_and_text():
    stream = io.StringIO()
    handler = StdOutCallbackHandler(stream=stream)
    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(lambda x: x, name="second")
    chain.invoke(1, {"callbacks": [handler]})
    assert stream.getvalue() == (
        "\n\n\x1b[1m> Entering new RunnableSequence chain...\x1b[0m\n"
        "\n\n\x1b[1m> Entering new first chain...\x1b[0m\n\n\x1b[1m> Finished chain.\x1b[0m\n"
        "\n\n\x1b[1m> Entering new second chain...\x1b[0m\n\n\x1b[1m> Finished chain.\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )


def test_verbose_configure_adds_one_stdout_handler(capsys):
    manager = CallbackManager.configure({}, verbose=True)
    assert [type(h).__name__ for h in manager.handlers] == ["StdOutCallbackHandler"]
    again = CallbackManager.configure({"callbacks": manager}, verbose=True)
    assert len(again.handlers) == 1
    run = again.on_chain_start(None, {}, name="x")
    run.on_text("hello", end="\n")
    assert capsys.readouterr().out.endswith("chain...\x1b[0m\nhello\n")


def test_recursion_limit_stops_a_self_invoking_chain():
    def countdown(n):
        return n if n == 0 else recursive.invoke(n - 1)

    recursive = RunnableLambda(countdown, name="countdown")
    assert recursive.invoke(3, {"recursion_limit": 4}) == 0  # 4 nested runs: allowed
    with pytest.raises(RecursionLimitError) as info:
        recursive.invoke(4, {"recursion_limit": 4})
    assert "recursion limit of 4 reached" in str(info.value)
    assert "'countdown' would be nested 5 runs deep" in str(info.value)
    assert isinstance(info.value, RecursionError)


def test_recursion_limit_counts_a_lambda_returning_a_runnable():
    collector = RunCollectorCallbackHandler()

    def route(n):
        return n if n <= 0 else RunnableLambda(lambda m: m - 1, name="dec") | looper

    looper = RunnableLambda(route, name="route")
    with pytest.raises(RecursionLimitError):
        looper.invoke(100, {"callbacks": [collector]})
    # the error is reported on the runs that were open
    assert collector.traced_runs[0].exception.__class__ is RecursionLimitError
    assert collector.traced_runs[0].error.startswith("RecursionLimitError(")


def test_run_collector_finds_runs_and_reprs():
    collector = RunCollectorCallbackHandler()
    _sequence_with_parallel().invoke(1, {"callbacks": [collector]})
    root = collector.traced_runs[0]
    found = root.find("double")
    assert isinstance(found, Run) and found.outputs == {"output": 4}
    assert root.find("nope") is None
    assert repr(found) == "Run(name='double', run_type='chain', children=0, error=None)"
    assert len(collector.runs_by_id) == 6


def test_handler_base_methods_are_no_ops():
    handler = BaseCallbackHandler()
    run_id = uuid.uuid4()
    assert handler.on_chain_start(None, {}, run_id=run_id) is None
    assert handler.on_retry(None, run_id=run_id) is None  # type: ignore[arg-type]


def test_concurrent_batch_runs_do_not_cross_talk():
    """Each thread's lambdas report to their own sequence run (the ContextVar is per thread)."""
    import time

    collector = RunCollectorCallbackHandler()

    def slow_inner(x):
        time.sleep(0.005 * (x % 3))
        return RunnableLambda(lambda y: y, name=f"leaf{x}").invoke(x)

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(slow_inner, name="inner")
    assert chain.batch(list(range(12)), {"callbacks": [collector]}) == list(range(12))
    assert len(collector.traced_runs) == 12
    for run in collector.traced_runs:
        x = run.inputs["input"]
        assert run.tree() == ("RunnableSequence", [("first", []), ("inner", [(f"leaf{x}", [])])])


async def test_concurrent_abatch_runs_do_not_cross_talk():
    collector = RunCollectorCallbackHandler()

    async def inner(x):
        await asyncio.sleep(0.001 * (x % 3))
        return await RunnableLambda(lambda y: y, name=f"leaf{x}").ainvoke(x)

    chain = RunnableLambda(inner, name="inner") | RunnableLambda(lambda x: x, name="last")
    assert await chain.abatch(list(range(8)), {"callbacks": [collector]}) == list(range(8))
    for run in collector.traced_runs:
        assert run.tree() == (
            "RunnableSequence",
            [("inner", [(f"leaf{run.inputs['input']}", [])]), ("last", [])],
        )


async def test_closing_an_async_stream_early_ends_the_open_runs():
    collector = RunCollectorCallbackHandler()

    async def words(chunks):
        async for text in chunks:
            for word in text.split():
                yield word

    chain = RunnableLambda(lambda x: x, name="first") | words
    stream = chain.astream("a b c", {"callbacks": [collector]})
    assert await stream.__anext__() == "a"
    await stream.aclose()
    root = collector.traced_runs[0]
    assert root.end_time is not None and root.outputs == {"output": "a"}
    assert all(child.end_time is not None for child in root.children)


def test_parallel_stream_error_is_raised_and_reported():
    collector = RunCollectorCallbackHandler()

    def broken(chunks):
        for _ in chunks:
            yield "partial"
            raise RuntimeError("branch broke")

    par = RunnableParallel(ok=RunnableLambda(lambda x: x, name="ok"), bad=broken)
    with pytest.raises(RuntimeError, match="branch broke"):
        list(par.stream("x", {"callbacks": [collector]}))
    root = collector.traced_runs[0]
    assert isinstance(root.exception, RuntimeError)
    assert root.error.endswith("RuntimeError: branch broke")
    assert root.end_time is not None


# --------------------------------------------------------------------------- tools and agents


def test_tool_and_agent_events_reach_handlers_collectors_and_printers():
    from ragline.core import AgentAction, AgentFinish

    collector = RunCollectorCallbackHandler()
    stream = io.StringIO()
    handlers = [collector, StdOutCallbackHandler(stream=stream)]
    manager = CallbackManager(handlers, inheritable_handlers=handlers)  # the tool run's too
    chain = manager.on_chain_start(None, {"input": "q"}, name="AgentExecutor")
    action = AgentAction("search", "q", "Thought: look\nAction: search\nAction Input: q")
    chain.on_agent_action(action)
    tool = chain.get_child().on_tool_start({"name": "search"}, "q", name="search", inputs=None)
    tool.on_tool_end("found", observation_prefix="Observation: ", llm_prefix="Thought:")
    chain.on_agent_finish(AgentFinish({"output": "a"}, " I know.\nFinal Answer: a"))
    chain.on_chain_end({"output": "a"})
    assert collector.timeline() == [
        ("chain_start", "AgentExecutor", None),
        ("agent_action", "AgentExecutor", None),
        ("tool_start", "search", "AgentExecutor"),
        ("tool_end", "search", "AgentExecutor"),
        ("agent_finish", "AgentExecutor", None),
        ("chain_end", "AgentExecutor", None),
    ]
    run = collector.traced_runs[0]
    # the run's own events are LangChain's (agent steps are in the timeline only)
    assert [event["name"] for event in run.events] == ["start", "end"]
    assert run.children[0].run_type == "tool"
    assert stream.getvalue() == (
        "\n\n\x1b[1m> Entering new AgentExecutor chain...\x1b[0m\n"
        "Thought: look\nAction: search\nAction Input: q"
        "\nObservation: found\nThought:"
        " I know.\nFinal Answer: a\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )


def test_ignore_agent_skips_tool_and_agent_events():
    from ragline.core import AgentAction

    class Quiet(RunCollectorCallbackHandler):
        ignore_agent = True

    quiet = Quiet()
    manager = CallbackManager([quiet])
    chain = manager.on_chain_start(None, {}, name="outer")
    chain.on_agent_action(AgentAction("t", "i", "l"))
    chain.get_child().on_tool_start(None, "i", name="t").on_tool_end("o")
    chain.on_chain_end({})
    assert [event for event, _ in quiet.event_log] == ["chain_start", "chain_end"]
