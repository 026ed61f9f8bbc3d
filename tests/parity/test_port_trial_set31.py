"""Parity: differences found by the thirty-first port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"retrievers.EmbeddingsClusteringFilter"}

# idego_refine_documents_chain: the classic RefineDocumentsChain (two LLMChains) built
# with LangChain's initial_response_name= and called with the bare list of documents
# raised TypeError (unknown keyword), then wanted a dict under 'context'; LangChain's
# takes input_documents (a bare input is its one input key) and returns output_text.
_CLASSIC_REFINE = """
from langchain_classic.chains import LLMChain, RefineDocumentsChain
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

llm = FakeListChatModel(responses=["first take", "second take", "final take"])
docs = [Document(page_content=t, metadata={{"n": i}}) for i, t in enumerate("abc")]
initial = LLMChain(llm=llm, prompt=ChatPromptTemplate([("human", "Sum up: {{text}}")]))
refine = LLMChain(
    llm=llm,
    prompt=ChatPromptTemplate([("human", "So far: {{{name}}}\\nMore: {{text}}\\nImprove.")]),
)
chain = RefineDocumentsChain(
    initial_llm_chain=initial,
    refine_llm_chain=refine,
    document_prompt=PromptTemplate.from_template("{{page_content}}"),
    document_variable_name="text",
    initial_response_name={name!r},
)
result = {call}
print(sorted(result), result["output_text"])
print([d.page_content for d in result["input_documents"]])
print(chain.input_keys, chain.output_keys)
"""


@pytest.mark.parametrize("name", ["existing_answer", "prior_summary"])
@pytest.mark.parametrize("call", ["chain.invoke(docs)", 'chain.invoke({"input_documents": docs})'])
def test_the_classic_refine_chain_takes_initial_response_name_and_a_bare_list(
    name: str, call: str
) -> None:
    source = _CLASSIC_REFINE.format(name=name, call=call)
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines()[0] == "['input_documents', 'output_text'] final take"
    assert _printed(_ported(source)) == langchain_printed


# mail4karthickr_extractor_and_filter: LLMChainExtractor gave each extract the retrieved
# document's id; LangChain's makes a new Document (text + metadata, no id), so the
# printed documents differed (id='...').
_EXTRACTOR_IDS = """
from langchain_classic.retrievers.document_compressors import LLMChainExtractor
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM

docs = [
    Document(page_content="cats purr. dogs bark.", metadata={"n": 0}, id="doc-0"),
    Document(page_content="stocks fell.", metadata={"n": 1}, id="doc-1"),
    Document(page_content="cats sleep.", metadata={"n": 2}),
]
extractor = LLMChainExtractor.from_llm(
    FakeListLLM(responses=["cats purr.", "NO_OUTPUT", " cats sleep. "])
)
kept = extractor.compress_documents(docs, "cats")
print(kept)
print([d.id for d in kept], [d.metadata for d in kept])
"""


def test_the_extractors_documents_carry_no_id_as_langchains() -> None:
    langchain_printed = _printed(_EXTRACTOR_IDS)
    assert "[None, None] [{'n': 0}, {'n': 2}]" in langchain_printed
    assert _printed(_ported(_EXTRACTOR_IDS)) == langchain_printed


# anakonn_lotr_clustering_filter: EmbeddingsClusteringFilter (k-means over the
# documents' embeddings, the documents nearest each centre) was missing.
_CLUSTERING = """
from langchain_community.document_transformers import EmbeddingsClusteringFilter
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding

texts = [f"text number {{i}} about {{topic}}" for i, topic in enumerate(
    ["cats", "dogs", "stocks", "bonds", "rain", "sun", "cats", "bonds", "tea"]
)]
docs = [Document(page_content=t, metadata={{"i": i}}) for i, t in enumerate(texts)]
embeddings = DeterministicFakeEmbedding(size=16)
keep = EmbeddingsClusteringFilter(embeddings=embeddings, {options})
print([d.metadata["i"] for d in keep.transform_documents(docs)])
"""


@pytest.mark.parametrize(
    "options",
    [
        "num_clusters=3, num_closest=1",
        "num_clusters=3, num_closest=2",
        "num_clusters=3, num_closest=2, sorted=True",
        "num_clusters=4, num_closest=3, remove_duplicates=True",
        "num_clusters=2, num_closest=4, random_state=7",
    ],
)
def test_the_clustering_filter_keeps_langchains_documents(options: str) -> None:
    pytest.importorskip("sklearn")
    source = _CLUSTERING.format(options=options)
    ported = _ported(source)
    assert "from ragline.retrievers import EmbeddingsClusteringFilter\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed.startswith("[")
    assert _printed(ported) == langchain_printed


def test_the_clustering_filter_refuses_fewer_documents_than_clusters() -> None:
    pytest.importorskip("sklearn")
    from ragline.core import Document, InvalidInputError
    from ragline.embeddings import HashingEmbeddings
    from ragline.retrievers import EmbeddingsClusteringFilter

    keep = EmbeddingsClusteringFilter(HashingEmbeddings(dimension=8), num_clusters=3)
    assert keep.transform_documents([]) == []
    with pytest.raises(InvalidInputError, match="num_clusters=3 but got 2 documents"):
        keep.transform_documents([Document("a"), Document("b")])
    with pytest.raises(InvalidInputError, match="num_closest must be an int of at least 1"):
        EmbeddingsClusteringFilter(HashingEmbeddings(dimension=8), num_closest=0)


# saik0s_summarize_thoughts, xlusean_compressor_pipeline, xlusean_parent_kv_docstore:
# BaseLLM from langchain(_classic).llms.base, EmbeddingsRedundantFilter from
# langchain_community.document_transformers.embeddings_redundant_filter and
# create_kv_docstore from langchain(_classic).storage._lc_store were paths the table
# lacked; the programs kept LangChain's class (or failed mixing it with ragline's).
_PATHS = """
from langchain_classic.llms.base import BaseLLM
from langchain_classic.storage import InMemoryByteStore
from langchain_classic.storage._lc_store import create_kv_docstore
from langchain_community.document_transformers.embeddings_redundant_filter import (
    EmbeddingsRedundantFilter,
)
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListLLM

print(isinstance(FakeListLLM(responses=["x"]), BaseLLM))
store = create_kv_docstore(InMemoryByteStore())
store.mset([("a", Document(page_content="kept", metadata={"n": 1}))])
print(store.mget(["a", "b"]))
dedup = EmbeddingsRedundantFilter(embeddings=DeterministicFakeEmbedding(size=8))
docs = [Document(page_content=t) for t in ["same", "other", "same"]]
print([d.page_content for d in dedup.transform_documents(docs)])
"""


def test_the_llms_base_lc_store_and_redundant_filter_paths_port() -> None:
    ported = _ported(_PATHS)
    assert "from ragline.core import BaseLLM\n" in ported
    assert "from ragline.retrievers import create_kv_docstore\n" in ported
    langchain_printed = _printed(_PATHS)
    assert langchain_printed.splitlines()[0] == "True"
    assert _printed(ported) == langchain_printed


# liteli_lotr_redundant_filter / anakonn_lotr_clustering_filter: search_kwargs with a key
# the search does not take ("include_metadata", a Pinecone-era option). LangChain's FAISS
# and InMemoryVectorStore drop it (so a misspelt "top_k" silently returns the default 4);
# ragline drops it too, with a UserWarning naming it (a documented difference: the warning).
_UNKNOWN_SEARCH_KWARGS = """
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding

db = FAISS.from_texts(["a", "b", "c"], DeterministicFakeEmbedding(size=8))
try:
    found = db.as_retriever(search_kwargs={search_kwargs}).invoke("a")
    print(len(found))
except ValueError as error:
    print(type(error).__name__, error)
"""


def test_unknown_search_kwargs_are_dropped_in_both_and_named_here() -> None:
    include = _UNKNOWN_SEARCH_KWARGS.format(search_kwargs='{"k": 2, "include_metadata": True}')
    assert _printed(include) == "2\n"
    assert _printed(_ported(include)) == "2\n"
    typo = _UNKNOWN_SEARCH_KWARGS.format(search_kwargs='{"top_k": 1}')
    assert _printed(typo) == "3\n"  # the default k (4) of three texts, top_k dropped
    assert _printed(_ported(typo)) == "3\n"
    # ragline names what it drops (the program above runs with warnings hushed)
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import FAISS

    db = FAISS.from_texts(["a", "b", "c"], DeterministicFakeEmbedding(size=8))
    with pytest.warns(UserWarning, match="search_kwargs 'include_metadata' ignored"):
        db.as_retriever(search_kwargs={"k": 2, "include_metadata": True})
