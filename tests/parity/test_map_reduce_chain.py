"""Parity: MapReduceDocumentsChain as LangChain programs build it, against
langchain_classic's: through ``load_qa_chain(llm, chain_type="map_reduce")``, and wired
by hand from an ``LLMChain`` and a ``ReduceDocumentsChain`` around a
``StuffDocumentsChain`` (the reference's form), with and without collapsing.

Each document is answered on its own (map), then the answers are combined (reduce).
Compared: the class, the input keys, ``output_text`` and the intermediate steps (the
map answers, in document order), every prompt the model gets, in order, the run tree,
and the errors.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic.chains import LLMChain as LCLLMChain
from langchain_classic.chains import MapReduceDocumentsChain as LCMapReduceDocumentsChain
from langchain_classic.chains import StuffDocumentsChain as LCStuffDocumentsChain
from langchain_classic.chains.combine_documents.reduce import (
    ReduceDocumentsChain as LCReduceDocumentsChain,
)
from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa_chain
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.chains import (
    LLMChain,
    MapReduceDocumentsChain,
    ReduceDocumentsChain,
    StuffDocumentsChain,
    load_qa_chain,
)
from ragline.core import BaseCallbackHandler, Document, FakeListLLM, PromptTemplate

COVERS = {"chains.MapReduceDocumentsChain", "chains.ReduceDocumentsChain"}

TEXTS = ["Etna is in Sicily.", "Vesuvius is near Naples.", "Stromboli erupts often."]
# the map answers are alike, so the order of concurrent map calls cannot matter
REPLIES = ["A volcano.", "A volcano.", "A volcano.", "Three Italian volcanoes."]
QUESTION = "Which volcanoes are named?"


class LCWordsLLM(LCFakeListLLM):
    """LangChain's fake, counting words as tokens: its default counter loads GPT-2's
    tokenizer, which would be a download."""

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


def _run(chain: Any, documents: list[Any]) -> Any:
    return chain.invoke({"input_documents": documents, "question": QUESTION})


def test_load_qa_chain_map_reduce_answers_the_same() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's classic chains are deprecated
        theirs = lc_load_qa_chain(
            LCWordsLLM(responses=list(REPLIES)),
            chain_type="map_reduce",
            return_intermediate_steps=True,
        )
        lc_result = _run(theirs, [LCDocument(t) for t in TEXTS])
    ours = load_qa_chain(
        FakeListLLM(responses=list(REPLIES)),
        chain_type="map_reduce",
        return_intermediate_steps=True,
    )
    assert isinstance(theirs, LCMapReduceDocumentsChain)
    assert isinstance(ours, MapReduceDocumentsChain)
    assert ours.input_keys == theirs.input_keys
    result = _run(ours, [Document(t) for t in TEXTS])
    assert {k: v for k, v in result.items() if k != "input_documents"} == {
        k: v for k, v in lc_result.items() if k != "input_documents"
    }
    assert result["output_text"] == "Three Italian volcanoes."
    assert result["intermediate_steps"] == ["A volcano."] * 3


def test_the_model_gets_the_same_prompts() -> None:
    from langchain_core.callbacks import BaseCallbackHandler as LCHandler

    from ragline.core import BaseCallbackHandler

    def recorder(base: type) -> Any:
        class Prompts(base):  # type: ignore[misc,valid-type]
            def __init__(self) -> None:
                self.prompts: list[str] = []

            def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
                self.prompts.extend(prompts)

        return Prompts()

    lc_seen, seen = recorder(LCHandler), recorder(BaseCallbackHandler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = lc_load_qa_chain(LCWordsLLM(responses=list(REPLIES)), chain_type="map_reduce")
        theirs.invoke(
            {"input_documents": [LCDocument(t) for t in TEXTS], "question": QUESTION},
            {"callbacks": [lc_seen]},
        )
    ours = load_qa_chain(FakeListLLM(responses=list(REPLIES)), chain_type="map_reduce")
    ours.invoke(
        {"input_documents": [Document(t) for t in TEXTS], "question": QUESTION},
        {"callbacks": [seen]},
    )
    # the wording is each library's own (differences-from-langchain.md); what each prompt carries
    # is the same: one document and the question per map call, then the map answers
    # and the question
    for prompts in (seen.prompts, lc_seen.prompts):
        assert len(prompts) == 4
        assert sorted(next(t for t in TEXTS if t in p) for p in prompts[:3]) == sorted(TEXTS)
        assert all(QUESTION in p for p in prompts)
        assert prompts[3].count("A volcano.") == 3
        assert not any(t in prompts[3] for t in TEXTS)


# ---- LangChain's reference wiring: llm_chain= and reduce_documents_chain= --------------


class WordsLLM(FakeListLLM):
    """ragline's fake, counting words as tokens like LCWordsLLM."""

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


