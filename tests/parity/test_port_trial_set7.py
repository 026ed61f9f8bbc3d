"""Parity: differences found by the seventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import json
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_classic import output_parsers as lc_parsers
from langchain_core import messages as lc_messages
from langchain_core import output_parsers as lc_core_parsers
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from pydantic import BaseModel

from ragline.core import FakeListLLM, messages
from ragline.core import output_parsers as parsers

COVERS = {
    "core.convert_to_openai_messages",
    "core.FileCallbackHandler",
    "core.mock_now",
    "core.tool_example_to_messages",
}


class Joke(BaseModel):
    setup: str
    punchline: str


def _parser_kwargs(name: str) -> dict[str, Any]:
    """The fewest constructor arguments each parser takes, the same for both libraries."""
    if name in ("PydanticOutputParser", "YamlOutputParser"):
        return {"pydantic_object": Joke}
    if name == "RegexParser":
        return {"regex": r"(\w+) (\d+)", "output_keys": ["word", "number"]}
    if name == "RegexDictParser":
        return {"output_key_to_format": {"answer": "Answer"}}
    return {}


TYPED = [
    "BooleanOutputParser",
    "CommaSeparatedListOutputParser",
    "DatetimeOutputParser",
    "JsonOutputParser",
    "MarkdownListOutputParser",
    "NumberedListOutputParser",
    "PydanticOutputParser",
    "RegexDictParser",
    "RegexParser",
    "SimpleJsonOutputParser",
    "StrOutputParser",
    "XMLOutputParser",
    "YamlOutputParser",
]


def _make(module_parsers: Any, name: str) -> Any:
    return getattr(module_parsers, name)(**_parser_kwargs(name))


@pytest.mark.parametrize("name", TYPED)
def test_parsers_have_langchains_type_key(name: str) -> None:
    """Programs print ``parser._type`` (regex_parser_score_answer, yaml_output_parser_recipe:
    an AttributeError in ragline before)."""
    lc_module = lc_core_parsers if hasattr(lc_core_parsers, name) else lc_parsers
    theirs = _make(lc_module, name)
    ours = _make(parsers, name)
    assert ours._type == theirs._type


def test_structured_and_retrying_parsers_have_langchains_type_key() -> None:
    schema = [lc_parsers.ResponseSchema(name="answer", description="the answer")]
    ours_schema = [parsers.ResponseSchema(name="answer", description="the answer")]
    assert (
        parsers.StructuredOutputParser.from_response_schemas(ours_schema)._type
        == lc_parsers.StructuredOutputParser.from_response_schemas(schema)._type
    )
    for name in ("OutputFixingParser", "RetryOutputParser", "RetryWithErrorOutputParser"):
        theirs = getattr(lc_parsers, name).from_llm(
            llm=LCFakeListLLM(responses=["x"]), parser=lc_core_parsers.StrOutputParser()
        )
        ours = getattr(parsers, name).from_llm(
            llm=FakeListLLM(responses=["x"]), parser=parsers.StrOutputParser()
        )
        assert ours._type == theirs._type, name


MESSAGE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("HumanMessage", {"content": "hi", "name": "ann", "id": "m1"}),
    ("SystemMessage", {"content": "be brief"}),
    ("AIMessage", {"content": "", "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1"}]}),
    (
        "AIMessage",
        {
            "content": "yo",
            "usage_metadata": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        },
    ),
    ("ToolMessage", {"content": "42", "tool_call_id": "c1"}),
    ("ChatMessage", {"content": "x", "role": "critic"}),
    ("FunctionMessage", {"content": "r", "name": "f"}),
    ("AIMessageChunk", {"content": "par"}),
    ("HumanMessageChunk", {"content": "h"}),
]


@pytest.mark.parametrize(("name", "fields"), MESSAGE_CASES)
def test_messages_rebuild_from_their_dict(name: str, fields: dict[str, Any]) -> None:
    """``HumanMessage(**m)`` over a saved ``message.dict()`` (the dict carries ``type``):
    messages_to_dict_roundtrip, a TypeError in ragline before."""
    lc_cls = getattr(lc_messages, name)
    ours_cls = getattr(messages, name)
    theirs = lc_cls(**lc_cls(**fields).dict())
    ours = ours_cls(**ours_cls(**fields).dict())
    assert "type" in ours_cls(**fields).dict()
    assert repr(ours) == repr(theirs)
    assert ours == ours_cls(**fields)


def test_message_with_another_type_is_refused() -> None:
    with pytest.raises(ValueError):
        lc_messages.HumanMessage(content="x", type="ai")
    with pytest.raises(ValueError, match="type='ai'"):
        messages.HumanMessage(content="x", type="ai")


DICT_MESSAGES: list[dict[str, Any]] = [
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"q": "x"}'},
            }
        ],
    },
    {
        "role": "assistant",
        "content": "a",
        "tool_calls": [{"id": "c2", "name": "f", "args": {"a": 1}}],
    },
    {
        "role": "assistant",
        "content": "a",
        "tool_calls": [{"id": "c3", "function": {"name": "f", "arguments": {"a": 1}}}],
    },
    {
        "role": "assistant",
        "content": "a",
        "tool_calls": [
            {
                "id": "c4",
                "type": "function",
                "function": {"name": "f", "arguments": '{"a": "x\ny"}'},
            }
        ],
    },
    {"role": "assistant", "content": "a", "tool_calls": None},
    {"role": "assistant", "content": "a", "function_call": {"name": "f", "arguments": "{}"}},
    {"role": "user", "content": "x", "foo": 1, "additional_kwargs": {"k": 2}, "bar": 3},
    {"role": "user", "content": "x", "additional_kwargs": {"k": 2}, "response_metadata": {"m": 1}},
    {"role": "user", "type": "human", "content": "x"},
    {"type": "human", "content": "x", "id": "i1", "name": "n"},
    {
        "role": "tool",
        "content": "r",
        "tool_call_id": "t",
        "artifact": [1],
        "status": "error",
        "z": 1,
    },
    {"role": "developer", "content": "d", "foo": 1},
    {"role": "system", "content": "s", "name": None},
    {"role": "function", "content": "r", "name": "f", "q": 1},
    # content None, as OpenAI's API returns an assistant's tool-call message, or empty:
    # LangChain reads any empty content as ""
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": None},
    {"role": "tool", "content": None, "tool_call_id": "c9"},
    {"role": "assistant", "content": []},
]


@pytest.mark.parametrize("item", DICT_MESSAGES)
def test_message_dicts_convert_as_langchains(item: dict[str, Any]) -> None:
    """OpenAI-style dicts as a chat API receives them (convert_openai_messages_roundtrip:
    an assistant's tool_calls were dropped, silently, before)."""
    (theirs,) = lc_messages.convert_to_messages([item])
    (ours,) = messages.convert_to_messages([item])
    assert repr(ours) == repr(theirs)
    assert ours.additional_kwargs == theirs.additional_kwargs
    assert ours.response_metadata == theirs.response_metadata


def test_tool_calls_take_langchains_key_order() -> None:
    calls = [{"id": "c2", "name": "f", "args": {"a": 1}}]
    theirs = lc_messages.AIMessage(content="", tool_calls=calls).tool_calls
    ours = messages.AIMessage("", tool_calls=calls).tool_calls
    assert [list(c) for c in ours] == [list(c) for c in theirs]
    assert ours == theirs


BLOCK_PROMPTS: list[tuple[list[Any], dict[str, Any]]] = [
    (
        [
            ("system", "Describe the image provided"),
            (
                "user",
                [
                    {"type": "text", "text": "{question}"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/jpeg;base64,{image_data}"},
                    },
                ],
            ),
        ],
        {"question": "What is this?", "image_data": "QUJD"},
    ),
    (
        [
            (
                "user",
                [
                    "{a}",
                    {"type": "text", "text": "t {b}"},
                    {"type": "image_url", "image_url": {"url": "u/{c}", "detail": "low"}},
                    {"type": "image_url", "image_url": "s/{d}"},
                ],
            )
        ],
        {"a": 1, "b": 2, "c": 3, "d": 4},
    ),
    (
        [("system", [{"type": "text", "text": "sys {a}"}]), ("ai", [{"text": "ai {b}"}])],
        {"a": 1, "b": 2},
    ),
    (
        [
            (
                "user",
                [
                    {
                        "type": "image",
                        "source_type": "base64",
                        "data": "{d}",
                        "mime_type": "image/png",
                    }
                ],
            )
        ],
        {"d": "QQ"},
    ),
    (
        [("user", [{"type": "text", "text": "{x}", "cache_control": {"type": "ephemeral"}}])],
        {"x": 1},
    ),
    ([("user", [{"type": "text", "text": "no variables"}])], {}),
    # an image_url block with other keys is a dict template (every string formatted, the
    # keys kept), as in LangChain; ragline's image template kept only the url
    (
        [
            (
                "user",
                [{"type": "image_url", "image_url": {"url": "u/{u}"}, "alt": "a picture of {w}"}],
            )
        ],
        {"u": 1, "w": "Ann"},
    ),
]


@pytest.mark.parametrize(("parts", "values"), BLOCK_PROMPTS)
def test_content_block_templates_are_formatted(parts: list[Any], values: dict[str, Any]) -> None:
    """A ``(role, [blocks])`` part is a template (chat_prompt_image_multimodal: ragline sent
    the blocks unformatted, '{question}' and all, before)."""
    from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate

    from ragline.core.prompts import ChatPromptTemplate

    theirs = LCChatPromptTemplate.from_messages(parts)
    ours = ChatPromptTemplate.from_messages(parts)
    assert ours.input_variables == theirs.input_variables
    assert repr(ours.format_messages(**values)) == repr(theirs.format_messages(**values))
    assert ours.invoke(values).to_string() == theirs.invoke(values).to_string()
    assert [repr(m) for m in ours.messages] == [repr(m) for m in theirs.messages]
    if theirs.input_variables:
        with pytest.raises(KeyError):
            theirs.format_messages()
        with pytest.raises(KeyError):
            ours.format_messages()


def test_time_weighted_stamps_given_inside_mock_now() -> None:
    """The how-to's shape: documents with a ``last_accessed_at`` datetime added while
    LangChain's ``mock_now`` holds the clock (time_weighted_retriever_mock_now: ragline's
    store refused the datetime, which it did not recognise as one, before)."""
    import datetime

    import faiss
    from langchain_classic.retrievers import (
        TimeWeightedVectorStoreRetriever as LCTimeWeightedVectorStoreRetriever,
    )
    from langchain_community.docstore.in_memory import InMemoryDocstore as LCInMemoryDocstore
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.documents import Document as LCDocument
    from langchain_core.utils import mock_now

    from ragline.core import Document
    from ragline.retrievers import TimeWeightedVectorStoreRetriever
    from ragline.vectorstores import FAISS
    from tests.parity.test_time_weighted_retriever import LCLetters, Letters

    start = datetime.datetime(2024, 2, 3, 10, 11)
    yesterday = start - datetime.timedelta(days=1)
    lc_store = LCFAISS(LCLetters(), faiss.IndexFlatL2(27), LCInMemoryDocstore({}), {})
    lc = LCTimeWeightedVectorStoreRetriever(vectorstore=lc_store, decay_rate=0.999, k=1)
    rl = TimeWeightedVectorStoreRetriever(
        vectorstore=FAISS(Letters(), dimension=27), decay_rate=0.999, k=1
    )
    with mock_now(start):
        lc.add_documents([LCDocument("hello world", metadata={"last_accessed_at": yesterday})])
        rl.add_documents([Document("hello world", metadata={"last_accessed_at": yesterday})])
        lc.add_documents([LCDocument("hello foo")])
        rl.add_documents([Document("hello foo")])
    for moment in (start + datetime.timedelta(hours=1), start + datetime.timedelta(days=1)):
        with mock_now(moment):
            theirs = lc.invoke("hello world")
            ours = rl.invoke("hello world")
        assert [(d.page_content, d.metadata) for d in ours] == [
            (d.page_content, d.metadata) for d in theirs
        ]
    assert [d.metadata for d in rl.memory_stream] == [d.metadata for d in lc.memory_stream]


_FIRST_USE_INSIDE_MOCK_NOW = """
import datetime
import ragline.retrievers as retrievers
from ragline.core import Document, mock_now
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore

with mock_now(datetime.datetime(2024, 1, 1, 9)):  # the retriever's module loads here
    retriever = retrievers.TimeWeightedVectorStoreRetriever(
        vectorstore=InMemoryVectorStore(HashingEmbeddings(dimension=16)), k=1
    )
    retriever.add_documents([Document("a")])
retriever.add_documents(
    [Document("b", metadata={"last_accessed_at": datetime.datetime(2024, 1, 2, 9)})]
)
print([type(d.metadata["created_at"]).__name__ for d in retriever.memory_stream])
"""


def test_time_weighted_module_first_used_inside_mock_now() -> None:
    """The retriever's module first imported inside ``mock_now`` (``ragline.retrievers``
    loads its names lazily) still stores a datetime given after the block: it took the
    mocked class as the datetime class and refused real datetimes from then on."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _FIRST_USE_INSIDE_MOCK_NOW],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr == ""
    assert done.stdout == "['MockDateTime', 'datetime']\n"


def test_printed_forms_of_each_reorder_and_store_base() -> None:
    """``print(runnable.map())`` (runnable_map_each_with_types), ``print(LongContextReorder())``
    (long_context_reorder_celtics: LangChain prints an empty line) and the in-memory
    stores' base class name (byte_store_inmemory_ops): each differed before."""
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_core.runnables.base import RunnableEach as LCRunnableEach
    from langchain_core.stores import InMemoryByteStore as LCInMemoryByteStore
    from langchain_core.stores import InMemoryStore as LCInMemoryStore

    from ragline.core.runnables import RunnableLambda
    from ragline.core.runnables.each import RunnableEach
    from ragline.core.stores import InMemoryByteStore, InMemoryStore
    from ragline.retrievers import LongContextReorder

    def add_one(x: int) -> int:
        return x + 1

    pairs = [
        (RunnableLambda(add_one).map(), LCRunnableLambda(add_one).map()),
        (
            RunnableEach(bound=RunnableLambda(add_one), name="each"),
            LCRunnableEach(bound=LCRunnableLambda(add_one), name="each"),
        ),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)
        assert repr([ours]) == repr([theirs])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain_community's sunset notice
        from langchain_community.document_transformers import (
            LongContextReorder as LCLongContextReorder,
        )
    assert str(LongContextReorder()) == str(LCLongContextReorder())
    assert repr(LongContextReorder()) == repr(LCLongContextReorder())
    for ours_store, theirs_store in (
        (InMemoryByteStore, LCInMemoryByteStore),
        (InMemoryStore, LCInMemoryStore),
    ):
        assert [c.__name__ for c in ours_store.__mro__[:2]] == [
            c.__name__ for c in theirs_store.__mro__[:2]
        ]


def test_huggingface_embeddings_keep_langchains_fields(minilm_path: str) -> None:
    """``embeddings.encode_kwargs`` / ``model_kwargs`` / ``multi_process`` read back
    (minilm_cosine_similarity_matrix: an AttributeError in ragline before)."""
    from ragline.embeddings import HuggingFaceEmbeddings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain_community's sunset notice
        from langchain_community.embeddings import (
            HuggingFaceEmbeddings as LCHuggingFaceEmbeddings,
        )
    path = minilm_path
    for options in (
        {},
        {"encode_kwargs": {"normalize_embeddings": True}, "model_kwargs": {"device": "cpu"}},
    ):
        theirs = LCHuggingFaceEmbeddings(model_name=path, **options)
        ours = HuggingFaceEmbeddings(model_name=path, **options)
        for field in (
            "model_name",
            "cache_folder",
            "model_kwargs",
            "encode_kwargs",
            "multi_process",
            "show_progress",
        ):
            assert getattr(ours, field) == getattr(theirs, field), field


def test_in_memory_store_loads_a_file_langchain_dumped(tmp_path: Any) -> None:
    """A store a LangChain program saved with ``dump`` loads after the port
    (inmemory_vectorstore_dump_load: ragline refused LangChain's layout as not its own)."""
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import InMemoryVectorStore

    path = str(tmp_path / "store.json")
    saved = LCInMemoryVectorStore(LCFakeEmbedding(size=12))
    saved.add_documents(
        [
            LCDocument("foo", metadata={"k": 1, "tags": ["a"]}),
            LCDocument("bar", metadata={"k": 2}),
            LCDocument("baz"),
        ],
        ids=["1", "2", "3"],
    )
    saved.dump(path)
    theirs = LCInMemoryVectorStore.load(path, LCFakeEmbedding(size=12))
    ours = InMemoryVectorStore.load(path, DeterministicFakeEmbedding(size=12))
    assert ours.store == theirs.store
    assert repr(ours.get_by_ids(["2", "1", "9"])) == repr(theirs.get_by_ids(["2", "1", "9"]))
    for query in ("foo", "bar", "zz"):
        found = ours.similarity_search_with_score(query, k=3)
        lc_found = theirs.similarity_search_with_score(query, k=3)
        assert [d.id for d, _ in found] == [d.id for d, _ in lc_found]
        assert [s for _, s in found] == pytest.approx([s for _, s in lc_found], abs=1e-6)
    ours.add_texts(["qux"], ids=["4"])
    assert sorted(ours.store) == ["1", "2", "3", "4"]
    empty = str(tmp_path / "empty.json")
    LCInMemoryVectorStore(LCFakeEmbedding(size=12)).dump(empty)
    assert InMemoryVectorStore.load(empty, DeterministicFakeEmbedding(size=12)).store == {}


def test_bindings_print_as_langchains() -> None:
    """``print(runnable.bind(...))`` / ``with_config`` / ``with_types``, alone and inside a
    sequence (runnable_sequence_introspection printed RunnableBinding(X, kwargs=...))."""
    from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda

    from ragline.core.output_parsers import StrOutputParser
    from ragline.core.runnables import RunnableLambda

    def f(x: Any, y: int = 1) -> Any:
        return x

    def wirings(lam: Any, parser: Any) -> list[Any]:
        r = lam(f)
        return [
            r.bind(y=2),
            r.with_config(run_name="nm", tags=["t"]),
            r.with_config({"max_concurrency": 2}),
            r.with_config(configurable={"a": 1}),
            parser().with_config(run_name="p"),
            r.bind(y=2).with_config(tags=["a"]),
            r.bind(y=2).bind(z=3),
            r.with_types(input_type=int),
            r.with_types(output_type=str),
            r | r.bind(y=5),
        ]

    for ours, theirs in zip(
        wirings(RunnableLambda, StrOutputParser),
        wirings(LCRunnableLambda, LCStrOutputParser),
        strict=True,
    ):
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)


