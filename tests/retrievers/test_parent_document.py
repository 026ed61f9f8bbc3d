"""ParentDocumentRetriever: children indexed with the parent id, parents as JSON, exact results."""

from __future__ import annotations

import json

import pytest

from ragline.core import (
    ConfigurationError,
    Document,
    InMemoryByteStore,
    InvalidInputError,
    LocalFileStore,
    RunCollectorCallbackHandler,
)
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import InMemoryDocumentStore, ParentDocumentRetriever, create_kv_docstore
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.vectorstores import InMemoryVectorStore

PARENTS = [
    Document("Cats purr when happy.\nDogs bark at night.", {"source": "pets.txt"}, id="pets"),
    Document("Stock prices fell.\nBond yields rose.", {"source": "money.txt"}, id="money"),
    Document("Kittens purr too.\nParrots talk.", {"source": "more-pets.txt"}, id="more"),
]
KEYS = [d.id for d in PARENTS]  # keyed by Document.id (without ids=: new uuid4 keys)


def lines():
    return RecursiveCharacterTextSplitter(chunk_size=22, chunk_overlap=0, separators=["\n"])


def build(docstore=None, **options):
    store = InMemoryVectorStore(HashingEmbeddings(dimension=256))
    retriever = ParentDocumentRetriever(
        vectorstore=store,
        docstore=docstore if docstore is not None else InMemoryByteStore(),
        child_splitter=lines(),
        **options,
    )
    return retriever, store


def test_children_carry_the_parent_id_and_parents_are_stored_as_json():
    raw = InMemoryByteStore()
    retriever, store = build(raw)
    retriever.add_documents(PARENTS, ids=KEYS)
    children = store.get_by_ids(["pets-0", "pets-1", "money-0", "money-1", "more-0", "more-1"])
    assert [(c.id, c.page_content, c.metadata) for c in children[:2]] == [
        ("pets-0", "Cats purr when happy.", {"source": "pets.txt", "doc_id": "pets"}),
        ("pets-1", "Dogs bark at night.", {"source": "pets.txt", "doc_id": "pets"}),
    ]
    assert store.count() == 6
    assert sorted(raw.yield_keys()) == ["money", "more", "pets"]
    # LangChain's create_kv_docstore form (its dumps of the Document)
    assert json.loads(raw.mget(["pets"])[0]) == {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "document", "Document"],
        "kwargs": {
            "id": "pets",
            "metadata": {"source": "pets.txt"},
            "page_content": "Cats purr when happy.\nDogs bark at night.",
            "type": "Document",
        },
    }


def test_retrieval_returns_each_parent_once_in_the_order_of_its_best_child():
    retriever, store = build(search_kwargs={"k": 3})
    retriever.add_documents(PARENTS, ids=KEYS)
    assert [c.id for c in store.similarity_search("cats purr", k=3)] == [
        "pets-0",
        "more-0",
        "money-0",
    ]
    assert retriever.invoke("cats purr") == [PARENTS[0], PARENTS[2], PARENTS[1]]
    # two children of "money" among the three best: it is returned once, at its best rank
    assert [c.id for c in store.similarity_search("bond yields", k=3)] == [
        "money-1",
        "money-0",
        "pets-1",
    ]
    assert retriever.invoke("bond yields") == [PARENTS[1], PARENTS[0]]


def test_the_child_search_is_a_child_run():
    retriever, _ = build(search_kwargs={"k": 1})
    retriever.add_documents(PARENTS, ids=KEYS)
    collector = RunCollectorCallbackHandler()
    assert retriever.invoke("parrots talk", {"callbacks": [collector]}) == [PARENTS[2]]
    (run,) = collector.traced_runs
    assert run.tree() == ("ParentDocumentRetriever", [("VectorStoreRetriever", [])])
    assert [c.id for c in run.children[0].outputs["documents"]] == ["more-1"]
    assert run.outputs == {"documents": [PARENTS[2]]}


def test_generated_and_given_ids():
    retriever, store = build()
    retriever.add_documents([Document("no id here.\nsecond line.")])
    (key,) = list(retriever.docstore.yield_keys())
    assert len(key) == 36  # a uuid4
    # the stored parent keeps its own id (None here), not its key (as LangChain's does)
    assert retriever.invoke("second line") == [Document("no id here.\nsecond line.")]
    retriever.add_documents(PARENTS[:1], ids=["custom"])
    assert retriever.docstore.mget(["custom"]) == [PARENTS[0]]
    assert retriever.invoke("cats purr")[0] == PARENTS[0]  # id "pets", stored under "custom"
    assert store.get_by_ids(["custom-0"])[0].metadata["doc_id"] == "custom"
    # without ids= the key is a new uuid4 even when Document.id is set (as LangChain's)
    retriever.add_documents(PARENTS[1:2])
    assert len(list(retriever.docstore.yield_keys())) == 3
    assert "money" not in list(retriever.docstore.yield_keys())
    assert retriever.invoke("bond yields")[0] == PARENTS[1]


