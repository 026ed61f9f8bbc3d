"""Parity: differences found by the twenty-first port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"pipelines.VectorStoreIndexWrapper", "pipelines.VectorstoreIndexCreator"}


# yeyuting_retrievalqa_run_index_creator: VectorstoreIndexCreator (langchain.indexes), the
# one-call index a notebook builds from its loaders, was missing: the ported program kept
# LangChain's creator, which refused ragline's store class.
_INDEX_CREATOR = """
from langchain_classic.indexes import VectorstoreIndexCreator
from langchain_community.document_loaders import TextLoader
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListLLM
from langchain_text_splitters import CharacterTextSplitter

creator = VectorstoreIndexCreator(
    vectorstore_cls=FAISS,
    embedding=DeterministicFakeEmbedding(size=16),
    text_splitter=CharacterTextSplitter(separator="\\n\\n", chunk_size=40, chunk_overlap=0),
)
index = creator.from_loaders([TextLoader({path!r})])
store = index.vectorstore
print(type(index).__name__, type(store).__name__, store.index.ntotal)
print(sorted(doc.page_content for doc in store.docstore._dict.values()))
llm = FakeListLLM(responses=["Blue.", "Green.\\nSOURCES: {name}"])
top_two = {{"search_kwargs": {{"k": 2}}}}
print(index.query("What colour is the sky?", llm=llm, retriever_kwargs=top_two))
out = index.query_with_sources("And the grass?", llm=llm)
print(sorted(out), repr(out["answer"]), out["sources"])
try:
    index.query("No model?")
except NotImplementedError:
    print("a model is needed")
"""


def test_vectorstore_index_creator_loads_splits_stores_and_answers_as_langchains(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(
        "The sky is blue on a clear day.\n\nGrass is green in spring.\n\nSnow is white and cold.\n",
        encoding="utf-8",
    )
    source = _INDEX_CREATOR.format(path=str(notes), name=str(notes))
    ported = _ported(source)
    assert "from ragline.pipelines import VectorstoreIndexCreator\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines()[0] == "VectorStoreIndexWrapper FAISS 3"
    assert langchain_printed.splitlines()[-1] == "a model is needed"
    assert _printed(ported) == langchain_printed


# harshvardhan_xkcd_faiss_merge_loop: `import langchain` at the top of a script that
# imports every name it uses from the submodules, and never reads `langchain.` itself.
# ragline port kept the import and reported it unmapped, so the ported script still
# loaded LangChain; an unused LangChain import now goes.
_UNUSED_PLAIN_IMPORT = """
import langchain_classic
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding

main = FAISS.from_texts(["index"], DeterministicFakeEmbedding(size=8), ids=["main"])
for i, text in enumerate(["tables", "standards"]):
    add = FAISS.from_texts([text], DeterministicFakeEmbedding(size=8), ids=[f"comic_{i}"])
    main.merge_from(add)
    print("comic " + str(i + 1) + "complete")
print(main.docstore._dict)
"""


def test_an_unused_plain_langchain_import_is_dropped_by_port() -> None:
    ported = _ported(_UNUSED_PLAIN_IMPORT)
    assert ported.startswith(
        "\npass  # ragline port: an unused LangChain import was dropped\n"
        "from ragline.vectorstores import FAISS\n"
    )
    langchain_printed = _printed(_UNUSED_PLAIN_IMPORT)
    assert "'comic_1': Document(id='comic_1', metadata={}, page_content='standards')" in (
        langchain_printed
    )
    assert _printed(ported) == langchain_printed


# onerain_max_inner_product_threshold: as_retriever(search_type="similarity",
# search_kwargs={"score_threshold": 0.5, "k": 3}) on FAISS. LangChain's FAISS reads
# score_threshold in every similarity search as a bound on its native score (a floor for
# MAX_INNER_PRODUCT, a ceiling for the Euclidean distance); ragline refused the keyword.
_NATIVE_THRESHOLD = """
from langchain_community.vectorstores import FAISS
from langchain_community.vectorstores.utils import DistanceStrategy
from langchain_core.embeddings import DeterministicFakeEmbedding

texts = ["I like apples", "I like oranges", "Apples and oranges are fruits", "Cars are fast"]
embedding = DeterministicFakeEmbedding(size=16)
for strategy, threshold in (
    (DistanceStrategy.MAX_INNER_PRODUCT, {ip!r}),
    (DistanceStrategy.EUCLIDEAN_DISTANCE, {l2!r}),
):
    store = FAISS.from_texts(texts, embedding, distance_strategy=strategy)
    scored = store.similarity_search_with_score("apples", k=4)
    print([(doc.page_content, round(float(score), 4)) for doc, score in scored])
    retriever = store.as_retriever(
        search_type="similarity", search_kwargs={{"score_threshold": threshold, "k": 3}}
    )
    print([doc.page_content for doc in retriever.invoke("apples")])
    kept = store.similarity_search_with_score("apples", k=4, score_threshold=threshold)
    print([(doc.page_content, round(float(score), 4)) for doc, score in kept])
    found = store.similarity_search("apples", k=1, score_threshold=threshold)
    print([doc.page_content for doc in found])
"""


def test_a_similarity_search_score_threshold_bounds_faiss_native_scores_as_langchains() -> None:
    # thresholds between the second and third native scores of each strategy
    source = _NATIVE_THRESHOLD.format(ip=2.0, l2=35.0)
    ported = _ported(source)
    langchain_printed = _printed(source)
    lines = langchain_printed.splitlines()
    assert lines[1] == "['Apples and oranges are fruits', 'I like apples']"
    assert lines[5] == "['Apples and oranges are fruits', 'Cars are fast']"
    assert _printed(ported) == langchain_printed
