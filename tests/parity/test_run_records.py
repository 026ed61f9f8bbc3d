"""Parity: the Run records that RunCollectorCallbackHandler, collect_runs and
with_listeners hand to a program, against langchain_core's tracers.

Each scenario runs the same program through both libraries and compares what a program
reads off the runs: name, run_type, inputs, outputs, error, events, tags, extra and
metadata, the child runs in order, and how parent_run_id, trace_id and dotted_order tie
them together. Run ids differ by nature (so do the message ids made from them), and a few
differences are listed in docs/differences-from-langchain.md: ragline adds no
``seq:step:N`` / ``map:key:K`` tags, no ``ls_*`` metadata on retriever runs (model runs
have LangChain's) and no run's ``extra`` has ``defers_inputs``;
:func:`_comparable` leaves exactly those out.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import re
import threading
import types
import uuid
from datetime import datetime
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.documents as lc_documents
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.output_parsers as lc_parsers
import langchain_core.outputs as lc_outputs
import langchain_core.prompts as lc_prompts
import langchain_core.retrievers as lc_retrievers
import langchain_core.runnables as lc_runnables
import langchain_core.tools as lc_tools
import langchain_core.tracers.context as lc_tracer_context
import langchain_core.tracers.run_collector as lc_run_collector
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.tools as rl_tools
from tests.parity._observe import observe

COVERS = {"core.Run", "core.callbacks.collect_runs"}

LC = types.SimpleNamespace(
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableParallel=lc_runnables.RunnableParallel,
    RunnablePassthrough=lc_runnables.RunnablePassthrough,
    PromptTemplate=lc_prompts.PromptTemplate,
    ChatPromptTemplate=lc_prompts.ChatPromptTemplate,
    FakeListLLM=lc_models.FakeListLLM,
    FakeListChatModel=lc_models.FakeListChatModel,
    FakeMessagesListChatModel=lc_models.FakeMessagesListChatModel,
    BaseChatModel=lc_models.BaseChatModel,
    LLM=lc_models.LLM,
    StrOutputParser=lc_parsers.StrOutputParser,
    BaseRetriever=lc_retrievers.BaseRetriever,
    Document=lc_documents.Document,
    AIMessage=lc_messages.AIMessage,
    ChatMessage=lc_messages.ChatMessage,
    ToolMessage=lc_messages.ToolMessage,
    HumanMessage=lc_messages.HumanMessage,
    SystemMessage=lc_messages.SystemMessage,
    ChatResult=lc_outputs.ChatResult,
    ChatGeneration=lc_outputs.ChatGeneration,
    LLMResult=lc_outputs.LLMResult,
    Generation=lc_outputs.Generation,
    tool=lc_tools.tool,
    CallbackManager=lc_callbacks.CallbackManager,
    RunCollectorCallbackHandler=lc_run_collector.RunCollectorCallbackHandler,
    collect_runs=lc_tracer_context.collect_runs,
)
OURS = types.SimpleNamespace(
    RunnableLambda=rl.RunnableLambda,
    RunnableParallel=rl.RunnableParallel,
    RunnablePassthrough=rl.RunnablePassthrough,
    PromptTemplate=rl.PromptTemplate,
    ChatPromptTemplate=rl.ChatPromptTemplate,
    FakeListLLM=rl.FakeListLLM,
    FakeListChatModel=rl.FakeListChatModel,
    FakeMessagesListChatModel=rl.FakeMessagesListChatModel,
    BaseChatModel=rl.BaseChatModel,
    LLM=rl.LLM,
    StrOutputParser=rl.StrOutputParser,
    BaseRetriever=rl.BaseRetriever,
    Document=rl.Document,
    AIMessage=rl.AIMessage,
    ChatMessage=rl.ChatMessage,
    ToolMessage=rl.ToolMessage,
    HumanMessage=rl.HumanMessage,
    SystemMessage=rl.SystemMessage,
    ChatResult=rl.ChatResult,
    ChatGeneration=rl.ChatGeneration,
    LLMResult=rl.LLMResult,
    Generation=rl.Generation,
    tool=rl_tools.tool,
    CallbackManager=rl.CallbackManager,
    RunCollectorCallbackHandler=rl.RunCollectorCallbackHandler,
    collect_runs=rl_callbacks.collect_runs,
)
BOTH = pytest.mark.parametrize("ns", [LC, OURS], ids=["langchain", "ragline"])

_UNLISTED_EXTRA = ("defers_inputs",)
_STEP_TAG = re.compile(r"^(seq:step:\d+|map:key:.+)$")
_STAMP = re.compile(r"^\d{8}T\d{12}Z[0-9a-f-]{36}$")
_RUN_MADE_ID = re.compile(r"^lc_run--[0-9a-f-]{36}(-\d+)?$")


def _masked(value: Any) -> Any:
    """:func:`observe`'s form of ``value``, prompt values as their class name and
    messages, and message ids made from a run id (``lc_run--<uuid>-0``) masked."""
    return _masked_ids(observe(value))


def _masked_ids(value: Any) -> Any:
    if hasattr(value, "to_messages") and hasattr(value, "to_string"):  # a prompt value
        return (type(value).__name__, _masked(value.to_messages()))
    if isinstance(value, str) and _RUN_MADE_ID.match(value):
        return "lc_run--*"
    if isinstance(value, dict):
        return {key: _masked_ids(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_masked_ids(item) for item in value)
    return value


def _error(text: str | None) -> Any:
    """An error text's parts a program relies on: the exception's repr, the traceback
    header, and the last line (the frames are each library's own)."""
    if text is None:
        return None
    head, _, rest = text.partition("Traceback (most recent call last):")
    return (head, rest.startswith("\n\n\n  File "), text.rsplit("\n", 1)[-1])


def _comparable(run: Any) -> dict[str, Any]:
    """What a program reads off ``run`` and its tree, less the listed differences."""
    extra = {k: v for k, v in run.extra.items() if k not in _UNLISTED_EXTRA}
    if "metadata" in extra:
        kept = {
            k: v
            for k, v in extra["metadata"].items()
            if k != "lc_versions" and not (run.run_type == "retriever" and k.startswith("ls_"))
        }
        extra = {k: v for k, v in extra.items() if k != "metadata"} | (
            {"metadata": kept} if kept else {}
        )
    return {
        "name": run.name,
        "run_type": run.run_type,
        "inputs": _masked(run.inputs),
        "outputs": _masked(run.outputs),
        "error": _error(run.error),
        "events": [(e["name"], sorted(e.get("kwargs", {}))) for e in run.events],
        "tags": [tag for tag in run.tags if not _STEP_TAG.match(tag)],
        "extra": _masked(extra),
        "times": (type(run.start_time), type(run.end_time)),
        "child_runs": [_comparable(child) for child in run.child_runs],
    }


def _check_ties(run: Any, parent: Any = None) -> None:
    """parent_run_id, trace_id and dotted_order tie the tree together as LangChain's do."""
    stamps = run.dotted_order.split(".")
    assert all(_STAMP.match(stamp) for stamp in stamps), run.dotted_order
    assert stamps[-1].endswith(str(run.id))
    if parent is None:
        assert (run.parent_run_id, run.trace_id, len(stamps)) == (None, run.id, 1)
    else:
        assert run.parent_run_id == parent.id and run.trace_id == parent.trace_id
        assert run.dotted_order.startswith(parent.dotted_order + ".")
    for child in run.child_runs:
        _check_ties(child, run)


def _collected(ns: Any, program: Any) -> list[dict[str, Any]]:
    collector = ns.RunCollectorCallbackHandler()
    with contextlib.suppress(ValueError, RuntimeError, KeyError):
        program(ns, {"callbacks": [collector]})
    for root in collector.traced_runs:
        _check_ties(root)
    return [_comparable(root) for root in collector.traced_runs]


# ---- the programs ----------------------------------------------------------------------------
def _chat_chain(ns: Any, config: Any) -> Any:
    prompt = ns.ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "{q}")])
    chain = prompt | ns.FakeListChatModel(responses=["fine"]) | ns.StrOutputParser()
    return chain.invoke({"q": "hi"}, config)


