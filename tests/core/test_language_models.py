"""Language-model bases: input forms, callbacks and their order, streaming, bind, tokens."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from _run_ids import no_run_ids

import ragline.core.language_models._tokens as language_models
from ragline.core import (
    AIMessage,
    AIMessageChunk,
    AsyncCallbackHandler,
    BaseCallbackHandler,
    BaseChatModel,
    BaseLLM,
    ChatGeneration,
    ChatGenerationChunk,
    ChatPromptTemplate,
    FakeListChatModel,
    HumanMessage,
    InvalidInputError,
    LLMResult,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableLambda,
    StrOutputParser,
    SystemMessage,
)


class Recorder(BaseChatModel):
    """Answers with the last message upper-cased; records what the hook received."""

    def __init__(self) -> None:
        self.received: list[tuple[list[Any], Any, dict[str, Any]]] = []

    def _generate(self, messages, stop=None, **bound):
        self.received.append((messages, stop, bound))
        return AIMessage(
            messages[-1].text.upper(),
            usage_metadata={"input_tokens": 2, "output_tokens": 1, "total_tokens": 3},
        )


class Words(BaseChatModel):
    """Streams its answer word by word; ``_generate`` is never used when streaming."""

    def __init__(self, text: str = "one two three", fail_after: int | None = None) -> None:
        self.text = text
        self.fail_after = fail_after
        self.generated = 0

    def _generate(self, messages, stop=None):
        self.generated += 1
        return AIMessage(self.text)

    def _stream(self, messages, stop=None):
        for number, word in enumerate(self.text.split(" ")):
            if number == self.fail_after:
                raise RuntimeError("connection lost")
            yield AIMessageChunk(word if number == 0 else " " + word)


def events(collector: RunCollectorCallbackHandler) -> list[tuple[str, str, str | None]]:
    return collector.timeline()


class Results(BaseCallbackHandler):
    """Keeps the result objects ``on_llm_end`` is given (a run record keeps them as dicts)."""

    def __init__(self) -> None:
        self.results: list[Any] = []

    def on_llm_end(self, response, **kwargs):
        self.results.append(response)


# --------------------------------------------------------------------------- input forms


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("hi", [HumanMessage("hi")]),
        ([("system", "s"), ("human", "h")], [SystemMessage("s"), HumanMessage("h")]),
        ([HumanMessage("m")], [HumanMessage("m")]),
        (PromptTemplate.from_template("{x}").invoke("p"), [HumanMessage("p")]),
        (ChatPromptTemplate.from_messages([("ai", "a")]).invoke({}), [AIMessage("a")]),
    ],
)
def test_chat_model_accepts_strings_prompt_values_and_message_lists(given, expected):
    model = Recorder()
    model.invoke(given)
    assert model.received[0][0] == expected


def test_bad_input_is_rejected():
    with pytest.raises(
        InvalidInputError, match="must be a str, a PromptValue or a list of messages, got int"
    ):
        Recorder().invoke(42)
    with pytest.raises(InvalidInputError, match="unknown message role 'robot'"):
        Recorder().invoke([("robot", "x")])


def test_a_hook_returning_the_wrong_type_is_a_clear_error():
    class Broken(BaseChatModel):
        def _generate(self, messages, stop=None):
            return "a string"

    with pytest.raises(
        TypeError, match=r"Broken\._generate must return an AIMessage or a ChatResult, got str"
    ):
        Broken().invoke("x")


# --------------------------------------------------------------------------- callbacks


def test_invoke_reports_start_and_end_with_an_llm_result():
    collector, results = RunCollectorCallbackHandler(), Results()
    config = {"callbacks": [collector, results], "tags": ["t"], "run_name": "m"}
    reply = Recorder().invoke("hi", config)
    assert no_run_ids(reply) == AIMessage(
        "HI", usage_metadata={"input_tokens": 2, "output_tokens": 1, "total_tokens": 3}
    )
    assert events(collector) == [("chat_model_start", "m", None), ("llm_end", "m", None)]
    [run] = collector.traced_runs
    # LangChain's collector records a chat model as an LLM run of transcript lines
    assert run.run_type == "llm"
    assert run.inputs == {"prompts": ["Human: hi"]}
    assert run.tags == ["t"]
    assert run.extra["invocation_params"] == {"_type": "Recorder", "stop": None}
    [result] = results.results
    assert result == LLMResult(
        [[ChatGeneration(message=reply)]],
        {"token_usage": {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}},
    )  # OpenAI's usage keys in llm_output, as LangChain's on_llm_end handlers read them
    assert result.run is None  # as LangChain's handlers get it (generate returns the ids)
    assert run.outputs["generations"][0][0]["text"] == "HI"
    assert run.outputs["llm_output"] == result.llm_output


def test_stream_reports_each_token_between_start_and_end():
    collector = RunCollectorCallbackHandler()
    chunks = list(Words().stream("x", {"callbacks": [collector]}))
    # then an empty piece marked "last", reported as a token too (LangChain 1.x)
    assert [chunk.content for chunk in chunks] == ["one", " two", " three", ""]
    assert chunks[-1].chunk_position == "last"
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", *["llm_new_token"] * 4, "llm_end",
    ]  # fmt: skip
    run = collector.traced_runs[0]
    tokens = [e["kwargs"]["token"] for e in run.events if e["name"] == "new_token"]
    assert tokens == ["one", " two", " three", ""]
    # the model's own pieces added up (not the closing one), as LangChain reports them
    (generation,) = run.outputs["generations"][0]
    assert (generation["type"], generation["text"]) == ("ChatGenerationChunk", "one two three")
    assert generation["message"]["id"][-1] == "AIMessageChunk"


def test_tokens_reach_handlers_as_chat_generation_chunks():
    class Tokens(BaseCallbackHandler):
        raise_error = True

        def __init__(self) -> None:
            self.chunks: list[Any] = []

        def on_llm_new_token(self, token, *, chunk=None, **kwargs):
            self.chunks.append((token, chunk))

    handler = Tokens()
    list(Words("a b").stream("x", {"callbacks": [handler]}))
    assert no_run_ids(handler.chunks) == [
        ("a", ChatGenerationChunk(message=AIMessageChunk("a"))),
        (" b", ChatGenerationChunk(message=AIMessageChunk(" b"))),
        ("", ChatGenerationChunk(message=AIMessageChunk("", chunk_position="last"))),
    ]


def test_an_error_is_reported_and_raised():
    class Failing(BaseChatModel):
        def _generate(self, messages, stop=None):
            raise RuntimeError("model exploded")

    collector = RunCollectorCallbackHandler()
    with pytest.raises(RuntimeError, match="model exploded"):
        Failing().invoke("x", {"callbacks": [collector]})
    assert [event for event, _, _ in events(collector)] == ["chat_model_start", "llm_error"]
    assert str(collector.traced_runs[0].exception) == "model exploded"
    assert collector.traced_runs[0].error.endswith("\nRuntimeError: model exploded")


def test_an_error_mid_stream_comes_after_the_chunks_already_yielded():
    collector = RunCollectorCallbackHandler()
    received = []
    with pytest.raises(RuntimeError, match="connection lost"):
        for chunk in Words(fail_after=2).stream("x", {"callbacks": [collector]}):
            received.append(chunk.content)
    assert received == ["one", " two"]
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", "llm_new_token", "llm_new_token", "llm_error",
    ]  # fmt: skip


def test_a_consumer_stopping_early_ends_the_run_with_what_came():
    collector = RunCollectorCallbackHandler()
    stream = Words().stream("x", {"callbacks": [collector]})
    assert next(stream).content == "one"
    stream.close()
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", "llm_new_token", "llm_end",
    ]  # fmt: skip
    assert collector.traced_runs[0].outputs["generations"][0][0]["text"] == "one"


class AsyncWords(BaseChatModel):
    """Streams words from ``_astream``; ``closed`` says whether that stream was closed."""

    def __init__(self) -> None:
        self.closed = False

    def _generate(self, messages, stop=None):
        return AIMessage("one two three")

    async def _astream(self, messages, stop=None):
        try:
            for word in ["one", " two", " three"]:
                yield AIMessageChunk(word)
        finally:
            self.closed = True


async def test_an_async_consumer_stopping_early_closes_the_model_stream_and_ends_the_runs():
    model, collector = AsyncWords(), RunCollectorCallbackHandler()
    stream = (model | StrOutputParser()).astream("x", {"callbacks": [collector]})
    assert await anext(stream) == "one"
    await stream.aclose()
    assert model.closed  # the hook's stream (an HTTP response in ChatOpenAI) is released
    assert [(event, name) for event, name, _ in events(collector) if "token" not in event] == [
        ("chain_start", "RunnableSequence"), ("chat_model_start", "AsyncWords"),
        ("chain_start", "StrOutputParser"), ("llm_end", "AsyncWords"),
        ("chain_end", "StrOutputParser"), ("chain_end", "RunnableSequence"),
    ]  # fmt: skip
    assert collector.traced_runs[0].find("StrOutputParser").outputs == {"output": "one"}


async def test_cancelling_an_async_stream_over_a_sync_hook_stays_a_cancellation():
    started, gate, closed = threading.Event(), threading.Event(), threading.Event()

    class Blocking(BaseChatModel):
        def _generate(self, messages, stop=None):
            return AIMessage("one two")

        def _stream(self, messages, stop=None):  # sync only: astream steps it in threads
            try:
                yield AIMessageChunk("one")
                started.set()
                gate.wait(5)  # the second step blocks in its worker thread
                yield AIMessageChunk(" two")
            finally:
                closed.set()

    received: list[str] = []

    async def consume():
        async for chunk in Blocking().astream("x"):
            received.append(chunk.content)

    task = asyncio.ensure_future(consume())
    assert await asyncio.to_thread(started.wait, 5)
    task.cancel()  # while the worker thread is inside the generator
    with pytest.raises(asyncio.CancelledError):
        await task
    assert received == ["one"] and not closed.is_set()
    gate.set()
    assert await asyncio.to_thread(closed.wait, 5)  # closed once that step returned


def test_model_in_a_sequence_is_a_child_and_its_own_calls_are_its_children():
    class Delegating(BaseChatModel):
        def _generate(self, messages, stop=None):
            return AIMessage(RunnableLambda(str.upper, name="inner").invoke(messages[-1].text))

    collector = RunCollectorCallbackHandler()
    chain = ChatPromptTemplate.from_template("{q}") | Delegating() | StrOutputParser()
    assert chain.invoke({"q": "hi"}, {"callbacks": [collector]}) == "HI"
    assert collector.traced_runs[0].tree() == (
        "RunnableSequence",
        [("ChatPromptTemplate", []), ("Delegating", [("inner", [])]), ("StrOutputParser", [])],
    )


def test_streaming_attribute_makes_invoke_report_tokens():
    model = Words("a b")
    model.streaming = True
    collector = RunCollectorCallbackHandler()
    assert no_run_ids(model.invoke("x", {"callbacks": [collector]})) == AIMessage("a b")
    assert model.generated == 0
    # the last token is the closing empty piece
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", "llm_new_token", "llm_new_token", "llm_new_token", "llm_end",
    ]  # fmt: skip


# --------------------------------------------------------------------------- streaming


def test_a_model_without_stream_yields_its_whole_answer_once():
    chunks = list(Recorder().stream("abc"))
    # the AIMessage itself, as LangChain's stream yields it
    assert no_run_ids(chunks) == [
        AIMessage("ABC", usage_metadata={"input_tokens": 2, "output_tokens": 1, "total_tokens": 3})
    ]


def test_prompt_model_parser_streams_every_character():
    prompt = ChatPromptTemplate.from_messages([("system", "Be {tone}."), ("human", "{q}")])
    model = FakeListChatModel(responses=["Retrieval first."])
    chunks = list((prompt | model | StrOutputParser()).stream({"tone": "brief", "q": "RAG?"}))
    assert chunks == list("Retrieval first.")
    assert len(chunks) == 16
    assert model.calls == [[SystemMessage("Be brief."), HumanMessage("RAG?")]]


class Gated(BaseChatModel):
    """Streams one token, then blocks until the test releases it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.finished = False

    def _generate(self, messages, stop=None):
        raise AssertionError("streaming must not fall back to _generate")

    def _stream(self, messages, stop=None) -> Iterator[AIMessageChunk]:
        yield AIMessageChunk("first")
        assert self.release.wait(60), "the test never released the model"
        yield AIMessageChunk(" second")
        self.finished = True

    async def _astream(self, messages, stop=None) -> AsyncIterator[AIMessageChunk]:
        yield AIMessageChunk("first")
        while not self.release.is_set():
            await asyncio.sleep(0.001)
        yield AIMessageChunk(" second")
        self.finished = True


