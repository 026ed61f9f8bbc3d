"""Parity: differences found by the thirty-eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import warnings

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# content_engine_merger_redundant_reorder: ContextualCompressionRetriever(...,
# search_kwargs={"k": 3, "include_metadata": True}), as LangChain's merger-retriever guide
# writes it; LangChain drops the keyword, ragline refused it with a TypeError.
_COMPRESSION_WITH_SEARCH_KWARGS = """
from langchain_community.retrievers import BM25Retriever
from langchain_community.document_transformers import LongContextReorder
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_classic.retrievers.document_compressors import DocumentCompressorPipeline

base = BM25Retriever.from_texts(
    ["cats purr", "cats sleep all day", "dogs bark", "cats and dogs play", "fish swim"],
    metadatas=[{"n": i} for i in range(5)],
    k=4,
)
pipeline = DocumentCompressorPipeline(transformers=[LongContextReorder()])
retriever = ContextualCompressionRetriever(
    base_compressor=pipeline,
    base_retriever=base,
    search_kwargs={"k": 3, "include_metadata": True},
)
for doc in retriever.invoke("cats"):
    print(doc.metadata, doc.page_content)
print(len(retriever.batch(["dogs", "fish"])[1]))
"""


def test_compression_retriever_drops_search_kwargs_as_langchains() -> None:
    ported = _ported(_COMPRESSION_WITH_SEARCH_KWARGS)
    langchain_printed = _printed(_COMPRESSION_WITH_SEARCH_KWARGS)
    assert langchain_printed.count("\n") == 5
    assert _printed(ported) == langchain_printed


def test_compression_retriever_warns_about_the_keywords_it_drops() -> None:
    from ragline.retrievers import (
        BM25Retriever,
        ContextualCompressionRetriever,
        DocumentCompressorPipeline,
        LongContextReorder,
    )

    base = BM25Retriever.from_texts(["cats purr", "dogs bark"], k=2)
    reorder = DocumentCompressorPipeline(transformers=[LongContextReorder()])
    with pytest.warns(UserWarning, match=r"ignores 'search_kwargs': .*base_retriever"):
        retriever = ContextualCompressionRetriever(
            base_compressor=reorder, base_retriever=base, search_kwargs={"k": 1}, tags=["x"]
        )
    assert retriever.tags == ["x"]  # a retriever field in LangChain, kept as there
    # k=1 is not applied: the base retriever's k (2) decides, as in LangChain
    assert sorted(d.page_content for d in retriever.invoke("cats")) == ["cats purr", "dogs bark"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the two real arguments alone warn nothing
        ContextualCompressionRetriever(base_compressor=reorder, base_retriever=base)


# faiss_record_manager_notes_store: init() loads the FAISS folder and, on a first run,
# catches LangChain's RuntimeError ("could not open" the index file) to build an empty
# store; ragline's PersistenceError (an OSError) went past the except and ended the run.
_FIRST_RUN_BUILDS_A_STORE = """
import faiss
from langchain_community.vectorstores import FAISS
from langchain_community.docstore.in_memory import InMemoryDocstore
from langchain_core.embeddings import DeterministicFakeEmbedding

emb = DeterministicFakeEmbedding(size=8)


def init(path):
    try:
        store = FAISS.load_local(path, emb, allow_dangerous_deserialization=True)
        print("loaded", store.index.ntotal)
    except RuntimeError as e:
        if "could not open" in str(e):
            print("no index yet: a new one")
            store = FAISS(
                index=faiss.IndexFlatL2(8),
                embedding_function=emb,
                docstore=InMemoryDocstore(),
                index_to_docstore_id={},
            )
        else:
            raise
    return store


store = init("db/faiss_db")
store.add_texts(["kitty", "doggy"], ids=["k", "d"])
store.save_local("db/faiss_db")
store = init("db/faiss_db")
print(sorted(store.index_to_docstore_id.values()))
store = init("db/other_db")
print(store.index.ntotal)
"""


def test_a_missing_faiss_folder_is_caught_as_a_runtime_error_as_langchains(
    tmp_path, monkeypatch
) -> None:
    ported = _ported(_FIRST_RUN_BUILDS_A_STORE)
    (tmp_path / "lc").mkdir()
    monkeypatch.chdir(tmp_path / "lc")
    langchain_printed = _printed(_FIRST_RUN_BUILDS_A_STORE)
    assert langchain_printed.count("\n") == 5
    (tmp_path / "rl").mkdir()
    monkeypatch.chdir(tmp_path / "rl")
    assert _printed(ported) == langchain_printed


def test_a_missing_faiss_store_is_still_a_persistence_error(tmp_path) -> None:
    from ragline.core import PersistenceError
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import FAISS

    for folder in (tmp_path / "absent", tmp_path):  # no folder; a folder without the store
        with pytest.raises(PersistenceError, match="could not open a saved FAISS store") as err:
            FAISS.load_local(folder, DeterministicFakeEmbedding(size=4))
        assert isinstance(err.value, OSError) and isinstance(err.value, RuntimeError)


# recipes_faiss_from_embeddings_dataframe (``-> Output`` from langchain_core.runnables.utils)
# and knowledge_base_tool_faiss_merge (``from langchain.vectorstores.faiss import FAISS``):
# the path table had neither name, so each ported program kept a LangChain import.
COVERS = {"core.Input", "core.Output"}

_TYPE_VARIABLES_AND_FAISS_MODULE = """
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.runnables.utils import Input, Output
from langchain_classic.vectorstores.faiss import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding


def query(chain: Runnable, question: Input) -> Output:
    return chain.invoke(question)


store = FAISS.from_texts(["salmon with walnuts", "lentil soup"], DeterministicFakeEmbedding(size=8))
print(query(RunnableLambda(lambda q: q.upper()), "salmon"))
print(Input.__name__, Output.__name__, len(store.index_to_docstore_id))
print(sorted(d.page_content for d in store.similarity_search("soup", k=2)))
"""


def test_runnable_type_variables_and_the_classic_faiss_module_port() -> None:
    ported = _ported(_TYPE_VARIABLES_AND_FAISS_MODULE)
    assert "from ragline.core.runnables import Input, Output\n" in ported
    assert "from ragline.vectorstores import FAISS\n" in ported
    langchain_printed = _printed(_TYPE_VARIABLES_AND_FAISS_MODULE)
    assert langchain_printed == "SALMON\nInput Output 2\n['lentil soup', 'salmon with walnuts']\n"
    assert _printed(ported) == langchain_printed
