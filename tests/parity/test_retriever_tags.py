"""Parity: an ensemble's and a merger's retriever runs are tagged ``retriever_<n>``, as
LangChain's (the retriever's own run only, not the runs inside it), against
langchain_classic. Each scenario runs through both libraries in every calling mode and
compares the run trees (names, tags, nesting) that ``collect_runs`` records.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.retrievers as lc_retrievers
import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.retrievers as rl_retrievers

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import langchain_classic.retrievers as lc_classic

COVERS = {"retrievers.EnsembleRetriever", "retrievers.MergerRetriever"}

LC = types.SimpleNamespace(
    BaseRetriever=lc_retrievers.BaseRetriever,
    Document=LCDocument,
    RunnableLambda=lc_runnables.RunnableLambda,
    EnsembleRetriever=lc_classic.EnsembleRetriever,
    MergerRetriever=lc_classic.MergerRetriever,
    collect_runs=lc_tracer_context.collect_runs,
)
OURS = types.SimpleNamespace(
    BaseRetriever=rl.BaseRetriever,
    Document=rl.Document,
    RunnableLambda=rl.RunnableLambda,
    EnsembleRetriever=rl_retrievers.EnsembleRetriever,
    MergerRetriever=rl_retrievers.MergerRetriever,
    collect_runs=rl_callbacks.collect_runs,
)


def _fixed(m: Any, text: str) -> Any:
    class Fixed(m.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [m.Document(page_content=f"{text} {query}")]

    return Fixed()


def _ensemble(m: Any) -> Any:
    rewritten = m.RunnableLambda(lambda q: q + "?") | _fixed(m, "b")  # runs inside: untagged
    return m.EnsembleRetriever(retrievers=[_fixed(m, "a"), rewritten], weights=[0.5, 0.5])


def _merger(m: Any) -> Any:
    return m.MergerRetriever(retrievers=[_fixed(m, "a"), _fixed(m, "b")])


def _tree(run: Any) -> Any:
    children = sorted((_tree(child) for child in run.child_runs), key=repr)
    return (run.name, run.tags or [], children)


def _observe(m: Any, build: Any, mode: str) -> list[Any]:
    retriever, config = build(m), {"tags": ["mine"]}
    with m.collect_runs() as collector:
        if mode == "invoke":
            retriever.invoke("q", config)
        elif mode == "batch":
            retriever.batch(["q", "r"], config)
        else:

            async def main() -> None:
                if mode == "ainvoke":
                    await retriever.ainvoke("q", config)
                else:
                    await retriever.abatch(["q", "r"], config)

            asyncio.run(main())
    return sorted((_tree(run) for run in collector.traced_runs), key=repr)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "batch", "abatch"])
@pytest.mark.parametrize("build", [_ensemble, _merger], ids=["ensemble", "merger"])
def test_retriever_runs_are_tagged_as_langchains(build: Any, mode: str) -> None:
    assert _observe(OURS, build, mode) == _observe(LC, build, mode)
