"""Parity: callback handlers, run managers, custom events and usage counting.

Each scenario runs the same program on langchain_core's callbacks and on ragline's:
a handler that records what it is told, in order, with the arguments a program would
print; the run managers a program's own tool or chain drives by hand; custom events;
and the usage a model's replies add up to.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.documents as lc_documents
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.runnables as lc_runnables
import langchain_core.tools as lc_tools
import langchain_core.tracers.run_collector as lc_run_collector
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.core.tools as rl_tools
from tests.parity._observe import observe

with warnings.catch_warnings():  # langchain_community warns that it is being sunset
    warnings.simplefilter("ignore")
    from langchain_community.callbacks import OpenAICallbackHandler as LCOpenAICallbackHandler

COVERS = {
    "core.AsyncCallbackHandler",
    "core.StdOutCallbackHandler",
    "core.RunCollectorCallbackHandler",
    "core.CallbackManagerForToolRun",
    "core.callbacks.AsyncCallbackManager",
    "core.callbacks.AsyncCallbackManagerForChainRun",
    "core.callbacks.AsyncCallbackManagerForLLMRun",
    "core.callbacks.AsyncCallbackManagerForRetrieverRun",
    "core.callbacks.AsyncCallbackManagerForToolRun",
    "core.callbacks.BaseRunManager",
    "core.callbacks.CallbackManagerForChainRun",
    "core.callbacks.CallbackManagerForLLMRun",
    "core.callbacks.CallbackManagerForRetrieverRun",
    "core.callbacks.OpenAICallbackHandler",
    "core.callbacks.UsageMetadataCallbackHandler",
    "core.callbacks.get_usage_metadata_callback",
    "core.callbacks.dispatch_custom_event",
    "core.callbacks.adispatch_custom_event",
}

LC = types.SimpleNamespace(
    callbacks=lc_callbacks,
    RunCollectorCallbackHandler=lc_run_collector.RunCollectorCallbackHandler,
    OpenAICallbackHandler=LCOpenAICallbackHandler,
    RunnableLambda=lc_runnables.RunnableLambda,
    GenericFakeChatModel=lc_models.GenericFakeChatModel,
    FakeListChatModel=lc_models.FakeListChatModel,
    AIMessage=lc_messages.AIMessage,
    Document=lc_documents.Document,
    BaseTool=lc_tools.BaseTool,
)
OURS = types.SimpleNamespace(
    callbacks=rl_callbacks,
    RunCollectorCallbackHandler=rl.RunCollectorCallbackHandler,
    OpenAICallbackHandler=rl_callbacks.OpenAICallbackHandler,
    RunnableLambda=rl.RunnableLambda,
    GenericFakeChatModel=rl.GenericFakeChatModel,
    FakeListChatModel=rl.FakeListChatModel,
    AIMessage=rl.AIMessage,
    Document=rl.Document,
    BaseTool=rl_tools.BaseTool,
)


def _recorder(ns: Any, *, asynchronous: bool = False) -> Any:
    """A handler that writes down each event with the arguments a program prints,
    the run's position (root or child) instead of its random id."""
    base = ns.callbacks.AsyncCallbackHandler if asynchronous else ns.callbacks.BaseCallbackHandler

    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.seen: list[Any] = []
            self.roots: set[Any] = set()

        def _where(self, kwargs: dict[str, Any]) -> str:
            return "child" if kwargs.get("parent_run_id") else "root"

        def _add(self, *event: Any) -> None:
            self.seen.append(event)

        def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
            self._add("chain_start", kw.get("name"), observe(inputs), self._where(kw))

        def on_chain_end(self, outputs: Any, **kw: Any) -> None:
            self._add("chain_end", observe(outputs), self._where(kw))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kw: Any) -> None:
            self._add("chat_start", observe(messages), self._where(kw))

        def on_llm_end(self, response: Any, **kw: Any) -> None:
            self._add("llm_end", response.generations[0][0].text)

        def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
            self._add("tool_start", serialized.get("name"), input_str, kw.get("inputs"))

        def on_tool_end(self, output: Any, **kw: Any) -> None:
            self._add("tool_end", observe(output))

        def on_text(self, text: str, **kw: Any) -> None:
            self._add("text", text)

        def on_retriever_start(self, serialized: Any, query: str, **kw: Any) -> None:
            self._add("retriever_start", query)

        def on_retriever_end(self, documents: Any, **kw: Any) -> None:
            self._add("retriever_end", observe(documents))

        def on_custom_event(self, name: str, data: Any, **kw: Any) -> None:
            self._add("custom", name, data, sorted(kw.get("tags") or []))

    if asynchronous:
        # the same methods as coroutines (an AsyncCallbackHandler's are awaited)
        for name in [n for n in vars(Recorder) if n.startswith("on_")]:
            sync = vars(Recorder)[name]

            def make(method: Any) -> Any:
                async def call(self: Any, *args: Any, **kw: Any) -> None:
                    method(self, *args, **kw)

                return call

            setattr(Recorder, name, make(sync))
    return Recorder()