def _llm_chain(ns: Any, config: Any) -> Any:
    chain = ns.PromptTemplate.from_template("Say {q}") | ns.FakeListLLM(responses=["ok"])
    return (chain | ns.StrOutputParser()).invoke({"q": "hi"}, config)


def _retriever(ns: Any) -> Any:
    class Echo(ns.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
            return [ns.Document(page_content=query + "!", metadata={"rank": 1})]

    return Echo()


def _shout(ns: Any) -> Any:
    @ns.tool
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    return shout


def _boom(x: Any) -> Any:
    raise ValueError(f"bad {x}")


def _rich_reply(ns: Any) -> Any:
    return ns.AIMessage(
        content="calling",
        name="helper",
        id="m-1",
        response_metadata={"finish_reason": "tool_calls"},
        tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": "call-1"}],
    )


def _conversation(ns: Any) -> list[Any]:
    """One message of each kind, with the fields a serialized message lists or leaves out."""
    return [
        ns.SystemMessage(content="be brief"),
        ns.HumanMessage(content=[{"type": "text", "text": "look"}], name="ann", id="h-1"),
        ns.AIMessage(
            content="",
            tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": "call-1"}],
            usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
            additional_kwargs={"k": 1},
        ),
        ns.ToolMessage(content="found", tool_call_id="call-1", artifact={"rows": 2}),
        ns.ToolMessage(content="failed", tool_call_id="call-2", status="error"),
        ns.AIMessage(content="done", response_metadata={"finish_reason": "stop"}),
        ns.ChatMessage(content="note", role="critic"),
    ]


def _replying_chat_model(ns: Any) -> Any:
    class Replying(ns.BaseChatModel):  # type: ignore[misc, name-defined]
        @property
        def _llm_type(self) -> str:
            return "replying"

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
            return ns.ChatResult(generations=[ns.ChatGeneration(message=_rich_reply(ns))])

    return Replying()


def _failing_chat_model(ns: Any) -> Any:
    class Broken(ns.BaseChatModel):  # type: ignore[misc, name-defined]
        @property
        def _llm_type(self) -> str:
            return "broken"

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
            raise RuntimeError("model down")

    return Broken()


def _failing_llm(ns: Any) -> Any:
    class Broken(ns.LLM):  # type: ignore[misc, name-defined]
        @property
        def _llm_type(self) -> str:
            return "broken"

        def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any):
            raise RuntimeError("model down")

    return Broken()