LIBS = {
    "langchain": {
        "LLM": LCWordsLLM, "LLMChain": LCLLMChain, "Stuff": LCStuffDocumentsChain,
        "Reduce": LCReduceDocumentsChain, "MapReduce": LCMapReduceDocumentsChain,
        "Prompt": LCPromptTemplate, "Document": LCDocument, "Handler": LCHandler,
    },
    "ragline": {
        "LLM": WordsLLM, "LLMChain": LLMChain, "Stuff": StuffDocumentsChain,
        "Reduce": ReduceDocumentsChain, "MapReduce": MapReduceDocumentsChain,
        "Prompt": PromptTemplate, "Document": Document, "Handler": BaseCallbackHandler,
    },
}  # fmt: skip
NUMBERS = ["one two three", "four five", "six seven eight nine", "ten"]
SCRIPT = ["m1 a b", "m2 c", "m3 d e f", "m4", "c1 x", "c2 y", "the numbers"]


def wired(which: str, replies: list[str], **reduce_options: Any) -> tuple[Any, Any]:
    """The reference's wiring; the combine prompt shows each document's metadata."""
    ns = LIBS[which]
    llm = ns["LLM"](responses=list(replies))
    map_chain = ns["LLMChain"](llm=llm, prompt=ns["Prompt"].from_template("Sum up: {docs}"))
    combine = ns["Stuff"](
        llm_chain=ns["LLMChain"](
            llm=llm, prompt=ns["Prompt"].from_template("Combine for {topic}:\n{summaries}")
        ),
        document_prompt=ns["Prompt"].from_template("{page_content} [{n}]"),
        document_variable_name="summaries",
    )
    reduce = ns["Reduce"](
        combine_documents_chain=combine, collapse_documents_chain=combine, **reduce_options
    )
    chain = ns["MapReduce"](
        llm_chain=map_chain,
        reduce_documents_chain=reduce,
        document_variable_name="docs",
        return_intermediate_steps=True,
    )
    return chain, reduce


class Tree:
    """Records each run's name under its parent, and every model prompt in order."""

    def __init__(self) -> None:
        self.parents: dict[Any, Any] = {}
        self.names: dict[Any, str] = {}
        self.prompts: list[str] = []

    def tree(self) -> list[Any]:
        def node(run_id: Any) -> Any:
            kids = [r for r, p in self.parents.items() if p == run_id]
            return (self.names[run_id], [node(k) for k in kids])

        return [node(r) for r, p in self.parents.items() if p is None]


def recorder(which: str) -> Any:
    class Recorder(LIBS[which]["Handler"], Tree):  # type: ignore[misc]
        def __init__(self) -> None:
            Tree.__init__(self)

        def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
            self.parents[kw["run_id"]] = kw.get("parent_run_id")
            self.names[kw["run_id"]] = kw.get("name") or serialized.get("name")

        def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
            self.parents[kw["run_id"]] = kw.get("parent_run_id")
            self.names[kw["run_id"]] = "llm"
            self.prompts.extend(prompts)

    return Recorder()


def run_wired(which: str, replies: list[str] = SCRIPT, **reduce_options: Any) -> Any:
    chain, _ = wired(which, replies, **reduce_options)
    documents = [
        LIBS[which]["Document"](page_content=t, metadata={"n": i}) for i, t in enumerate(NUMBERS)
    ]
    seen = recorder(which)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = chain.invoke(
            {"input_documents": documents, "topic": "counting"}, {"callbacks": [seen]}
        )
    del result["input_documents"]
    return result, seen.prompts, seen.tree()


def test_the_reference_wiring_collapses_and_reduces_the_same() -> None:
    ours = run_wired("ragline", token_max=13)
    assert ours == run_wired("langchain", token_max=13)
    result, prompts, tree = ours
    assert result == {
        "topic": "counting",
        "intermediate_steps": ["m1 a b", "m2 c", "m3 d e f", "m4"],
        "output_text": "the numbers",
    }
    assert prompts == [
        "Sum up: one two three",
        "Sum up: four five",
        "Sum up: six seven eight nine",
        "Sum up: ten",
        "Combine for counting:\nm1 a b [0]\n\nm2 c [1]",
        "Combine for counting:\nm3 d e f [2]\n\nm4 [3]",
        # each collapsed document joins its run's metadata: "0, 1"
        "Combine for counting:\nc1 x [0, 1]\n\nc2 y [2, 3]",
    ]
    stuff = ("StuffDocumentsChain", [("LLMChain", [("llm", [])])])
    assert tree == [
        ("MapReduceDocumentsChain", [
            ("LLMChain", [("llm", [])] * 4),  # the map: one apply run
            stuff, stuff,  # two collapses
            ("LLMChain", [("llm", [])]),  # the final combine: no run of its own
        ])
    ]  # fmt: skip


