"""Parity: differences found by the ninth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import langchain_core.chat_history as lc_chat_history
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.prompts as lc_prompts
import langchain_text_splitters as lc_splitters
import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.history import (
    RunnableWithMessageHistory as LCRunnableWithMessageHistory,
)

import ragline.core as rl_models
import ragline.core.chat_history as rl_chat_history
import ragline.core.messages as rl_messages
import ragline.core.prompts as rl_prompts
import ragline.splitters as rl_splitters
from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables import RunnableLambda
from ragline.core.runnables.history import RunnableWithMessageHistory


def _chat_prompt(mod: Any, **kwargs: Any) -> Any:
    human = mod.HumanMessagePromptTemplate(
        prompt=mod.PromptTemplate(input_variables=["q", "r"], template="{q} and {r}")
    )
    return mod.ChatPromptTemplate(messages=[human], **kwargs)


def _prompt_view(prompt: Any) -> tuple[Any, ...]:
    return (
        repr(prompt),
        str(prompt),
        prompt.input_variables,
        prompt.optional_variables,
        prompt.partial_variables,
        prompt.invoke({"q": "a", "r": "b"}).to_messages()[0].content,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_variables": ["q", "r"]},
        {"input_variables": ["r", "q"], "metadata": {"owner": "me"}},
        {"input_variables": ["unused"]},  # ignored without validate_template
        {"input_variables": []},
        {"input_variables": ["r", "q"], "validate_template": True},  # order kept
        {"validate_template": True},
        {"optional_variables": ["z", "a"]},
        {"input_variables": ["q", "r"], "partial_variables": {"q": "a"}},
        {"input_variables": ["r"], "partial_variables": {"q": "a"}, "validate_template": True},
    ],
)
def test_chat_prompt_takes_langchains_constructor_keywords(kwargs: dict[str, Any]) -> None:
    """b403_rag_prompt_repr: ChatPromptTemplate(input_variables=..., messages=[...])."""
    ours = _chat_prompt(rl_prompts, **kwargs)
    theirs = _chat_prompt(lc_prompts, **kwargs)
    assert _prompt_view(ours) == _prompt_view(theirs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_variables": ["q"], "validate_template": True},
        {"input_variables": ["q", "r", "s"], "validate_template": True},
        {"input_variables": ["q", "r"], "partial_variables": {"q": 1}, "validate_template": True},
    ],
)
def test_chat_prompt_validate_template_rejects_other_variables(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        _chat_prompt(lc_prompts, **kwargs)
    with pytest.raises(ValueError, match="do not match the messages' variables"):
        _chat_prompt(rl_prompts, **kwargs)


def test_partial_of_a_validated_chat_prompt_as_langchains() -> None:
    kwargs = {"input_variables": ["r", "q"], "validate_template": True}
    ours = _chat_prompt(rl_prompts, **kwargs).partial(q="a")
    theirs = _chat_prompt(lc_prompts, **kwargs).partial(q="a")
    assert repr(ours) == repr(theirs)
    assert ours.invoke({"r": "b"}).to_string() == theirs.invoke({"r": "b"}).to_string()


def _messages(mod: Any) -> list[Any]:
    return [
        mod.AIMessage(
            content="x",
            id="1",
            tool_calls=[{"name": "f", "args": {"a": 1.5e-5}, "id": "c"}],
            usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
            response_metadata={"when": datetime.date(2020, 1, 2), "nan": float("nan")},
        ),
        mod.HumanMessage(content=[{"type": "text", "text": 'caf\u00e9 "q" \\'}], name="n"),
        mod.SystemMessage("s", additional_kwargs={"k": {1.5: [], True: {}, None: 1e-6}}),
        mod.ToolMessage("t", tool_call_id="c"),
        mod.AIMessageChunk(content="c"),
        mod.ChatMessage(content="c", role="r"),
    ]


@pytest.mark.parametrize("options", [{}, {"indent": 2}, {"exclude_none": True}])
def test_messages_model_dump_json_as_langchains(options: dict[str, Any]) -> None:
    """hiteshwankhede_chathistory_notes: AIMessage(...).model_dump_json()."""
    ours = [m.model_dump_json(**options) for m in _messages(rl_messages)]
    theirs = [m.model_dump_json(**options) for m in _messages(lc_messages)]
    assert ours == theirs


@pytest.mark.parametrize("options", [{}, {"indent": 3}, {"exclude": {"id"}}])
def test_document_model_dump_json_as_langchains(options: dict[str, Any]) -> None:
    metadata = {
        "score": 0.1,
        "small": 1e-5,
        "tiny": -1.25e-7,
        "big": 1e20,
        "huge": 2**70,
        "text": "\u00e9\u2028\x01",
        "nested": [(), {}, [1, {"a": None}]],
        "inf": float("inf"),
    }
    ours = Document("p", metadata=metadata, id="i").model_dump_json(**options)
    theirs = LCDocument("p", metadata=metadata, id="i").model_dump_json(**options)
    assert ours == theirs


def _tutor_session(
    prompts: Any, models: Any, histories: Any, with_history: Any, inputs: list[Any]
) -> list[str]:
    """gbagents_session_history_chat: a prompt | model with history, (role, text) input."""
    store: dict[str, Any] = {}
    prompt = prompts.ChatPromptTemplate.from_messages(
        [("system", "Correct the grammar."), prompts.MessagesPlaceholder("messages")]
    )
    model = models.FakeListChatModel(responses=["One.", "Two.", "Three."])
    chat = with_history(
        prompt | model, lambda sid: store.setdefault(sid, histories.InMemoryChatMessageHistory())
    )
    seen = [
        repr(chat.invoke(given, config={"configurable": {"session_id": sid}}))
        for sid, given in inputs
    ]
    seen += [f"{sid} {history.messages!r}" for sid, history in store.items()]
    for history in store.values():
        try:
            seen.append(str(history))
        except ValueError:
            seen.append("str failed: ValueError")
    return [re.sub(r"id='[^']*'", "id=<id>", line) for line in seen]


@pytest.mark.parametrize(
    "inputs",
    [
        [("a", [("human", "I goed.")]), ("b", [("human", "She have.")]), ("a", "Fine.")],
        [("a", (("human", "x"), ("ai", "y"), ("user", "z")))],
        [("a", [lc_messages.HumanMessage("m"), ("human", "t")])],
        [("a", {"input": [("human", "d")]})],
    ],
)
def test_history_takes_role_tuples_as_langchain(inputs: list[Any]) -> None:
    theirs = _tutor_session(
        lc_prompts, lc_models, lc_chat_history, LCRunnableWithMessageHistory, inputs
    )
    ours_inputs = [
        (
            sid,
            [
                rl_messages.HumanMessage(m.content)
                if isinstance(m, lc_messages.HumanMessage)
                else m
                for m in given
            ]
            if isinstance(given, list)
            else given,
        )
        for sid, given in inputs
    ]
    ours = _tutor_session(
        rl_prompts, rl_models, rl_chat_history, RunnableWithMessageHistory, ours_inputs
    )
    assert ours == theirs


def _receiver_session(lambda_cls: Any, with_history: Any, histories: Any) -> list[Any]:
    store: dict[str, Any] = {}
    received: list[Any] = []
    chat = with_history(
        lambda_cls(lambda x: received.append(list(x)) or "ok"),
        lambda sid: store.setdefault(sid, histories.InMemoryChatMessageHistory()),
    )
    config = {"configurable": {"session_id": "s"}}
    chat.invoke([("human", "hi"), ("ai", "hello")], config=config)
    chat.invoke([("system", "again")], config=config)
    return [repr(received), repr(store["s"].messages)]


def test_history_passes_role_tuples_on_as_given() -> None:
    ours = _receiver_session(RunnableLambda, RunnableWithMessageHistory, rl_chat_history)
    theirs = _receiver_session(LCRunnableLambda, LCRunnableWithMessageHistory, lc_chat_history)
    assert ours == theirs


@pytest.mark.parametrize("given", [[1], ["hi"], [("human", "x"), 3], ("human", "hi")])
def test_history_still_rejects_other_lists(given: Any) -> None:
    chat = RunnableWithMessageHistory(
        RunnableLambda(lambda x: "ok"), lambda sid: rl_chat_history.InMemoryChatMessageHistory()
    )
    with pytest.raises(InvalidInputError, match="RunnableWithMessageHistory"):
        chat.invoke(given, config={"configurable": {"session_id": "s"}})


@pytest.mark.parametrize(
    "name",
    [
        "RecursiveCharacterTextSplitter",
        "CharacterTextSplitter",
        "MarkdownTextSplitter",
        "PythonCodeTextSplitter",
    ],
)
@pytest.mark.parametrize("bad", ["document", 1, None, b"bytes"])
@pytest.mark.parametrize("method", ["create_documents", "split_text"])
def test_splitting_a_non_str_raises_a_type_error_as_langchain(
    name: str, bad: Any, method: str
) -> None:
    """intuition_create_documents_from_docs: create_documents(docs) caught by except TypeError."""

    def attempt(mod: Any, document_cls: Any) -> str:
        splitter = getattr(mod, name)(chunk_size=10, chunk_overlap=0)
        item = document_cls("abc def ghi") if bad == "document" else bad
        try:
            getattr(splitter, method)([item] if method == "create_documents" else item)
        except TypeError:
            return "TypeError"
        return "no error"

    assert attempt(rl_splitters, Document) == attempt(lc_splitters, LCDocument) == "TypeError"


def test_splitting_a_document_names_split_documents() -> None:
    splitter = rl_splitters.RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0)
    with pytest.raises(InvalidInputError, match=r"got Document \(split_documents takes"):
        splitter.create_documents([Document("abc")])


def _stem_embeddings(base: type) -> Any:
    stems = ["cat", "dog", "moon", "car"]

    def vector(text: str) -> list[float]:
        counts = [float(text.count(stem)) for stem in stems]
        norm = sum(c * c for c in counts) ** 0.5
        return [c / norm for c in counts] if norm else counts

    class StemCounts(base):  # type: ignore[misc,valid-type]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [vector(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return vector(text)

    return StemCounts()


def _filtered_view(filter_cls: Any, embeddings_base: type, document_cls: Any) -> list[Any]:
    texts = ["cat and dog", "the moon", "cat cat car", "dog on the moon"]
    documents = [document_cls(page_content=t, metadata={"n": i}) for i, t in enumerate(texts)]
    keep = filter_cls(embeddings=_stem_embeddings(embeddings_base), k=3)
    kept = keep.compress_documents(documents, "cat moon")
    again = keep.compress_documents(kept, "cat moon")  # state replaced, not nested
    return [
        (
            type(doc).__name__,
            doc.page_content,
            doc.metadata,
            list(doc.state),
            type(doc.state["query_similarity_score"]).__name__,
            round(float(doc.state["query_similarity_score"]), 6),
            [type(x).__name__ for x in doc.state["embedded_doc"]],
            [round(float(x), 6) for x in doc.state["embedded_doc"]],
            list(doc.model_dump()),
            repr(doc.to_document()),
            str(doc),
            repr(doc).split(", state=")[0],
        )
        for doc in [*kept, *again]
    ]


def test_embeddings_filter_results_carry_langchains_state() -> None:
    """csp_compression_embeddings_filter: d.state["query_similarity_score"] of the kept."""
    import warnings

    from langchain_core.embeddings import Embeddings as LCEmbeddings

    from ragline.embeddings import Embeddings
    from ragline.retrievers import EmbeddingsFilter

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.retrievers.document_compressors import (
            EmbeddingsFilter as LCEmbeddingsFilter,
        )

        theirs = _filtered_view(LCEmbeddingsFilter, LCEmbeddings, LCDocument)
    ours = _filtered_view(EmbeddingsFilter, Embeddings, Document)
    assert ours == theirs
    assert [row[1] for row in ours[:2]] == ["the moon", "cat cat car"]  # .707, .632


def test_embeddings_filter_results_dump_as_langchains() -> None:
    """dumps of the kept documents writes LangChain's not_implemented entry for them
    (its printed form), as LangChain's dumps does; it raised TypeError."""
    import json
    import warnings

    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.load import dumps as lc_dumps

    from ragline.core.load import dumps
    from ragline.embeddings import Embeddings
    from ragline.retrievers import EmbeddingsFilter

    def entries(filter_cls: Any, embeddings_base: type, document_cls: Any, dump: Any) -> Any:
        documents = [document_cls(page_content=t) for t in ["the moon", "cat cat car"]]
        keep = filter_cls(embeddings=_stem_embeddings(embeddings_base), k=1)
        written = json.loads(dump(keep.compress_documents(documents, "cat moon")))
        # the state's floats are compared by test_embeddings_filter_results_carry_...
        return [{**entry, "repr": entry["repr"].split(", state=")[0]} for entry in written]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.retrievers.document_compressors import (
            EmbeddingsFilter as LCEmbeddingsFilter,
        )

        theirs = entries(LCEmbeddingsFilter, LCEmbeddings, LCDocument, lc_dumps)
    ours = entries(EmbeddingsFilter, Embeddings, Document, dumps)
    assert ours == theirs
    assert ours[0]["type"] == "not_implemented"
