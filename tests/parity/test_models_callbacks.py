"""Parity: model constructors, GenericFakeChatModel, CallbackManager and usage counting.

Each scenario runs through LangChain's class (langchain_core, langchain_community) and
ragline's class of the same name, and compares what a program sees: outputs, streamed
chunks in order, the runs callbacks receive, event payloads and request counts.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.callbacks import CallbackManager as LCCallbackManager
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.language_models import GenericFakeChatModel as LCGenericFakeChatModel
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate

from ragline.core import BaseCallbackHandler, CallbackManager, GenericFakeChatModel
from ragline.core.callbacks import get_openai_callback
from ragline.core.fake_models import FakeListChatModel, FakeListLLM
from ragline.core.messages import AIMessage
from ragline.core.output_parsers import StrOutputParser
from ragline.core.prompts import ChatPromptTemplate
from tests.parity._observe import observe

with warnings.catch_warnings():  # langchain_community warns that it is being sunset
    warnings.simplefilter("ignore")
    from langchain_community.callbacks import get_openai_callback as lc_get_openai_callback

COVERS = {
    "core.GenericFakeChatModel",
    "core.FakeListChatModel",
    "core.FakeListLLM",
    "core.CallbackManager",
    "core.BaseCallbackHandler",
    "core.get_openai_callback",
    "core.StrOutputParser",
}


def _own(metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """Metadata without LangChain's tracing stamps (``lc_versions``, ``ls_*``), which
    ragline does not add: vendor details, not the program's data."""
    if metadata is None:
        return None
    return {
        key: value
        for key, value in metadata.items()
        if key != "lc_versions" and not key.startswith("ls_")
    }


def _recorder(base: type) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.seen: list[tuple[str, Any]] = []

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self.seen.append(("llm_start", (prompts, sorted(kwargs.get("tags") or []))))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            seen = (
                observe(messages),
                sorted(kwargs.get("tags") or []),
                _own(kwargs.get("metadata")),
            )
            self.seen.append(("chat_start", seen))

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            self.seen.append(("llm_end", response.generations[0][0].text))

    return Recorder()


# ---- constructor fields -------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["chat", "llm"])
def test_callbacks_tags_metadata_verbose_in_a_model_constructor(kind: str):
    def run(chat: type, llm: type, handler_base: type) -> Any:
        handler = _recorder(handler_base)
        cls = chat if kind == "chat" else llm
        model = cls(
            responses=["ok"], callbacks=[handler], tags=["own"], metadata={"m": 1}, verbose=False
        )
        output = model.invoke("hi", {"tags": ["call"]})
        return (model.tags, _own(model.metadata), model.verbose), observe(output), handler.seen

    lc = run(LCFakeListChatModel, LCFakeListLLM, LCBaseCallbackHandler)
    ours = run(FakeListChatModel, FakeListLLM, BaseCallbackHandler)
    assert ours == lc
    assert ours[2][-1] == ("llm_end", "ok")


def test_the_constructors_callbacks_see_only_the_models_runs():
    def run(chat: type, parser: type, handler_base: type) -> Any:
        handler = _recorder(handler_base)
        chain = chat(responses=["ok"], callbacks=[handler]) | parser()
        return chain.invoke("hi"), [event for event, _ in handler.seen]

    lc = run(LCFakeListChatModel, LCStrOutputParser, LCBaseCallbackHandler)
    assert run(FakeListChatModel, StrOutputParser, BaseCallbackHandler) == lc


# ---- GenericFakeChatModel ------------------------------------------------------------------
SCRIPT = ["hello  big\nworld", "one", "tail end"]


def test_generic_fake_streams_words_and_whitespace_as_langchain_does():
    def run(cls: type, message: type) -> Any:
        model = cls(messages=iter([*SCRIPT[:2], message(content="a b", id="m-1")]))
        first = [chunk.content for chunk in model.stream("hi")]
        second = model.invoke("hi")
        third = [(chunk.content, chunk.id) for chunk in model.stream("hi")]
        return first, observe(second), third

    lc = run(LCGenericFakeChatModel, LCAIMessage)
    ours = run(GenericFakeChatModel, AIMessage)
    assert ours == lc
    assert ours[0] == ["hello", " ", "", " ", "big", "\n", "world"]


async def test_generic_fake_astream_and_events():
    async def run(cls: type) -> Any:
        model = cls(messages=iter(["x y"]))
        events = [
            (e["event"], observe(e["data"].get("chunk")))
            async for e in model.astream_events("hi", version="v2")
            if e["event"] == "on_chat_model_stream"
        ]
        return events

    assert await run(GenericFakeChatModel) == await run(LCGenericFakeChatModel)


