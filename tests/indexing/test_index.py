"""index() / aindex() over real vector stores (in-memory and FAISS), with exact counts.

The documents are small and hand-checkable: three "files" (sources) a.txt, b.txt and
c.txt with one to three chunks each. The embeddings count every text they embed, so a
test can say "nothing was re-embedded".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from ragline.core import ConfigurationError, Document, InvalidInputError
from ragline.embeddings import Embeddings, HashingEmbeddings
from ragline.indexing import (
    InMemoryRecordManager,
    RecordManager,
    SQLRecordManager,
    aindex,
    index,
)
from ragline.indexing.api import hash_document
from ragline.vectorstores import FAISS, InMemoryVectorStore, VectorStore


class CountingEmbeddings(Embeddings):
    """HashingEmbeddings that remember every text embedded; ``fail_at`` makes call N fail."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.inner = HashingEmbeddings(dimension=64)
        self.embedded: list[str] = []
        self.calls = 0
        self.fail_at = fail_at

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ConnectionError("embedding service unavailable")
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def corpus(**changes: str | None) -> list[Document]:
    """Six chunks from three sources; ``b1="new text"`` edits one, ``c0=None`` drops one."""
    texts = {
        "a0": "cats purr when content",
        "a1": "cats sleep all day",
        "a2": "kittens play with yarn",
        "b0": "dogs bark at strangers",
        "b1": "dogs love long walks",
        "c0": "mars has the largest volcano",
    }
    texts.update(changes)  # type: ignore[arg-type]
    return [
        Document(text, metadata={"source": f"{name[0]}.txt", "chunk": int(name[1])})
        for name, text in texts.items()
        if text is not None
    ]


STORES: dict[str, Callable[[Embeddings], VectorStore]] = {
    "in_memory": InMemoryVectorStore,
    "faiss": FAISS,
}


@pytest.fixture(params=sorted(STORES))
def make_store(request: pytest.FixtureRequest) -> Callable[[Embeddings], VectorStore]:
    if request.param == "faiss":
        pytest.importorskip("faiss")
    return STORES[request.param]


@pytest.fixture
def embeddings() -> CountingEmbeddings:
    return CountingEmbeddings()


@pytest.fixture
def store(
    make_store: Callable[[Embeddings], VectorStore], embeddings: CountingEmbeddings
) -> VectorStore:
    return make_store(embeddings)


@pytest.fixture
def records() -> InMemoryRecordManager:
    return InMemoryRecordManager("test")


def result(added: int = 0, updated: int = 0, skipped: int = 0, deleted: int = 0) -> dict[str, int]:
    return {
        "num_added": added,
        "num_updated": updated,
        "num_skipped": skipped,
        "num_deleted": deleted,
    }


def contents(store: VectorStore, records: RecordManager) -> list[str]:
    """The texts stored, sorted; checks that store and records hold the same keys."""
    keys = records.list_keys()
    stored = store.get_by_ids(keys)
    assert len(stored) == len(keys) == store.count()
    return sorted(doc.page_content for doc in stored)


def incremental(
    docs: Any, records: RecordManager, store: VectorStore, **options: Any
) -> dict[str, int]:
    return dict(
        index(docs, records, store, cleanup="incremental", source_id_key="source", **options)
    )


# ---------------------------------------------------------------- adding and skipping