PROGRAMS = {
    "chat chain": _chat_chain,
    "llm chain": _llm_chain,
    "llm given a string": lambda ns, c: ns.FakeListLLM(responses=["ok"]).invoke("hello", c),
    "chat model given a string": lambda ns, c: ns.FakeListChatModel(responses=["ok"]).invoke(
        "hello", c
    ),
    "chat model with a rich reply": lambda ns, c: _replying_chat_model(ns).invoke(
        [("system", "s"), ("human", "h")], c
    ),
    "retriever": lambda ns, c: _retriever(ns).invoke("q", c),
    "tool given a dict": lambda ns, c: _shout(ns).invoke({"text": "a"}, c),
    "tool given a string": lambda ns, c: _shout(ns).invoke("a", c),
    "tool given a tool call": lambda ns, c: _shout(ns).invoke(
        {"name": "shout", "args": {"text": "b"}, "id": "c1", "type": "tool_call"}, c
    ),
    "parallel": lambda ns, c: ns.RunnableParallel(
        a=ns.RunnableLambda(lambda x: x + 1), b=ns.RunnablePassthrough()
    ).invoke(1, c),
    "list in, list out": lambda ns, c: ns.RunnableLambda(lambda x: [x]).invoke([1, 2], c),
    "None in, None out": lambda ns, c: ns.RunnableLambda(lambda x: None).invoke(None, c),
    "failing step": lambda ns, c: (
        ns.RunnableLambda(lambda x: x) | ns.RunnableLambda(_boom)
    ).invoke(1, c),
    "failing chat model": lambda ns, c: _failing_chat_model(ns).invoke("p", c),
    "failing llm": lambda ns, c: _failing_llm(ns).invoke("p", c),
    "streamed chat chain": lambda ns, c: list(
        (ns.FakeListChatModel(responses=["ab"]) | ns.StrOutputParser()).stream("x", c)
    ),
    "batch": lambda ns, c: ns.RunnableLambda(lambda x: x).batch([1, 2], c),
    "run name, tags and metadata": lambda ns, c: (
        ns.RunnableLambda(lambda x: x)
        .with_config(run_name="named", tags=["a"], metadata={"k": 2})
        .invoke(1, {**c, "tags": ["b"]})
    ),
    "async chat chain": lambda ns, c: asyncio.run(
        (
            ns.ChatPromptTemplate.from_messages([("human", "{q}")])
            | ns.FakeListChatModel(responses=["fine"])
        ).ainvoke({"q": "hi"}, c)
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_collected_runs_have_langchains_shapes(name: str):
    program = PROGRAMS[name]
    lc, ours = _collected(LC, program), _collected(OURS, program)
    assert ours == lc
    assert ours  # every program leaves at least one root run


def test_the_shapes_of_each_kind_of_run():
    """The values themselves, for a reader checking by hand what the oracle gives."""
    (chain,) = _collected(OURS, _chat_chain)
    assert chain["inputs"] == {"q": "hi"} and chain["outputs"] == {"output": "fine"}
    prompt, model, parser = chain["child_runs"]
    assert [prompt["run_type"], model["run_type"], parser["run_type"]] == [
        "prompt",
        "llm",
        "parser",
    ]
    assert model["inputs"] == {"prompts": ["System: be brief\nHuman: hi"]}
    assert model["outputs"]["type"] == "LLMResult" and model["outputs"]["run"] is None
    (generation,) = model["outputs"]["generations"][0]
    assert generation["message"] == {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {
            "content": "fine",
            "type": "ai",
            "id": "lc_run--*",
            "tool_calls": [],
            "invalid_tool_calls": [],
        },
    }
    assert parser["inputs"] == {"input": ("AIMessage", "fine", None)}
    (retriever,) = _collected(OURS, PROGRAMS["retriever"])
    assert retriever["inputs"] == {"query": "q"}
    assert retriever["outputs"] == {"documents": [("Document", "q!", {"rank": 1})]}
    (tool,) = _collected(OURS, PROGRAMS["tool given a string"])
    assert (tool["inputs"], tool["outputs"]) == ({"input": "a"}, {"output": "A"})
    (failed,) = _collected(OURS, PROGRAMS["failing chat model"])
    assert failed["outputs"] == {
        "generations": [[]],
        "llm_output": None,
        "run": None,
        "type": "LLMResult",
    }
    assert failed["error"] == ("RuntimeError('model down')", True, "RuntimeError: model down")


# ---- run managers driven by hand -------------------------------------------------------------
def _by_hand(ns: Any) -> list[Any]:
    collector = ns.RunCollectorCallbackHandler()
    manager = ns.CallbackManager(handlers=[collector])
    chain = manager.on_chain_start(None, "plain", name="formatter", run_type="prompt", extra=1)
    chain.on_text("some text")
    chain.on_chain_end(["a"], inputs="late")
    unnamed = manager.on_chain_start({"id": ["my", "module", "Step"]}, {"x": 1})
    unnamed.on_chain_error(ValueError("x"))
    tool = manager.on_tool_start({"name": "t"}, "s", inputs={"q": 1}, name="lookup")
    tool.on_tool_end(7)
    (llm,) = manager.on_llm_start({"name": "m"}, ["p1"], name="model", invocation_params={"a": 1})
    llm.on_llm_new_token("t")
    llm.on_llm_end(
        ns.LLMResult(
            generations=[[ns.Generation(text="t", generation_info={"g": 1})]],
            llm_output={"u": 1},
        )
    )
    retriever = manager.on_retriever_start({"name": "r"}, "q", name="search")
    retriever.on_retriever_end([])
    return collector.traced_runs


def test_runs_reported_by_hand():
    lc, ours = _by_hand(LC), _by_hand(OURS)
    assert [_comparable(run) for run in ours] == [_comparable(run) for run in lc]
    # an exception that was never raised has no traceback: the text is repr, then the line
    assert ours[1].error == lc[1].error == "ValueError('x')ValueError: x"
    assert ours[1].name == lc[1].name == "Step"  # named after the class path
    assert ours[0].inputs == {"input": "late"} and ours[0].extra == {"extra": 1}


# ---- with_listeners --------------------------------------------------------------------------
def _test_runnable(time_to_sleep: int) -> int:
    return time_to_sleep * 2


@BOTH
def test_listeners_see_wrapped_inputs_and_outputs(ns: Any, capsys: Any):
    """The port trial's program (LangChain's with_listeners example)."""

    def fn_start(run_obj: Any) -> None:
        print("start_time:", type(run_obj.start_time).__name__, run_obj.name, run_obj.inputs)

    def fn_end(run_obj: Any) -> None:
        print("end_time:", type(run_obj.end_time).__name__, run_obj.outputs)

    runnable = ns.RunnableLambda(_test_runnable).with_listeners(on_start=fn_start, on_end=fn_end)
    print(runnable.invoke(0))
    assert capsys.readouterr().out == (
        "start_time: datetime _test_runnable {'input': 0}\nend_time: datetime {'output': 0}\n0\n"
    )


def _listened(ns: Any, runnable: Any, value: Any) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    bound = runnable.with_listeners(
        on_start=lambda run: seen.append(("start", copy.deepcopy(run))),
        on_end=lambda run: seen.append(("end", run)),
        on_error=lambda run: seen.append(("error", run)),
    )
    with contextlib.suppress(ValueError):
        bound.invoke(value)
    for _, run in seen:
        _check_ties(run)
    return [(which, _comparable(run)) for which, run in seen]


LISTENED = {
    "chat chain": lambda ns: (
        ns.ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "{q}")])
        | ns.FakeListChatModel(responses=["fine"])
        | ns.StrOutputParser(),
        {"q": "hi"},
    ),
    "chat model": lambda ns: (_replying_chat_model(ns), "yo"),
    "chat model given a conversation": lambda ns: (_replying_chat_model(ns), _conversation(ns)),
    "llm": lambda ns: (ns.FakeListLLM(responses=["ok"]), "hello"),
    "failing step": lambda ns: (ns.RunnableLambda(lambda x: x) | ns.RunnableLambda(_boom), 1),
    "retriever": lambda ns: (_retriever(ns), "q"),
}