def _openai_cases(m: Any) -> list[Any]:
    return [
        m.SystemMessage(content="sys"),
        m.SystemMessage(content="dev", additional_kwargs={"__openai_role__": "developer"}),
        m.HumanMessage(content="hi", name="ann", id="h1"),
        m.AIMessage(content="yo", name="bot"),
        m.AIMessage(content="", tool_calls=[{"name": "f", "args": {"a": 1, "b": "x"}, "id": "c1"}]),
        m.AIMessage(
            content="thinking",
            tool_calls=[
                {"name": "f", "args": {}, "id": "c2"},
                {"name": "g", "args": {"q": [1, 2]}, "id": "c3"},
            ],
        ),
        m.ToolMessage(content="42", tool_call_id="c1"),
        m.ToolMessage(content="r", tool_call_id="c2", name="f", status="error", artifact=1),
        m.FunctionMessage(content="fr", name="f"),
        m.ChatMessage(content="cm", role="critic"),
        m.HumanMessage(content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        m.HumanMessage(
            content=[
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            ]
        ),
        m.HumanMessage(content=["plain", {"type": "text", "text": "t"}]),
        m.HumanMessage(content=""),
        m.HumanMessage(content=[]),
        m.AIMessage(content=[{"type": "text", "text": "x"}]),
        m.ToolMessage(content=[{"type": "text", "text": "tt"}], tool_call_id="t"),
        # chunks take their message's role; arguments keep non-ASCII text; text blocks
        # go out as type and text only
        m.HumanMessageChunk(content="hc"),
        m.SystemMessageChunk(content="sc"),
        m.SystemMessageChunk(content="dc", additional_kwargs={"__openai_role__": "developer"}),
        m.AIMessageChunk(content="ac"),
        m.ToolMessageChunk(content="tc", tool_call_id="c1"),
        m.FunctionMessageChunk(content="fc", name="f"),
        m.ChatMessageChunk(content="cc", role="critic"),
        m.AIMessage(content="", tool_calls=[{"name": "f", "args": {"city": "Zürich"}, "id": "c4"}]),
        m.HumanMessage(
            content=[
                {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "b", "id": "t1"},
            ]
        ),
    ]


@pytest.mark.parametrize("text_format", ["string", "block"])
def test_convert_to_openai_messages_as_langchains(text_format: str) -> None:
    """Messages out as OpenAI dicts (convert_openai_messages_roundtrip: the name was
    missing, so the port kept LangChain's, which refused ragline's messages)."""
    for ours, theirs in zip(_openai_cases(messages), _openai_cases(lc_messages), strict=True):
        expected = lc_messages.convert_to_openai_messages(theirs, text_format=text_format)
        got = messages.convert_to_openai_messages(ours, text_format=text_format)
        assert json.dumps(got) == json.dumps(expected)  # keys in LangChain's order too
    mixed: list[Any] = [("user", "tuple"), {"role": "assistant", "content": "d"}, "s"]
    assert messages.convert_to_openai_messages(mixed) == lc_messages.convert_to_openai_messages(
        mixed
    )
    assert messages.convert_to_openai_messages("s") == lc_messages.convert_to_openai_messages("s")
    with pytest.raises(ValueError):
        lc_messages.convert_to_openai_messages([], text_format="bad")
    with pytest.raises(ValueError):
        messages.convert_to_openai_messages([], text_format="bad")


def _drive_file_handler(handler: Any, agents: Any) -> None:
    run = uuid.uuid4()
    handler.on_chain_start({"name": "Ser"}, {}, run_id=run)
    handler.on_chain_start({}, {}, run_id=run, name="Named")
    handler.on_chain_start({}, {}, run_id=run)
    handler.on_text("plain", run_id=run)
    handler.on_text("col", color="green", run_id=run, end="!")
    handler.on_agent_action(agents.AgentAction("t", "i", "log text"), run_id=run, color="blue")
    handler.on_tool_end("obs", run_id=run, observation_prefix="Obs: ", llm_prefix="Thought:")
    handler.on_tool_end("obs2", run_id=run)
    handler.on_agent_finish(agents.AgentFinish({"o": 1}, "final log"), run_id=run)
    handler.on_chain_end({}, run_id=run)


def test_file_callback_handler_writes_langchains_log(tmp_path: Any) -> None:
    """A chain's run log written to a file (file_callback_handler_log: the name was
    missing, so the port kept LangChain's handler)."""
    from langchain_core import agents as lc_agents
    from langchain_core.callbacks import FileCallbackHandler as LCFileCallbackHandler
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate

    from ragline.core import agents
    from ragline.core.callbacks import FileCallbackHandler
    from ragline.core.output_parsers import StrOutputParser
    from ragline.core.prompts import PromptTemplate

    logs = {}
    for side, handler_class, module in (
        ("lc", LCFileCallbackHandler, lc_agents),
        ("rl", FileCallbackHandler, agents),
    ):
        path = str(tmp_path / f"{side}.log")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain's: use it as a context manager
            handler = handler_class(path)
        _drive_file_handler(handler, module)
        handler.close()
        handler.close()
        with handler_class(path, mode="a", color="red") as again:
            again.on_text("appended", run_id=uuid.uuid4())
        assert again.file.closed
        assert (handler.filename, handler.mode, handler.color) == (path, "a", None)
        logs[side] = Path(path).read_text(encoding="utf-8")
    assert logs["rl"] == logs["lc"]

    lc_chain = (
        LCPromptTemplate.from_template("1 + {number} = ")
        | LCFakeListLLM(responses=["3"])
        | LCStrOutputParser()
    )
    chain = PromptTemplate.from_template("1 + {number} = ") | FakeListLLM(responses=["3"])
    chain = chain | StrOutputParser()
    for side, handler_class, runnable in (
        ("lc", LCFileCallbackHandler, lc_chain),
        ("rl", FileCallbackHandler, chain),
    ):
        path = str(tmp_path / f"{side}-chain.log")
        with handler_class(path, mode="w") as handler:
            assert runnable.invoke({"number": 2}, {"callbacks": [handler]}) == "3"
        logs[side] = Path(path).read_text(encoding="utf-8")
    assert logs["rl"] == logs["lc"]


def test_mock_now_holds_the_clock_as_langchains() -> None:
    """``with mock_now(moment):`` around code that reads ``datetime.datetime.now()``
    (time_weighted_retriever_mock_now: the name was unmapped, the port kept LangChain's)."""
    import datetime

    from langchain_core.utils import mock_now as lc_mock_now

    from ragline.core import mock_now

    moments = [
        datetime.datetime(2024, 2, 3, 10, 11, 12, 13),
        datetime.datetime(2024, 2, 3, tzinfo=datetime.timezone.utc),
    ]
    seen: dict[str, list[Any]] = {"lc": [], "rl": []}
    for side, hold in (("lc", lc_mock_now), ("rl", mock_now)):
        for moment in moments:
            with hold(moment) as clock:
                seen[side].append(clock is datetime.datetime)
                seen[side].append(repr(datetime.datetime.now()))
                seen[side].append(repr(datetime.datetime.now(datetime.timezone.utc)))
                seen[side].append(datetime.datetime.now() == moment)
                seen[side].append(isinstance(moment, datetime.datetime))
                with hold(moment + datetime.timedelta(days=1)):
                    seen[side].append(repr(datetime.datetime.now()))
                seen[side].append(repr(datetime.datetime.now()))
            seen[side].append(datetime.datetime.__name__)
    assert seen["rl"] == seen["lc"]


def _block_messages(m: Any) -> list[Any]:
    return [
        m.HumanMessage(content="hi"),
        m.HumanMessage(content=""),
        m.HumanMessage(content=[{"type": "text", "text": "a", "cache_control": {"x": 1}}, "plain"]),
        m.HumanMessage(
            content=[
                {"type": "text", "text": "describe"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            ]
        ),
        m.HumanMessage(
            content=[
                {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}}
            ]
        ),
        m.HumanMessage(content=[{"type": "image_url", "image_url": "https://x/z.png"}]),
        m.HumanMessage(
            content=[{"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}]
        ),
        m.HumanMessage(
            content=[
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/jpeg;base64,QQ==", "detail": "high"},
                }
            ]
        ),
        m.AIMessage(content="ans", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}]),
        m.AIMessage(content=[{"type": "text", "text": "t"}]),
        m.ToolMessage(content="r", tool_call_id="c"),
        m.HumanMessage(content=[{"type": "foo", "bar": 1}]),
        m.HumanMessage(content=[{"type": "image", "url": "u", "id": "given"}]),
        m.SystemMessage(content=[{"type": "reasoning", "reasoning": "r"}]),
        # a tool call without an id adds no tool_call block
        m.AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": None}]),
        m.AIMessage(content="x", tool_calls=[{"name": "f", "args": {}, "id": ""}]),
    ]


