"""Parity: whole objects a program prints, against LangChain's (issue 24, port trial set 4).

Programs print event dicts, handler payloads and runnables; the printed text shows key
order and fields, so each test compares it exactly with what LangChain prints.
"""

from __future__ import annotations

import asyncio
import operator
import re
from typing import Any

from langchain_core import callbacks as lc_callbacks
from langchain_core import language_models as lc_models
from langchain_core import output_parsers as lc_parsers
from langchain_core import prompts as lc_prompts
from langchain_core import runnables as lc_runnables

from ragline import core as our_core
from ragline.core import callbacks as our_callbacks
from ragline.core import output_parsers as our_parsers
from ragline.core import prompts as our_prompts
from ragline.core import runnables as our_runnables

LC = {
    "GenericFakeChatModel": lc_models.GenericFakeChatModel,
    "FakeListLLM": lc_models.FakeListLLM,
    "FakeListChatModel": lc_models.FakeListChatModel,
    "ChatPromptTemplate": lc_prompts.ChatPromptTemplate,
    "PromptTemplate": lc_prompts.PromptTemplate,
    "StrOutputParser": lc_parsers.StrOutputParser,
    "RunnableLambda": lc_runnables.RunnableLambda,
    "RunnableParallel": lc_runnables.RunnableParallel,
    "RunnableBranch": lc_runnables.RunnableBranch,
    "RunnablePassthrough": lc_runnables.RunnablePassthrough,
    "adispatch_custom_event": lc_callbacks.adispatch_custom_event,
    "BaseCallbackHandler": lc_callbacks.BaseCallbackHandler,
}
OURS = {
    "GenericFakeChatModel": our_core.GenericFakeChatModel,
    "FakeListLLM": our_core.FakeListLLM,
    "FakeListChatModel": our_core.FakeListChatModel,
    "ChatPromptTemplate": our_prompts.ChatPromptTemplate,
    "PromptTemplate": our_prompts.PromptTemplate,
    "StrOutputParser": our_parsers.StrOutputParser,
    "RunnableLambda": our_runnables.RunnableLambda,
    "RunnableParallel": our_runnables.RunnableParallel,
    "RunnableBranch": our_runnables.RunnableBranch,
    "RunnablePassthrough": our_runnables.RunnablePassthrough,
    "adispatch_custom_event": our_callbacks.adispatch_custom_event,
    "BaseCallbackHandler": our_callbacks.BaseCallbackHandler,
}