def test_the_first_chunk_arrives_before_the_model_has_finished():
    model = Gated()
    stream = (ChatPromptTemplate.from_template("{q}") | model | StrOutputParser()).stream(
        {"q": "x"}
    )
    assert next(stream) == "first"
    assert model.finished is False  # the model is still blocked mid-answer
    model.release.set()
    assert list(stream) == [" second", ""]  # and the closing empty piece
    assert model.finished is True


async def test_the_first_chunk_arrives_before_the_model_has_finished_async():
    model = Gated()
    stream = (ChatPromptTemplate.from_template("{q}") | model | StrOutputParser()).astream(
        {"q": "x"}
    )
    assert await anext(stream) == "first"
    assert model.finished is False
    model.release.set()
    assert [chunk async for chunk in stream] == [" second", ""]


async def test_astream_runs_a_sync_stream_in_a_thread():
    collector = RunCollectorCallbackHandler()
    chunks = [c.content async for c in Words("a b c").astream("x", {"callbacks": [collector]})]
    assert chunks == ["a", " b", " c", ""]
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", *["llm_new_token"] * 4, "llm_end",
    ]  # fmt: skip


async def test_ainvoke_uses_agenerate_when_there_is_one():
    class Native(BaseChatModel):
        def _generate(self, messages, stop=None):
            raise AssertionError("the sync hook must not run")

        async def _agenerate(self, messages, stop=None):
            await asyncio.sleep(0)
            return AIMessage("async " + messages[-1].text)

    collector = RunCollectorCallbackHandler()
    assert no_run_ids(await Native().ainvoke("hi", {"callbacks": [collector]})) == AIMessage(
        "async hi"
    )
    assert [event for event, _, _ in events(collector)] == ["chat_model_start", "llm_end"]