def _chain(ns: Any) -> Any:
    shout = ns.RunnableLambda(lambda text: text.upper()).with_config(run_name="shout")
    model = ns.FakeListChatModel(responses=["fine"])
    return shout | model | ns.RunnableLambda(lambda message: message.content + "!")


# ---- handlers ---------------------------------------------------------------------------
def test_a_handler_sees_a_chains_runs_in_order():
    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        output = _chain(ns).invoke("hi", config={"callbacks": [handler]})
        return output, handler.seen

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[1][:3] == [
        ("chain_start", "RunnableSequence", "hi", "root"),
        ("chain_start", "shout", "hi", "child"),
        ("chain_end", "HI", "child"),
    ]


async def test_an_async_handler_sees_the_same_runs():
    async def run(ns: Any) -> Any:
        handler = _recorder(ns, asynchronous=True)
        output = await _chain(ns).ainvoke("hi", config={"callbacks": [handler]})
        return output, handler.seen

    lc, ours = await run(LC), await run(OURS)
    assert ours == lc
    assert lc[0] == "fine!"
    assert ("chat_start", [[("HumanMessage", "HI", None)]], "child") in lc[1]


def test_stdout_handler_prints_the_same_lines(capsys: pytest.CaptureFixture[str]):
    def run(ns: Any) -> str:
        handler = ns.callbacks.StdOutCallbackHandler()
        _chain(ns).invoke("hi", config={"callbacks": [handler]})
        manager = ns.callbacks.CallbackManager(handlers=[handler])
        chain_run = manager.on_chain_start({"name": "own"}, {"q": 1}, run_name="own")
        chain_run.on_text("some text", end="\n")
        chain_run.on_chain_end({"a": 2})
        return capsys.readouterr().out

    lc, ours = run(LC), run(OURS)
    assert ours == lc  # byte for byte: bold chain lines, each after a blank line
    assert "\n\n\x1b[1m> Entering new RunnableSequence chain...\x1b[0m\n" in lc
    assert _lines(lc)[:3] == [
        "> Entering new RunnableSequence chain...",
        "> Entering new shout chain...",
        "> Finished chain.",
    ]


def _lines(printed: str) -> list[str]:
    plain = printed.replace("\x1b[1m", "").replace("\x1b[0m", "")
    return [line for line in plain.splitlines() if line]


def test_run_collector_keeps_the_root_runs_with_their_children():
    def run(ns: Any) -> Any:
        collector = ns.RunCollectorCallbackHandler()
        _chain(ns).invoke("hi", config={"callbacks": [collector]})
        _chain(ns).batch(["a", "b"], config={"callbacks": [collector]})

        def tree(one: Any) -> Any:
            if one.run_type == "llm":  # the model run's result, as a dict in both
                seen = (one.inputs, one.outputs["generations"][0][0]["text"])
            else:
                seen = (observe(one.inputs), observe(one.outputs))
            return (one.name, one.run_type, seen, [tree(child) for child in one.child_runs])

        first, *batch = [tree(one) for one in collector.traced_runs]
        # a batch's root runs are collected as they end, which threads may do in any order
        return [first, *sorted(batch, key=lambda node: node[2][0]["input"])]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert [name for name, *_ in ours] == ["RunnableSequence"] * 3
    assert [(name, kind) for name, kind, _, _ in ours[0][3]] == [
        ("shout", "chain"),
        ("FakeListChatModel", "llm"),  # a collector's chat model run is an LLM run
        ("RunnableLambda", "chain"),
    ]
    assert ours[0][3][1][2] == ({"prompts": ["Human: HI"]}, "fine")
    assert ours[0][2] == ({"input": "hi"}, {"output": "fine!"})


