"""Parity: the token handlers against LangChain's. ``StreamingStdOutCallbackHandler``
(langchain_core.callbacks): exactly what reaches stdout for chat and text models through
invoke, stream, astream and a prompt | model | parser sequence, and nothing from other
runs. ``AsyncIteratorCallbackHandler`` (langchain_classic.callbacks): the tokens an
``async for`` over ``aiter()`` gets beside a running model, for streamed and not
streamed runs, two runs in a row, and a failing run.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import time
from collections.abc import Callable
from typing import Any

import pytest
from langchain_classic.callbacks import AsyncIteratorCallbackHandler as LCAsyncIterator
from langchain_classic.callbacks import FinalStreamingStdOutCallbackHandler as LCFinal
from langchain_core.callbacks import StreamingStdOutCallbackHandler as LCStreaming
from langchain_core.language_models import FakeListChatModel as LCFakeChat
from langchain_core.language_models import FakeListLLM as LCFakeLLM
from langchain_core.language_models import GenericFakeChatModel as LCGenericChat
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.output_parsers import StrOutputParser as LCStrParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPrompt
from langchain_core.runnables import RunnableLambda as LCLambda

from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    FakeListChatModel,
    FakeListLLM,
    GenericFakeChatModel,
    RunnableLambda,
    StrOutputParser,
)
from ragline.core.callbacks import (
    AsyncIteratorCallbackHandler,
    FinalStreamingStdOutCallbackHandler,
    StreamingStdOutCallbackHandler,
)

COVERS = {
    "core.callbacks.StreamingStdOutCallbackHandler",
    "core.callbacks.AsyncIteratorCallbackHandler",
    "core.callbacks.FinalStreamingStdOutCallbackHandler",
}

REPLY = "Hi, Ætna — ok"


def printed(action: Callable[[], Any]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        action()
    return out.getvalue()


def scenarios(lib: str) -> dict[str, Callable[[Any], Any]]:
    """Each scenario takes the handler and runs one model call with it."""
    if lib == "ours":
        chat = lambda: FakeListChatModel(responses=[REPLY])  # noqa: E731
        generic = lambda: GenericFakeChatModel(messages=iter([AIMessage(REPLY)]))  # noqa: E731
        llm = lambda: FakeListLLM(responses=[REPLY])  # noqa: E731
        prompt, parser, lam = ChatPromptTemplate, StrOutputParser, RunnableLambda
    else:
        chat = lambda: LCFakeChat(responses=[REPLY])  # noqa: E731
        generic = lambda: LCGenericChat(messages=iter([LCAIMessage(content=REPLY)]))  # noqa: E731
        llm = lambda: LCFakeLLM(responses=[REPLY])  # noqa: E731
        prompt, parser, lam = LCChatPrompt, LCStrParser, LCLambda

    def cfg(h: Any) -> Any:
        return {"callbacks": [h]}

    def chain() -> Any:
        return prompt.from_messages([("human", "{q}")]) | chat() | parser()

    async def drain(stream: Any) -> None:
        async for _ in stream:
            pass

    return {
        "chat invoke": lambda h: chat().invoke("q", cfg(h)),
        "chat stream": lambda h: list(chat().stream("q", cfg(h))),
        "chat astream": lambda h: asyncio.run(drain(chat().astream("q", cfg(h)))),
        "generic stream": lambda h: list(generic().stream("q", cfg(h))),
        "llm invoke": lambda h: llm().invoke("q", cfg(h)),
        "llm stream": lambda h: list(llm().stream("q", cfg(h))),
        "chain stream": lambda h: list(chain().stream({"q": "x"}, cfg(h))),
        "chain invoke": lambda h: chain().invoke({"q": "x"}, cfg(h)),
        "lambda": lambda h: lam(lambda x: x + 1).invoke(1, cfg(h)),
    }


def test_stdout_handler_prints_what_langchain_prints():
    ours, theirs = scenarios("ours"), scenarios("theirs")
    for name in ours:
        got = printed(lambda: ours[name](StreamingStdOutCallbackHandler()))  # noqa: B023
        want = printed(lambda: theirs[name](LCStreaming()))  # noqa: B023
        assert got == want, name
    assert printed(lambda: ours["chat stream"](StreamingStdOutCallbackHandler())) == REPLY
    assert printed(lambda: ours["chat invoke"](StreamingStdOutCallbackHandler())) == ""


def test_stdout_handler_other_hooks_print_nothing():
    handler, theirs = StreamingStdOutCallbackHandler(), LCStreaming()
    calls = [
        ("on_llm_start", ({}, ["p"])),
        ("on_chat_model_start", ({}, [[]])),
        ("on_llm_end", (None,)),
        ("on_llm_error", (ValueError("x"),)),
        ("on_chain_start", ({}, {})),
        ("on_chain_end", ({},)),
        ("on_chain_error", (ValueError("x"),)),
        ("on_tool_start", ({}, "in")),
        ("on_tool_end", ("out",)),
        ("on_tool_error", (ValueError("x"),)),
        ("on_text", ("text",)),
    ]
    for method, args in calls:
        got = printed(lambda: getattr(handler, method)(*args, run_id=None))  # noqa: B023
        want = printed(lambda: getattr(theirs, method)(*args, run_id=None))  # noqa: B023
        assert got == want == "", method
    assert printed(lambda: handler.on_llm_new_token("tok", run_id=None)) == "tok"


async def collect(handler: Any, run: Callable[[Any], Any]) -> list[str]:
    task = asyncio.ensure_future(run(handler))
    tokens = [token async for token in handler.aiter()]
    await task
    return tokens


def async_scenarios(lib: str) -> dict[str, Callable[[Any], Any]]:
    if lib == "ours":
        chat, llm = FakeListChatModel, FakeListLLM
    else:
        chat, llm = LCFakeChat, LCFakeLLM

    async def stream(h: Any) -> None:
        async for _ in chat(responses=[REPLY]).astream("q", {"callbacks": [h]}):
            pass

    return {
        "astream": stream,
        "chat ainvoke": lambda h: chat(responses=[REPLY]).ainvoke("q", {"callbacks": [h]}),
        "llm ainvoke": lambda h: llm(responses=[REPLY]).ainvoke("q", {"callbacks": [h]}),
    }


def test_async_iterator_tokens_match_langchain():
    ours, theirs = async_scenarios("ours"), async_scenarios("theirs")
    for name in ours:
        got = asyncio.run(collect(AsyncIteratorCallbackHandler(), ours[name]))
        want = asyncio.run(collect(LCAsyncIterator(), theirs[name]))
        assert got == want, name
    assert asyncio.run(collect(AsyncIteratorCallbackHandler(), ours["astream"])) == list(REPLY)
    assert asyncio.run(collect(AsyncIteratorCallbackHandler(), ours["chat ainvoke"])) == []


def test_async_iterator_serves_runs_one_after_another():
    async def two_runs(handler: Any, chat: Any) -> list[list[str]]:
        model = chat(responses=["ab", "cd"])

        async def run(h: Any) -> None:
            async for _ in model.astream("q", {"callbacks": [h]}):
                pass

        return [await collect(handler, run), await collect(handler, run)]

    ours = asyncio.run(two_runs(AsyncIteratorCallbackHandler(), FakeListChatModel))
    assert ours == asyncio.run(two_runs(LCAsyncIterator(), LCFakeChat))
    # done stays set from the first run until the second one starts: an aiter() begun
    # before that ends at once, in both libraries
    assert ours == [["a", "b"], []]


def test_async_iterator_ends_on_error_and_skips_empty_tokens():
    async def scenario(handler: Any) -> tuple[list[str], bool, bool]:
        await handler.on_llm_start({}, ["p"], run_id=None)
        await handler.on_llm_new_token("a", run_id=None)
        await handler.on_llm_new_token("", run_id=None)
        await handler.on_llm_new_token(["b", {"c": 1}], run_id=None)
        await handler.on_llm_error(ValueError("boom"), run_id=None)
        tokens = [handler.queue.get_nowait() for _ in range(handler.queue.qsize())]
        assert [token async for token in handler.aiter()] == []  # ended, nothing queued
        done_after_error = handler.done.is_set()
        await handler.on_llm_start({}, ["p"], run_id=None)
        return tokens, done_after_error, handler.done.is_set()

    ours = asyncio.run(scenario(AsyncIteratorCallbackHandler()))
    assert ours == asyncio.run(scenario(LCAsyncIterator()))
    assert ours == (["a", "['b', {'c': 1}]"], True, False)
    assert AsyncIteratorCallbackHandler().always_verbose is LCAsyncIterator().always_verbose


@pytest.mark.parametrize("paced", [False, True], ids=["no-pause", "paced"])
def test_async_iterator_waits_for_tokens_from_a_slow_producer(paced: bool):
    """With no pause between the last tokens and the run's end, LangChain's aiter() may
    stop with tokens still queued (it races the queue against ``done``); ragline's gives
    every queued token first. With a producer that waits until the consumer has each
    token before the next, and all of them before the end, both give every token. (It
    waits on the consumer, not for a fixed 0.01 s: a loaded machine can outlast that,
    and LangChain's race then loses the last token.)"""

    async def scenario(handler: Any) -> list[str]:
        tokens: list[str] = []

        async def pause(consumer_has: int) -> None:
            deadline = time.monotonic() + 30  # bounds a hang
            await asyncio.sleep(0)
            while paced and len(tokens) < consumer_has and time.monotonic() < deadline:
                await asyncio.sleep(0.001)

        async def produce() -> None:
            await handler.on_llm_start({}, ["p"], run_id=None)
            for count, token in enumerate(["x", "y", "z"]):
                await pause(consumer_has=count)
                await handler.on_llm_new_token(token, run_id=None)
            await pause(consumer_has=3)
            await handler.on_llm_end(None, run_id=None)

        task = asyncio.ensure_future(produce())
        await asyncio.sleep(0)
        async for token in handler.aiter():
            tokens.append(token)
        await task
        return tokens

    assert asyncio.run(scenario(AsyncIteratorCallbackHandler())) == ["x", "y", "z"]
    if paced:
        assert asyncio.run(scenario(LCAsyncIterator())) == ["x", "y", "z"]


FINAL_STREAMS = [
    ["Thought", ":", " look", "\n", "Final", " Answer", ":", " Etna", " erupts", "."],
    ["Final", "Answer", ":", "x", "Final", "Answer", ":", "y"],
    ["Final", " Answer", ":", "\n"],
    ["final", "answer", ":", "no"],
    ["Answer", ":", "only"],
    [["a", {"b": 1}], "Final", "Answer", ":", ["c"]],
    ["Fin", "al", " Answer:", " no"],
]
FINAL_OPTIONS: list[dict[str, Any]] = [
    {},
    {"stream_prefix": True},
    {"strip_tokens": False},
    {"strip_tokens": False, "answer_prefix_tokens": ["Final", " Answer", ":"]},
    {"answer_prefix_tokens": ["Answer", ":"], "stream_prefix": True},
    {"answer_prefix_tokens": ["AI"]},
]


def test_final_answer_handler_prints_what_langchain_prints():
    for options in FINAL_OPTIONS:
        for tokens in FINAL_STREAMS:
            ours, theirs = FinalStreamingStdOutCallbackHandler(**options), LCFinal(**options)

            def feed(handler: Any) -> str:
                return printed(lambda: [handler.on_llm_new_token(t) for t in tokens])  # noqa: B023

            assert feed(ours) == feed(theirs), (options, tokens)
            assert (ours.answer_reached, ours.last_tokens) == (
                theirs.answer_reached,
                theirs.last_tokens,
            )
    handler = FinalStreamingStdOutCallbackHandler(stream_prefix=True)
    assert printed(lambda: [handler.on_llm_new_token(t) for t in FINAL_STREAMS[0]]) == (
        "Final Answer: Etna erupts."
    )


def test_final_answer_handler_across_model_runs():
    """A text model's start clears answer_reached; a chat model's start does not."""
    text = "Thought: x\nFinal Answer: Etna erupts."

    def run(handler: Any, lib: str) -> str:
        if lib == "ours":
            chat = GenericFakeChatModel(messages=iter([AIMessage(text), AIMessage("later")]))
        else:
            chat = LCGenericChat(
                messages=iter([LCAIMessage(content=text), LCAIMessage(content="later")])
            )

        def go() -> None:
            for _ in range(2):
                list(chat.stream("q", {"callbacks": [handler]}))
            handler.on_llm_start({}, ["p"])
            handler.on_llm_new_token("dropped")

        return printed(go)

    ours = run(FinalStreamingStdOutCallbackHandler(answer_prefix_tokens=["Answer:"]), "ours")
    theirs = run(LCFinal(answer_prefix_tokens=["Answer:"]), "theirs")
    assert ours == theirs
