"""Parity: what a model's stream yields and reports, against langchain_core's.

LangChain 1.x ends a streamed chat reply with an empty ``AIMessageChunk`` marked
``chunk_position="last"`` (reported as an empty ``on_llm_new_token``), unless the model
marked its own last chunk so or streamed nothing; a chat model without ``_stream``
streams its ``AIMessage`` itself. Each scenario runs the same model class, written on
each library's base, or each library's fake of the same name, and compares the pieces,
the tokens a handler sees, the run's end and the ``astream_events`` sequence.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.output_parsers as lc_parsers
import langchain_core.outputs as lc_outputs
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
import pytest

import ragline.core as rl

COVERS = {
    "core.FakeListChatModel",
    "core.FakeListLLM",
    "core.FakeStreamingListLLM",
    "core.GenericFakeChatModel",
    "core.FakeMessagesListChatModel",
}

LC = types.SimpleNamespace(
    BaseChatModel=lc_models.BaseChatModel,
    FakeListChatModel=lc_models.FakeListChatModel,
    FakeListLLM=lc_models.FakeListLLM,
    FakeStreamingListLLM=lc_models.FakeStreamingListLLM,
    GenericFakeChatModel=lc_models.GenericFakeChatModel,
    FakeMessagesListChatModel=lc_models.FakeMessagesListChatModel,
    AIMessage=lc_messages.AIMessage,
    AIMessageChunk=lc_messages.AIMessageChunk,
    ChatGeneration=lc_outputs.ChatGeneration,
    ChatGenerationChunk=lc_outputs.ChatGenerationChunk,
    ChatResult=lc_outputs.ChatResult,
    ChatPromptTemplate=lc_prompts.ChatPromptTemplate,
    StrOutputParser=lc_parsers.StrOutputParser,
    RunnableLambda=lc_runnables.RunnableLambda,
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
)
OURS = types.SimpleNamespace(
    BaseChatModel=rl.BaseChatModel,
    FakeListChatModel=rl.FakeListChatModel,
    FakeListLLM=rl.FakeListLLM,
    FakeStreamingListLLM=rl.FakeStreamingListLLM,
    GenericFakeChatModel=rl.GenericFakeChatModel,
    FakeMessagesListChatModel=rl.FakeMessagesListChatModel,
    AIMessage=rl.AIMessage,
    AIMessageChunk=rl.AIMessageChunk,
    ChatGeneration=rl.ChatGeneration,
    ChatGenerationChunk=rl.ChatGenerationChunk,
    ChatResult=rl.ChatResult,
    ChatPromptTemplate=rl.ChatPromptTemplate,
    StrOutputParser=rl.StrOutputParser,
    RunnableLambda=rl.RunnableLambda,
    BaseCallbackHandler=rl.BaseCallbackHandler,
)


def _both(run: Any) -> tuple[Any, Any]:
    return run(LC), run(OURS)


def _piece(value: Any) -> Any:
    """A streamed piece as a program sees it: its class, content and position mark."""
    if isinstance(value, str):
        return value
    return (
        type(value).__name__,
        value.content,
        getattr(value, "chunk_position", "-"),
        value.additional_kwargs,
    )


def _recorder(ns: Any) -> Any:
    class Recorder(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self.seen.append(("llm_start",))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.seen.append(("chat_start",))

        def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
            message = getattr(chunk, "message", None)
            self.seen.append(
                ("token", token, type(chunk).__name__, getattr(message, "chunk_position", "-"))
            )

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            (generation,) = response.generations[0]
            message = getattr(generation, "message", None)
            self.seen.append(
                (
                    "llm_end",
                    type(generation).__name__,
                    generation.text,
                    type(message).__name__,
                    getattr(message, "chunk_position", "-"),
                )
            )

    return Recorder()


def _stepping_chat(ns: Any, *, marks_last: bool = False, blocks: bool = False) -> Any:
    """A program's chat model whose ``_stream`` yields "a" then "b" (or one list-content
    piece), marking its last piece ``chunk_position="last"`` when ``marks_last``."""

    class Stepping(ns.BaseChatModel):  # type: ignore[misc, name-defined]
        @property
        def _llm_type(self) -> str:
            return "stepping"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            return ns.ChatResult(
                generations=[ns.ChatGeneration(message=ns.AIMessage(content="ab"))]
            )

        def _stream(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            position = "last" if marks_last else None
            if blocks:
                content = [{"type": "text", "text": "x"}]
                yield ns.ChatGenerationChunk(
                    message=ns.AIMessageChunk(content=content, chunk_position=position)
                )
                return
            yield ns.ChatGenerationChunk(message=ns.AIMessageChunk(content="a"))
            yield ns.ChatGenerationChunk(
                message=ns.AIMessageChunk(content="b", chunk_position=position)
            )

    return Stepping()


# ---- the closing empty piece ----------------------------------------------------------
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("marks_last", [False, True], ids=["unmarked", "marked"])
@pytest.mark.parametrize("blocks", [False, True], ids=["text", "blocks"])
def test_a_streamed_chat_reply_ends_with_an_empty_last_piece_unless_marked(
    asynchronous: bool, marks_last: bool, blocks: bool
):
    def run(ns: Any) -> Any:
        model, handler = _stepping_chat(ns, marks_last=marks_last, blocks=blocks), _recorder(ns)
        config = {"callbacks": [handler]}

        async def collect() -> list[Any]:
            return [_piece(c) async for c in model.astream("q", config)]

        pieces = (
            asyncio.run(collect()) if asynchronous else list(map(_piece, model.stream("q", config)))
        )
        return pieces, handler.seen

    lc, ours = _both(run)
    if blocks:
        # a listed difference (differences-from-langchain.md): LangChain passes a list content as
        # on_llm_new_token's ``token`` (a str parameter), ragline the piece's text
        pairs = zip(lc[1], ours[1], strict=True)
        tokens = [(a[1], b[1]) for a, b in pairs if a[0] == "token" and a[1] != b[1]]
        assert tokens == [([{"type": "text", "text": "x"}], "x")]
        lc = (lc[0], [entry if entry[0] != "token" or entry[1] != tokens[0][0]
                      else ("token", "x", *entry[2:]) for entry in lc[1]])  # fmt: skip
    assert ours == lc
    if not marks_last and not blocks:
        assert lc == (
            [
                ("AIMessageChunk", "a", None, {}),
                ("AIMessageChunk", "b", None, {}),
                ("AIMessageChunk", "", "last", {}),
            ],
            [
                ("chat_start",),
                ("token", "a", "ChatGenerationChunk", None),
                ("token", "b", "ChatGenerationChunk", None),
                ("token", "", "ChatGenerationChunk", "last"),
                # the run's result adds up the model's own pieces only
                ("llm_end", "ChatGenerationChunk", "ab", "AIMessageChunk", None),
            ],
        )
    if blocks and not marks_last:  # list content closes with an empty list
        assert lc[0][-1] == ("AIMessageChunk", [], "last", {})
    if marks_last:
        assert lc[0][-1][2] == "last" and lc[0][-1][1] != ""


def _events(runnable: Any, value: Any, config: Any = None) -> list[Any]:
    async def collect() -> list[Any]:
        seen = []
        async for event in runnable.astream_events(value, config, version="v2"):
            data = event["data"]
            shown = _piece(data["chunk"]) if "chunk" in data else None
            if event["event"].endswith("_end") and hasattr(data.get("output"), "content"):
                shown = _piece(data["output"])
            seen.append((event["event"], shown))
        return seen

    return asyncio.run(collect())


def test_astream_events_show_the_closing_piece_of_a_stream_and_of_an_invoke():
    def run(ns: Any) -> Any:
        model = _stepping_chat(ns)
        chain = ns.ChatPromptTemplate.from_messages([("human", "{q}")]) | model
        return (
            _events(model, "q"),
            # invoke inside astream_events streams internally; its reply is an AIMessage
            _events(ns.RunnableLambda(lambda x: model.invoke(x)), "q"),
            [e for e in _events(chain | ns.StrOutputParser(), {"q": "x"}) if "stream" in e[0]],
        )

    lc, ours = _both(run)
    assert ours == lc
    streamed = [("AIMessageChunk", c, p, {}) for c, p in (("a", None), ("b", None), ("", "last"))]
    assert lc[0] == [
        ("on_chat_model_start", None),
        *(("on_chat_model_stream", piece) for piece in streamed),
        ("on_chat_model_end", ("AIMessageChunk", "ab", None, {})),
    ]
    assert lc[1][-4:] == [
        ("on_chat_model_stream", streamed[-1]),
        ("on_chat_model_end", ("AIMessage", "ab", "-", {})),
        ("on_chain_stream", ("AIMessage", "ab", "-", {})),
        ("on_chain_end", ("AIMessage", "ab", "-", {})),
    ]
    assert [shown for event, shown in lc[2] if event == "on_parser_stream"] == ["a", "b", ""]


def test_a_chain_stream_passes_the_closing_piece_on_to_the_parser():
    def run(ns: Any) -> Any:
        chain = (
            ns.ChatPromptTemplate.from_messages([("human", "{q}")])
            | _stepping_chat(ns)
            | ns.StrOutputParser()
        )
        return list(chain.stream({"q": "x"})), chain.invoke({"q": "x"})

    lc, ours = _both(run)
    assert ours == lc == (["a", "b", ""], "ab")


@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "with-handler"])
def test_an_invoke_that_streams_reports_the_closing_piece_and_ends_with_a_generation(
    streaming: bool,
):
    """``invoke`` streams internally when ``astream_events`` listens; the closing piece
    is reported, and the run ends with a ChatGeneration holding the AIMessage."""

    def run(ns: Any) -> Any:
        model, handler = _stepping_chat(ns), _recorder(ns)
        if not streaming:
            return _piece(model.invoke("q", config={"callbacks": [handler]})), handler.seen
        lambda_ = ns.RunnableLambda(lambda x: model.invoke(x))
        return _events(lambda_, "q", {"callbacks": [handler]})[-1], handler.seen

    lc, ours = _both(run)
    assert ours == lc
    end = ("llm_end", "ChatGeneration", "ab", "AIMessage", "-")
    if not streaming:
        assert lc[1] == [("chat_start",), end]
    else:
        assert lc[1] == [
            ("chat_start",),
            ("token", "a", "ChatGenerationChunk", None),
            ("token", "b", "ChatGenerationChunk", None),
            ("token", "", "ChatGenerationChunk", "last"),
            end,
        ]


# ---- a chat model without _stream -----------------------------------------------------
def test_a_chat_model_without_stream_streams_its_ai_message():
    def run(ns: Any) -> Any:
        class Whole(ns.BaseChatModel):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "whole"

            def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                message = ns.AIMessage(content="all at once")
                return ns.ChatResult(generations=[ns.ChatGeneration(message=message)])

        handler = _recorder(ns)
        pieces = [_piece(c) for c in Whole().stream("q", {"callbacks": [handler]})]

        async def collect() -> list[Any]:
            return [_piece(c) async for c in Whole().astream("q")]

        return pieces, asyncio.run(collect()), handler.seen

    lc, ours = _both(run)
    assert ours == lc
    assert lc[:2] == ([("AIMessage", "all at once", "-", {})],) * 2
    assert lc[2] == [
        ("chat_start",),
        ("llm_end", "ChatGeneration", "all at once", "AIMessage", "-"),
    ]


# ---- the fakes ------------------------------------------------------------------------
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_the_fake_chat_models_stream_as_langchains(asynchronous: bool):
    def run(ns: Any) -> Any:
        extra = ns.AIMessage(content="x", additional_kwargs={"k": "v"})
        models = [
            ns.FakeListChatModel(responses=["ab"]),
            ns.GenericFakeChatModel(messages=iter(["hi there", extra])),
            ns.GenericFakeChatModel(messages=iter([extra])),
            ns.FakeMessagesListChatModel(responses=[ns.AIMessage(content="whole")]),
        ]
        seen = []
        for model in models:
            handler = _recorder(ns)
            config = {"callbacks": [handler]}

            async def collect(model: Any = model, config: Any = config) -> list[Any]:
                return [_piece(c) async for c in model.astream("q", config)]

            if asynchronous:
                pieces = asyncio.run(collect())
            else:
                pieces = [_piece(c) for c in model.stream("q", config)]
            seen.append((pieces, handler.seen))
        return seen

    lc, ours = _both(run)
    assert ours == lc
    assert [pieces for pieces, _ in lc] == [
        [("AIMessageChunk", "a", None, {}), ("AIMessageChunk", "b", "last", {})],
        [
            ("AIMessageChunk", "hi", None, {}),
            ("AIMessageChunk", " ", None, {}),
            ("AIMessageChunk", "there", "last", {}),
        ],
        [
            ("AIMessageChunk", "x", None, {}),
            ("AIMessageChunk", "", None, {"k": "v"}),
            ("AIMessageChunk", "", "last", {}),
        ],
        [("AIMessage", "whole", "-", {})],
    ]


def test_openai_style_tool_calls_in_additional_kwargs_stream_as_one_call():
    # a scripted reply in OpenAI's wire form (the tool calls in additional_kwargs), as
    # LangServe's agent examples script it: added up, the stream holds that one call
    def run(ns: Any) -> Any:
        wire = {"id": "call_1", "type": "function"}
        wire["function"] = {"name": "word_length", "arguments": '{"word": "eudca"}'}
        reply = ns.AIMessage(content="", additional_kwargs={"tool_calls": [wire]})
        chunks = list(ns.GenericFakeChatModel(messages=iter([reply])).stream("q"))
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        return len(chunks), total.tool_calls, total.additional_kwargs

    lc, ours = _both(run)
    assert ours == lc
    call = {"name": "word_length", "args": {"word": "eudca"}, "id": "call_1", "type": "tool_call"}
    assert lc[:2] == (2, [call])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_the_fake_llms_stream_as_langchains(asynchronous: bool):
    def run(ns: Any) -> Any:
        seen = []
        for model in (
            ns.FakeListLLM(responses=["abc"]),
            ns.FakeStreamingListLLM(responses=["abc"]),
        ):
            handler = _recorder(ns)

            async def collect(model: Any = model, handler: Any = handler) -> list[Any]:
                return [c async for c in model.astream("q", {"callbacks": [handler]})]

            if asynchronous:
                pieces = asyncio.run(collect())
            else:
                pieces = list(model.stream("q", {"callbacks": [handler]}))
            seen.append((pieces, [entry[:3] for entry in handler.seen]))
        return seen

    lc, ours = _both(run)
    assert ours == lc
    # the streaming fake invokes, then yields characters: no token reports
    run_events = [("llm_start",), ("llm_end", "Generation", "abc")]
    assert lc == [(["abc"], run_events), (["a", "b", "c"], run_events)]


def test_the_fakes_fail_on_their_chunk_number():
    def run(ns: Any) -> Any:
        seen = []
        for model in (
            ns.FakeStreamingListLLM(responses=["abcd"], error_on_chunk_number=2),
            ns.FakeListChatModel(responses=["abcd"], error_on_chunk_number=2),
        ):
            received = []
            with pytest.raises(Exception) as caught:  # each library's own class
                for piece in model.stream("q"):
                    received.append(_piece(piece))
            seen.append((received, caught.type.__name__, isinstance(caught.value, RuntimeError)))
        return seen

    lc, ours = _both(run)
    assert [entry[:2] for entry in ours] == [entry[:2] for entry in lc]
    assert lc[0][:2] == (["a", "b"], "FakeListLLMError")
    assert lc[1][1] == "FakeListChatModelError"
    assert [entry[2] for entry in ours] == [True, True]  # also RuntimeErrors in ragline
