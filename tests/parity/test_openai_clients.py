"""Parity: ragline's ChatOpenAI and OpenAIEmbeddings against langchain_openai's.

Both libraries' clients talk HTTP to the same loopback OpenAI-protocol server
(tests/_openai_server.py), as a program pointed at vLLM or OpenAI would. Compared: what
the program gets (replies, streamed pieces in order, usage, vectors) and the request
bodies each library sends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_openai import ChatOpenAI as LCChatOpenAI
from langchain_openai import OpenAIEmbeddings as LCOpenAIEmbeddings

from ragline.chat_models import ChatOpenAI
from ragline.core import ChatPromptTemplate, StrOutputParser
from ragline.embeddings import OpenAIEmbeddings
from tests._openai_server import CHAT_PATH, OpenAITestServer

COVERS = {"chat_models.ChatOpenAI", "embeddings.OpenAIEmbeddings"}

PROMPT = [("system", "You answer in one line."), ("human", "Say {what}")]


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


def _chat_pair(server: OpenAITestServer, **options: Any) -> tuple[Any, Any]:
    common: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": server.base_url,
        "api_key": "test",
    }
    return LCChatOpenAI(**common, **options), ChatOpenAI(**common, **options)


def _request_fields(body: dict[str, Any]) -> dict[str, Any]:
    keep = ("model", "messages", "temperature", "stop")
    fields = {key: body.get(key) for key in keep}
    # langchain_openai sends the newer max_completion_tokens and "stream": false;
    # servers read either limit, and a missing "stream" is false
    fields["limit"] = body.get("max_completion_tokens", body.get("max_tokens"))
    fields["stream"] = bool(body.get("stream"))
    return fields


def test_a_prompt_model_parser_chain_gives_the_same_reply_and_request(
    server: OpenAITestServer,
) -> None:
    theirs, ours = _chat_pair(server, temperature=0.0, max_tokens=50)
    lc_chain = LCChatPromptTemplate.from_messages(PROMPT) | theirs | LCStrOutputParser()
    chain = ChatPromptTemplate.from_messages(PROMPT) | ours | StrOutputParser()
    assert chain.invoke({"what": "hello there"}) == lc_chain.invoke({"what": "hello there"})
    assert chain.invoke({"what": "hi"}) == "echo: Say hi"
    body, lc_body = (r.body for r in server.requests_to(CHAT_PATH)[:2])
    assert _request_fields(body) == _request_fields(lc_body)
    assert _request_fields(body)["limit"] == 50
    assert body["messages"] == [
        {"role": "system", "content": "You answer in one line."},
        {"role": "user", "content": "Say hello there"},
    ]


def test_invoke_reply_content_and_usage(server: OpenAITestServer) -> None:
    theirs, ours = _chat_pair(server)
    lc_reply = theirs.invoke("what is two plus two")
    reply = ours.invoke("what is two plus two")
    assert reply.content == lc_reply.content == "echo: what is two plus two"
    assert type(reply).__name__ == type(lc_reply).__name__ == "AIMessage"
    assert reply.usage_metadata is not None and lc_reply.usage_metadata is not None
    fields = ("input_tokens", "output_tokens", "total_tokens")
    assert {f: reply.usage_metadata[f] for f in fields} == {
        f: lc_reply.usage_metadata[f] for f in fields
    }
    assert reply.response_metadata["finish_reason"] == lc_reply.response_metadata["finish_reason"]


def test_stream_yields_the_same_pieces(server: OpenAITestServer) -> None:
    theirs, ours = _chat_pair(server)
    lc_pieces = [c.content for c in theirs.stream("one two three") if c.content]
    pieces = [c.content for c in ours.stream("one two three") if c.content]
    assert pieces == lc_pieces
    assert "".join(pieces) == "echo: one two three"


async def test_ainvoke_and_batch(server: OpenAITestServer) -> None:
    theirs, ours = _chat_pair(server)
    assert (await ours.ainvoke("x")).content == (await theirs.ainvoke("x")).content
    assert [m.content for m in ours.batch(["a", "b"])] == [
        m.content for m in theirs.batch(["a", "b"])
    ]


def test_embeddings_give_the_same_vectors_and_requests(server: OpenAITestServer) -> None:
    common: dict[str, Any] = {
        "model": "text-embedding-3-small",
        "base_url": server.base_url,
        "api_key": "test",
        "dimensions": 8,
    }
    # an OpenAI-compatible server gets strings: LangChain's client sends token ids
    # (counted with tiktoken) unless check_embedding_ctx_length=False
    theirs = LCOpenAIEmbeddings(**common, check_embedding_ctx_length=False)
    ours = OpenAIEmbeddings(**common, check_embedding_ctx_length=False)
    texts = ["red apples", "yellow bananas", "brown dates"]
    vectors = ours.embed_documents(texts)
    assert vectors == theirs.embed_documents(texts)
    assert [len(v) for v in vectors] == [8, 8, 8]
    assert ours.embed_query("red apples") == theirs.embed_query("red apples") == vectors[0]
    sent = [r.body for r in server.requests_to("/v1/embeddings")]
    assert sent[0]["input"] == sent[1]["input"] == texts
    assert sent[0]["dimensions"] == sent[1]["dimensions"] == 8


async def test_async_embeddings(server: OpenAITestServer) -> None:
    common: dict[str, Any] = {"base_url": server.base_url, "api_key": "test"}
    theirs = LCOpenAIEmbeddings(**common, check_embedding_ctx_length=False)
    ours = OpenAIEmbeddings(**common)
    assert await ours.aembed_documents(["a b", "c"]) == await theirs.aembed_documents(["a b", "c"])
    assert await ours.aembed_query("a b") == await theirs.aembed_query("a b")


# Standard content blocks: each is sent through both clients to the local server; either
# both send the same Chat Completions parts, or both refuse before any request with a
# ValueError (ragline's InvalidInputError is one).
_BLOCKS = {
    "image by url and file id": {"type": "image", "url": "https://x.test/a.png", "file_id": "f"},
    "image by base64 and url": {
        "type": "image", "base64": "iVBO", "mime_type": "image/png", "url": "https://x.test/b.png",
    },
    "image by file id": {"type": "image", "file_id": "file-1"},
    "image by v0 id": {"type": "image", "source_type": "id", "id": "file-2"},
    "image with no source": {"type": "image", "id": "block-1"},
    "audio by url": {"type": "audio", "url": "https://x.test/a.wav"},
    "audio by file id": {"type": "audio", "file_id": "file-3"},
    "audio by base64 and url": {
        "type": "audio", "base64": "UklG", "mime_type": "audio/wav", "url": "https://x.test/b",
    },
    "audio with no source": {"type": "audio"},
    "file by url": {"type": "file", "url": "https://x.test/r.pdf"},
    "file by url and file id": {"type": "file", "url": "https://x.test/r.pdf", "file_id": "f"},
    "file by base64 and file id": {
        "type": "file", "base64": "JVBE", "mime_type": "application/pdf", "filename": "r.pdf",
        "file_id": "file-4",
    },
    "file with no source": {"type": "file"},
    "text-plain": {"type": "text-plain", "text": "plain words", "mime_type": "text/plain"},
    "video by url": {"type": "video", "url": "https://x.test/v.mp4"},
    "video by base64": {"type": "video", "base64": "AAAA", "mime_type": "video/mp4"},
    "video with no source": {"type": "video"},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_BLOCKS))
def test_a_standard_block_is_sent_or_refused_as_langchain_sends_or_refuses_it(
    server: OpenAITestServer, case: str
) -> None:
    from langchain_core.messages import HumanMessage as LCHumanMessage

    from ragline.core import HumanMessage

    theirs, ours = _chat_pair(server)
    content = [{"type": "text", "text": "see"}, _BLOCKS[case]]

    def outcome(model: Any, message: Any) -> Any:
        before = len(server.requests_to(CHAT_PATH))
        try:
            model.invoke([message(content=[dict(part) for part in content])])
        except ValueError:
            assert len(server.requests_to(CHAT_PATH)) == before  # refused before sending
            return "refused"
        return server.requests_to(CHAT_PATH)[-1].body["messages"]

    expected = outcome(theirs, LCHumanMessage)
    assert outcome(ours, HumanMessage) == expected


def test_a_refused_block_names_its_kind_and_what_chat_completions_takes(
    server: OpenAITestServer,
) -> None:
    from ragline.core import HumanMessage, InvalidInputError

    _, ours = _chat_pair(server)
    with pytest.raises(InvalidInputError, match=r"'image' block with 'file_id'.*'url' or 'base64'"):
        ours.invoke([HumanMessage([{"type": "image", "file_id": "file-1"}])])
    with pytest.raises(InvalidInputError, match=r"'text-plain' block"):
        ours.invoke([HumanMessage([{"type": "text-plain", "text": "x"}])])
    # a v0 text file: LangChain 1.x fails on it with a KeyError (a bug); ragline refuses it
    v0_text_file = {"type": "file", "source_type": "text", "text": "plain words"}
    with pytest.raises(InvalidInputError, match=r"'file' block with source_type 'text'"):
        ours.invoke([HumanMessage([v0_text_file])])
    assert server.requests_to(CHAT_PATH) == []


# An assistant message's calls in a history: parsed ones, invalid ones (arguments that are
# not JSON) and raw OpenAI calls nothing could be parsed from (an entry without a function
# name spoils the list). The tool messages that answer them name their ids.
_RAW_CALLS = [
    {"id": "a", "type": "function", "function": {"name": "add", "arguments": '{"x": 1}'}},
    {"id": "b", "type": "function", "function": {"name": "add", "arguments": "{bad json"}},
]
_ASSISTANT_CALLS = {
    "raw calls, one not json": ({"additional_kwargs": {"tool_calls": _RAW_CALLS}}, ["a", "b"]),
    "invalid call given": (
        {"invalid_tool_calls": [{"name": "add", "args": "{x", "id": "c", "error": "bad"}]},
        ["c"],
    ),
    "raw calls none parsed": (
        {"additional_kwargs": {"tool_calls": [{"id": "e", "function": {}}, *_RAW_CALLS]}},
        ["e", "a", "b"],
    ),
    "raw call without a function skipped": (
        {"additional_kwargs": {"tool_calls": [{"id": "d", "type": "web_search"}, *_RAW_CALLS]}},
        ["a", "b"],
    ),
}


@pytest.mark.parametrize("case", sorted(_ASSISTANT_CALLS))
def test_an_assistant_messages_calls_are_all_sent_as_langchain_sends_them(
    server: OpenAITestServer, case: str
) -> None:
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.messages import HumanMessage as LCHumanMessage
    from langchain_core.messages import ToolMessage as LCToolMessage

    from ragline.core import AIMessage, HumanMessage, ToolMessage

    fields, call_ids = _ASSISTANT_CALLS[case]
    theirs, ours = _chat_pair(server)
    sent = []
    for model, ai, human, tool in (
        (theirs, LCAIMessage, LCHumanMessage, LCToolMessage),
        (ours, AIMessage, HumanMessage, ToolMessage),
    ):
        answers = [tool("done", tool_call_id=call_id) for call_id in call_ids]
        model.invoke([human("add"), ai(content="", **fields), *answers])
        [_, assistant, *_] = server.requests_to(CHAT_PATH)[-1].body["messages"]
        # LangChain sends an empty content as null beside tool calls; ragline sends ""
        sent.append({**assistant, "content": assistant["content"] or ""})
    assert [call["id"] for call in sent[0]["tool_calls"]] == call_ids
    assert sent[1] == sent[0]
