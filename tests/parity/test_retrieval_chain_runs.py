"""Parity: the runs of ``create_retrieval_chain``, ``create_stuff_documents_chain`` and
``create_history_aware_retriever``, against langchain_classic.

The retrieval chain is ``retrieval_chain``: an assign of ``context`` (the
``retrieve_documents`` run: a ``RunnableLambda`` taking the question, then the
retriever) and an assign of ``answer``, the ``stuff_documents_chain`` run whose steps are
``format_inputs`` (an assign whose ``format_docs`` renders the documents), the prompt,
the model and the parser. The history-aware retriever is the ``chat_retriever_chain``
branch. Each scenario runs through both libraries; the run trees that ``collect_runs``
records (names, tags, nesting; in run order where nothing runs concurrently) and the
``astream_events`` events (event, name, tags, parent names, data) must be the same. The
order of the events of a stream is compared elsewhere: here they are sorted.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.prompts as lc_prompts
import langchain_core.retrievers as lc_retrievers
import langchain_core.tracers.context as lc_tracer_context
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.chains as rl_chains
import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
from tests.parity._observe import observe

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import langchain_classic.chains as lc_chains
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain

COVERS = {
    "chains.create_retrieval_chain",
    "chains.create_stuff_documents_chain",
    "chains.create_history_aware_retriever",
}

LC = types.SimpleNamespace(
    BaseRetriever=lc_retrievers.BaseRetriever,
    Document=LCDocument,
    ChatPromptTemplate=lc_prompts.ChatPromptTemplate,
    FakeListChatModel=lc_models.FakeListChatModel,
    collect_runs=lc_tracer_context.collect_runs,
    create_retrieval_chain=lc_chains.create_retrieval_chain,
    create_stuff_documents_chain=create_stuff_documents_chain,
    create_history_aware_retriever=lc_chains.create_history_aware_retriever,
)
OURS = types.SimpleNamespace(
    BaseRetriever=rl.BaseRetriever,
    Document=rl.Document,
    ChatPromptTemplate=rl.ChatPromptTemplate,
    FakeListChatModel=rl.FakeListChatModel,
    collect_runs=rl_callbacks.collect_runs,
    create_retrieval_chain=rl_chains.create_retrieval_chain,
    create_stuff_documents_chain=rl_chains.create_stuff_documents_chain,
    create_history_aware_retriever=rl_chains.create_history_aware_retriever,
)


def _retriever(m: Any) -> Any:
    class Fixed(m.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [m.Document(page_content=f"{query} is in France", metadata={"n": 1})]

    return Fixed()


def _stuff(m: Any) -> Any:
    prompt = m.ChatPromptTemplate.from_messages(
        [("system", "Context: {context}"), ("human", "{input}")]
    )
    return m.create_stuff_documents_chain(m.FakeListChatModel(responses=["Paris."]), prompt)


def _retrieval(m: Any) -> Any:
    return m.create_retrieval_chain(_retriever(m), _stuff(m))


def _history_aware(m: Any) -> Any:
    rephrase = m.ChatPromptTemplate.from_messages(
        [("placeholder", "{chat_history}"), ("human", "{input}")]
    )
    retriever = m.create_history_aware_retriever(
        m.FakeListChatModel(responses=["Where is Paris?"]), _retriever(m), rephrase
    )
    return m.create_retrieval_chain(retriever, _stuff(m))


QUESTION = {"input": "Paris"}
WITH_HISTORY = {"input": "it?", "chat_history": [("human", "Paris"), ("ai", "A city")]}
SCENARIOS = {
    "a retrieval chain": (_retrieval, QUESTION),
    "a history-aware one, no history": (_history_aware, QUESTION),
    "a history-aware one, with history": (_history_aware, WITH_HISTORY),
    "a stuff chain": (_stuff, {"input": "Where?", "context": "documents"}),
}


def _tree(run: Any, ordered: bool) -> Any:
    children = [_tree(child, ordered) for child in run.child_runs]
    return (run.name, run.tags or [], children if ordered else sorted(children, key=repr))


def _value(m: Any, value: Any) -> Any:
    if isinstance(value, dict) and value.get("context") == "documents":
        return {**value, "context": [m.Document(page_content="Paris is in France")]}
    return value


def _runs(m: Any, scenario: str, mode: str) -> Any:
    build, value = SCENARIOS[scenario]
    chain, value = build(m), _value(m, value)
    with m.collect_runs() as collector:
        if mode == "invoke":
            output = chain.invoke(value)
        elif mode == "stream":
            output = list(chain.stream(value))
        else:

            async def main() -> Any:
                if mode == "ainvoke":
                    return await chain.ainvoke(value)
                return [chunk async for chunk in chain.astream(value)]

            output = asyncio.run(main())
    (run,) = collector.traced_runs
    return observe(output), _tree(run, ordered=mode in ("invoke", "ainvoke"))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_run_trees_are_langchains(scenario: str, mode: str) -> None:
    ours, theirs = _runs(OURS, scenario, mode), _runs(LC, scenario, mode)
    assert ours == theirs


def _events(m: Any, scenario: str) -> list[Any]:
    build, value = SCENARIOS[scenario]
    chain, value = build(m), _value(m, value)

    async def main() -> list[Any]:
        return [event async for event in chain.astream_events(value, version="v2")]

    events = asyncio.run(main())
    names = {event["run_id"]: event["name"] for event in events}
    return sorted(
        (
            (
                event["event"],
                event["name"],
                event["tags"],
                [names[parent] for parent in event["parent_ids"]],
                repr(observe(event["data"])),
            )
            for event in events
        ),
        key=repr,
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_astream_events_are_langchains(scenario: str) -> None:
    assert _events(OURS, scenario) == _events(LC, scenario)


def _answer_events(m: Any, scenario: str) -> list[Any]:
    build, value = SCENARIOS[scenario]
    chain, value = build(m), _value(m, value)

    async def main() -> list[Any]:
        return [event async for event in chain.astream_events(value, version="v2")]

    events = asyncio.run(main())
    names = {event["run_id"]: event["name"] for event in events}
    rows = [(e["event"], e["name"], e["tags"], [names[p] for p in e["parent_ids"]]) for e in events]
    answering = max(i for i, row in enumerate(rows) if row[0] == "on_chat_model_start")
    return rows[answering:]


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_answers_events_come_in_langchains_order(scenario: str) -> None:
    """From the answering model's start on, in order: each streamed piece reaches the
    outermost run before the model makes the next (the events before it, where the
    retrieval and the stuff chain's first steps overlap, are not compared in order)."""
    assert _answer_events(OURS, scenario) == _answer_events(LC, scenario)