def test_adding_a_parent_again_replaces_it_and_its_children():
    retriever, store = build()
    retriever.add_documents(PARENTS, ids=KEYS)
    changed = Document(
        "Cats sleep all day.\nDogs bark at night.", {"source": "pets.txt"}, id="pets"
    )
    retriever.add_documents([changed], ids=["pets"])
    assert store.count() == 6
    assert store.get_by_ids(["pets-0"])[0].page_content == "Cats sleep all day."
    assert retriever.invoke("cats sleep")[0] == changed


def test_parent_splitter_cuts_parents_first():
    retriever, store = build(
        parent_splitter=RecursiveCharacterTextSplitter(
            chunk_size=45, chunk_overlap=0, separators=["\n\n"]
        )
    )
    book = Document("Cats purr.\nDogs bark.\n\nStocks fell.\nBonds rose.", {"source": "book"})
    retriever.add_documents([book])
    # parents: "Cats purr.\nDogs bark." (one child) and "Stocks fell.\nBonds rose." (two)
    assert store.count() == 3
    found = retriever.invoke("bonds rose")
    assert [(d.page_content, d.metadata) for d in found] == [
        ("Stocks fell.\nBonds rose.", {"source": "book"}),
        ("Cats purr.\nDogs bark.", {"source": "book"}),
    ]
    assert [d.id for d in found] == [None, None]  # the split parents have no id of their own
    assert all(len(key) == 36 for key in retriever.docstore.yield_keys())  # uuid4 keys
    with pytest.raises(InvalidInputError, match="cannot take ids with a parent_splitter"):
        retriever.add_documents([book], ids=["b"])


def test_child_metadata_fields_limit_what_children_carry():
    retriever, store = build(child_metadata_fields=["source"])
    retriever.add_documents([Document("Cats purr.", {"source": "s", "secret": 1})], ids=["p"])
    assert store.get_by_ids(["p-0"])[0].metadata == {"source": "s", "doc_id": "p"}
    assert retriever.invoke("cats")[0].metadata == {"source": "s", "secret": 1}


def test_custom_id_key_and_document_stores(tmp_path):
    for docstore in (
        InMemoryDocumentStore(),
        LocalFileStore(tmp_path / "parents"),
        create_kv_docstore(InMemoryByteStore()),
    ):
        retriever, store = build(docstore, id_key="parent")
        retriever.add_documents(PARENTS, ids=KEYS)
        assert store.get_by_ids(["money-0"])[0].metadata["parent"] == "money"
        # the 4 best children: money-0, money-1, more-0, then of more-1 and pets-1 (both
        # 0.0) the one added later, as LangChain's InMemoryVectorStore orders equal scores
        assert retriever.invoke("stock prices") == [PARENTS[1], PARENTS[2]]
    assert json.loads((tmp_path / "parents" / "pets").read_bytes())["kwargs"]["id"] == "pets"


def test_byte_store_is_langchains_other_spelling():
    retriever = ParentDocumentRetriever(
        InMemoryVectorStore(HashingEmbeddings(dimension=64)),
        byte_store=InMemoryByteStore(),
        child_splitter=lines(),
    )
    retriever.add_documents(PARENTS, ids=KEYS)
    assert retriever.invoke("parrots")[0] == PARENTS[2]


def test_a_parent_missing_from_the_docstore_is_skipped():
    retriever, _ = build(search_kwargs={"k": 3})
    retriever.add_documents(PARENTS, ids=KEYS)
    retriever.docstore.mdelete(["pets"])
    assert retriever.invoke("cats purr") == [PARENTS[2], PARENTS[1]]


def test_add_to_docstore_false_indexes_children_only():
    retriever, store = build()
    retriever.add_documents(PARENTS[:1], ids=["pets"], add_to_docstore=False)
    assert store.count() == 2
    assert list(retriever.docstore.yield_keys()) == []
    with pytest.raises(InvalidInputError, match="add_to_docstore=False needs the parents' ids="):
        retriever.add_documents([Document("no id")], add_to_docstore=False)


