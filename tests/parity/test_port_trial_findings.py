"""Parity: behaviours the port trial (``benchmarks/port_trial.py``) found different.

Each scenario runs the same program shape through LangChain's class and ragline's class
of the same name and compares what the program can observe.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.output_parsers import BaseOutputParser as LCBaseOutputParser
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.runnables import RunnableParallel as LCRunnableParallel
from langchain_core.runnables import RunnablePassthrough as LCRunnablePassthrough
from langchain_core.tools import tool as lc_tool

from ragline.core import BaseOutputParser, JsonOutputParser, RunnableParallel, RunnablePassthrough
from ragline.tools import tool

COVERS = {
    "core.BaseOutputParser",
    "core.JsonOutputParser",
    "core.RunnableParallel",
    "core.StructuredOutputParser",
    "core.ResponseSchema",
}


def _tool_schemas(decorator: Any) -> list[dict[str, Any]]:
    @decorator
    def multiply_by_max(
        a: Annotated[int, "scale factor"], b: Annotated[list[int], "ints to take the max of"]
    ) -> int:
        """Multiply a by the maximum of b."""
        return a * max(b)

    @decorator
    def bare(x: str) -> str:
        """Echo."""
        return x

    return [multiply_by_max.args_schema.model_json_schema(), bare.args_schema.model_json_schema()]


def test_a_tool_schema_prints_with_pydantics_key_order():
    ours, theirs = _tool_schemas(tool), _tool_schemas(lc_tool)
    assert [list(s) for s in ours] == [list(s) for s in theirs]
    assert repr(ours) == repr(theirs)


def test_steps_dunder_of_a_parallel():
    def build(parallel: Any, passthrough: Any) -> Any:
        return parallel(passed=passthrough(), modified=lambda x: x["num"] + 1)

    ours, theirs = (
        build(RunnableParallel, RunnablePassthrough),
        build(LCRunnableParallel, LCRunnablePassthrough),
    )
    assert sorted(ours.steps__) == sorted(theirs.steps__) == ["modified", "passed"]
    assert ours.steps__["modified"].invoke({"num": 1}) == 2


def _boolean_parser(base: Any) -> Any:
    class BooleanOutputParser(base):  # type: ignore[misc, valid-type]
        true_val: str = "YES"
        false_val: str = "NO"

        def parse(self, text: str) -> bool:
            cleaned = text.strip().upper()
            if cleaned not in (self.true_val.upper(), self.false_val.upper()):
                raise ValueError(f"expected {self.true_val} or {self.false_val}, got {cleaned}")
            return cleaned == self.true_val.upper()

    return BooleanOutputParser


def test_a_parser_subclass_declares_fields_and_is_built_by_keyword():
    def run(base: Any) -> Any:
        cls = _boolean_parser(base)
        okay = cls(true_val="OKAY")
        return (
            cls().invoke("yes"),
            okay.invoke("OKAY"),
            okay.batch(["OKAY", "NO"]),
            (okay.true_val, okay.false_val),
        )

    assert run(BaseOutputParser) == run(LCBaseOutputParser) == (
        True, True, [True, False], ("OKAY", "NO")
    )  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "partial',
        '{"a": [1, 2',
        '```json\n{"x": {"y": "z"',
        '{"done": true}',
    ],
)
def test_json_parse_of_a_truncated_reply_gives_what_arrived(text: str):
    assert JsonOutputParser().parse(text) == LCJsonOutputParser().parse(text)
    assert JsonOutputParser().invoke(text) == LCJsonOutputParser().invoke(text)


@pytest.mark.parametrize("name", ["FakeListChatModel", "FakeListLLM"])
def test_setting_i_replays_a_fake_models_script(name: str):
    from langchain_core import language_models as lc_models

    from ragline import core as our_models

    def run(module: Any) -> list[Any]:
        model = getattr(module, name)(responses=["one", "two", "three"])
        seen = [model.invoke("a"), model.invoke("b")]
        model.i = 0
        seen += [model.invoke("c"), model.i]
        model.i = 2
        seen += [model.invoke("d"), model.i]
        return [getattr(x, "content", x) for x in seen]

    assert run(our_models) == run(lc_models) == ["one", "two", "one", 1, "three", 0]


def test_a_parent_document_retriever_over_an_in_memory_store_keeps_documents():
    from langchain_classic.retrievers import ParentDocumentRetriever as LCParentDocumentRetriever
    from langchain_core.documents import Document as LCDocument
    from langchain_core.stores import InMemoryStore as LCInMemoryStore
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore
    from langchain_text_splitters import RecursiveCharacterTextSplitter as LCSplitter

    from ragline.core import Document
    from ragline.core.stores import InMemoryStore
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.retrievers import ParentDocumentRetriever
    from ragline.splitters import RecursiveCharacterTextSplitter
    from ragline.vectorstores import InMemoryVectorStore

    def run(retriever_cls: Any, store_cls: Any, vectors: Any, splitter: Any, doc: Any) -> Any:
        from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake

        store = store_cls()
        vectorstore = vectors(
            DeterministicFakeEmbedding(size=8) if vectors is InMemoryVectorStore else LCFake(size=8)
        )
        retriever = retriever_cls(
            vectorstore=vectorstore,
            docstore=store,
            child_splitter=splitter(chunk_size=20, chunk_overlap=0),
        )
        retriever.add_documents(
            [doc("Cats purr softly. Dogs bark loudly.", metadata={"s": 1})], ids=["p1"]
        )
        (stored,) = store.mget(["p1"])
        return type(stored).__name__, stored.page_content, stored.metadata

    ours = run(
        ParentDocumentRetriever,
        InMemoryStore,
        InMemoryVectorStore,
        RecursiveCharacterTextSplitter,
        Document,
    )
    theirs = run(
        LCParentDocumentRetriever, LCInMemoryStore, LCInMemoryVectorStore, LCSplitter, LCDocument
    )
    assert ours == theirs == ("Document", "Cats purr softly. Dogs bark loudly.", {"s": 1})


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{\n\t"answer": "Paris",\n\t"source": "https://example.org/paris"\n}\n```',
        '{"answer": "Rome", "source": "s", "extra": 1}',
        '{"answer": "no source"}',
        "not json at all",
    ],
)
def test_structured_output_parser_reads_the_same_keys(reply: str):
    from langchain_classic.output_parsers import ResponseSchema as LCResponseSchema
    from langchain_classic.output_parsers import StructuredOutputParser as LCStructured

    from ragline.core.output_parsers import ResponseSchema, StructuredOutputParser

    def run(parser_cls: Any, schema_cls: Any) -> Any:
        parser = parser_cls.from_response_schemas(
            [
                schema_cls(name="answer", description="answer to the question"),
                schema_cls(name="source", description="a web site", type="string"),
            ]
        )
        instructions = parser.get_format_instructions()
        shown = [name in instructions for name in ("answer", "source", "a web site")]
        try:
            return shown, parser.parse(reply), parser.invoke(reply)
        except Exception as err:  # both raise OutputParserException, each its own class
            return shown, type(err).__name__

    assert run(StructuredOutputParser, ResponseSchema) == run(LCStructured, LCResponseSchema)
