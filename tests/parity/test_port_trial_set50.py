"""Parity: differences found by the fiftieth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# gigachat_cached_embeddings_module, opentutorial_cache_backed_embeddings_faiss,
# llm_sqlite_cache_and_query_cached_embedder_setup, streamlit_embed_file_...: a hosted
# embedding model stood in for by a DeterministicFakeEmbedding subclass that declares its
# own fields (a model name, a call counter) and re-defaults ``size``, as one does with a
# pydantic model. ragline's constructor took only ``size=`` by keyword, so the subclass
# could neither be built without arguments nor be given its declared fields.
_FAKE_EMBEDDING_SUBCLASS = """
from langchain_core.embeddings import DeterministicFakeEmbedding, FakeEmbeddings


class CountingEmbeddings(DeterministicFakeEmbedding):
    model: str = "text-embedding-3-small"
    size: int = 6
    embedded: int = 0

    def embed_documents(self, texts):
        self.embedded += len(texts)
        return super().embed_documents(texts)


class ProviderEmbeddings(DeterministicFakeEmbedding):
    size: int = 4

    def __init__(self, **kwargs):
        super().__init__()


default = CountingEmbeddings()
named = CountingEmbeddings(model="text-embedding-3-large", size=3)
print(default.model, default.size, len(default.embed_documents(["a", "b"])), default.embedded)
print(named.model, named.size, [round(float(v), 6) for v in named.embed_query("a")])
print(named.embedded, default.embedded)
provider = ProviderEmbeddings(credentials="secret", scope="corp")
print(provider.size, [round(float(v), 6) for v in provider.embed_documents(["a"])[0]])


class RandomEmbeddings(FakeEmbeddings):
    size: int = 5


print(len(RandomEmbeddings().embed_query("x")), RandomEmbeddings(size=2).size)
"""


def test_a_fake_embedding_subclass_declares_fields_and_re_defaults_size() -> None:
    ported = _ported(_FAKE_EMBEDDING_SUBCLASS)
    langchain_printed = _printed(_FAKE_EMBEDDING_SUBCLASS)
    assert langchain_printed.splitlines()[0] == "text-embedding-3-small 6 2 2"
    assert langchain_printed.splitlines()[3].startswith("4 [")
    assert _printed(ported) == langchain_printed


# document_db_record_manager_upsert_delete: SQLRecordManager built the way LangChain's
# constructor reads, with engine= (None, or a SQLAlchemy engine) beside db_url= and
# engine_kwargs=; ragline's took db_url= only, so the program stopped at TypeError.
_RECORD_MANAGER_ENGINE = """
import warnings
warnings.filterwarnings("ignore")
from sqlalchemy import create_engine
from langchain_classic.indexes import SQLRecordManager, index
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

docs = [Document(page_content="Refund policy: 30 days.", metadata={"source": "refunds.md"})]
for kwargs in (
    {"engine": None, "db_url": "sqlite:///{folder}/a.sql", "engine_kwargs": {},
     "async_mode": False},
    {"engine": create_engine("sqlite:///{folder}/b.sql"), "engine_kwargs": {}},
):
    manager = SQLRecordManager("kb", **kwargs)
    manager.create_schema()
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    print(index(docs, manager, store, cleanup="incremental", source_id_key="source"))
    print(index(docs, manager, store, cleanup="incremental", source_id_key="source"))
    print(len(manager.list_keys()))
for kwargs in ({}, {"engine": create_engine("sqlite://"), "db_url": "sqlite://"}):
    try:
        SQLRecordManager("kb", **kwargs)
        print("built")
    except ValueError:
        print("ValueError")
"""


def test_a_record_manager_takes_an_engine_or_a_db_url_with_engine_kwargs(tmp_path) -> None:
    lc_source = _RECORD_MANAGER_ENGINE.replace("{folder}", str(tmp_path / "lc"))
    rl_source = _RECORD_MANAGER_ENGINE.replace("{folder}", str(tmp_path / "rl"))
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    langchain_printed = _printed(lc_source)
    assert langchain_printed.count("num_added': 1") == 2
    assert langchain_printed.endswith("ValueError\nValueError\n")
    assert _printed(_ported(rl_source)) == langchain_printed


# cohere_text_rag_cached_faiss: the app wraps its text in its own Document class (a
# page_content and a metadata attribute) and hands it to split_documents; LangChain reads
# those two attributes, ragline refused anything but its Document.
_OWN_DOCUMENT_CLASS = """
from langchain_text_splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter


class Document:
    def __init__(self, text, metadata=None):
        self.page_content = text
        self.metadata = metadata or {}