async def test_ainvoke_falls_back_to_the_sync_hook():
    model = Recorder()
    assert (await model.ainvoke("x", stop=["!"])).content == "X"
    assert model.received[0][1] == ["!"]


# --------------------------------------------------------------------------- bind and generate


def test_bind_stop_and_options_reach_the_hook():
    model = Recorder()
    model.bind(stop=["\n"]).invoke("a")
    model.bind(stop=["END"], temperature=0.2).batch(["b", "c"])
    assert [(stop, bound) for _, stop, bound in model.received] == [
        (["\n"], {}),
        (["END"], {"temperature": 0.2}),
        (["END"], {"temperature": 0.2}),
    ]


def test_an_option_the_hook_does_not_take_is_an_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'temperature'"):
        Words().invoke("x", temperature=0.5)


def test_bound_stop_is_reported_in_invocation_params():
    collector = RunCollectorCallbackHandler()
    Recorder().bind(stop=["\n"]).invoke("x", {"callbacks": [collector]})
    assert collector.traced_runs[0].extra["invocation_params"]["stop"] == ["\n"]


def test_generate_returns_one_generation_list_per_input():
    collector = RunCollectorCallbackHandler()
    result = Recorder().generate(["a", [("human", "b")]], stop=["x"], callbacks=[collector])
    assert [[g.text for g in gens] for gens in result.generations] == [["A"], ["B"]]
    assert isinstance(result.generations[0][0], ChatGeneration)
    assert [event for event, _, _ in events(collector)] == [
        "chat_model_start", "llm_end", "chat_model_start", "llm_end",
    ]  # fmt: skip


