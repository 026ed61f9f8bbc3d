"""Parity: MapReduceDocumentsChain as LangChain programs build it, through
``load_qa_chain(llm, chain_type="map_reduce")``, against langchain_classic's.

Each document is answered on its own (map), then the answers are combined (reduce).
Compared: the class, the input keys, ``output_text`` and the intermediate steps (the
map answers, in document order), and what each prompt the model gets carries.
"""

from __future__ import annotations

import warnings
from typing import Any

from langchain_classic.chains import MapReduceDocumentsChain as LCMapReduceDocumentsChain
from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa_chain
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM

from ragline.chains import MapReduceDocumentsChain, load_qa_chain
from ragline.core import Document, FakeListLLM

COVERS = {"chains.MapReduceDocumentsChain"}

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
    # the wording is each library's own (docs/differences.md); what each prompt carries
    # is the same: one document and the question per map call, then the map answers
    # and the question
    for prompts in (seen.prompts, lc_seen.prompts):
        assert len(prompts) == 4
        assert sorted(next(t for t in TEXTS if t in p) for p in prompts[:3]) == sorted(TEXTS)
        assert all(QUESTION in p for p in prompts)
        assert prompts[3].count("A volcano.") == 3
        assert not any(t in prompts[3] for t in TEXTS)
