"""Parity: differences found by the eleventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Any

import langchain_core.messages as lc_messages
import langchain_core.messages.tool as lc_tool
import pytest

import ragline.core.messages as rl_messages

COVERS = {
    "loaders.BeautifulSoupTransformer",
    "retrievers.LLMListwiseRerank",
    "core.JsonKeyOutputFunctionsParser",
    "core.JsonOutputFunctionsParser",
    "core.OutputFunctionsParser",
    "core.PydanticAttrOutputFunctionsParser",
    "core.PydanticOutputFunctionsParser",
    "core.messages.invalid_tool_call",
    "core.messages.message_chunk_to_message",
    "core.messages.tool_call",
    "core.messages.tool_call_chunk",
}


# ---- message helpers (tool_call_chunks_merge, get_buffer_string_prefixes) ------------
def _merged_chunks(messages: Any, helpers: Any) -> Any:
    first = messages.AIMessageChunk(
        content="Hel",
        tool_call_chunks=[
            helpers.tool_call_chunk(name="search", args='{"q": "ca', id="c1", index=0)
        ],
    )
    second = messages.AIMessageChunk(
        content="lo",
        tool_call_chunks=[
            helpers.tool_call_chunk(name=None, args='ts"}', id=None, index=0),
            helpers.tool_call_chunk(name="calc", args='{"x": 2}', id="c2", index=1),
        ],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
    )
    return first + second


def test_message_chunk_to_message_finishes_a_streamed_reply_as_langchains() -> None:
    lc = lc_messages.message_chunk_to_message(_merged_chunks(lc_messages, lc_tool))
    rl = rl_messages.message_chunk_to_message(_merged_chunks(rl_messages, rl_messages))
    assert type(rl).__name__ == type(lc).__name__ == "AIMessage"
    assert repr(rl) == repr(lc)
    assert rl.tool_calls == lc.tool_calls


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("HumanMessageChunk", {"content": "hi", "id": "1", "name": "ann"}),
        ("SystemMessageChunk", {"content": "be brief"}),
        ("ToolMessageChunk", {"content": "42", "tool_call_id": "t1", "artifact": [1]}),
        ("ChatMessageChunk", {"content": "x", "role": "moderator"}),
        ("FunctionMessageChunk", {"content": "{}", "name": "lookup"}),
    ],
)
def test_message_chunk_to_message_keeps_each_kinds_fields(kind: str, fields: Any) -> None:
    lc = lc_messages.message_chunk_to_message(getattr(lc_messages, kind)(**fields))
    rl = rl_messages.message_chunk_to_message(getattr(rl_messages, kind)(**fields))
    assert (type(rl).__name__, repr(rl)) == (type(lc).__name__, repr(lc))


def test_message_chunk_to_message_returns_a_non_chunk_as_it_is() -> None:
    for value in ("text", rl_messages.HumanMessage("done")):
        assert rl_messages.message_chunk_to_message(value) is value
    assert lc_messages.message_chunk_to_message("text") == "text"


def test_tool_call_dict_helpers_build_langchains_dicts() -> None:
    assert rl_messages.tool_call(name="f", args={"a": 1}, id="i") == lc_tool.tool_call(
        name="f", args={"a": 1}, id="i"
    )
    assert rl_messages.tool_call_chunk(name="f", index=0) == lc_tool.tool_call_chunk(
        name="f", index=0
    )
    assert list(rl_messages.tool_call_chunk()) == list(lc_tool.tool_call_chunk())
    assert rl_messages.invalid_tool_call(args="{", error="e") == lc_tool.invalid_tool_call(
        args="{", error="e"
    )
    assert list(rl_messages.invalid_tool_call()) == list(lc_tool.invalid_tool_call())


def test_convert_to_messages_takes_a_two_item_list_as_a_role_pair() -> None:
    given = [["human", "pair as list"], ("ai", "tuple"), ["system", "sys"]]
    lc = lc_messages.convert_to_messages(given)
    rl = rl_messages.convert_to_messages(given)
    assert [repr(m) for m in rl] == [repr(m) for m in lc]
    assert rl_messages.get_buffer_string(rl, human_prefix="H") == lc_messages.get_buffer_string(
        lc, human_prefix="H"
    )


# ---- a chat model's cache hit (chat_model_inmemory_cache) ------------------------------
def _cached_twice(models: Any, caches: Any, usage_handler: Any, openai_callback: Any) -> Any:
    caches.set_llm_cache(caches.InMemoryCache())
    try:
        reply = models.AIMessage(
            content="hi",
            usage_metadata={"input_tokens": 3, "output_tokens": 1, "total_tokens": 4},
            response_metadata={"model_name": "gpt-4o-mini"},
        )
        counted = models.GenericFakeChatModel(messages=iter([reply, reply]))
        handler = usage_handler()
        with openai_callback() as cb:
            first = counted.invoke("x", config={"callbacks": [handler]})
            second = counted.invoke("x", config={"callbacks": [handler]})
            fake = models.FakeListChatModel(responses=["a", "b"])
            fake_first, fake_second = fake.invoke("q"), fake.invoke("q")
        return {
            "first": first.usage_metadata,
            "second": second.usage_metadata,
            "equal": first == second,
            "fake": (fake_first.usage_metadata, fake_second.usage_metadata, fake_second.content),
            "handler": handler.usage_metadata,
            "openai": (cb.total_tokens, cb.successful_requests),
        }
    finally:
        caches.set_llm_cache(None)


def test_a_chat_model_cache_hit_is_marked_with_zero_cost_as_langchains() -> None:
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.globals as lc_globals
    import langchain_core.language_models as lc_models
    from langchain_community.callbacks import get_openai_callback as lc_openai_callback
    from langchain_core.caches import InMemoryCache as LCInMemoryCache

    import ragline.core as rl_core
    from ragline.core.callbacks.usage import UsageMetadataCallbackHandler, get_openai_callback

    class LCModels:
        AIMessage = lc_messages.AIMessage
        GenericFakeChatModel = lc_models.GenericFakeChatModel
        FakeListChatModel = lc_models.FakeListChatModel

    class LCCaches:
        InMemoryCache = LCInMemoryCache
        set_llm_cache = staticmethod(lc_globals.set_llm_cache)

    lc = _cached_twice(
        LCModels, LCCaches, lc_callbacks.UsageMetadataCallbackHandler, lc_openai_callback
    )
    rl = _cached_twice(rl_core, rl_core, UsageMetadataCallbackHandler, get_openai_callback)
    assert rl == lc
    assert rl["second"] == {
        "input_tokens": 3,
        "output_tokens": 1,
        "total_tokens": 4,
        "total_cost": 0,
    }
    assert rl["fake"] == (None, {"total_cost": 0}, "a")


# ---- ParentDocumentRetriever.search_type (parent_doc_retriever_parent_splitter) --------
@pytest.mark.parametrize("given", [None, "mmr", "similarity_score_threshold"])
def test_parent_document_retriever_search_type_prints_as_langchains(given: Any) -> None:
    from langchain_classic.retrievers import ParentDocumentRetriever as LCParent
    from langchain_classic.storage import InMemoryStore as LCStore
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore as LCVectorStore
    from langchain_text_splitters import RecursiveCharacterTextSplitter as LCSplitter

    from ragline.core.stores import InMemoryStore
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.retrievers import ParentDocumentRetriever
    from ragline.splitters import RecursiveCharacterTextSplitter
    from ragline.vectorstores import InMemoryVectorStore

    extra: dict[str, Any] = {} if given is None else {"search_type": given}
    if given == "similarity_score_threshold":
        extra["search_kwargs"] = {"score_threshold": 0.5}
    lc = LCParent(
        vectorstore=LCVectorStore(embedding=LCEmbedding(size=8)),
        docstore=LCStore(),
        child_splitter=LCSplitter(chunk_size=10, chunk_overlap=0),
        **extra,
    )
    rl = ParentDocumentRetriever(
        vectorstore=InMemoryVectorStore(embedding=DeterministicFakeEmbedding(size=8)),
        docstore=InMemoryStore(),
        child_splitter=RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0),
        **extra,
    )
    assert (str(rl.search_type), repr(rl.search_type)) == (
        str(lc.search_type),
        repr(lc.search_type),
    )
    assert rl.search_type == lc.search_type.value


# ---- create_kv_docstore's bytes (parent_doc_retriever_kv_localfilestore) --------------
_STORED = [
    ("p1", "Section 0. caf\u00e9 word", {"source": "report.txt", "n": 1}, None),
    ("p2", "plain", {}, "doc-2"),
    ("p3", "nested", {"tags": ["a", "b"], "m": {"x": 1.5, "ok": True, "none": None}}, None),
]


def test_kv_docstore_writes_langchains_bytes_and_each_reads_the_others(tmp_path: Any) -> None:
    from langchain_classic.storage import LocalFileStore as LCFileStore
    from langchain_classic.storage import create_kv_docstore as lc_create
    from langchain_core.documents import Document as LCDocument

    from ragline.core.documents import Document
    from ragline.core.stores import LocalFileStore
    from ragline.retrievers import create_kv_docstore

    lc_files, rl_files = LCFileStore(tmp_path / "lc"), LocalFileStore(tmp_path / "rl")
    lc_create(lc_files).mset(
        [(k, LCDocument(page_content=t, metadata=m, id=i)) for k, t, m, i in _STORED]
    )
    create_kv_docstore(rl_files).mset([(k, Document(t, m, id=i)) for k, t, m, i in _STORED])
    keys = [k for k, *_ in _STORED]
    assert rl_files.mget(keys) == lc_files.mget(keys)
    # each reads a store the other wrote
    read_by_rl = create_kv_docstore(LocalFileStore(tmp_path / "lc")).mget(keys)
    read_by_lc = lc_create(LCFileStore(tmp_path / "rl")).mget(keys)
    assert [repr(d) for d in read_by_rl] == [repr(d) for d in read_by_lc]
    assert [(d.page_content, d.metadata, d.id) for d in read_by_rl] == [
        (t, m, i) for _, t, m, i in _STORED
    ]


def test_kv_docstore_still_reads_the_plain_form_and_refuses_non_json_metadata() -> None:
    from ragline.core import InMemoryByteStore
    from ragline.core.documents import Document
    from ragline.core.exceptions import InvalidInputError
    from ragline.retrievers import create_kv_docstore

    raw = InMemoryByteStore()
    raw.mset([("old", b'{"page_content": "t", "metadata": {"n": 1}, "id": "i"}')])
    docs = create_kv_docstore(raw)
    assert docs.mget(["old"]) == [Document("t", {"n": 1}, id="i")]
    with pytest.raises(InvalidInputError, match="not JSON-serializable"):
        docs.mset([("bad", Document("t", {"when": {1, 2}}))])
    raw.mset([("prompt", b'{"lc": 1, "type": "constructor", "id": ["x"], "kwargs": {}}')])
    with pytest.raises(InvalidInputError, match="not a JSON Document"):
        docs.mget(["prompt"])


# ---- OpenAI function-call parsers (json_output_functions_parser) ------------------------
_ARGS = '{"setup": "Why did the scarecrow win?", "punchline": "He was outstanding."}'


def _function_parsers(mod: Any, joke: type) -> list[tuple[str, Any]]:
    return [
        ("json", mod.JsonOutputFunctionsParser()),
        ("json_full", mod.JsonOutputFunctionsParser(args_only=False)),
        ("key", mod.JsonKeyOutputFunctionsParser(key_name="setup")),
        ("raw", mod.OutputFunctionsParser()),
        ("raw_full", mod.OutputFunctionsParser(args_only=False)),
        ("pydantic", mod.PydanticOutputFunctionsParser(pydantic_schema=joke)),
        ("by_name", mod.PydanticOutputFunctionsParser(pydantic_schema={"Joke": joke})),
        ("attr", mod.PydanticAttrOutputFunctionsParser(pydantic_schema=joke, attr_name="setup")),
    ]


def _joke_class() -> type:
    from pydantic import BaseModel

    class Joke(BaseModel):
        setup: str
        punchline: str

    return Joke


def _observe_functions(models: Any, messages: Any, parsers: Any) -> dict[str, Any]:
    joke = _joke_class()
    reply = messages.AIMessage(
        content="", additional_kwargs={"function_call": {"name": "Joke", "arguments": _ARGS}}
    )
    seen: dict[str, Any] = {}
    for name, parser in _function_parsers(parsers, joke):
        chain = models.FakeMessagesListChatModel(responses=[reply, reply]) | parser
        out = chain.invoke("tell me a joke")
        seen[name] = (
            repr(parser),
            out.model_dump() if hasattr(out, "model_dump") else out,
            [c.model_dump() if hasattr(c, "model_dump") else c for c in chain.stream("again")],
        )
    for name, parser in _function_parsers(parsers, joke)[:4]:
        try:
            parser.invoke(messages.AIMessage(content="no call"))
        except Exception as err:
            seen[f"{name}_error"] = type(err).__name__
    pieces = ["", '{"setup": "Wh', 'y?", "punch', 'line": "ok"}']
    chunks = [
        messages.AIMessageChunk(
            content="",
            additional_kwargs={
                "function_call": {"arguments": p, **({"name": "Joke"} if i == 0 else {})}
            },
        )
        for i, p in enumerate(pieces)
    ]
    for name, parser in _function_parsers(parsers, joke)[:3]:
        seen[f"{name}_stream"] = list(parser.transform(iter(chunks)))
    return seen


def test_openai_function_call_parsers_parse_and_stream_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    import langchain_core.output_parsers.openai_functions as lc_functions

    import ragline.core as rl_core
    import ragline.core.output_parsers as rl_parsers

    lc = _observe_functions(lc_models, lc_messages, lc_functions)
    rl = _observe_functions(rl_core, rl_messages, rl_parsers)
    assert rl == lc
    assert rl["json_stream"][-1] == {"setup": "Why?", "punchline": "ok"}
    assert rl["json_error"] == "OutputParserException"


# ---- LLMListwiseRerank (llm_listwise_rerank_fake_tools) --------------------------------
def _rerank_observed(models: Any, messages: Any, rerank_cls: Any, document: Any) -> Any:
    class ToolChat(models.FakeMessagesListChatModel):  # type: ignore[misc,name-defined]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

    docs = [document(page_content=t, metadata={"n": i}) for i, t in enumerate("abcd")]
    call = {"name": "RankDocuments", "args": {"ranked_document_ids": [2, 0, 3, 1]}, "id": "r"}
    reply = messages.AIMessage(content="", tool_calls=[call])
    llm = ToolChat(responses=[reply, reply, reply])
    seen = []
    for top_n in (None, 2, 10):
        rerank = rerank_cls.from_llm(llm, **({} if top_n is None else {"top_n": top_n}))
        out = rerank.compress_documents(docs, "which?")
        seen.append((rerank.top_n, [(d.page_content, d.metadata) for d in out]))
    return seen


def test_llm_listwise_rerank_keeps_the_models_top_n_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    from langchain_classic.retrievers.document_compressors import LLMListwiseRerank as LCRerank
    from langchain_core.documents import Document as LCDocument

    import ragline.core as rl_core
    from ragline.core.documents import Document
    from ragline.retrievers import LLMListwiseRerank

    lc = _rerank_observed(lc_models, lc_messages, LCRerank, LCDocument)
    rl = _rerank_observed(rl_core, rl_messages, LLMListwiseRerank, Document)
    assert rl == lc
    assert rl[1] == (2, [("c", {"n": 2}), ("a", {"n": 0})])


def test_llm_listwise_rerank_needs_a_structured_output_model_and_a_real_ranking() -> None:
    from ragline.core import AIMessage, FakeMessagesListChatModel
    from ragline.core.documents import Document
    from ragline.core.exceptions import InvalidInputError, OutputParserException
    from ragline.retrievers import LLMListwiseRerank

    with pytest.raises(InvalidInputError, match="with_structured_output"):
        LLMListwiseRerank.from_llm(object())

    class ToolChat(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

    call = {"name": "RankDocuments", "args": {"ranked_document_ids": [5]}, "id": "r"}
    rerank = LLMListwiseRerank.from_llm(ToolChat(responses=[AIMessage("", tool_calls=[call])]))
    with pytest.raises(OutputParserException, match=r"number\(s\) \[5\] of 1 documents"):
        rerank.compress_documents([Document("only")], "q")


# ---- BeautifulSoupTransformer (beautifulsoup_transformer_tags) --------------------------
_PAGE = """<html><head><style>p {color: red}</style><script>var x = 1;</script></head>
<body><div class="nav"><a href="/home">Home</a> <a href="https://example.com/about">About</a>
</div><h2>Headline</h2><p>First <b>bold</b> paragraph.<!-- note --></p>
<ul><li>item one</li><li>item <a>two</a></li></ul><span class="ad">buy</span>
<span>a span</span><p>Second paragraph with <a href="/x">a link</a>.</p>
<div><p>nested <i>deep</i></p>tail</div></body></html>"""

_BS_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),
    ((), {"tags_to_extract": ["span", "h2"], "remove_lines": False}),
    ((["script"], ["p", "style"]), {}),
    ((), {"unwanted_classnames": ["nav", "ad"], "tags_to_extract": ["span", "a", "p"]}),
    ((), {"remove_comments": True, "tags_to_extract": ["p"]}),
]


def _bs_observed(transformer_cls: Any, document: Any) -> list[Any]:
    seen = []
    for args, kwargs in _BS_CALLS:
        doc = document(page_content=_PAGE, metadata={"source": "page"})
        out = transformer_cls().transform_documents([doc], *args, **kwargs)
        seen.append((out[0] is doc, out[0].page_content, out[0].metadata))
    seen.append(transformer_cls.extract_tags("<p>x <a href='/y'>y</a><!-- c --></p>", ["p"]))
    seen.append(transformer_cls.remove_unnecessary_lines("  a \n\n b\n"))
    return seen


def test_beautifulsoup_transformer_gives_langchains_text() -> None:
    from langchain_community.document_transformers import (
        BeautifulSoupTransformer as LCTransformer,
    )
    from langchain_core.documents import Document as LCDocument

    from ragline.core.documents import Document
    from ragline.loaders import BeautifulSoupTransformer

    lc = _bs_observed(LCTransformer, LCDocument)
    rl = _bs_observed(BeautifulSoupTransformer, Document)
    assert rl == lc
    assert rl[0][1].startswith("Home (/home)  About (https://example.com/about)  First bold")


def test_a_byte_store_docstore_is_an_encoder_backed_store_as_langchains() -> None:
    from langchain_classic.retrievers.multi_vector import MultiVectorRetriever as LCMulti
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCEmbedding
    from langchain_core.stores import InMemoryByteStore as LCByteStore
    from langchain_core.vectorstores import InMemoryVectorStore as LCVectorStore

    from ragline.core.stores import EncoderBackedStore, InMemoryByteStore
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.retrievers import MultiVectorRetriever, create_kv_docstore
    from ragline.vectorstores import InMemoryVectorStore

    lc = LCMulti(vectorstore=LCVectorStore(embedding=LCEmbedding(size=8)), byte_store=LCByteStore())
    rl = MultiVectorRetriever(
        vectorstore=InMemoryVectorStore(embedding=DeterministicFakeEmbedding(size=8)),
        byte_store=InMemoryByteStore(),
    )
    assert type(rl.docstore).__name__ == type(lc.docstore).__name__ == "EncoderBackedStore"
    assert isinstance(rl.docstore, EncoderBackedStore)
    assert isinstance(create_kv_docstore(InMemoryByteStore()), EncoderBackedStore)