def test_content_blocks_as_langchains() -> None:
    """``message.content_blocks`` (chat_prompt_image_multimodal: missing in ragline)."""
    import re

    def same_ids(blocks: list[Any]) -> str:
        return re.sub(r"lc_[0-9a-f-]{36}", "lc_<uuid>", repr(blocks))

    for ours, theirs in zip(_block_messages(messages), _block_messages(lc_messages), strict=True):
        assert same_ids(ours.content_blocks) == same_ids(theirs.content_blocks)


def test_image_url_blocks_convert_as_langchains() -> None:
    """Which OpenAI ``image_url`` blocks become ``image`` blocks, and their extras: only a
    block of type / image_url / detail with a string url (ragline raised TypeError on a
    None url and converted blocks with other keys, dropping them); a top-level detail and
    the url dict's other keys (``image_url_`` before all but detail) go to extras, None
    values left out; a data URL's mime type is anything up to ';' and its data one line."""
    import re

    def same_ids(blocks: list[Any]) -> str:
        return re.sub(r"lc_[0-9a-f-]{36}", "lc_<uuid>", repr(blocks))

    png = "data:image/png;base64,iVBORw0KGgo="
    contents: list[list[Any]] = [
        [{"type": "image_url", "image_url": {"url": None}}],
        [{"type": "image_url", "image_url": {"url": 7}}],
        [{"type": "image_url", "image_url": {}}],
        [{"type": "image_url", "image_url": {"url": "https://a.example/x.png"}, "alt": "x"}],
        [{"type": "image_url", "image_url": {"url": "https://a.example/x.png"}, "detail": "low"}],
        [
            {
                "type": "image_url",
                "image_url": {"url": png, "detail": "high", "format": "png", "gone": None},
                "detail": "low",
            }
        ],
        [{"type": "image_url", "image_url": {"url": png, "format": "png", "detail": "auto"}}],
        [{"type": "image_url", "image_url": {"url": png, "detail": "auto"}, "detail": None}],
        [{"type": "image_url", "image_url": {"url": "data:image/x icon=1;base64,AAAA"}}],
        [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA\nBBBB"}}],
        [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA\n"}}],
    ]
    for content in contents:
        for kind in ("HumanMessage", "AIMessage"):
            ours = getattr(messages, kind)(content).content_blocks
            theirs = getattr(lc_messages, kind)(content=content).content_blocks
            assert same_ids(ours) == same_ids(theirs)


def test_runnable_each_schemas_as_langchains() -> None:
    """``runnable.map()``'s input and output JSON schemas (runnable_map_each_with_types:
    ragline inlined the item schema where LangChain references a ``$defs`` entry)."""
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_core.runnables import RunnablePassthrough as LCRunnablePassthrough

    from ragline.core.prompts import PromptTemplate
    from ragline.core.runnables import RunnableLambda, RunnablePassthrough

    def add_one(x: int) -> int:
        return x + 1

    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    def typed_dict(x: dict) -> list:  # type: ignore[type-arg]
        return []

    def each(lam: Any, passthrough: Any, prompt: Any) -> list[Any]:
        return [
            lam(add_one).map(),
            lam(untyped).map(),
            passthrough().map(),
            lam(typed_dict).map(),
            prompt.from_template("{a} {b}").map(),
        ]

    for ours, theirs in zip(
        each(RunnableLambda, RunnablePassthrough, PromptTemplate),
        each(LCRunnableLambda, LCRunnablePassthrough, LCPromptTemplate),
        strict=True,
    ):
        assert ours.input_schema.model_json_schema() == theirs.input_schema.model_json_schema()
        assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
        if not isinstance(theirs.bound, LCPromptTemplate):  # a prompt's output: message docs
            assert (
                ours.output_schema.model_json_schema() == theirs.output_schema.model_json_schema()
            )


def test_nested_runnable_each_schemas_as_langchains() -> None:
    """``runnable.map().map()``: the inner map's ``$defs`` key is its title as pydantic
    names a definition (``RunnableEach_f_Input``; ragline used the title itself,
    ``RunnableEach<f>Input``, in the key and the reference)."""
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda

    from ragline.core.prompts import PromptTemplate
    from ragline.core.runnables import RunnableLambda

    def add_one(x: int) -> int:
        return x + 1

    def nested(lam: Any, prompt: Any) -> list[Any]:
        return [lam(add_one).map().map(), prompt.from_template("{a}").map().map()]

    for ours, theirs in zip(
        nested(RunnableLambda, PromptTemplate),
        nested(LCRunnableLambda, LCPromptTemplate),
        strict=True,
    ):
        assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
        if not isinstance(theirs.bound.bound, LCPromptTemplate):  # a prompt's output differs
            assert ours.get_output_jsonschema() == theirs.get_output_jsonschema()


def test_tool_example_to_messages_as_langchains() -> None:
    """Few-shot extraction examples as messages (tool_example_to_messages_extraction: the
    name was missing; LangChain's function made LangChain messages ragline's prompt
    refused). The default tool output text is each library's own wording."""
    import re
    from typing import Optional

    from langchain_core.utils.function_calling import (
        tool_example_to_messages as lc_tool_example_to_messages,
    )
    from pydantic import Field

    from ragline.core import tool_example_to_messages

    class Person(BaseModel):
        """Information about a person."""

        name: Optional[str] = Field(default=None, description="The name")  # noqa: UP045
        age: int = 3

    def shown(found: list[Any]) -> str:
        return re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<id>", repr(found))

    cases: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        (("x", [Person(name="Al"), Person(age=5)], ["o1", "o2"]), {"ai_response": "done"}),
        (("y", []), {}),
        (("z", [Person(name="Bo")], ["r"]), {}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's beta notice
        for args, options in cases:
            theirs = lc_tool_example_to_messages(*args, **options)
            ours = tool_example_to_messages(*args, **options)
            assert shown(ours) == shown(theirs)
            ids = [c["id"] for c in ours[1].tool_calls]
            assert [m.tool_call_id for m in ours[2 : 2 + len(ids)]] == ids
            assert [c["id"] for c in ours[1].additional_kwargs["tool_calls"]] == ids
        default_theirs = lc_tool_example_to_messages("w", [Person()])
    default_ours = tool_example_to_messages("w", [Person()])
    assert [type(m).__name__ for m in default_ours] == [type(m).__name__ for m in default_theirs]
    with pytest.raises(ValueError):
        lc_tool_example_to_messages("z", [Person()], tool_outputs=["a", "b"])
    with pytest.raises(ValueError):
        tool_example_to_messages("z", [Person()], tool_outputs=["a", "b"])


def test_tool_example_to_messages_refuses_no_outputs_for_calls_as_langchains() -> None:
    """``tool_outputs=[]`` for one call is a length mismatch in LangChain (only None means
    the default); ragline's treated the empty list as 'use the default'."""
    from langchain_core.utils.function_calling import (
        tool_example_to_messages as lc_tool_example_to_messages,
    )

    from ragline.core import InvalidInputError, tool_example_to_messages

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's beta notice
        with pytest.raises(ValueError):
            lc_tool_example_to_messages("z", [Joke(setup="s", punchline="p")], tool_outputs=[])
        assert len(lc_tool_example_to_messages("z", [], tool_outputs=[])) == 2
    with pytest.raises(InvalidInputError, match="0 tool_outputs for 1 tool_calls"):
        tool_example_to_messages("z", [Joke(setup="s", punchline="p")], tool_outputs=[])
    assert len(tool_example_to_messages("z", [], tool_outputs=[])) == 2


class Point(BaseModel):
    """A map's item model (a module-level class: LangChain resolves its annotation)."""

    x: int


def test_runnable_each_schemas_in_a_parallel_as_langchains() -> None:
    """A map as a parallel's branch (or an assign's) writes its items inline in the
    parallel's schemas, as LangChain's (the branch's type, ``list[int]``, is a field
    there; 2f95563 wrote ``$defs`` references); a map that starts a sequence, or maps a
    map, keeps its own schema's ``$defs`` form; a model item stays a reference."""
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_core.runnables import RunnableParallel as LCRunnableParallel
    from langchain_core.runnables import RunnablePassthrough as LCRunnablePassthrough

    from ragline.core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

    def add_one(x: int) -> int:
        return x + 1

    def shown(x: int) -> str:
        return str(x)

    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    def moved(p: Point) -> Point:
        return p

    moved.__annotations__ = {"p": Point, "return": Point}  # classes, not strings

    def cases(lam: Any, parallel: Any, passthrough: Any) -> list[Any]:
        return [
            parallel(a=lam(add_one).map(), b=lam(shown)),  # a branch
            parallel(a=lam(untyped).map(), b=passthrough()),
            parallel(a=lam(add_one).map(), b=lam(shown).map()),
            parallel(a=lam(moved).map()),  # a model's items: a $defs reference
            parallel(a=lam(add_one).map().map()),  # a map of a map as a branch
            parallel(a=lam(add_one).map() | lam(untyped)),  # a branch starting with one
            lam(untyped) | {"a": lam(add_one).map()},
            passthrough.assign(a=lam(add_one).map()),  # inside assign
            lam(add_one).map() | lam(untyped),  # a sequence's start: $defs
            lam(add_one).map() | parallel(b=lam(untyped)),
            lam(add_one).map().map(),  # a map of a map: $defs
        ]

    for ours, theirs in zip(
        cases(RunnableLambda, RunnableParallel, RunnablePassthrough),
        cases(LCRunnableLambda, LCRunnableParallel, LCRunnablePassthrough),
        strict=True,
    ):
        assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
        assert ours.get_output_jsonschema() == theirs.get_output_jsonschema()
        assert ours.input_schema.model_json_schema() == theirs.input_schema.model_json_schema()