def test_generic_fake_after_the_last_message_is_a_clear_error_a_deliberate_difference():
    """LangChain's invoke lets StopIteration escape (a loop around it would silently end);
    ragline raises RuntimeError (LangChain's type when it streams) saying the script ran
    out."""
    lc = LCGenericFakeChatModel(messages=iter(["only"]))
    lc.invoke("a")
    with pytest.raises(StopIteration):
        lc.invoke("b")
    ours = GenericFakeChatModel(messages=iter(["only"]))
    ours.invoke("a")
    with pytest.raises(RuntimeError, match="no more messages"):
        ours.invoke("b")


# ---- CallbackManager: one run manager per prompt -------------------------------------------
@pytest.mark.parametrize("event", ["on_llm_start", "on_chat_model_start"])
def test_callback_manager_starts_one_run_per_prompt(event: str):
    payload: Any = ["p1", "p2"] if event == "on_llm_start" else [[("human", "a")], [("human", "b")]]

    def run(manager_cls: type, handler_base: type) -> Any:
        starts: list[Any] = []

        class Starts(handler_base):  # type: ignore[misc, valid-type]
            def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
                starts.append((prompts, kwargs["run_id"]))

            def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
                starts.append((len(messages), kwargs["run_id"]))

        managers = getattr(manager_cls([Starts()]), event)({"name": "m"}, payload)
        return (
            type(managers).__name__,
            len(managers),
            [item for item, _ in starts],
            [m.run_id for m in managers] == [run_id for _, run_id in starts],
            len({m.run_id for m in managers}),
        )

    lc = run(LCCallbackManager, LCBaseCallbackHandler)
    assert run(CallbackManager, BaseCallbackHandler) == lc
    assert lc[:2] == ("list", 2)


# ---- event payloads -----------------------------------------------------------------------
async def test_event_inputs_of_the_model_and_the_parser_match():
    async def run(prompt: type, model: type, parser: type) -> Any:
        chain = prompt.from_messages([("human", "{q}")]) | model(responses=["ab"]) | parser()
        seen = {}
        async for e in chain.astream_events({"q": "x"}, version="v2"):
            if e["event"] in ("on_chat_model_start", "on_parser_start", "on_parser_end"):
                seen[e["event"]] = observe(e["data"])
        direct = {}
        async for e in parser().astream_events(model(responses=["cd"]).invoke("q"), version="v2"):
            if e["event"] == "on_parser_start":
                direct = observe(e["data"])
        return seen, direct

    lc = await run(LCChatPromptTemplate, LCFakeListChatModel, LCStrOutputParser)
    ours = await run(ChatPromptTemplate, FakeListChatModel, StrOutputParser)
    assert ours == lc
    assert ours[0]["on_chat_model_start"] == {
        "input": {"messages": [[("HumanMessage", "x", None)]]}
    }
    assert ours[1] == {"input": ("AIMessage", "cd", None)}


# ---- get_openai_callback ------------------------------------------------------------------
def test_openai_callback_does_not_count_runs_without_usage():
    usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}

    def run(callback: Any, chat: type, llm: type, generic: type, message: type) -> Any:
        counts = []
        with callback() as cb:
            chat(responses=["a"]).invoke("x")
            list(chat(responses=["a"]).stream("x"))
            llm(responses=["a"]).invoke("x")
            counts.append(cb.successful_requests)
            generic(messages=iter([message(content="a", usage_metadata=usage)])).invoke("x")
            counts.append((cb.successful_requests, cb.total_tokens, cb.prompt_tokens))
            list(generic(messages=iter([message(content="b c", usage_metadata=usage)])).stream("x"))
            counts.append((cb.successful_requests, cb.total_tokens))
        return counts

    lc = run(
        lc_get_openai_callback,
        LCFakeListChatModel,
        LCFakeListLLM,
        LCGenericFakeChatModel,
        LCAIMessage,
    )
    ours = run(get_openai_callback, FakeListChatModel, FakeListLLM, GenericFakeChatModel, AIMessage)
    assert ours == lc == [0, (1, 5, 3), (1, 5)]


def test_asyncio_run_of_a_generic_fake_ainvoke():
    assert asyncio.run(GenericFakeChatModel(messages=iter(["z"])).ainvoke("q")).content == "z"