# ---- run managers driven by hand ------------------------------------------------------------
def test_run_managers_driven_by_hand():
    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        cb = ns.callbacks
        manager = cb.CallbackManager(handlers=[handler], inheritable_handlers=[handler])
        chain_run = manager.on_chain_start({"name": "outer"}, {"q": "x"}, name="outer")
        child = chain_run.get_child()
        retriever_run = child.on_retriever_start({"name": "r"}, "x")
        retriever_run.on_retriever_end([ns.Document(page_content="d", metadata={"k": 1})])
        tool_run = child.on_tool_start({"name": "lookup"}, "x", inputs={"q": "x"})
        tool_run.on_text("looking")
        tool_run.on_tool_end("found")
        (llm_run,) = child.on_llm_start({"name": "m"}, ["p"])
        chain_run.on_chain_end({"out": "y"})
        kinds = [type(one).__name__ for one in (chain_run, retriever_run, tool_run, llm_run)]
        bases = [
            isinstance(one, cb.BaseRunManager)
            for one in (chain_run, retriever_run, tool_run, llm_run)
        ]
        parents = [
            one.parent_run_id == chain_run.run_id for one in (retriever_run, tool_run, llm_run)
        ]
        checks = (
            isinstance(chain_run, cb.CallbackManagerForChainRun),
            isinstance(retriever_run, cb.CallbackManagerForRetrieverRun),
            isinstance(tool_run, cb.CallbackManagerForToolRun),
            isinstance(llm_run, cb.CallbackManagerForLLMRun),
        )
        return handler.seen, kinds, bases, parents, checks, chain_run.parent_run_id

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[1] == [
        "CallbackManagerForChainRun",
        "CallbackManagerForRetrieverRun",
        "CallbackManagerForToolRun",
        "CallbackManagerForLLMRun",
    ]


async def test_async_run_managers_driven_by_hand():
    async def run(ns: Any) -> Any:
        handler = _recorder(ns, asynchronous=True)
        cb = ns.callbacks
        manager = cb.AsyncCallbackManager(handlers=[handler], inheritable_handlers=[handler])
        chain_run = await manager.on_chain_start({"name": "outer"}, {"q": "x"}, name="outer")
        child = chain_run.get_child()
        retriever_run = await child.on_retriever_start({"name": "r"}, "x")
        await retriever_run.on_retriever_end([ns.Document(page_content="d")])
        tool_run = await child.on_tool_start({"name": "lookup"}, "x")
        await tool_run.on_tool_end("found")
        (llm_run,) = await child.on_llm_start({"name": "m"}, ["p"])
        await chain_run.on_chain_end({"out": "y"})
        runs = (chain_run, retriever_run, tool_run, llm_run)
        checks = (
            isinstance(chain_run, cb.AsyncCallbackManagerForChainRun),
            isinstance(retriever_run, cb.AsyncCallbackManagerForRetrieverRun),
            isinstance(tool_run, cb.AsyncCallbackManagerForToolRun),
            isinstance(llm_run, cb.AsyncCallbackManagerForLLMRun),
            all(isinstance(one, cb.BaseRunManager) for one in runs),
            type(chain_run.get_sync()).__name__,
        )
        return handler.seen, checks

    lc, ours = await run(LC), await run(OURS)
    assert ours == lc
    assert lc[1] == (True, True, True, True, True, "CallbackManagerForChainRun")


def test_a_tool_reports_through_its_run_manager():
    def run(ns: Any) -> Any:
        class Lookup(ns.BaseTool):  # type: ignore[misc, name-defined]
            name: str = "lookup"
            description: str = "Look a word up."

            def _run(self, query: str, run_manager: Any = None) -> str:
                run_manager.on_text(f"looking up {query}", verbose=True)
                inner = ns.RunnableLambda(lambda q: q[::-1]).with_config(run_name="inner")
                return inner.invoke(query, config={"callbacks": run_manager.get_child()})

        handler = _recorder(ns)
        output = Lookup().invoke("abc", config={"callbacks": [handler]})
        return output, handler.seen, type(Lookup().run).__name__

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[1] == [
        ("tool_start", "lookup", "abc", None),
        ("text", "looking up abc"),
        ("chain_start", "inner", "abc", "child"),
        ("chain_end", "cba", "child"),
        ("tool_end", "cba"),
    ]


# ---- custom events --------------------------------------------------------------------------
def test_dispatch_custom_event_reaches_handlers_and_the_event_stream():
    def program(ns: Any) -> Any:
        def step(text: str) -> str:
            ns.callbacks.dispatch_custom_event("progress", {"done": 1, "of": 2})
            ns.callbacks.dispatch_custom_event("note", "halfway")
            return text * 2

        return ns.RunnableLambda(step).with_config(tags=["t"])

    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        output = program(ns).invoke("ab", config={"callbacks": [handler]})
        return output, handler.seen

    async def events(ns: Any) -> Any:
        return [
            (e["event"], e["name"], e["data"], e.get("tags"))
            async for e in program(ns).astream_events("ab", version="v2")
            if e["event"] == "on_custom_event"
        ]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert [event for event in lc[1] if event[0] == "custom"] == [
        ("custom", "progress", {"done": 1, "of": 2}, ["t"]),
        ("custom", "note", "halfway", ["t"]),
    ]
    assert asyncio.run(events(OURS)) == asyncio.run(events(LC))


