"""Parity: MapReduceChain (split one text, map-reduce its pieces) against
langchain_classic's (``langchain_classic.chains.mapreduce``).

The same text, splitter settings and scripted model replies go through both libraries'
``MapReduceChain.from_params``. Compared: the keys, the outputs of ``invoke`` (the text
itself is not among them, in LangChain's as in ragline's), ``run``, ``ainvoke``, extra
prompt variables passed through with ``document_variable_name``, every prompt the model
gets in order, and the run tree.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from langchain_classic.chains.mapreduce import MapReduceChain as LCMapReduceChain
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter

from ragline.chains import MapReduceChain
from ragline.core import BaseCallbackHandler, FakeListLLM, PromptTemplate
from ragline.splitters import CharacterTextSplitter

COVERS = {"chains.MapReduceChain"}

TEXT = "Etna erupts often. Vesuvius buried Pompeii. Stromboli glows at night. Vulcano smokes."
# the map answers are alike, so the order of concurrent map calls cannot matter
REPLIES = ["A volcano.", "A volcano.", "A volcano.", "A volcano.", "Four volcanoes."]


class LCWordsLLM(LCFakeListLLM):
    """Counts words as tokens: LangChain's default counter loads GPT-2's tokenizer."""

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


class WordsLLM(FakeListLLM):
    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


class LCRecorder(LCHandler):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.events.append(("chain", kw.get("name"), sorted(inputs)))

    def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
        self.events.append(("llm", prompts))


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.events.append(("chain", kw.get("name"), sorted(inputs)))

    def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
        self.events.append(("llm", prompts))


def build(which: str, template: str, replies: list[str], **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == "langchain":
            return LCMapReduceChain.from_params(
                LCWordsLLM(responses=replies),
                LCPromptTemplate.from_template(template),
                LCCharacterTextSplitter(separator=". ", chunk_size=30, chunk_overlap=0),
                **kw,
            )
        return MapReduceChain.from_params(
            WordsLLM(responses=replies),
            PromptTemplate.from_template(template),
            CharacterTextSplitter(separator=". ", chunk_size=30, chunk_overlap=0),
            **kw,
        )


def run(which: str, inputs: dict[str, Any], template: str = "Name it: {text}", **kw: Any) -> Any:
    chain = build(which, template, REPLIES, **kw)
    recorder = LCRecorder() if which == "langchain" else Recorder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        output = chain.invoke(inputs, {"callbacks": [recorder]})
    return (chain.input_keys, chain.output_keys), output, recorder.events


def test_invoke_splits_maps_and_reduces_as_langchains() -> None:
    ours = run("ragline", {"input_text": TEXT})
    assert ours == run("langchain", {"input_text": TEXT})
    keys, output, events = ours
    assert keys == (["input_text"], ["output_text"])
    assert output == {"output_text": "Four volcanoes."}
    prompts = [event[1][0] for event in events if event[0] == "llm"]
    assert prompts[:2] == ["Name it: Etna erupts often", "Name it: Vesuvius buried Pompeii"]
    assert prompts[-1] == "Name it: " + "\n\n".join(["A volcano."] * 4)
    assert [e[:2] for e in events if e[0] == "chain"] == [
        ("chain", "MapReduceChain"),
        ("chain", "MapReduceDocumentsChain"),
        ("chain", "LLMChain"),
        ("chain", "LLMChain"),
    ]


def test_other_inputs_reach_the_prompt_with_document_variable_name() -> None:
    options = {
        "combine_chain_kwargs": {"document_variable_name": "text"},
        "reduce_chain_kwargs": {"document_variable_name": "text"},
    }
    inputs = {"input_text": TEXT, "topic": "Italy"}
    ours = run("ragline", inputs, "{topic}: {text}", **options)
    assert ours == run("langchain", inputs, "{topic}: {text}", **options)
    assert ours[1] == {"topic": "Italy", "output_text": "Four volcanoes."}


def test_run_and_ainvoke() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [
            (
                build(which, "Name it: {text}", REPLIES).run(TEXT),
                asyncio.run(build(which, "Name it: {text}", REPLIES).ainvoke({"input_text": TEXT})),
            )
            for which in ("ragline", "langchain")
        ]
    assert results[0] == results[1] == ("Four volcanoes.", {"output_text": "Four volcanoes."})


def test_a_prompt_with_two_variables_needs_document_variable_name() -> None:
    for which in ("ragline", "langchain"):
        with pytest.raises(ValueError, match="document_variable_name"):
            build(which, "{topic}: {text}", REPLIES)