def test_generate_callbacks_join_the_config_callbacks():
    in_config, extra = RunCollectorCallbackHandler(), RunCollectorCallbackHandler()
    Recorder().generate(["a"], config={"callbacks": [in_config]}, callbacks=[extra])
    assert [run.name for run in in_config.traced_runs] == ["Recorder"]
    assert [run.name for run in extra.traced_runs] == ["Recorder"]


async def test_agenerate():
    result = await Recorder().agenerate(["a", "b"])
    assert [gens[0].text for gens in result.generations] == ["A", "B"]


# --------------------------------------------------------------------------- BaseLLM


class Reverse(BaseLLM):
    def _generate(self, prompt, stop=None):
        return prompt[::-1]

    def _stream(self, prompt, stop=None):
        yield from prompt[::-1]


def test_llm_reads_messages_as_a_transcript_and_reports_llm_events():
    collector = RunCollectorCallbackHandler()
    out = Reverse().invoke([("system", "ab"), ("human", "cd")], {"callbacks": [collector]})
    assert out == "dc :namuH\nba :metsyS"
    assert [event for event, _, _ in events(collector)] == ["llm_start", "llm_end"]
    run = collector.traced_runs[0]
    assert (run.run_type, run.inputs) == ("llm", {"prompts": ["System: ab\nHuman: cd"]})
    assert run.outputs["generations"] == [
        [{"text": "dc :namuH\nba :metsyS", "generation_info": None, "type": "Generation"}]
    ]