def test_first_run_adds_everything_keyed_by_content_hash(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    """Ids are the sha256 of content + metadata; check hash_document if they differ."""
    docs = corpus()
    assert index(docs, records, store) == result(added=6)
    assert store.count() == 6
    assert len(embeddings.embedded) == 6
    expected_ids = [hash_document(doc) for doc in docs]
    assert all(len(key) == 64 for key in expected_ids)
    assert [doc.id for doc in store.get_by_ids(expected_ids)] == expected_ids
    assert sorted(records.list_keys()) == sorted(expected_ids)
    assert docs[0].id is None  # the caller's documents are not changed


def test_second_run_skips_everything_and_embeds_nothing(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    assert incremental(corpus(), records, store) == result(added=6)
    embeddings.embedded.clear()
    assert incremental(corpus(), records, store) == result(skipped=6)
    assert embeddings.embedded == []
    assert store.count() == 6


def test_a_source_split_over_batches_is_not_re_embedded(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    """batch_size=2 cuts a.txt (3 chunks) in two: a re-run must still skip it all.

    If num_deleted > 0 here, incremental cleanup ran for a source whose later chunks had
    not been seen yet in this run (see sources_to_clean in api.py).
    """
    assert incremental(corpus(), records, store, batch_size=2) == result(added=6)
    embeddings.embedded.clear()
    assert incremental(corpus(), records, store, batch_size=2) == result(skipped=6)
    assert embeddings.embedded == []
    # an edit in the chunk after the cut: that chunk only
    changed = corpus(a2="kittens chase mice")
    assert incremental(changed, records, store, batch_size=2) == result(
        added=1, skipped=5, deleted=1
    )
    assert embeddings.embedded == ["kittens chase mice"]


def test_duplicates_within_a_batch_are_skipped(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    docs = corpus()
    assert index([*docs, docs[0], docs[3]], records, store) == result(added=6, skipped=2)
    assert store.count() == 6


def test_force_update_rewrites_and_counts_updates(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    index(corpus(), records, store)
    embeddings.embedded.clear()
    docs = corpus(c0="mars is red")
    assert index(docs, records, store, force_update=True) == result(added=1, updated=5)
    assert len(embeddings.embedded) == 6
    assert store.count() == 7  # no cleanup: the old c0 stays


# ---------------------------------------------------------------- cleanup


def test_incremental_replaces_the_changed_chunk_only(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    incremental(corpus(), records, store)
    embeddings.embedded.clear()
    assert incremental(corpus(b1="dogs fetch sticks"), records, store) == result(
        added=1, skipped=5, deleted=1
    )
    assert embeddings.embedded == ["dogs fetch sticks"]
    assert "dogs love long walks" not in contents(store, records)
    assert "dogs fetch sticks" in contents(store, records)
    assert store.similarity_search("dogs fetch sticks", k=1)[0].page_content == "dogs fetch sticks"


def test_incremental_leaves_unseen_sources_alone(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    """Only the sources in this run are cleaned: indexing b.txt alone keeps a and c."""
    incremental(corpus(), records, store)
    only_b = [doc for doc in corpus(b0="dogs guard houses") if doc.metadata["source"] == "b.txt"]
    assert incremental(only_b, records, store) == result(added=1, skipped=1, deleted=1)
    assert store.count() == 6
    # a chunk dropped from a source that is still present is deleted too
    assert incremental(corpus(a1=None), records, store) == result(added=1, skipped=4, deleted=2)
    assert len(contents(store, records)) == 5


def test_full_deletes_removed_sources(store: VectorStore, records: InMemoryRecordManager) -> None:
    index(corpus(), records, store, cleanup="full")
    without_c = [doc for doc in corpus() if doc.metadata["source"] != "c.txt"]
    assert index(without_c, records, store, cleanup="full") == result(skipped=5, deleted=1)
    assert "mars has the largest volcano" not in contents(store, records)
    assert index([], records, store, cleanup="full") == result(deleted=5)
    assert store.count() == 0 and records.list_keys() == []


def test_full_with_small_cleanup_batches(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    index(corpus(), records, store, cleanup="full")
    assert index(corpus()[:1], records, store, cleanup="full", cleanup_batch_size=2) == result(
        skipped=1, deleted=5
    )
    assert contents(store, records) == ["cats purr when content"]


def test_scoped_full_cleans_only_the_sources_seen(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    index(corpus(), records, store, cleanup="scoped_full", source_id_key="source")
    # a.txt shrank to one chunk, b.txt and c.txt were not in this run
    a_only = [Document("cats purr when content", metadata={"source": "a.txt", "chunk": 0})]
    assert index(a_only, records, store, cleanup="scoped_full", source_id_key="source") == result(
        skipped=1, deleted=2
    )
    assert store.count() == 4


def test_source_id_key_may_be_a_function(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    def by_topic(doc: Document) -> str:
        return doc.page_content.split()[0]  # "cats", "kittens", "dogs", "mars"

    index(corpus(), records, store, cleanup="incremental", source_id_key=by_topic)
    changed = corpus(a1="cats nap in the sun")
    assert index(changed, records, store, cleanup="incremental", source_id_key=by_topic) == result(
        added=1, skipped=5, deleted=1
    )
    assert sorted(records.list_keys(group_ids=["cats"])) == sorted(
        hash_document(doc) for doc in changed[:2]
    )


def test_key_encoder_choices(store: VectorStore, records: InMemoryRecordManager) -> None:
    docs = corpus()[:2]
    index(docs, records, store, key_encoder="blake2b")
    assert sorted(records.list_keys()) == sorted(hash_document(doc, "blake2b") for doc in docs)
    other = InMemoryRecordManager("custom")
    custom = index(docs, other, store, key_encoder=lambda doc: "key-" + doc.page_content[:6])
    assert custom == result(added=2)
    assert other.list_keys() == ["key-cats p", "key-cats s"]
    assert [doc.page_content for doc in store.get_by_ids(["key-cats s"])] == ["cats sleep all day"]


def test_a_loader_is_read_lazily(
    tmp_path: Path, store: VectorStore, records: InMemoryRecordManager
) -> None:
    from ragline.loaders import DirectoryLoader, TextLoader

    for name, text in {"x.txt": "first file", "y.txt": "second file"}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    loader = DirectoryLoader(tmp_path, glob="*.txt", loader_cls=TextLoader)
    assert incremental(loader, records, store) == result(added=2)
    (tmp_path / "y.txt").write_text("second file, edited", encoding="utf-8")
    assert incremental(loader, records, store) == result(added=1, skipped=1, deleted=1)
    assert contents(store, records) == ["first file", "second file, edited"]


# ---------------------------------------------------------------- failures


def test_a_failed_store_write_records_nothing_and_a_retry_adds_it(
    make_store: Callable[[Embeddings], VectorStore], records: InMemoryRecordManager
) -> None:
    """The second batch's write fails: its documents must stay unrecorded."""
    failing = CountingEmbeddings(fail_at=2)
    store = make_store(failing)
    with pytest.raises(ConnectionError, match="embedding service unavailable"):
        incremental(corpus(), records, store, batch_size=4)
    assert store.count() == 4
    assert sorted(records.list_keys()) == sorted(hash_document(doc) for doc in corpus()[:4])
    # the retry: the first four are skipped, the last two added, nothing lost
    assert incremental(corpus(), records, store, batch_size=4) == result(added=2, skipped=4)
    assert len(contents(store, records)) == 6


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"cleanup": "incremantal"}, ConfigurationError,
         "cleanup 'incremantal' is not one of 'incremental', 'full', 'scoped_full' or None"),
        ({"cleanup": "incremental"}, InvalidInputError,
         "cleanup='incremental' deletes stale documents per source, so it needs source_id_key"),
        ({"cleanup": "scoped_full"}, InvalidInputError, "so it needs source_id_key"),
        ({"key_encoder": "md5"}, ConfigurationError,
         "key_encoder 'md5' is not one of 'sha1', 'sha256', 'sha512', 'blake2b'"),
        ({"batch_size": 0}, InvalidInputError, "batch_size must be an int >= 1, got 0"),
        ({"cleanup_batch_size": -1}, InvalidInputError,
         "cleanup_batch_size must be an int >= 1, got -1"),
    ],
)  # fmt: skip
def test_bad_options_are_refused_before_anything_is_written(
    store: VectorStore,
    records: InMemoryRecordManager,
    options: dict[str, Any],
    error: type,
    message: str,
) -> None:
    incremental(corpus()[:1], records, store)
    with pytest.raises(error) as caught:
        index(corpus(), records, store, **options)
    assert message in str(caught.value)
    assert store.count() == 1 and len(records.list_keys()) == 1


def test_a_document_without_its_source_is_refused(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    docs = [*corpus(), Document("no source here", metadata={"page": 1})]
    with pytest.raises(InvalidInputError) as caught:
        incremental(docs, records, store)
    assert str(caught.value) == (
        "the document starting 'no source here' has no source id (metadata['source'] is "
        "missing), which cleanup='incremental' needs"
    )
    assert store.count() == 0 and records.list_keys() == []
    # without a cleanup that needs it, a missing source is fine
    assert index(docs, records, store, source_id_key="source") == result(added=7)


def test_metadata_that_cannot_be_hashed_is_refused(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    docs = [Document("a path object", metadata={"source": Path("a.txt")})]
    with pytest.raises(
        InvalidInputError, match="cannot hash the metadata of the document starting 'a path object'"
    ):
        index(docs, records, store)
    assert store.count() == 0


def test_items_that_are_not_documents_are_refused(
    store: VectorStore, records: InMemoryRecordManager
) -> None:
    with pytest.raises(InvalidInputError, match="docs_source item 1 is a str, not a Document"):
        index([corpus()[0], "just text"], records, store)
    with pytest.raises(InvalidInputError, match="got a single str"):
        index("just text", records, store)
    assert store.count() == 0


def test_a_store_without_delete_is_refused_for_cleanup(records: InMemoryRecordManager) -> None:
    class AddOnly:
        def __init__(self) -> None:
            self.added: list[Document] = []

        def add_documents(self, documents: list[Document], *, ids: list[str]) -> list[str]:
            self.added.extend(documents)
            return ids

    add_only = AddOnly()
    with pytest.raises(InvalidInputError) as caught:
        index(corpus(), records, add_only, cleanup="full")
    assert str(caught.value) == (
        "vector store AddOnly has no delete() method; index() with cleanup='full' needs "
        "add_documents() and delete()"
    )
    assert add_only.added == [] and records.list_keys() == []
    assert index(corpus(), records, add_only) == result(added=6)  # no cleanup: no delete needed


# ---------------------------------------------------------------- SQLRecordManager


def test_sql_records_persist_across_instances(
    tmp_path: Path, store: VectorStore, embeddings: CountingEmbeddings
) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    assert incremental(corpus(), SQLRecordManager("docs", db_url=url), store) == result(added=6)
    embeddings.embedded.clear()
    reopened = SQLRecordManager("docs", db_url=url)
    assert incremental(corpus(c0="mars is cold"), reopened, store) == result(
        added=1, skipped=5, deleted=1
    )
    assert embeddings.embedded == ["mars is cold"]
    assert len(contents(store, SQLRecordManager("docs", db_url=url))) == 6


def test_two_namespaces_in_one_file_do_not_interfere(
    tmp_path: Path, make_store: Callable[[Embeddings], VectorStore]
) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    first, second = make_store(CountingEmbeddings()), make_store(CountingEmbeddings())
    first_records = SQLRecordManager("first", db_url=url)
    second_records = SQLRecordManager("second", db_url=url)
    assert index(corpus(), first_records, first, cleanup="full") == result(added=6)
    # the same documents in the other namespace are new there
    assert index(corpus()[:2], second_records, second, cleanup="full") == result(added=2)
    # a full cleanup of the second namespace deletes nothing of the first
    assert index([], second_records, second, cleanup="full") == result(deleted=2)
    assert first.count() == 6 and len(first_records.list_keys()) == 6


# ---------------------------------------------------------------- async


async def test_aindex_matches_index(
    store: VectorStore, records: InMemoryRecordManager, embeddings: CountingEmbeddings
) -> None:
    async def stream(docs: list[Document]) -> AsyncIterator[Document]:
        for doc in docs:
            yield doc

    options = {"cleanup": "incremental", "source_id_key": "source", "batch_size": 2}
    assert await aindex(stream(corpus()), records, store, **options) == result(added=6)
    embeddings.embedded.clear()
    assert await aindex(corpus(), records, store, **options) == result(skipped=6)
    assert embeddings.embedded == []
    changed = corpus(b0="dogs guard houses", c0=None)
    # c.txt is gone from the run entirely: incremental cleanup leaves it (full would not)
    assert await aindex(changed, records, store, **options) == result(added=1, skipped=4, deleted=1)
    assert await aindex([], records, store, cleanup="full") == result(deleted=6)
    assert store.count() == 0


async def test_aindex_with_sql_records_and_a_failing_write(
    tmp_path: Path, make_store: Callable[[Embeddings], VectorStore]
) -> None:
    records = SQLRecordManager("docs", db_url=f"sqlite:///{tmp_path / 'r.db'}")
    store = make_store(CountingEmbeddings(fail_at=1))
    with pytest.raises(ConnectionError):
        await aindex(corpus(), records, store, cleanup="full")
    assert await records.alist_keys() == [] and store.count() == 0
    assert await aindex(corpus(), records, store, cleanup="full") == result(added=6)
    with pytest.raises(InvalidInputError, match="needs source_id_key"):
        await aindex(corpus(), records, store, cleanup="incremental")


# ---------------------------------------------------------------- Redis


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
async def test_the_incremental_cycle_on_redis(redis_url: str, use_async: bool) -> None:
    """The same counts on a real Redis Stack server (deletes and upserts go over the wire)."""
    pytest.importorskip("redis")
    from ragline.vectorstores import Redis

    embeddings = CountingEmbeddings()
    store = Redis(
        embeddings, redis_url=redis_url, index_name=f"indexing-{use_async}-{id(embeddings)}"
    )
    records = InMemoryRecordManager("redis")
    options: dict[str, Any] = {"cleanup": "incremental", "source_id_key": "source", "batch_size": 4}
    run = aindex if use_async else index

    async def go(docs: list[Document], **extra: Any) -> dict[str, int]:
        outcome = run(docs, records, store, **{**options, **extra})
        return dict(await outcome if use_async else outcome)  # type: ignore[misc]

    try:
        assert await go(corpus()) == result(added=6)
        embeddings.embedded.clear()
        assert await go(corpus()) == result(skipped=6)
        assert embeddings.embedded == []
        assert await go(corpus(b1="dogs fetch sticks")) == result(added=1, skipped=5, deleted=1)
        assert embeddings.embedded == ["dogs fetch sticks"]
        assert await go(corpus()[:3], cleanup="full") == result(skipped=3, deleted=3)
        assert contents(store, records) == [
            "cats purr when content",
            "cats sleep all day",
            "kittens play with yarn",
        ]
    finally:
        store.drop_index(delete_documents=True)
        store.close()
