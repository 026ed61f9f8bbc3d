"""Parity: the classic map-reduce chain of ``load_qa_chain`` / ``RetrievalQA.from_chain_type``
against LangChain's, with the same custom prompts and fake models in both.

The chain holds the chains that run (``llm_chain`` maps, ``reduce_documents_chain``
combines with a ``StuffDocumentsChain``); the test compares the outputs and intermediate
steps, the run tree (names and nesting, from a run collector), the prompts the model was
given, the attributes, and that editing ``chain.llm_chain.prompt`` changes the next run.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.tracers.run_collector import (
    RunCollectorCallbackHandler as LCRunCollectorCallbackHandler,
)

from ragline.chains import load_qa_chain
from ragline.core import Document, FakeListLLM, PromptTemplate
from ragline.core.callbacks import RunCollectorCallbackHandler
from ragline.core.output_parsers import RegexParser

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa_chain
    from langchain_classic.output_parsers import RegexParser as LCRegexParser

LC = {
    "Document": LCDocument,
    "FakeListLLM": LCFakeListLLM,
    "PromptTemplate": LCPromptTemplate,
    "Collector": LCRunCollectorCallbackHandler,
    "load_qa_chain": lc_load_qa_chain,
    "RegexParser": LCRegexParser,
}
RL = {
    "Document": Document,
    "FakeListLLM": FakeListLLM,
    "PromptTemplate": PromptTemplate,
    "Collector": RunCollectorCallbackHandler,
    "load_qa_chain": load_qa_chain,
    "RegexParser": RegexParser,
}


def _tree(run: Any) -> tuple[str, list[Any]]:
    children = run.child_runs if hasattr(run, "child_runs") else run.children
    return (run.name, [_tree(child) for child in children])


def _prompts(run: Any) -> list[Any]:
    children = run.child_runs if hasattr(run, "child_runs") else run.children
    own = list(run.inputs.get("prompts", [])) if run.run_type == "llm" else []
    return own + [p for child in children for p in _prompts(child)]


def _word_counting(llm_class: type) -> type:
    class WordCountLLM(llm_class):  # type: ignore[misc,valid-type]
        def get_num_tokens(self, text: str) -> int:
            return len(text.split())

    return WordCountLLM


def _collapsing(lib: dict[str, Any]) -> list[Any]:
    """token_max small enough that the mapped answers are collapsed in two groups first."""
    template = lib["PromptTemplate"].from_template
    docs = [lib["Document"](page_content=f"doc {i}", metadata={"n": i}) for i in range(4)]
    model = _word_counting(lib["FakeListLLM"])(
        responses=["one two", "three four", "five six", "seven eight", "c1", "c2", "end"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = lib["load_qa_chain"](
            model,
            chain_type="map_reduce",
            question_prompt=template("M {context} {question}"),
            combine_prompt=template("R {summaries} {question}"),
            collapse_prompt=template("C {summaries} {question}"),
            token_max=8,
        )
    collector = lib["Collector"]()
    result = chain.invoke({"input_documents": docs, "question": "q"}, {"callbacks": [collector]})
    run = collector.traced_runs[0]
    return [
        type(chain.reduce_documents_chain.collapse_documents_chain).__name__,
        result["output_text"],
        _tree(run),
        _prompts(run),
    ]


def _scenario(lib: dict[str, Any]) -> list[Any]:
    template = lib["PromptTemplate"].from_template
    docs = [lib["Document"](page_content=text) for text in ["Etna is in Sicily.", "It erupts."]]
    model = _word_counting(lib["FakeListLLM"])(
        responses=["Sicily", "erupts", "Etna: Sicily, erupts"] * 2
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = lib["load_qa_chain"](
            model,
            chain_type="map_reduce",
            question_prompt=template("Map: {context} | {question}"),
            combine_prompt=template("Reduce: {summaries} | {question}"),
            return_intermediate_steps=True,
        )
    reduce = chain.reduce_documents_chain
    out: list[Any] = [
        type(chain.llm_chain).__name__,
        type(reduce).__name__,
        type(reduce.combine_documents_chain).__name__,
        type(reduce.combine_documents_chain.llm_chain).__name__,
        reduce.collapse_documents_chain,
        reduce.token_max,
        chain.document_variable_name,
        reduce.combine_documents_chain.document_variable_name,
        chain.return_intermediate_steps,
    ]
    collector = lib["Collector"]()
    result = chain.invoke(
        {"input_documents": docs, "question": "Where?"}, {"callbacks": [collector]}
    )
    out += [result["output_text"], result["intermediate_steps"], sorted(result)]
    run = collector.traced_runs[0]
    out += [_tree(run), _prompts(run)]
    # editing the map chain's prompt changes what the next run asks
    chain.llm_chain.prompt = template("Edited: {context} / {question}")
    collector = lib["Collector"]()
    chain.invoke({"input_documents": docs, "question": "Where?"}, {"callbacks": [collector]})
    out.append(_prompts(collector.traced_runs[0]))
    return out


def test_classic_map_reduce_chain_matches_langchains() -> None:
    expected = _scenario(LC)
    got = _scenario(RL)
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)


def test_classic_map_reduce_chain_collapses_as_langchains() -> None:
    expected = _collapsing(LC)
    got = _collapsing(RL)
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)


def _refining(lib: dict[str, Any]) -> list[Any]:
    """load_qa_chain(chain_type="refine") with the same custom prompts in both."""
    template = lib["PromptTemplate"].from_template
    docs = [lib["Document"](page_content=text) for text in ["Etna", "is in", "Sicily"]]
    model = lib["FakeListLLM"](responses=["v1", "v2", "v3"] * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = lib["load_qa_chain"](
            model,
            chain_type="refine",
            document_variable_name="context",
            question_prompt=template("First: {context} | {question}"),
            refine_prompt=template("Then: {existing_answer} + {context} | {question}"),
            return_intermediate_steps=True,
        )
    out: list[Any] = [
        type(chain.initial_llm_chain).__name__,
        type(chain.refine_llm_chain).__name__,
        chain.document_variable_name,
        chain.initial_response_name,
        chain.return_intermediate_steps,
        chain.get_name(),
    ]
    collector = lib["Collector"]()
    result = chain.invoke({"input_documents": docs, "question": "q"}, {"callbacks": [collector]})
    run = collector.traced_runs[0]
    out += [result["output_text"], result["intermediate_steps"], sorted(result)]
    out += [_tree(run), _prompts(run)]
    chain.initial_llm_chain.prompt = template("Edited: {context} / {question}")
    collector = lib["Collector"]()
    chain.invoke({"input_documents": docs, "question": "q"}, {"callbacks": [collector]})
    out.append(_prompts(collector.traced_runs[0]))
    return out


def test_classic_refine_chain_matches_langchains() -> None:
    expected = _refining(LC)
    got = _refining(RL)
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)


def _summaries(lib: dict[str, Any]) -> list[Any]:
    """load_summarize_chain map_reduce and refine, the same custom prompts in both."""
    template = lib["PromptTemplate"].from_template
    docs = [lib["Document"](page_content=text) for text in ["Etna erupts", "in Sicily"]]
    llm = _word_counting(lib["FakeListLLM"])
    load = lib["load_summarize_chain"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        map_reduce = load(
            llm(responses=["s1", "s2", "both"]),
            chain_type="map_reduce",
            map_prompt=template("Sum up: {text}"),
            combine_prompt=template("Join: {text}"),
            return_intermediate_steps=True,
        )
        refine = load(
            llm(responses=["r1", "r2"]),
            chain_type="refine",
            question_prompt=template("Start: {text}"),
            refine_prompt=template("Had {existing_answer}; add {text}"),
        )
    reduce = map_reduce.reduce_documents_chain
    out: list[Any] = [
        reduce.collapse_documents_chain,
        reduce.combine_documents_chain.document_variable_name,
        map_reduce.document_variable_name,
        refine.document_variable_name,
        refine.initial_response_name,
    ]
    for chain in (map_reduce, refine):
        collector = lib["Collector"]()
        result = chain.invoke(docs, {"callbacks": [collector]}, return_only_outputs=True)
        run = collector.traced_runs[0]
        out += [result, _tree(run), _prompts(run)]
    return out


def test_classic_summarize_chains_match_langchains() -> None:
    from langchain_classic.chains.summarize import load_summarize_chain as lc_summarize

    from ragline.chains import load_summarize_chain

    expected = _summaries({**LC, "load_summarize_chain": lc_summarize})
    got = _summaries({**RL, "load_summarize_chain": load_summarize_chain})
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)


def _retrieval_qa_structure(lib: dict[str, Any], chain_type: str) -> list[Any]:
    """RetrievalQA.from_chain_type with each library's default prompts: the structure
    only (the prompts' words are each library's own)."""

    class Fixed(lib["BaseRetriever"]):  # type: ignore[misc,name-defined]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [lib["Document"](page_content=t) for t in ("Etna", "Sicily")]

    model = _word_counting(lib["FakeListLLM"])(responses=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qa = lib["RetrievalQA"].from_chain_type(
            model, chain_type, retriever=Fixed(), chain_type_kwargs={"verbose": False}
        )
    combine = qa.combine_documents_chain
    attributes = (
        ["llm_chain", "reduce_documents_chain", "document_variable_name"]
        if chain_type == "map_reduce"
        else ["initial_llm_chain", "refine_llm_chain", "initial_response_name"]
    )
    out: list[Any] = [type(combine).__name__]
    out += [type(getattr(combine, name)).__name__ for name in attributes]
    collector = lib["Collector"]()
    result = qa.invoke({"query": "where?"}, {"callbacks": [collector]})
    out += [result["result"], _tree(collector.traced_runs[0])]
    return out


@pytest.mark.parametrize("chain_type", ["map_reduce", "refine"])
def test_retrieval_qa_classic_chains_have_langchains_structure(chain_type: str) -> None:
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

    from ragline.chains import RetrievalQA
    from ragline.core import BaseRetriever

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.chains import RetrievalQA as LCRetrievalQA

    theirs = {**LC, "BaseRetriever": LCBaseRetriever, "RetrievalQA": LCRetrievalQA}
    ours = {**RL, "BaseRetriever": BaseRetriever, "RetrievalQA": RetrievalQA}
    expected = _retrieval_qa_structure(theirs, chain_type)
    assert _retrieval_qa_structure(ours, chain_type) == expected


def _reranking(lib: dict[str, Any]) -> list[Any]:
    """load_qa_chain map_rerank with a prompt that carries its score parser, in both."""
    parser = lib["RegexParser"](regex=r"(.*?)\nScore: (\d*)", output_keys=["answer", "score"])
    prompt = lib["PromptTemplate"](
        template="Use {context} for {question}; then a score line",
        input_variables=["context", "question"],
        output_parser=parser,
    )
    docs = [lib["Document"](page_content=t) for t in ["Etna is in Sicily.", "It erupts.", "Hot."]]
    replies = ["Sicily\nScore: 40", "erupts\nScore: 90", "hot\nScore: 90"]
    model = lib["FakeListLLM"](responses=replies * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = lib["load_qa_chain"](
            model, chain_type="map_rerank", prompt=prompt, return_intermediate_steps=True
        )
        default = lib["load_qa_chain"](model, chain_type="map_rerank")
    out: list[Any] = [
        type(chain).__name__,
        chain.get_name(),
        type(chain.llm_chain).__name__,
        chain.llm_chain.prompt is prompt,
        chain.llm_chain.output_key,
        (chain.document_variable_name, chain.rank_key, chain.answer_key),
        (chain.metadata_keys, chain.return_intermediate_steps),
        (chain.input_keys, chain.output_keys),
        # the default prompt: the documents and the question, parsed into answer and score
        default.llm_chain.prompt.input_variables,
        type(default.llm_chain.prompt.output_parser).__name__,
        default.llm_chain.prompt.output_parser.output_keys,
    ]
    collector = lib["Collector"]()
    result = chain.invoke(
        {"input_documents": docs, "question": "Where?"}, {"callbacks": [collector]}
    )
    out += [result["output_text"], result["intermediate_steps"], sorted(result)]
    run = collector.traced_runs[0]
    out += [_tree(run), _prompts(run)]
    # editing the chain's prompt changes what the next run asks
    chain.llm_chain.prompt = lib["PromptTemplate"](
        template="Edited {context} / {question}",
        input_variables=["context", "question"],
        output_parser=parser,
    )
    collector = lib["Collector"]()
    chain.invoke({"input_documents": docs, "question": "Where?"}, {"callbacks": [collector]})
    out.append(_prompts(collector.traced_runs[0]))
    return out


def test_classic_map_rerank_chain_matches_langchains() -> None:
    expected = _reranking(LC)
    got = _reranking(RL)
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)