@pytest.mark.parametrize("name", sorted(LISTENED))
def test_listeners_see_langchains_runs(name: str):
    lc, ours = (_listened(ns, *LISTENED[name](ns)) for ns in (LC, OURS))
    assert ours == lc
    assert [which for which, _ in ours] == ["start", "error" if "failing" in name else "end"]


def test_listeners_see_chat_model_runs_with_their_messages():
    (_, _start), (_, end) = _listened(OURS, *LISTENED["chat chain"](OURS))
    assert [child["run_type"] for child in end["child_runs"]] == ["prompt", "chat_model", "parser"]
    model = end["child_runs"][1]
    assert model["inputs"] == {
        "messages": [
            [
                {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", "SystemMessage"],
                    "kwargs": {"content": "be brief", "type": "system"},
                },
                {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", "HumanMessage"],
                    "kwargs": {"content": "hi", "type": "human"},
                },
            ]
        ]
    }
    assert _start["outputs"] == {} and _start["child_runs"] == []


def test_a_listened_step_inside_a_chain_is_a_root_run():
    def run(ns: Any) -> Any:
        seen: list[Any] = []
        inner = ns.RunnableLambda(lambda x: x + 1).with_listeners(on_end=seen.append)
        (ns.RunnableLambda(lambda x: x) | inner).invoke(1)
        (one,) = seen
        return one.parent_run_id, one.trace_id == one.id, one.dotted_order.count(".")

    assert run(OURS) == run(LC) == (None, True, 0)