async def test_adispatch_custom_event_in_an_async_step():
    def program(ns: Any) -> Any:
        async def step(text: str) -> str:
            await ns.callbacks.adispatch_custom_event("seen", {"text": text})
            return text.upper()

        return ns.RunnableLambda(step)

    async def run(ns: Any) -> Any:
        handler = _recorder(ns, asynchronous=True)
        output = await program(ns).ainvoke("ab", config={"callbacks": [handler]})
        streamed = [
            (e["event"], e["name"], e["data"])
            async for e in program(ns).astream_events("cd", version="v2")
            if e["event"] == "on_custom_event"
        ]
        return output, handler.seen, streamed

    lc, ours = await run(LC), await run(OURS)
    assert ours == lc
    assert lc[2] == [("on_custom_event", "seen", {"text": "cd"})]


def test_dispatch_custom_event_outside_a_run_raises():
    def run(ns: Any) -> Any:
        with pytest.raises(RuntimeError) as info:
            ns.callbacks.dispatch_custom_event("x", {})
        return type(info.value).__name__

    assert run(OURS) == run(LC)


# ---- usage ----------------------------------------------------------------------------------
def _replies(ns: Any) -> Any:
    def reply(text: str, model: str, tokens: tuple[int, int]) -> Any:
        usage = {
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
            "total_tokens": sum(tokens),
        }
        return ns.AIMessage(
            content=text, usage_metadata=usage, response_metadata={"model_name": model}
        )

    return [
        reply("a", "gpt-4o-mini", (3, 1)),
        reply("b c", "other", (5, 2)),
        reply("d", "gpt-4o-mini", (2, 2)),
    ]


def test_usage_metadata_callback_adds_up_per_model():
    def run(ns: Any) -> Any:
        handler = ns.callbacks.UsageMetadataCallbackHandler()
        model = ns.GenericFakeChatModel(messages=iter(_replies(ns)))
        model.invoke("x", config={"callbacks": [handler]})
        model.invoke("x", config={"callbacks": [handler]})
        model.invoke("x", config={"callbacks": [handler]})
        with ns.callbacks.get_usage_metadata_callback() as cb:
            ns.GenericFakeChatModel(messages=iter(_replies(ns)[:1])).invoke("y")
            ns.FakeListChatModel(responses=["no usage"]).invoke("y")
        return observe(handler.usage_metadata), observe(cb.usage_metadata)

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0]["gpt-4o-mini"]["total_tokens"] == 8
    assert lc[1] == {"gpt-4o-mini": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}}


def test_openai_callback_handler_as_a_handler():
    def run(ns: Any) -> Any:
        handler = ns.OpenAICallbackHandler()
        model = ns.GenericFakeChatModel(messages=iter(_replies(ns)))
        for _ in range(3):
            model.invoke("x", config={"callbacks": [handler]})
        return (
            handler.successful_requests,
            handler.prompt_tokens,
            handler.completion_tokens,
            handler.total_tokens,
            round(handler.total_cost, 10),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[:4] == (3, 10, 5, 15)


@pytest.mark.parametrize("inherit", [False, True], ids=["handlers-only", "inheritable"])
def test_handlers_reach_child_runs_only_when_inheritable(inherit: bool):
    """``CallbackManager(handlers=[h])`` keeps ``h``, its tags and its metadata to the
    runs it starts itself; ``inheritable_handlers`` (and tags, metadata) pass on."""

    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        extra: dict[str, Any] = {"tags": ["t"], "metadata": {"k": 1}}
        if inherit:
            extra.update(
                inheritable_handlers=[handler],
                inheritable_tags=["t"],
                inheritable_metadata={"k": 1},
            )
        manager = ns.callbacks.CallbackManager(handlers=[handler], **extra)
        defaults = (
            len(manager.inheritable_handlers),
            manager.inheritable_tags,
            manager.inheritable_metadata,
        )
        chain_run = manager.on_chain_start({"name": "outer"}, {"q": "x"}, name="outer")
        child = chain_run.get_child()
        child.on_tool_start({"name": "t"}, "x").on_tool_end("y")
        chain_run.on_chain_end({})
        return defaults, (child.tags, child.metadata), [event[0] for event in handler.seen]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    if inherit:
        assert lc == (
            (1, ["t"], {"k": 1}),
            (["t"], {"k": 1}),
            ["chain_start", "tool_start", "tool_end", "chain_end"],
        )
    else:
        assert lc == ((0, [], {}), ([], {}), ["chain_start", "chain_end"])
