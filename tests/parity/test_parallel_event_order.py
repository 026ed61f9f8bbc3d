"""astream_events (v2) over a RunnableParallel: the branches' events interleave as in LangChain.

Both libraries run each branch as a task of its own, so the order of the events depends on
how many event-loop turns each runnable takes between its reports: a start or end report
handed to an async handler, each step of a stream, the end of a run. The shapes here are
built only of runnables that never leave the event loop (no thread executor: a sync
function, a retriever over a sync embedding or a sync-only model stream runs in a thread
in LangChain, and where a thread finishes is a race). Shapes whose LangChain order changes
from run to run are left out: where two branches finish in the same loop turn, LangChain
takes them in the order of a set of tasks, which follows their memory addresses (for
examples: ``{async lambda, passthrough}``, ``{two async lambdas, chat model}``, ``{prompt,
async lambda, passthrough}`` and every shape with a nested parallel).
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest


def _langchain() -> SimpleNamespace:
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

    return SimpleNamespace(
        lam=RunnableLambda,
        par=RunnableParallel,
        passthrough=RunnablePassthrough,
        model=FakeListChatModel,
        prompt=ChatPromptTemplate,
    )


def _ragline() -> SimpleNamespace:
    from ragline.core import (
        ChatPromptTemplate,
        FakeListChatModel,
        RunnableLambda,
        RunnableParallel,
        RunnablePassthrough,
    )

    return SimpleNamespace(
        lam=RunnableLambda,
        par=RunnableParallel,
        passthrough=RunnablePassthrough,
        model=FakeListChatModel,
        prompt=ChatPromptTemplate,
    )


async def _shout(text: str) -> str:
    return text.upper()


async def _mark(text: str) -> str:
    return text + "!"


def _branch(lib: SimpleNamespace, kind: str) -> Any:
    if kind == "passthrough":
        return lib.passthrough()
    if kind == "async_lambda":
        return lib.lam(_shout, name="shout")
    if kind == "two_async_lambdas":
        return lib.lam(_shout, name="shout") | lib.lam(_mark, name="mark")
    if kind == "prompt":
        return lib.prompt.from_template("question: {text}")
    if kind == "chat_model":
        return lib.model(responses=["it purrs"])
    raise AssertionError(kind)


SHAPES = [
    ("passthrough", "prompt"),
    ("passthrough", "chat_model"),
    ("passthrough", "two_async_lambdas"),
    ("async_lambda", "prompt"),
    ("async_lambda", "chat_model"),
    ("async_lambda", "two_async_lambdas"),
    ("prompt", "passthrough"),
    ("prompt", "async_lambda"),
    ("prompt", "chat_model"),
    ("chat_model", "passthrough"),
    ("chat_model", "async_lambda"),
    ("chat_model", "prompt"),
    ("chat_model", "two_async_lambdas"),
    ("two_async_lambdas", "passthrough"),
    ("two_async_lambdas", "async_lambda"),
    ("prompt", "chat_model", "passthrough"),
    ("chat_model", "prompt", "passthrough"),
]


def _events(lib: SimpleNamespace, shape: tuple[str, ...]) -> list[str]:
    branches = lib.par({f"b{i}": _branch(lib, kind) for i, kind in enumerate(shape)})
    chain = branches | lib.lam(lambda parts: sorted(parts), name="keys")

    async def collect() -> list[str]:
        return [
            f"{event['event']} {event['name']}"
            async for event in chain.astream_events("cats", version="v2")
        ]

    return asyncio.run(collect())


@pytest.mark.parametrize("shape", SHAPES, ids=["+".join(shape) for shape in SHAPES])
def test_branch_events_interleave_as_in_langchain(shape: tuple[str, ...]) -> None:
    expected = _events(_langchain(), shape)
    assert _events(_ragline(), shape) == expected


def test_the_retrieval_shape_starts_and_streams_the_passthrough_first() -> None:
    # ``{"context": <two async steps>, "question": passthrough} | prompt | model``, the
    # retrieval chain's shape with an async stand-in for ``retriever | format_docs``
    def chain(lib: SimpleNamespace) -> Any:
        context = lib.lam(_shout, name="search") | lib.lam(_mark, name="format_docs")
        prompt = lib.prompt.from_template("{context} / {question}")
        branches = lib.par(context=context, question=lib.passthrough())
        return branches | prompt | lib.model(responses=["fine"])

    async def names(lib: SimpleNamespace) -> list[str]:
        return [
            f"{event['event']} {event['name']}"
            async for event in chain(lib).astream_events("cats", version="v2")
        ]

    got = asyncio.run(names(_ragline()))
    assert got == asyncio.run(names(_langchain()))
    assert got[2:10] == [
        "on_chain_start RunnableSequence",
        "on_chain_start RunnablePassthrough",
        "on_chain_stream RunnablePassthrough",
        "on_chain_start search",
        "on_chain_stream RunnableParallel<context,question>",
        "on_chain_stream search",
        "on_chain_start format_docs",
        "on_chain_end RunnablePassthrough",
    ]