def test_listeners_taking_the_config_see_the_same_runs():
    def run(ns: Any) -> Any:
        seen: list[Any] = []
        bound = ns.RunnableLambda(lambda x: [x]).with_listeners(
            on_end=lambda run, config: seen.append((_comparable(run), config["tags"]))
        )
        bound.invoke(3, {"tags": ["t"]})
        return seen

    assert run(OURS) == run(LC)


# ---- the collector ---------------------------------------------------------------------------
def test_collect_runs_collects_the_runs_of_its_block():
    def run(ns: Any) -> Any:
        with ns.collect_runs() as collector:
            _chat_chain(ns, None)
            ns.RunnableLambda(lambda x: x).invoke(5)
        _chat_chain(ns, None)  # after the block: not collected
        return type(collector).__name__, [_comparable(one) for one in collector.traced_runs]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert [one["name"] for one in ours[1]] == ["RunnableSequence", "RunnableLambda"]


def test_root_runs_are_collected_as_they_end():
    """A batch's second input finishes first: it is the first root run collected."""

    def run(ns: Any) -> Any:
        second_done = threading.Event()

        def step(x: str) -> str:
            if x == "first":
                assert second_done.wait(10)
            else:
                second_done.set()
            return x

        collector = ns.RunCollectorCallbackHandler()
        ns.RunnableLambda(step).batch(
            ["first", "second"], {"callbacks": [collector], "max_concurrency": 2}
        )
        return [one.inputs for one in collector.traced_runs]

    assert run(OURS) == run(LC) == [{"input": "second"}, {"input": "first"}]


def test_example_id_and_metadata():
    def run(ns: Any) -> Any:
        example = uuid.UUID(int=7)
        collector = ns.RunCollectorCallbackHandler(example_id=example)
        ns.RunnableLambda(lambda x: x).invoke(1, {"callbacks": [collector]})
        (one,) = collector.traced_runs
        before = dict(one.extra)
        return (
            one.reference_example_id == example,
            collector.example_id == example,
            before,
            one.metadata,
            one.extra,
            one.serialized is None or isinstance(one.serialized, dict),
            isinstance(one.start_time, datetime),
        )

    assert run(OURS) == run(LC) == (True, True, {}, {}, {"metadata": {}}, True, True)