text = "\\n\\n".join(f"Section {i}. Zone {i} ships on day {i}." * 3 for i in range(1, 9))
for splitter in (CharacterTextSplitter(chunk_size=120, chunk_overlap=30),
                 RecursiveCharacterTextSplitter(chunk_size=80, chunk_overlap=0)):
    chunks = splitter.split_documents([Document(text), Document("short", {"p": 2})])
    print(type(chunks[0]).__name__, len(chunks), [len(c.page_content) for c in chunks])
    print(chunks[-1].metadata, chunks[0].metadata)
"""


def test_split_documents_reads_a_programs_own_document_class() -> None:
    ported = _ported(_OWN_DOCUMENT_CLASS)
    langchain_printed = _printed(_OWN_DOCUMENT_CLASS)
    assert langchain_printed.startswith("Document ")
    assert "{'p': 2} {}" in langchain_printed
    assert _printed(ported) == langchain_printed


# kicj_cached_faiss_bm25_ensemble_reorder: EnsembleRetriever(retrievers=[...],
# weight={0.7, 0.3}, search_type="mmr"): a misspelt weights and a keyword the ensemble
# has no use for. LangChain's pydantic model ignores both (equal weights); ragline raised
# TypeError.
_ENSEMBLE_STRAY_KEYWORDS = """
from langchain_community.retrievers import BM25Retriever
from langchain_classic.retrievers import EnsembleRetriever

texts = ["youth crime fell", "prison crowding persists", "job training cut reoffending"]
a = BM25Retriever.from_texts(texts)
a.k = 2
b = BM25Retriever.from_texts(list(reversed(texts)))
b.k = 2
ensemble = EnsembleRetriever(retrievers=[a, b], weight={0.7, 0.3}, search_type="mmr",
                             tags=["hybrid"])
print(type(ensemble).__name__, ensemble.weights, len(ensemble.retrievers), ensemble.tags)
print([d.page_content for d in ensemble.invoke("youth crime")])
"""


def test_ensemble_retriever_ignores_keywords_it_does_not_have() -> None:
    ported = _ported(_ENSEMBLE_STRAY_KEYWORDS)
    langchain_printed = _printed(_ENSEMBLE_STRAY_KEYWORDS)
    assert langchain_printed.startswith("EnsembleRetriever [0.5, 0.5] 2 ['hybrid']\n")
    assert _printed(ported) == langchain_printed


# beapp_custom_loader_index_full_domains, rust_project_indexer_cached_ensemble: a
# BaseLoader subclass imported from langchain_community.document_loaders.base, a path the
# table lacked, so the ported program kept LangChain's loader class.
_COMMUNITY_LOADER_BASE = """
from langchain_community.document_loaders.base import BaseLoader
from langchain_core.documents import Document


class JsonItemsLoader(BaseLoader):
    def __init__(self, items):
        self.items = items

    def lazy_load(self):
        for i, item in enumerate(self.items):
            yield Document(page_content=item, metadata={"source": "contacts.json", "row": i})


loader = JsonItemsLoader(["ana", "bo"])
print([d.page_content for d in loader.load()], isinstance(loader, BaseLoader))
print([d.metadata for d in loader.lazy_load()])
"""


def test_the_community_loader_base_path_ports() -> None:
    ported = _ported(_COMMUNITY_LOADER_BASE)
    assert "from ragline.loaders import BaseLoader\n" in ported
    langchain_printed = _printed(_COMMUNITY_LOADER_BASE)
    assert langchain_printed.startswith("['ana', 'bo'] True\n")
    assert _printed(ported) == langchain_printed


# rust_project_indexer_cached_ensemble: HuggingFaceEmbeddings(model_name=...,
# multi_process=False, model_kwargs={"device": "cpu"}) inside an lru_cache'd factory;
# ragline's constructor had no multi_process keyword (TypeError).
_MULTI_PROCESS_KEYWORD = """
from langchain_community.embeddings import HuggingFaceEmbeddings

embeddings = HuggingFaceEmbeddings(model_name={path!r}, multi_process=False,
                                   model_kwargs={{"device": "cpu"}})
vector = embeddings.embed_query("fn dispatch(&self, req: &Request) -> Response")
print(len(vector), [round(v, 4) for v in vector[:4]])
print(len(embeddings.embed_documents(["pub struct Router", "pub fn new() -> Self"])))
"""


def test_hugging_face_embeddings_take_the_multi_process_keyword(minilm_path: str) -> None:
    source = _MULTI_PROCESS_KEYWORD.format(path=minilm_path)
    langchain_printed = _printed(source)
    assert langchain_printed.startswith("384 [")
    assert _printed(_ported(source)) == langchain_printed
