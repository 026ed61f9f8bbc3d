"""Parity: AnalyzeDocumentChain against LangChain's (langchain_classic.chains).

One long text split by the chain's text splitter (the default recursive character
splitter, or one given), the chunks handed to a documents chain with the other inputs:
the same outputs, keys, run tree and prompts in both libraries.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.tracers.run_collector import (
    RunCollectorCallbackHandler as LCRunCollectorCallbackHandler,
)
from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter

from ragline.chains import load_qa_chain, load_summarize_chain
from ragline.core import FakeListLLM, PromptTemplate
from ragline.core.callbacks import RunCollectorCallbackHandler
from ragline.pipelines import AnalyzeDocumentChain
from ragline.splitters import CharacterTextSplitter

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import AnalyzeDocumentChain as LCAnalyzeDocumentChain
    from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa_chain
    from langchain_classic.chains.summarize import load_summarize_chain as lc_summarize

COVERS = {"pipelines.AnalyzeDocumentChain"}

LC = {
    "Analyze": LCAnalyzeDocumentChain,
    "FakeListLLM": LCFakeListLLM,
    "PromptTemplate": LCPromptTemplate,
    "Collector": LCRunCollectorCallbackHandler,
    "CharacterTextSplitter": LCCharacterTextSplitter,
    "load_qa_chain": lc_load_qa_chain,
    "load_summarize_chain": lc_summarize,
}
RL = {
    "Analyze": AnalyzeDocumentChain,
    "FakeListLLM": FakeListLLM,
    "PromptTemplate": PromptTemplate,
    "Collector": RunCollectorCallbackHandler,
    "CharacterTextSplitter": CharacterTextSplitter,
    "load_qa_chain": load_qa_chain,
    "load_summarize_chain": load_summarize_chain,
}

# about 9,000 characters in paragraphs, sentences and words of several lengths: the
# default splitter (4,000 characters, 200 overlap) cuts it into three chunks
PARAGRAPHS = [
    " ".join(f"Sentence {p}.{s} says {'word ' * (s % 7 + 3)}end." for s in range(24))
    for p in range(7)
]
TEXT = "\n\n".join(PARAGRAPHS)


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


def _analyzing(lib: dict[str, Any]) -> list[Any]:
    template = lib["PromptTemplate"].from_template
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qa = lib["load_qa_chain"](
            lib["FakeListLLM"](responses=["answer"]),
            chain_type="stuff",
            prompt=template("Docs: {context}\nQ: {question}"),
        )
        chain = lib["Analyze"](combine_docs_chain=qa)
        summary = lib["Analyze"](
            combine_docs_chain=lib["load_summarize_chain"](
                _word_counting(lib["FakeListLLM"])(responses=["m1", "m2", "m3", "m4", "all"]),
                chain_type="map_reduce",
                map_prompt=template("Sum: {text}"),
                combine_prompt=template("Join: {text}"),
            ),
            text_splitter=lib["CharacterTextSplitter"](
                separator="\n\n", chunk_size=3000, chunk_overlap=0
            ),
            input_key="essay",
        )
    out: list[Any] = [
        type(chain.text_splitter).__name__,
        (chain.input_key, chain.input_keys, chain.output_keys),
        (summary.input_keys, summary.output_keys),
        chain.get_name(),
    ]
    collector = lib["Collector"]()
    result = chain.invoke({"input_document": TEXT, "question": "Why?"}, {"callbacks": [collector]})
    run = collector.traced_runs[0]
    prompts = _prompts(run)
    out += [result, _tree(run), prompts, len(prompts[0])]
    out.append(asyncio.run(chain.ainvoke({"input_document": TEXT, "question": "Again?"})))
    collector = lib["Collector"]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.append(summary.run(TEXT, callbacks=[collector]))
    run = collector.traced_runs[0]
    out += [_tree(run), [p[:40] for p in _prompts(run)]]
    return out


def test_analyze_document_chain_matches_langchains() -> None:
    expected = _analyzing(LC)
    got = _analyzing(RL)
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        assert (index, ours) == (index, theirs)