def test_the_reference_wiring_without_collapsing() -> None:
    script = ["m1", "m2", "m3", "m4", "all four"]
    ours = run_wired("ragline", script)  # token_max defaults to 3000
    assert ours == run_wired("langchain", script)
    assert ours[0]["output_text"] == "all four"
    assert ours[1][-1] == "Combine for counting:\nm1 [0]\n\nm2 [1]\n\nm3 [2]\n\nm4 [3]"


def test_a_token_max_given_with_the_inputs_wins() -> None:
    # LangChain's combine_docs takes token_max; an input of that name reaches it
    def run(which: str) -> Any:
        chain, _ = wired(which, SCRIPT, token_max=3000)
        docs = [LIBS[which]["Document"](page_content=t, metadata={"n": i}) for i, t in
                enumerate(NUMBERS)]  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return chain.invoke({"input_documents": docs, "topic": "t", "token_max": 13})[
                "output_text"
            ]

    assert run("ragline") == run("langchain") == "the numbers"


def test_a_reduce_documents_chain_runs_on_its_own() -> None:
    def run(which: str) -> Any:
        _, reduce = wired(which, ["c1", "c2", "both"], token_max=14)
        docs = [LIBS[which]["Document"](page_content=t, metadata={"n": i}) for i, t in
                enumerate(NUMBERS)]  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = reduce.invoke({"input_documents": docs, "topic": "t"})
        del result["input_documents"]
        return result, reduce.input_keys, reduce.output_keys

    assert (
        run("ragline")
        == run("langchain")
        == (
            {"topic": "t", "output_text": "both"},
            ["input_documents"],
            ["output_text"],
        )
    )


def test_one_document_over_token_max_is_a_value_error() -> None:
    for which in LIBS:
        with pytest.raises(ValueError):
            run_wired(which, token_max=5)
    with pytest.raises(ValueError, match=r"document 0 alone takes 7 tokens, more than token_max=5"):
        run_wired("ragline", token_max=5)


def test_collapse_max_retries_stops_a_collapse_that_does_not_shrink() -> None:
    long = ["m1 a b", "m2 c", "m3 d e f", "m4"] + ["w " * 9] * 4
    for which in LIBS:
        with pytest.raises(ValueError):
            run_wired(which, long, token_max=13, collapse_max_retries=1)
    with pytest.raises(ValueError, match=r"still take 25 tokens.* after 1 collapse rounds"):
        run_wired("ragline", long, token_max=13, collapse_max_retries=1)


def test_collapse_max_retries_counts_only_rounds_that_left_too_much() -> None:
    # listed in differences-from-langchain.md: LangChain's raises after the n-th round even when
    # that round brought the documents under token_max
    with pytest.raises(ValueError, match="Exceed 1 tries"):
        run_wired("langchain", token_max=13, collapse_max_retries=1)
    result = run_wired("ragline", token_max=13, collapse_max_retries=1)[0]
    assert result["output_text"] == "the numbers"


def test_without_collapse_max_retries_a_collapse_that_does_not_shrink_stops() -> None:
    # LangChain's loops for ever here (not run); ragline stops after 10 rounds:
    # listed in docs/differences-from-langchain.md
    # each collapsed document fits alone, never two together
    long = ["m1 a b", "m2 c", "m3 d e f", "m4"] + ["w " * 6] * 40
    with pytest.raises(ValueError, match="after 10 collapse rounds"):
        run_wired("ragline", long, token_max=13)


async def test_the_reference_wiring_async() -> None:
    async def run(which: str) -> Any:
        chain, _ = wired(which, SCRIPT, token_max=13)
        docs = [LIBS[which]["Document"](page_content=t, metadata={"n": i}) for i, t in
                enumerate(NUMBERS)]  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = await chain.ainvoke({"input_documents": docs, "topic": "t"})
        return result["intermediate_steps"], result["output_text"]

    assert await run("ragline") == await run("langchain") == (SCRIPT[:4], "the numbers")


def test_the_document_variable_defaults_to_the_prompts_one_variable() -> None:
    def build(which: str) -> Any:
        ns = LIBS[which]
        llm = ns["LLM"](responses=["x"])
        chain = ns["LLMChain"](llm=llm, prompt=ns["Prompt"].from_template("Sum up: {text}"))
        stuff = ns["Stuff"](llm_chain=chain)
        return ns["MapReduce"](
            llm_chain=chain, reduce_documents_chain=ns["Reduce"](combine_documents_chain=stuff)
        ).document_variable_name

    assert build("ragline") == build("langchain") == "text"


def test_no_documents_still_run_the_chains() -> None:
    def run(which: str) -> Any:
        chain, reduce = wired(which, ["first", "second"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mapped = chain.invoke({"input_documents": [], "topic": "t"})
            stuffed = reduce.combine_documents_chain.invoke({"input_documents": [], "topic": "t"})
        return mapped["intermediate_steps"], mapped["output_text"], stuffed["output_text"]

    assert run("ragline") == run("langchain") == ([], "first", "second")