# ---- astream_events: each event's keys in LangChain's order ----------------------------------
def _event_layouts(lib: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    async def custom(x: str) -> str:
        await lib["adispatch_custom_event"]("my_event", {"a": 1})
        return x

    cases: list[tuple[Any, Any]] = [
        (lib["GenericFakeChatModel"](messages=iter(["a b"])), "hi"),  # the root is the model
        (
            lib["ChatPromptTemplate"].from_template("{x}")
            | lib["GenericFakeChatModel"](messages=iter(["a b"]))
            | lib["StrOutputParser"](),
            {"x": "q"},
        ),
        (
            lib["PromptTemplate"].from_template("{x}")
            | lib["FakeListLLM"](responses=["ab"])
            | lib["StrOutputParser"](),
            {"x": "q"},
        ),
        (lib["FakeListLLM"](responses=["ab"]), "q"),
        (lib["RunnableLambda"](custom), "q"),
    ]

    async def run() -> list[tuple[str, str, list[str]]]:
        layouts = []
        for chain, given in cases:
            async for event in chain.astream_events(given, version="v2"):
                layouts.append((event["event"], event["name"], list(event)))
        return layouts

    return asyncio.run(run())


def test_astream_events_key_order() -> None:
    """astream_events_chat_model_v2 prints the event list: start, end, a nested model's
    tokens, the root's (or a streamed step's) chunks and custom events each have their own
    key order in LangChain."""
    assert _event_layouts(OURS) == _event_layouts(LC)


# ---- on_llm_end's LLMResult: no run ids, as LangChain's handlers get it -----------------------
def _llm_end_runs(lib: dict[str, Any]) -> list[Any]:
    seen: list[Any] = []

    class Keep(lib["BaseCallbackHandler"]):  # type: ignore[misc]
        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            seen.append(response.run)

    config = {"callbacks": [Keep()]}
    returned = []
    for model in (
        lib["FakeListChatModel"](responses=["a b", "c d", "e f", "g h", "i j", "k l"]),
        lib["FakeListLLM"](responses=["a b", "c d", "e f", "g h", "i j", "k l"]),
    ):
        model.invoke("q", config)
        list(model.stream("q", config))
        model.batch(["q", "r"], config)
        asyncio.run(model.ainvoke("q", config))
        prompt = [[lib["ChatPromptTemplate"].from_template("q").format_messages()[0]]]
        result = model.generate(prompt if "Chat" in type(model).__name__ else ["q"], **config)
        returned.append(len(result.run or []))
    return [seen, returned]


def test_on_llm_end_result_has_no_run() -> None:
    """custom_handler_tokens_llm_end prints ``on_llm_end``'s response: ``run=None`` for
    chat and text models, invoked, streamed, batched or generated; ``generate`` still
    returns the run ids."""
    assert _llm_end_runs(OURS) == _llm_end_runs(LC) == [[None] * 12, [1, 1]]


# ---- repr and str of runnables and fake models ------------------------------------------------
_LC_VERSIONS = re.compile(r"metadata=\{'lc_versions': \{'langchain-core': '[^']*'\}\}(, | )?")


def _without_lc_versions(text: str) -> str:
    # LangChain's models print their langchain-core version (metadata ragline cannot
    # honestly report: a documented difference); everything else must match
    return _LC_VERSIONS.sub("", text)


def _printed_runnables(lib: dict[str, Any]) -> list[str]:
    def shout(x: str) -> str:
        return x.upper()

    chat = lib["FakeListChatModel"](responses=["a", "b"])
    chat.invoke("q")  # i=1 shows once it moved
    prompt = lib["ChatPromptTemplate"].from_template("tell me about {topic}")
    objects = [
        chat,
        lib["FakeListChatModel"](responses=["x"], sleep=0.5, name="nm", tags=["t"]),
        lib["FakeListChatModel"](responses=["x", "y"], error_on_chunk_number=1),
        lib["FakeListLLM"](responses=["x"]),
        prompt | chat | lib["StrOutputParser"](),
        lib["RunnableParallel"](joke=prompt | chat, same=lib["RunnablePassthrough"]()),
        lib["RunnableParallel"](
            one=prompt | chat, two={"inner": prompt | chat}, three=lib["RunnableLambda"](shout)
        ),
        {"topic": lib["RunnablePassthrough"]()} | prompt,
        lib["RunnablePassthrough"].assign(loud=lib["RunnableLambda"](shout)),
        lib["PromptTemplate"].from_template("{x}") | lib["FakeListLLM"](responses=["x"]),
    ]
    add_one = lib["RunnableLambda"](lambda x: x + 1)  # the only lambda on its line
    twice = [lib["RunnableLambda"](lambda x: x), lib["RunnableLambda"](lambda x: 2 * x)]

    async def later(x: str) -> str:
        return x

    objects += [
        add_one,
        twice[1],
        lib["RunnableLambda"](shout, name="loud"),
        lib["RunnableLambda"](later),
        lib["RunnableLambda"](operator.itemgetter("topic")),
        lib["RunnableBranch"](
            (lambda x: x == "a", {"a": lib["RunnablePassthrough"]()}), lib["RunnableLambda"](shout)
        ),
    ]
    llm = lib["FakeListLLM"](responses=["x", "y"], sleep=0.1)
    llm.invoke("q")
    objects.append(llm)
    return [_without_lc_versions(f"{obj!r}\n{obj!s}") for obj in objects]


def test_repr_and_str_of_runnables_and_fake_models() -> None:
    """runnable_parallel_joke_poem prints a RunnableParallel (``steps__={...}``) holding
    fake models (``i=1`` once they answered); sequences, assign, lambdas (a lambda's
    source when it is alone on its line, else ``...``), branches and the fakes print
    LangChain's forms (its lc_versions metadata aside)."""
    ours, theirs = _printed_runnables(OURS), _printed_runnables(LC)
    for mine, lc in zip(ours, theirs, strict=True):
        assert mine == lc
