"""Parity: small known gaps of issue 24 (session 21), one scenario each.

Each scenario runs the same program through LangChain and through ragline (its source
after ``ragline port``) and compares what it prints; where ragline keeps a documented
difference, both sides are pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.core import ConfigurableField, PromptTemplate, RunnableLambda
from ragline.core.exceptions import ArgumentTypeError, ConfigurationError, InvalidInputError
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import FAISS, InMemoryVectorStore
from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# hybrid_threshold_and_topk_retrievers (set 57): a k that is no int at all fails with a
# TypeError in LangChain's stores; a program's `except TypeError` must catch ragline's too.
_K_OF_WRONG_TYPE = """
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

texts = ["alpha", "beta", "gamma", "delta"]
embedding = DeterministicFakeEmbedding(size=8)
fdb = FAISS.from_texts(texts, embedding)
mdb = InMemoryVectorStore.from_texts(texts, embedding)
calls = [
    ("faiss retriever k=None", lambda: fdb.as_retriever(search_kwargs={"k": None}).invoke("alpha")),
    ("faiss search k=None", lambda: fdb.similarity_search("alpha", k=None)),
    ("faiss search k='3'", lambda: fdb.similarity_search("alpha", k="3")),
    ("faiss scores k=2.0", lambda: fdb.similarity_search_with_score("alpha", k=2.0)),
    ("faiss mmr k=None", lambda: fdb.max_marginal_relevance_search("alpha", k=None)),
    ("memory retriever k='3'", lambda: mdb.as_retriever(search_kwargs={"k": "3"}).invoke("alpha")),
    ("memory search k=2.0", lambda: mdb.similarity_search("alpha", k=2.0)),
    ("memory mmr k=None", lambda: mdb.max_marginal_relevance_search("alpha", k=None)),
]
for label, call in calls:
    try:
        call()
    except TypeError as err:
        print(label, "->", type(err).__name__)
"""


def test_k_of_the_wrong_type_is_a_type_error_as_in_langchain() -> None:
    langchain_printed = _printed(_K_OF_WRONG_TYPE)
    assert langchain_printed.count(" -> TypeError\n") == 8
    assert _printed(_ported(_K_OF_WRONG_TYPE)) == langchain_printed


@pytest.mark.parametrize("k", [None, "3", 2.0])
@pytest.mark.parametrize("store_class", [FAISS, InMemoryVectorStore])
def test_k_of_the_wrong_type_is_both_ragline_errors_and_a_type_error(
    store_class: type, k: object
) -> None:
    store = store_class.from_texts(["alpha", "beta"], DeterministicFakeEmbedding(size=8))
    with pytest.raises(ArgumentTypeError) as caught:
        store.similarity_search("alpha", k=k)
    assert isinstance(caught.value, InvalidInputError)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, TypeError)
    assert str(caught.value) == f"k must be an int >= 1, got {k!r}"


# A k out of range keeps ragline's own error (docs/differences-from-langchain.md):
# LangChain's FAISS fails an `assert` inside faiss (AssertionError, no message), its
# InMemoryVectorStore slices ([] for k=0, all but the last for k=-1, all for k=None).
_K_OUT_OF_RANGE = """
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

texts = ["alpha", "beta", "gamma", "delta"]
embedding = DeterministicFakeEmbedding(size=8)
stores = {
    "faiss": FAISS.from_texts(texts, embedding),
    "memory": InMemoryVectorStore.from_texts(texts, embedding),
}
for name, store in stores.items():
    for k in (0, -1, None):
        try:
            print(name, k, len(store.similarity_search("alpha", k=k)))
        except Exception as err:
            print(name, k, type(err).__name__, isinstance(err, ValueError))
"""


def test_k_out_of_range_is_refused_where_langchain_asserts_or_slices() -> None:
    assert _printed(_K_OUT_OF_RANGE) == (
        "faiss 0 AssertionError False\n"
        "faiss -1 AssertionError False\n"
        "faiss None TypeError False\n"
        "memory 0 0\n"
        "memory -1 3\n"
        "memory None 4\n"
    )
    assert _printed(_ported(_K_OUT_OF_RANGE)) == (
        "faiss 0 InvalidInputError True\n"
        "faiss -1 InvalidInputError True\n"
        "faiss None TypeError True\n"
        "memory 0 InvalidInputError True\n"
        "memory -1 InvalidInputError True\n"
        "memory None TypeError True\n"
    )


# A function that takes the run's config reads an id of its own (user_id) while calling a
# configurable model. Since f089d53 the lambda lists the model's "llm", so ragline took
# "user_id" for a misspelt id and refused it; LangChain runs it. A misspelt id in a tree
# where no function reads the config is still refused (the deliberate difference).
_FUNCTION_READS_ITS_OWN_ID = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import ConfigurableField, RunnableConfig, RunnableLambda
from langchain_core.runnables import RunnablePassthrough, chain

model = FakeListChatModel(responses=["main answer"]).configurable_alternatives(
    ConfigurableField(id="llm"), default_key="main", other=FakeListChatModel(responses=["other"])
)


@chain
def ask(inputs, config: RunnableConfig):
    return config["configurable"]["user_id"] + ": " + model.invoke(inputs["q"], config).content


print(ask.invoke({"q": "hi"}, {"configurable": {"user_id": "u7"}}))
print(ask.invoke({"q": "hi"}, {"configurable": {"user_id": "u7", "llm": "other"}}))
full = RunnablePassthrough.assign(answer=ask) | (lambda x: x["answer"])
print(full.invoke({"q": "hi"}, {"configurable": {"user_id": "u8", "llm": "other"}}))


def signed(text, config):
    return config["configurable"].get("user_id", "?") + " " + text


prompt = PromptTemplate.from_template("{q}").configurable_fields(
    template=ConfigurableField(id="tpl")
)
tree = prompt | (lambda p: p.to_string()) | RunnableLambda(signed)
print(tree.invoke({"q": "x"}, {"configurable": {"user_id": "u9", "tpl": "T {q}"}}))
"""


