"""Parity: what the runs of ``RetrievalQA`` and the legacy documents chains end with.

A LangChain ``Chain`` returns its inputs with its outputs, but its run ends with the
outputs only: a handler's ``on_chain_end`` and ``astream_events``' ``on_chain_end`` see
``{"result": ...}``, not the question too. Each scenario runs through both libraries and
compares the returned dicts and the end payloads of every chain run. With a memory,
``RetrievalQA`` also warns, as every ragline ``Chain`` does, when the memory replaces an
input the caller gave.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.prompts as lc_prompts
import langchain_core.retrievers as lc_retrievers
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.chains as rl_chains
import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.memory as rl_memory

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import langchain_classic.chains as lc_chains
    import langchain_classic.chains.question_answering as lc_qa
    import langchain_classic.memory as lc_memory

LC = types.SimpleNamespace(
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    BaseRetriever=lc_retrievers.BaseRetriever,
    Document=LCDocument,
    FakeListLLM=lc_models.FakeListLLM,
    PromptTemplate=lc_prompts.PromptTemplate,
    RetrievalQA=lc_chains.RetrievalQA,
    load_qa_chain=lc_qa.load_qa_chain,
    ConversationBufferMemory=lc_memory.ConversationBufferMemory,
)
OURS = types.SimpleNamespace(
    BaseCallbackHandler=rl_callbacks.BaseCallbackHandler,
    BaseRetriever=rl.BaseRetriever,
    Document=rl.Document,
    FakeListLLM=rl.FakeListLLM,
    PromptTemplate=rl.PromptTemplate,
    RetrievalQA=rl_chains.RetrievalQA,
    load_qa_chain=rl_chains.load_qa_chain,
    ConversationBufferMemory=rl_memory.ConversationBufferMemory,
)
BOTH = pytest.mark.parametrize("m", [LC, OURS], ids=["langchain", "ragline"])


def _ends(m: Any) -> tuple[Any, list[tuple[str, list[str]]]]:
    ends: list[tuple[str, list[str]]] = []
    names: dict[Any, str] = {}

    class Ends(m.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            names[kwargs["run_id"]] = kwargs.get("name") or (serialized or {}).get("name", "")

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            keys = sorted(outputs) if isinstance(outputs, dict) else [type(outputs).__name__]
            ends.append((names[kwargs["run_id"]], keys))

    return Ends(), ends


def _qa(m: Any, **options: Any) -> Any:
    class Fixed(m.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [m.Document(page_content=f"{query} is in France")]

    llm = m.FakeListLLM(responses=["Paris."])
    return m.RetrievalQA.from_chain_type(llm, retriever=Fixed(), **options)


def _scenario(m: Any, run: Any) -> tuple[Any, list[tuple[str, list[str]]]]:
    handler, ends = _ends(m)
    result = run(handler)
    return result, ends


def _plain(result: Any) -> Any:
    return {
        k: [d.page_content for d in v] if k.endswith("documents") else v for k, v in result.items()
    }


def _retrieval_qa(m: Any) -> Any:
    qa = _qa(m, return_source_documents=True)
    result, ends = _scenario(
        m, lambda h: qa.invoke({"query": "Where is Paris?", "extra": 1}, {"callbacks": [h]})
    )
    return _plain(result), ends


def _retrieval_qa_async(m: Any) -> Any:
    qa = _qa(m)
    result, ends = _scenario(
        m, lambda h: asyncio.run(qa.ainvoke("Where is Paris?", {"callbacks": [h]}))
    )
    return result, ends


def _qa_chain(m: Any) -> Any:
    chain = m.load_qa_chain(m.FakeListLLM(responses=["Paris."]), chain_type="stuff")
    docs = [m.Document(page_content="Paris is in France")]
    result, ends = _scenario(
        m,
        lambda h: chain.invoke({"input_documents": docs, "question": "Where?"}, {"callbacks": [h]}),
    )
    return _plain(result), ends


@pytest.mark.parametrize("scenario", [_retrieval_qa, _retrieval_qa_async, _qa_chain])
def test_runs_end_with_the_outputs_and_invoke_returns_the_inputs_too(scenario: Any) -> None:
    assert scenario(OURS) == scenario(LC)


def test_the_scenarios_are_what_langchain_does() -> None:
    result, ends = _retrieval_qa(LC)
    assert result == {
        "query": "Where is Paris?",
        "extra": 1,
        "result": "Paris.",
        "source_documents": ["Where is Paris? is in France"],
    }
    assert ends[-1] == ("RetrievalQA", ["result", "source_documents"])
    assert ("StuffDocumentsChain", ["output_text"]) in ends


async def _events(m: Any) -> list[tuple[str, list[str]]]:
    qa = _qa(m)
    ends = []
    async for event in qa.astream_events({"query": "Where is Paris?"}, version="v2"):
        if event["event"] == "on_chain_end" and isinstance(event["data"].get("output"), dict):
            ends.append((event["name"], sorted(event["data"]["output"])))
    return ends


def test_astream_events_end_with_the_outputs() -> None:
    assert asyncio.run(_events(OURS)) == asyncio.run(_events(LC))


@BOTH
def test_a_memory_input_the_caller_also_gave_is_replaced(m: Any) -> None:
    memory = m.ConversationBufferMemory(memory_key="history", input_key="query")
    memory.save_context({"query": "Hi"}, {"result": "Hello"})
    qa = _qa(m, memory=memory)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = qa.invoke({"query": "Where is Paris?", "history": "mine"})
    assert result["history"] == "Human: Hi\nAI: Hello"
    assert result["result"] == "Paris."
    replaced = [w for w in caught if "provides too" in str(w.message)]
    if m is OURS:  # ragline says so, as its every Chain does; LangChain drops it silently
        assert len(replaced) == 1
        assert "['history']" in str(replaced[0].message)
        assert replaced[0].filename == __file__
