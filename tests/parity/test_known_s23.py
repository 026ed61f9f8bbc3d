"""Parity: known gaps left open by earlier port trials and reviews (issue 24, session 23).

Each scenario runs one program through LangChain and, after ``ragline port``, through
ragline, and compares what the two print.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# Port trial set 70, p29: ``as_retriever(search_type="similarity_score_threshold", k=3,
# score_threshold=0.3)`` (the threshold outside search_kwargs) is refused by both; the
# program printed the error's class, pydantic's ValidationError in LangChain.
_RETRIEVER_REFUSALS = """
import warnings
import pydantic
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.runnables import ConfigurableField
from langchain_core.vectorstores import InMemoryVectorStore

warnings.simplefilter("ignore")
store = InMemoryVectorStore(DeterministicFakeEmbedding(size=4))
for options in [
    {"search_type": "similarity_score_threshold", "k": 3, "score_threshold": 0.3},
    {"search_type": "similarity_score_threshold"},
    {"search_type": "simlarity"},
]:
    try:
        store.as_retriever(**options)
    except ValueError as e:
        print(type(e).__name__, isinstance(e, pydantic.ValidationError), e.title,
              e.error_count(), [(d["type"], d["loc"]) for d in e.errors()])
chosen = store.as_retriever().configurable_fields(search_type=ConfigurableField(id="type"))
try:
    chosen.invoke("x", config={"configurable": {"type": "similarity_score_threshold"}})
except pydantic.ValidationError as e:
    print(type(e).__name__, e.title)
"""


def test_a_retrievers_refused_options_raise_pydantics_validation_error() -> None:
    langchain_printed = _printed(_RETRIEVER_REFUSALS)
    line = "ValidationError True VectorStoreRetriever 1 [('value_error', ())]\n"
    assert langchain_printed == 3 * line + "ValidationError VectorStoreRetriever\n"
    assert _printed(_ported(_RETRIEVER_REFUSALS)) == langchain_printed


def test_a_refused_retriever_keeps_raglines_error_class_and_text() -> None:
    from ragline.core import ConfigurationError, InvalidInputError
    from ragline.embeddings import FakeEmbeddings
    from ragline.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(FakeEmbeddings(size=4))
    with pytest.raises(ConfigurationError, match="'simlarity' is not one of"):
        store.as_retriever(search_type="simlarity")
    with pytest.raises(InvalidInputError, match=r"^search_type 'similarity_score_threshold' needs"):
        store.as_retriever(search_type="similarity_score_threshold")
    with pytest.raises(TypeError) as raised:
        store.as_retriever(search_kwargs={"k": "3"})
    assert type(raised.value).__name__ == "TypeError"


# Adding reply chunks that both carry an id: LangChain keeps a provider's id (one not
# starting "lc_") over a run's "lc_run-" id over another "lc_" id, the first of equals;
# a chunk plus a list of chunks is their sum.
_CHUNK_IDS = """
from langchain_core.messages import AIMessageChunk as A, HumanMessageChunk

pairs = [("run-1", "chatcmpl-2"), ("chatcmpl-1", "lc_run-2"), ("lc_1", "msg_2"), ("p1", "p2"),
         ("lc_run-1", "lc_run-2"), ("lc_1", "lc_run-2"), ("lc_run-1", "lc_2"), (None, "x"),
         ("x", None), ("", "lc_2")]
for left, right in pairs:
    print((A(content="a", id=left) + A(content="b", id=right)).id)
print((A(content="a", id="lc_1") + A(content="b", id="lc_run-2") + A(content="c", id="p")).id)
listed = A(content="a", id="lc_1") + [A(content="b", id="lc_run-2"), A(content="c")]
print(type(listed).__name__, listed.content, listed.id)
print((HumanMessageChunk(content="a", id="lc_1") + HumanMessageChunk(content="b", id="2")).id)
"""


def test_the_id_of_added_reply_chunks_is_langchains_choice() -> None:
    langchain_printed = _printed(_CHUNK_IDS)
    assert langchain_printed.split("\n") == [
        "run-1", "chatcmpl-1", "msg_2", "p1", "lc_run-1", "lc_run-2", "lc_run-1", "x", "x",
        "lc_2", "p", "AIMessageChunk abc lc_run-2", "lc_1", "",
    ]  # fmt: skip
    assert _printed(_ported(_CHUNK_IDS)) == langchain_printed