def test_a_function_that_takes_the_config_may_read_ids_no_field_declares(
    tmp_path: Path,
) -> None:
    # run from a real file: both libraries read the function's source to find its deps
    source = _FUNCTION_READS_ITS_OWN_ID
    langchain_printed = _printed(source, tmp_path / "langchain_side.py")
    assert langchain_printed.splitlines() == ["u7: main answer", "u7: other", "u8: other", "u9 T x"]
    assert _printed(_ported(source), tmp_path / "ragline_side.py") == langchain_printed


def test_a_misspelt_id_is_still_refused_where_no_function_reads_the_config() -> None:
    prompt = PromptTemplate.from_template("{q}").configurable_fields(
        template=ConfigurableField(id="tpl")
    )
    tree = prompt | (lambda p: p.to_string()) | RunnableLambda(lambda text: text.upper())
    with pytest.raises(ConfigurationError) as caught:
        tree.invoke({"q": "x"}, {"configurable": {"tlp": "T {q}"}})
    assert str(caught.value) == (
        "unknown configurable id(s) 'tlp' for RunnableSequence; known ids are 'tpl'"
    )


# LangChain's fake embeddings are pydantic models: equal when of one class with equal
# fields, printed by their fields. ragline's compared by identity and printed str as repr.
_FAKE_EMBEDDINGS_COMPARED = """
from langchain_core.embeddings import DeterministicFakeEmbedding, FakeEmbeddings


class Named(DeterministicFakeEmbedding):
    model: str = "fake v1"


print(DeterministicFakeEmbedding(size=8) == DeterministicFakeEmbedding(size=8))
print(DeterministicFakeEmbedding(size=8) != DeterministicFakeEmbedding(size=9))
random = FakeEmbeddings(size=8)
print(random == FakeEmbeddings(size=8), random == FakeEmbeddings(size=4))
print(DeterministicFakeEmbedding(size=8) == FakeEmbeddings(size=8))
print(Named(size=3) == Named(size=3), Named(size=3) == DeterministicFakeEmbedding(size=3))
print(DeterministicFakeEmbedding(size=8) in [random, DeterministicFakeEmbedding(size=8)])
print(DeterministicFakeEmbedding(size=8) == "size=8")
print(str(DeterministicFakeEmbedding(size=8)), "|", FakeEmbeddings(size=2), "|", Named(size=3))
print(repr(Named(size=3)), [DeterministicFakeEmbedding(size=8), FakeEmbeddings(size=2)])
"""


def test_fake_embeddings_are_equal_and_printed_by_their_fields() -> None:
    langchain_printed = _printed(_FAKE_EMBEDDINGS_COMPARED)
    assert langchain_printed.splitlines() == [
        "True",
        "True",
        "True False",
        "False",
        "True False",
        "True",
        "False",
        "size=8 | size=2 | size=3 model='fake v1'",
        "Named(size=3, model='fake v1') "
        "[DeterministicFakeEmbedding(size=8), FakeEmbeddings(size=2)]",
    ]
    assert _printed(_ported(_FAKE_EMBEDDINGS_COMPARED)) == langchain_printed


# faiss_uuid_add_documents_save_load (set 57): two stores built on one faiss index object.
# LangChain's share it, and each keeps its own position -> id map, so an add to one makes
# the other's search fail (KeyError: a position its map lacks) and its next add map the
# wrong position. ragline's store copies the vectors into an id-mapped index of its own
# (docs/differences-from-langchain.md): the given index stays as it was.
_TWO_STORES_ON_ONE_INDEX = """
import faiss
from langchain_community.docstore.in_memory import InMemoryDocstore
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding

embedding = DeterministicFakeEmbedding(size=8)
raw = faiss.IndexFlatL2(8)
first, second = (
    FAISS(embedding, index=raw, docstore=InMemoryDocstore(), index_to_docstore_id={})
    for _ in range(2)
)
first.add_texts(["alpha", "beta", "gamma"], ids=["a", "b", "c"])
print(raw.ntotal, first.index.ntotal, second.index.ntotal, first.index is raw)
print([d.page_content for d in first.similarity_search("alpha", k=2)])
for query in ("alpha", "delta"):
    try:
        print([d.page_content for d in second.similarity_search(query, k=1)])
    except KeyError as err:
        print("KeyError", int(err.args[0]))
    second.add_texts([query + "!"], ids=[query])
print(raw.ntotal, second.index_to_docstore_id)
"""


def test_two_stores_on_one_faiss_index_share_it_in_langchain_only() -> None:
    assert _printed(_TWO_STORES_ON_ONE_INDEX).splitlines() == [
        "3 3 3 True",
        "['alpha', 'gamma']",
        "KeyError 0",
        "KeyError 2",
        "5 {0: 'alpha', 1: 'delta'}",
    ]
    assert _printed(_ported(_TWO_STORES_ON_ONE_INDEX)).splitlines() == [
        "0 3 0 False",
        "['alpha', 'gamma']",
        "[]",
        "['alpha!']",
        "0 {0: 'alpha', 1: 'delta'}",
    ]