@pytest.mark.parametrize(
    ("documents", "ids", "message"),
    [
        (PARENTS, ["a"], "got 1 ids for 3 documents"),
        (PARENTS[:2], ["a", "a"], "unique non-empty str ids, got repeated 'a'"),
        (PARENTS[:1], [""], "unique non-empty str ids, got empty or non-str ''"),
        ([Document("x", {"when": object()}, id="bad")], None, "metadata is not JSON-serializable"),
        ([Document("x", {"n": float("nan")}, id="bad")], None, "metadata is not JSON-serializable"),
        (["text"], None, r"documents\[0\] must be a Document, got str"),
        (PARENTS[0], None, "needs a list of Document, got Document"),
    ],
)
def test_bad_input_writes_nothing(documents, ids, message):
    raw = InMemoryByteStore()
    retriever, store = build(raw)
    retriever.add_documents(PARENTS[1:2], ids=["money"])
    with pytest.raises(InvalidInputError, match=message):
        retriever.add_documents(documents, ids=ids)
    assert store.count() == 2
    assert list(raw.yield_keys()) == ["money"]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        (
            {"child_splitter": None},
            InvalidInputError,
            "child_splitter needs a split_documents method",
        ),
        (
            {"parent_splitter": "x"},
            InvalidInputError,
            "parent_splitter needs a split_documents method",
        ),
        ({"id_key": ""}, InvalidInputError, "id_key must be a non-empty str"),
        ({"search_kwargs": {"k": 0}}, InvalidInputError, "k"),
        ({"search_type": "simlarity"}, ConfigurationError, "search_type 'simlarity' is not one of"),
        (
            {"child_metadata_fields": "source"},
            InvalidInputError,
            "child_metadata_fields must be a list of str",
        ),
        (
            {"docstore": {}},
            InvalidInputError,
            "docstore must be an InMemoryDocumentStore or a BaseStore",
        ),
        (
            {"byte_store": InMemoryByteStore()},
            InvalidInputError,
            "exactly one of docstore and byte_store",
        ),
        ({"vectorstore": "faiss"}, InvalidInputError, "vectorstore must be a VectorStore, got str"),
    ],
)
def test_bad_options_are_rejected(options, error, message):
    arguments = {
        "vectorstore": InMemoryVectorStore(HashingEmbeddings(dimension=64)),
        "docstore": InMemoryByteStore(),
        "child_splitter": lines(),
        **options,
    }
    with pytest.raises(error, match=message):
        ParentDocumentRetriever(**arguments)


def test_a_search_kwargs_key_the_search_does_not_take_is_ignored_and_named():
    with pytest.warns(UserWarning, match="search_kwargs 'top_k' ignored"):
        ParentDocumentRetriever(
            vectorstore=InMemoryVectorStore(HashingEmbeddings(dimension=64)),
            docstore=InMemoryByteStore(),
            child_splitter=lines(),
            search_kwargs={"k": 2, "top_k": 3},
        )


async def test_async_add_and_search():
    retriever, store = build(search_kwargs={"k": 3})
    await retriever.aadd_documents(PARENTS, ids=KEYS)
    assert store.count() == 6
    assert await retriever.ainvoke("cats purr") == [PARENTS[0], PARENTS[2], PARENTS[1]]
    assert await retriever.abatch(["cats purr", "parrots"]) == retriever.batch(
        ["cats purr", "parrots"]
    )


def test_in_memory_document_store_keeps_copies():
    store = InMemoryDocumentStore()
    document = Document("x", {"n": 1})
    store.mset([("a", document)])
    document.metadata["n"] = 2
    got = store.mget(["a"])[0]
    got.metadata["n"] = 3
    assert store.mget(["a", "b"]) == [Document("x", {"n": 1}), None]
    assert list(store.yield_keys(prefix="a")) == ["a"] and list(store.yield_keys(prefix="b")) == []
    with pytest.raises(
        InvalidInputError, match=r"takes \(str, Document\) pairs, got \(str, bytes\)"
    ):
        store.mset([("b", b"raw")])
    store.mdelete(["a", "missing"])
    assert store.mget(["a"]) == [None]


async def test_batch_searches_children_once_and_reads_the_docstore_once():
    retriever, store = build(search_kwargs={"k": 3})
    retriever.add_documents(PARENTS, ids=KEYS)
    searches, reads = [], []
    search = store._search_texts
    store._search_texts = lambda queries, plan, **options: (
        searches.append(list(queries)) or search(queries, plan, **options)
    )
    mget = retriever.docstore.mget
    retriever.docstore.mget = lambda keys: reads.append(list(keys)) or mget(keys)
    collector = RunCollectorCallbackHandler()
    results = retriever.batch(["cats purr", "bond yields"], {"callbacks": [collector]})
    assert results == [[PARENTS[0], PARENTS[2], PARENTS[1]], [PARENTS[1], PARENTS[0]]]
    assert searches == [["cats purr", "bond yields"]]
    assert reads == [["pets", "more", "money"]]
    assert [run.tree() for run in collector.traced_runs] == [
        ("ParentDocumentRetriever", [("VectorStoreRetriever", [])])
    ] * 2
    assert [run.children[0].inputs for run in collector.traced_runs] == [
        {"query": "cats purr"},
        {"query": "bond yields"},
    ]
    assert await retriever.abatch(["cats purr", "bond yields"]) == results
    results[0][0].metadata["changed"] = True  # results are copies, also of a parent found twice
    assert results[1][1].metadata == {"source": "pets.txt"}
