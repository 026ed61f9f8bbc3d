"""Parity: what a callback handler of a chain's runs receives, against langchain_core.

A runnable's start event gives ``serialized=None`` (a prompt: a dict naming it), then
the keywords in LangChain's order: ``tags``, ``metadata``, ``run_type`` (``None`` for a
chain, ``"prompt"``, ``"parser"``; no such keyword at all where LangChain's sequence,
parallel, branch, fallbacks and legacy chains start theirs without one), ``name``, and
``defers_inputs`` for a streamed run (a generator's ``True``:
``tests/parity/test_streamed_run_ends.py``). End events carry ``tags`` (and a streamed
run's ``inputs``), not the metadata. Each scenario runs through both libraries with a
handler that records every chain and retriever event's arguments except the run ids.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts
import langchain_core.retrievers as lc_retrievers
import langchain_core.runnables as lc_runnables
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.chains as rl_chains
import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
from tests.parity._observe import observe

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import LLMChain

COVERS = {"core.BaseCallbackHandler", "chains.LLMChain"}

LC = types.SimpleNamespace(
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    BaseRetriever=lc_retrievers.BaseRetriever,
    Document=LCDocument,
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableParallel=lc_runnables.RunnableParallel,
    RunnablePassthrough=lc_runnables.RunnablePassthrough,
    RunnableBranch=lc_runnables.RunnableBranch,
    ChatPromptTemplate=lc_prompts.ChatPromptTemplate,
    PromptTemplate=lc_prompts.PromptTemplate,
    LLMChain=LLMChain,
    FakeListChatModel=lc_models.FakeListChatModel,
    StrOutputParser=lc_parsers.StrOutputParser,
)
OURS = types.SimpleNamespace(
    BaseCallbackHandler=rl_callbacks.BaseCallbackHandler,
    BaseRetriever=rl.BaseRetriever,
    Document=rl.Document,
    RunnableLambda=rl.RunnableLambda,
    RunnableParallel=rl.RunnableParallel,
    RunnablePassthrough=rl.RunnablePassthrough,
    RunnableBranch=rl.RunnableBranch,
    ChatPromptTemplate=rl.ChatPromptTemplate,
    PromptTemplate=rl.PromptTemplate,
    LLMChain=rl_chains.LLMChain,
    FakeListChatModel=rl.FakeListChatModel,
    StrOutputParser=rl.StrOutputParser,
)


def _value(value: Any) -> Any:
    # a prompt's output is compared as its messages
    return observe(value.to_messages() if hasattr(value, "to_messages") else value)


def _shown(kwargs: dict[str, Any]) -> list[Any]:
    # every keyword in the order given, the ids only as whether there is a parent
    return [
        (key, value is not None if key == "parent_run_id" else _value(value))
        for key, value in kwargs.items()
        if key != "run_id"
    ]


def _recorder(m: Any, log: list[Any]) -> Any:
    class Recorder(m.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            named = None if serialized is None else serialized.get("name")
            log.append(("chain_start", named, _value(inputs), _shown(kwargs)))

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            log.append(("chain_end", _value(outputs), _shown(kwargs)))

        def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
            log.append(("chain_error", repr(error), _shown(kwargs)))

        def on_retriever_start(self, serialized: Any, query: Any, **kwargs: Any) -> None:
            log.append(("retriever_start", serialized, query, _shown(kwargs)))

        def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
            log.append(("retriever_end", observe(documents), _shown(kwargs)))

    return Recorder()


def _retriever(m: Any) -> Any:
    class Fixed(m.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [m.Document(page_content=f"about {query}")]

    return Fixed()


def _chain(m: Any) -> Any:
    return (
        m.ChatPromptTemplate.from_messages([("human", "{q}")])
        | m.FakeListChatModel(responses=["Hi"])
        | m.StrOutputParser()
        | m.RunnableLambda(lambda x: x)
        | m.RunnableParallel(a=m.RunnableLambda(lambda x: x))
        | m.RunnablePassthrough.assign(b=lambda x: 1)
        | m.RunnablePassthrough()
    )


def _branch(m: Any) -> Any:
    return m.RunnableBranch(
        (lambda x: x == "never", m.RunnableLambda(lambda x: x)),
        m.RunnableLambda(lambda x: x["q"]) | _retriever(m),
    )


def _fallbacks(m: Any) -> Any:
    def fail(x: Any) -> Any:
        raise ValueError("no")

    return m.RunnableLambda(fail).with_fallbacks([m.RunnableLambda(lambda x: x["q"])])


def _llm_chain(m: Any) -> Any:
    prompt = m.PromptTemplate.from_template("Say {q}")
    return m.LLMChain(llm=m.FakeListChatModel(responses=["Hi"]), prompt=prompt)


SCENARIOS = {
    "a chain of every kind": _chain,
    "a branch to a retriever": _branch,
    "fallbacks": _fallbacks,
    "a legacy LLMChain": _llm_chain,
}


def _observe(m: Any, build: Any, mode: str) -> list[Any]:
    log: list[Any] = []
    runnable = build(m)
    config = {"callbacks": [_recorder(m, log)], "tags": ["t"], "metadata": {"k": 1}}
    value = {"q": "x"}
    if mode == "invoke":
        runnable.invoke(value, config)
    elif mode == "batch":
        runnable.batch([value], config)
    elif mode == "stream":
        list(runnable.stream(value, config))
    else:

        async def main() -> None:
            if mode == "ainvoke":
                await runnable.ainvoke(value, config)
            else:
                [chunk async for chunk in runnable.astream(value, config)]

        asyncio.run(main())
    # a stream's runs start as the chunks reach them, in each library's own order
    return sorted(log, key=repr)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "batch", "stream", "astream"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_handlers_get_langchains_arguments(scenario: str, mode: str) -> None:
    if scenario == "fallbacks" and mode in ("invoke", "ainvoke"):
        pytest.skip(
            "LangChain's fallbacks invoke what they wrap with the caller's config, so those "
            "runs have no parent there; ragline's are the fallbacks run's children"
        )
    build = SCENARIOS[scenario]
    assert _observe(OURS, build, mode) == _observe(LC, build, mode)