def test_llm_streams_strings():
    collector = RunCollectorCallbackHandler()
    assert list(Reverse().stream("abc", {"callbacks": [collector]})) == ["c", "b", "a"]
    assert [event for event, _, _ in events(collector)].count("llm_new_token") == 3
    assert list(
        (PromptTemplate.from_template("{x}") | Reverse() | StrOutputParser()).stream("xy")
    ) == [
        "y",
        "x",
    ]


def test_llm_hook_must_return_a_string():
    class Broken(BaseLLM):
        def _generate(self, prompt, stop=None):
            return AIMessage(prompt)

    with pytest.raises(
        TypeError, match=r"Broken\._generate must return a str \(or an LLMResult\), got AIMessage"
    ):
        Broken().invoke("x")


# --------------------------------------------------------------------------- tokens


def test_token_counts_use_tiktoken_cl100k():
    model = Recorder()
    assert model.get_token_ids("hello world") == [15339, 1917]
    assert model.get_num_tokens("hello world") == 2
    assert model.get_num_tokens("<|endoftext|>") == 7  # special tokens count as plain text
    # LangChain's base rule: each message's transcript line, counted and added up
    assert model.get_num_tokens_from_messages([("user", "hello")]) == 3  # "Human: hello"
    assert (
        model.get_num_tokens_from_messages(
            [SystemMessage("You are helpful."), HumanMessage("What is RAG?", name="ada")]
        )
        == 6 + 7
    )  # "System: You are helpful." and "Human: What is RAG?"


def test_token_count_fallback_without_the_encoding(monkeypatch):
    monkeypatch.setattr(language_models, "_encoding", lambda name: None)
    model = Recorder()
    assert model.get_num_tokens("Hello, world!") == 4
    assert model.get_num_tokens_from_messages([("user", "hello")]) == 3
    with pytest.raises(ImportError, match=r"pip install 'ragline\[tokens\]'"):
        model.get_token_ids("hello")


# --------------------------------------------------------------------------- async handlers


class AsyncEvents(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_chat_model_start(self, serialized, messages, **kwargs):
        await asyncio.sleep(0)
        self.seen.append("start")

    async def on_llm_new_token(self, token, **kwargs):
        await asyncio.sleep(0)
        self.seen.append(token)

    async def on_llm_end(self, response, **kwargs):
        self.seen.append("end:" + response.generations[0][0].text)


async def test_async_handlers_are_awaited_in_order_while_streaming():
    handler = AsyncEvents()
    chunks = [c.content async for c in Words("a b").astream("x", {"callbacks": [handler]})]
    assert chunks == ["a", " b", ""]
    assert handler.seen == ["start", "a", " b", "", "end:a b"]


async def test_async_streaming_invoke_reports_tokens():
    model = FakeListChatModel(responses=["hey"])
    model.streaming = True
    handler = AsyncEvents()
    assert (await model.ainvoke("x", {"callbacks": [handler]})).content == "hey"
    assert handler.seen == ["start", "h", "e", "y", "end:hey"]


def test_async_handlers_also_work_from_sync_code():
    handler = AsyncEvents()
    assert [c.content for c in Words("a b").stream("x", {"callbacks": [handler]})][-2:] == [
        " b",
        "",
    ]
    assert handler.seen == ["start", "a", " b", "", "end:a b"]
