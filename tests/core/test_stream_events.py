"""astream_events: LangChain's v2 events, exact sequences (names, order, parents, data),
filters, custom events, tools, errors, and events that arrive while the run goes on."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from _run_ids import no_run_ids

from ragline.chains import create_retrieval_chain, create_stuff_documents_chain
from ragline.core import (
    AIMessage,
    AIMessageChunk,
    BaseChatModel,
    BaseLLM,
    ChatPromptTemplate,
    Document,
    FakeListChatModel,
    FakeListLLM,
    HumanMessage,
    RunnableLambda,
    StrOutputParser,
    SystemMessage,
)
from ragline.core.callbacks import (
    BaseCallbackHandler,
    adispatch_custom_event,
    dispatch_custom_event,
)
from ragline.core.exceptions import InvalidInputError
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.tools import tool
from ragline.vectorstores import InMemoryVectorStore


def collect(runnable: Any, input: Any, **options: Any) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        return [event async for event in runnable.astream_events(input, **options)]

    return asyncio.run(run())


def rows(events: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """(event, name, names of the enclosing runs, outermost first) per event."""
    names = {event["run_id"]: event["name"] for event in events if event["event"].endswith("start")}
    return [(e["event"], e["name"], [names[p] for p in e["parent_ids"]]) for e in events]


def test_every_event_has_langchains_keys_and_string_ids() -> None:
    events = collect(RunnableLambda(lambda x: x + 1, name="add"), 1, version="v2")
    assert [sorted(event) for event in events] == [
        ["data", "event", "metadata", "name", "parent_ids", "run_id", "tags"]
    ] * 3
    assert len({event["run_id"] for event in events}) == 1
    assert isinstance(events[0]["run_id"], str) and len(events[0]["run_id"]) == 36
    assert [e["data"] for e in events] == [{"input": 1}, {"chunk": 2}, {"output": 2}]


def test_prompt_model_parser_sequence() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    chain = prompt | FakeListChatModel(responses=["Hi!"]) | StrOutputParser()
    events = collect(chain, {"q": "hello"}, config={"tags": ["t"], "metadata": {"m": 1}})
    root = ["RunnableSequence"]
    assert rows(events) == [
        ("on_chain_start", "RunnableSequence", []),
        ("on_prompt_start", "ChatPromptTemplate", root),
        ("on_prompt_end", "ChatPromptTemplate", root),
        ("on_chat_model_start", "FakeListChatModel", root),
        ("on_chat_model_stream", "FakeListChatModel", root),
        ("on_parser_start", "StrOutputParser", root),
        ("on_parser_stream", "StrOutputParser", root),
        ("on_chain_stream", "RunnableSequence", []),
        ("on_chat_model_stream", "FakeListChatModel", root),
        ("on_parser_stream", "StrOutputParser", root),
        ("on_chain_stream", "RunnableSequence", []),
        ("on_chat_model_stream", "FakeListChatModel", root),
        ("on_parser_stream", "StrOutputParser", root),
        ("on_chain_stream", "RunnableSequence", []),
        ("on_chat_model_end", "FakeListChatModel", root),
        ("on_parser_end", "StrOutputParser", root),
        ("on_chain_end", "RunnableSequence", []),
    ]
    messages = [[SystemMessage("Be brief."), HumanMessage("hello")]]
    by_event = {event["event"]: event for event in events}  # the last of each kind
    assert events[0]["data"] == {"input": {"q": "hello"}}
    assert by_event["on_prompt_end"]["data"]["input"] == {"q": "hello"}
    assert by_event["on_prompt_end"]["data"]["output"].to_messages() == messages[0]
    assert by_event["on_chat_model_start"]["data"] == {"input": {"messages": messages}}
    chunks = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert [chunk.content for chunk in chunks] == ["H", "i", "!"]
    end = by_event["on_chat_model_end"]["data"]
    assert (end["output"].content, end["input"]) == ("Hi!", {"messages": messages})
    assert by_event["on_parser_start"]["data"] == {}  # its input is still streaming in
    assert [e["data"] for e in events if e["event"] == "on_chain_stream"] == [
        {"chunk": "H"},
        {"chunk": "i"},
        {"chunk": "!"},
    ]
    # the fake marks its last piece "last", as LangChain's does, and so does their sum
    reply = AIMessageChunk("Hi!", chunk_position="last")
    assert no_run_ids(by_event["on_parser_end"]["data"]) == {"output": "Hi!", "input": reply}
    assert events[-1]["data"] == {"output": "Hi!"}  # the root's end has no input
    steps = {"RunnableSequence": [], "ChatPromptTemplate": ["seq:step:1"]}
    steps |= {"FakeListChatModel": ["seq:step:2"], "StrOutputParser": ["seq:step:3"]}
    # each step's own run is tagged with its place (before the caller's tags, as LangChain)
    assert all(event["tags"] == [*steps[event["name"]], "t"] for event in events)
    assert all(event["metadata"]["m"] == 1 for event in events)


def retrieval_chain() -> Any:
    store = InMemoryVectorStore.from_texts(
        ["Paris is the capital of France.", "Rome is the capital of Italy."],
        DeterministicFakeEmbedding(size=16),
        ids=["paris", "rome"],
    )
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Context: {context}"), ("human", "{input}")]
    )
    answer = create_stuff_documents_chain(FakeListChatModel(responses=["Ok"]), prompt)
    return create_retrieval_chain(store.as_retriever(search_kwargs={"k": 1}), answer)


def test_retrieval_chain_sequence() -> None:
    events = collect(retrieval_chain(), {"input": "Paris is the capital of France."})
    top = ["retrieval_chain"]
    context = [*top, "RunnableAssign<context>", "RunnableParallel<context>"]
    answer = [*top, "RunnableAssign<answer>", "RunnableParallel<answer>"]
    stuff = [*answer, "stuff_documents_chain"]
    inputs = [*stuff, "format_inputs"]  # the documents rendered, as LangChain's sequence
    docs = [*inputs, "RunnableParallel<context>"]
    assert rows(events) == [
        ("on_chain_start", "retrieval_chain", []),
        ("on_chain_start", "RunnableAssign<context>", top),
        ("on_chain_stream", "RunnableAssign<context>", top),
        ("on_chain_start", "RunnableAssign<answer>", top),
        # the input's keys pass on as they arrive, before the new key is computed
        ("on_chain_stream", "RunnableAssign<answer>", top),
        ("on_chain_stream", "retrieval_chain", []),
        ("on_chain_start", "RunnableParallel<context>", context[:2]),
        ("on_chain_start", "retrieve_documents", context),
        ("on_chain_start", "RunnableLambda", [*context, "retrieve_documents"]),
        ("on_chain_stream", "RunnableLambda", [*context, "retrieve_documents"]),
        ("on_chain_end", "RunnableLambda", [*context, "retrieve_documents"]),
        ("on_retriever_start", "VectorStoreRetriever", [*context, "retrieve_documents"]),
        ("on_retriever_end", "VectorStoreRetriever", [*context, "retrieve_documents"]),
        ("on_chain_stream", "retrieve_documents", context),
        ("on_chain_stream", "RunnableParallel<context>", context[:2]),
        ("on_chain_stream", "RunnableAssign<context>", top),
        ("on_chain_stream", "RunnableAssign<answer>", top),
        ("on_chain_stream", "retrieval_chain", []),
        ("on_chain_end", "retrieve_documents", context),
        ("on_chain_end", "RunnableParallel<context>", context[:2]),
        ("on_chain_end", "RunnableAssign<context>", top),
        ("on_chain_start", "RunnableParallel<answer>", answer[:2]),
        ("on_chain_start", "stuff_documents_chain", answer),
        ("on_chain_start", "format_inputs", stuff),
        ("on_chain_stream", "format_inputs", stuff),
        ("on_chain_start", "RunnableParallel<context>", inputs),
        ("on_chain_start", "format_docs", docs),
        ("on_chain_stream", "format_docs", docs),
        ("on_chain_stream", "RunnableParallel<context>", inputs),
        ("on_chain_stream", "format_inputs", stuff),
        ("on_chain_end", "format_docs", docs),
        ("on_chain_end", "RunnableParallel<context>", inputs),
        ("on_chain_end", "format_inputs", stuff),
        ("on_prompt_start", "ChatPromptTemplate", stuff),
        ("on_prompt_end", "ChatPromptTemplate", stuff),
        ("on_chat_model_start", "FakeListChatModel", stuff),
        ("on_chat_model_stream", "FakeListChatModel", stuff),
        ("on_parser_start", "StrOutputParser", stuff),
        ("on_parser_stream", "StrOutputParser", stuff),
        # each piece reaches the root before the model makes the next, as LangChain's
        ("on_chain_stream", "stuff_documents_chain", answer),
        ("on_chain_stream", "RunnableParallel<answer>", answer[:2]),
        ("on_chain_stream", "RunnableAssign<answer>", top),
        ("on_chain_stream", "retrieval_chain", []),
        ("on_chat_model_stream", "FakeListChatModel", stuff),
        ("on_parser_stream", "StrOutputParser", stuff),
        ("on_chain_stream", "stuff_documents_chain", answer),
        ("on_chain_stream", "RunnableParallel<answer>", answer[:2]),
        ("on_chain_stream", "RunnableAssign<answer>", top),
        ("on_chain_stream", "retrieval_chain", []),
        ("on_chat_model_end", "FakeListChatModel", stuff),
        ("on_parser_end", "StrOutputParser", stuff),
        ("on_chain_end", "stuff_documents_chain", answer),
        ("on_chain_end", "RunnableParallel<answer>", answer[:2]),
        ("on_chain_end", "RunnableAssign<answer>", top),
        ("on_chain_end", "retrieval_chain", []),
    ]
    paris = Document("Paris is the capital of France.", id="paris")
    retriever_end = next(e for e in events if e["event"] == "on_retriever_end")
    assert retriever_end["data"] == {
        "output": [paris],
        "input": {"query": "Paris is the capital of France."},
    }
    root_chunks = [
        e["data"]["chunk"]
        for e in events
        if e["event"] == "on_chain_stream" and e["name"] == "retrieval_chain"
    ]
    assert root_chunks == [  # the input's chunks pass on one by one, as LangChain's
        {"input": "Paris is the capital of France."},
        {"context": [paris]},
        {"answer": "O"},
        {"answer": "k"},
    ]
    assert events[-1]["data"]["output"] == {
        "input": "Paris is the capital of France.",
        "context": [paris],
        "answer": "Ok",
    }


def test_filters_by_type_name_and_tag() -> None:
    chain = retrieval_chain()
    question = {"input": "Paris is the capital of France."}
    kinds = collect(chain, question, include_types=["retriever", "chat_model"])
    assert [(e["event"], e["name"]) for e in kinds] == [
        ("on_retriever_start", "VectorStoreRetriever"),
        ("on_retriever_end", "VectorStoreRetriever"),
        ("on_chat_model_start", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_end", "FakeListChatModel"),
    ]
    # an excluded run's own events go, its children stay (they are runs of their own)
    named = collect(chain, question, include_names=["stuff_documents_chain", "StrOutputParser"],
                    exclude_types=["parser"])  # fmt: skip
    assert {e["name"] for e in named} == {"stuff_documents_chain"}
    step = RunnableLambda(lambda x: x, name="a") | RunnableLambda(
        lambda x: x, name="b"
    ).with_config(tags=["keep"])
    tagged = collect(step, 1, include_tags=["keep"])
    assert [(e["event"], e["name"]) for e in tagged] == [
        ("on_chain_start", "b"),
        ("on_chain_stream", "b"),  # a lambda streams in astream_events, as LangChain's
        ("on_chain_end", "b"),
    ]
    none = collect(step, 1, include_names=["a"], exclude_tags=["keep"], exclude_names=["a"])
    assert none == []


def test_bad_arguments_are_refused_before_the_run() -> None:
    calls: list[int] = []
    runnable = RunnableLambda(calls.append)
    with pytest.raises(InvalidInputError, match="version 'v3' is not supported"):
        runnable.astream_events(1, version="v3")
    with pytest.raises(InvalidInputError, match="include_names must be a list of strings"):
        runnable.astream_events(1, version="v1", include_names="a")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="include_types must be a list of strings"):
        runnable.astream_events(1, include_types="retriever")  # type: ignore[arg-type]
    assert calls == []


def test_custom_events_sync_and_async_belong_to_their_run() -> None:
    async def step(x: int) -> int:
        await adispatch_custom_event("progress", {"done": x})
        return x

    def inner(x: int) -> int:
        dispatch_custom_event("inner", x * 10)
        return x

    chain = RunnableLambda(step, name="outer") | RunnableLambda(inner, name="inner_step")
    events = collect(chain, 3)
    custom = [e for e in events if e["event"] == "on_custom_event"]
    runs = {e["name"]: e["run_id"] for e in events if e["event"] == "on_chain_start"}
    assert [(e["name"], e["data"], e["run_id"]) for e in custom] == [
        ("progress", {"done": 3}, runs["outer"]),
        ("inner", 30, runs["inner_step"]),
    ]
    assert [e["parent_ids"] for e in custom] == [[runs["RunnableSequence"]]] * 2
    only = collect(chain, 3, include_names=["progress"])
    assert [e["event"] for e in only] == ["on_custom_event"]


def test_tool_events_end_and_error() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool
    def fail(a: int) -> int:
        """Always fails."""
        raise ValueError("no luck")

    assert [(e["event"], e["data"]) for e in collect(add, {"a": 1, "b": 2})] == [
        ("on_tool_start", {"input": {"a": 1, "b": 2}}),
        ("on_tool_end", {"output": 3}),
    ]
    inside = collect(RunnableLambda(lambda x: add.invoke(x), name="caller"), {"a": 2, "b": 2})
    assert rows(inside) == [
        ("on_chain_start", "caller", []),
        ("on_tool_start", "add", ["caller"]),
        ("on_tool_end", "add", ["caller"]),
        ("on_chain_stream", "caller", []),
        ("on_chain_end", "caller", []),
    ]
    assert inside[2]["data"] == {"output": 4, "input": {"a": 2, "b": 2}}

    seen: list[dict[str, Any]] = []

    async def run() -> None:
        async for event in fail.astream_events({"a": 1}):
            seen.append(event)

    with pytest.raises(ValueError, match="no luck"):
        asyncio.run(run())
    assert [e["event"] for e in seen] == ["on_tool_start", "on_tool_error"]
    error = seen[1]["data"]
    assert (repr(error["error"]), error["input"]) == ("ValueError('no luck')", {"a": 1})


def test_a_failing_step_raises_after_the_events_before_it() -> None:
    def boom(x: int) -> int:
        raise KeyError("missing")

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(boom)
    seen: list[dict[str, Any]] = []

    async def run() -> None:
        async for event in chain.astream_events(1):
            seen.append(event)

    with pytest.raises(KeyError, match="missing"):
        asyncio.run(run())
    assert rows(seen) == [
        ("on_chain_start", "RunnableSequence", []),
        ("on_chain_start", "first", ["RunnableSequence"]),
        ("on_chain_stream", "first", ["RunnableSequence"]),
        ("on_chain_start", "boom", ["RunnableSequence"]),
        ("on_chain_end", "first", ["RunnableSequence"]),  # as LangChain's order
    ]


def test_root_model_retriever_and_llm_data() -> None:
    model = collect(FakeListChatModel(responses=["ab"]), "q")
    assert [(e["event"], type(e["data"].get("chunk")).__name__) for e in model] == [
        ("on_chat_model_start", "NoneType"),
        ("on_chat_model_stream", "AIMessageChunk"),
        ("on_chat_model_stream", "AIMessageChunk"),
        ("on_chat_model_end", "NoneType"),
    ]
    # a streamed run ends with the pieces added up (an AIMessageChunk), as in LangChain
    assert model[0]["data"] == {"input": "q"}
    assert no_run_ids(model[-1]["data"]) == {"output": AIMessageChunk("ab", chunk_position="last")}
    # FakeListLLM streams its answer whole, with no token (as LangChain's): no llm events
    assert [e["event"] for e in collect(FakeListLLM(responses=["xy"]), "q")] == [
        "on_llm_start",
        "on_llm_end",
    ]

    class Characters(BaseLLM):
        def _generate(self, prompt: str, stop: Any = None) -> str:
            return "xy"

        def _stream(self, prompt: str, stop: Any = None) -> Any:
            yield from "xy"

    llm = collect(Characters(), "q")
    assert [e["event"] for e in llm] == [
        "on_llm_start",
        "on_llm_stream",
        "on_llm_stream",
        "on_llm_end",
    ]
    # the outermost LLM's chunks are its output texts, as LangChain's
    assert [e["data"]["chunk"] for e in llm[1:3]] == ["x", "y"]
    assert llm[-1]["data"] == {
        "output": {
            "generations": [[{"text": "xy", "generation_info": None, "type": "Generation"}]],
            "llm_output": None,
        }
    }
    store = InMemoryVectorStore.from_texts(["a"], DeterministicFakeEmbedding(size=4), ids=["1"])
    found = collect(store.as_retriever(), "a")
    assert [(e["event"], e["data"]) for e in found] == [
        ("on_retriever_start", {"input": "a"}),
        ("on_retriever_end", {"output": [Document("a", id="1")]}),
    ]


def test_a_model_invoked_inside_a_step_streams_its_tokens() -> None:
    model = FakeListChatModel(responses=["Yo"])
    events = collect(RunnableLambda(lambda x: model.invoke(x), name="calls_model"), "hi")
    assert [(e["event"], e["name"]) for e in events] == [
        ("on_chain_start", "calls_model"),
        ("on_chat_model_start", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_end", "FakeListChatModel"),
        ("on_chain_stream", "calls_model"),
        ("on_chain_end", "calls_model"),
    ]
    assert no_run_ids(events[-1]["data"]) == {"output": AIMessage("Yo")}


class GatedModel(BaseChatModel):
    """Streams "a", then waits until the test lets it stream "b"."""

    def __init__(self, gate: asyncio.Event) -> None:
        super().__init__()
        self.gate = gate

    def _generate(self, messages: Any, stop: Any = None) -> AIMessage:
        return AIMessage("ab")

    async def _astream(self, messages: Any, stop: Any = None) -> Any:
        yield AIMessageChunk(content="a")
        await self.gate.wait()
        yield AIMessageChunk(content="b")


def test_events_arrive_while_the_run_is_still_going() -> None:
    async def run() -> list[str]:
        gate = asyncio.Event()
        chain = GatedModel(gate) | StrOutputParser()
        seen = []
        async for event in chain.astream_events("hi"):
            seen.append(event["event"])
            if event["event"] == "on_chat_model_stream":
                gate.set()  # had the events waited for the run's end, this never happens
        return seen

    seen = asyncio.run(asyncio.wait_for(run(), timeout=60))  # bounds a hang
    # two pieces and the closing empty one (LangChain 1.x)
    assert seen.count("on_chat_model_stream") == 3 and seen[-1] == "on_chain_end"


def test_closing_the_event_stream_early_ends_the_run() -> None:
    async def run() -> list[str]:
        gate = asyncio.Event()  # never set: the model waits forever unless cancelled
        stream = (GatedModel(gate) | StrOutputParser()).astream_events("hi")
        seen = []
        async for event in stream:
            seen.append(event["event"])
            if event["event"] == "on_parser_stream":
                break
        await stream.aclose()  # type: ignore[attr-defined]
        return seen

    seen = asyncio.run(asyncio.wait_for(run(), timeout=60))  # bounds a hang
    assert seen[-1] == "on_parser_stream"


def test_version_v1_warns_that_it_is_deprecated_and_gives_v1_events() -> None:
    # LangChain's v1 (tests/parity/test_astream_events_v1.py compares the events whole)
    runnable = RunnableLambda(lambda x: x + 1, name="add")
    with pytest.warns(DeprecationWarning, match=r"astream_events\(version='v1'\) is deprecated"):
        stream = runnable.astream_events(1, version="v1")

    async def events() -> list[tuple[str, Any, list[str]]]:
        return [(e["event"], e["data"], e["parent_ids"]) async for e in stream]

    assert asyncio.run(events()) == [
        ("on_chain_start", {"input": 1}, []),
        ("on_chain_stream", {"chunk": 2}, []),
        ("on_chain_end", {"output": 2}, []),
    ]


def test_version_v1_stopped_early_cancels_the_run() -> None:
    seen: list[Any] = []

    class Ends(BaseCallbackHandler):
        def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
            seen.append(type(error).__name__)

    async def words(_: str) -> Any:
        try:
            for word in ("a", "b", "c"):
                yield word
                await asyncio.sleep(0)
        finally:
            seen.append("closed")

    async def main() -> list[Any]:
        with pytest.warns(DeprecationWarning):
            stream = RunnableLambda(words).astream_events(
                "x", {"callbacks": [Ends()]}, version="v1"
            )
        async for event in stream:
            if event["event"] == "on_chain_stream":
                break
        await stream.aclose()  # type: ignore[attr-defined]
        # the run is cancelled and reports its error soon after, not at once: wait for
        # both (a fixed pause can be too short on a loaded machine); 30 s bounds a hang
        deadline = time.monotonic() + 30
        while len(seen) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return list(seen)

    assert asyncio.run(main()) == ["closed", "CancelledError"]
