"""index() / aindex() converge after a run stops at ANY write (in one process).

A run is made to fail before and after each of its writes (to the vector store and to
the record manager, sync and async); the next run, on another version of the corpus,
must leave the store exactly as a fresh index of that version would: the same ids and
texts, nothing extra, nothing missing, every key recorded and nothing left pending.
The corpus versions are chosen so that the bugs the intent log fixes show: a chunk
deleted by the failed run comes back in the next one, and a chunk added by the failed
run is gone from the next one. Real process kills are in ``tests/test_crash_convergence.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ragline.core import Document
from ragline.embeddings import HashingEmbeddings
from ragline.indexing import (
    IndexingResult,
    InMemoryRecordManager,
    RecordManager,
    SQLRecordManager,
    aindex,
    index,
)
from ragline.indexing.api import hash_document
from ragline.vectorstores import InMemoryVectorStore


class Fault(Exception):
    """The injected failure."""


class Faults:
    """Counts write points; raises at point number ``at`` (1-based; 0: never)."""

    def __init__(self, at: int = 0) -> None:
        self.at = at
        self.seen = 0

    def point(self) -> None:
        self.seen += 1
        if self.seen == self.at:
            raise Fault(f"fault at write point {self.at}")


class FaultyStore(InMemoryVectorStore):
    """An in-memory store whose writes hit a fault point before and after they run."""

    faults = Faults()

    def add_documents(self, documents: Sequence[Document], **options: Any) -> list[str]:
        self.faults.point()
        ids = super().add_documents(documents, **options)
        self.faults.point()
        return ids

    async def aadd_documents(self, documents: Sequence[Document], **options: Any) -> list[str]:
        self.faults.point()
        ids = await super().aadd_documents(documents, **options)
        self.faults.point()
        return ids

    def delete(self, ids: Sequence[str]) -> None:
        self.faults.point()
        super().delete(ids)
        self.faults.point()

    async def adelete(self, ids: Sequence[str]) -> None:
        self.faults.point()
        await super().adelete(ids)
        self.faults.point()


def faulty_records(base: type[RecordManager]) -> type[RecordManager]:
    """A record manager class whose writes hit a fault point before and after they run."""

    class Faulty(base):  # type: ignore[valid-type,misc]
        faults = Faults()

        def update(self, keys: Sequence[str], **options: Any) -> None:
            self.faults.point()
            super().update(keys, **options)
            self.faults.point()

        def delete_keys(self, keys: Sequence[str]) -> None:
            self.faults.point()
            super().delete_keys(keys)
            self.faults.point()

        def mark_pending(self, keys: Sequence[str], **options: Any) -> None:
            self.faults.point()
            super().mark_pending(keys, **options)
            self.faults.point()

    return Faulty


def version(name: str) -> list[Document]:
    """Three versions of a small corpus (sources a, b, c, d; a few chunks each)."""
    texts = {
        "v0": {"a": ["a one", "a two"], "b": ["b one", "b two", "b three"], "c": ["c one"]},
        # a loses "a two"; b edits its middle chunk; c is gone; d is new
        "v1": {"a": ["a one"], "b": ["b one", "b 2", "b three"], "d": ["d one", "d two"]},
        # "a two" and c come back, b's edit and d are gone again
        "v2": {"a": ["a one", "a two"], "b": ["b one", "b two", "b three"], "c": ["c one"]},
    }[name]
    return [
        Document(text, metadata={"source": source})
        for source, chunks in texts.items()
        for text in chunks
    ]


def run(
    docs: list[Document], records: RecordManager, store: InMemoryVectorStore, *, use_async: bool
) -> IndexingResult:
    options: dict[str, Any] = {"cleanup": "full", "source_id_key": "source", "batch_size": 2}
    if use_async:
        return asyncio.run(aindex(docs, records, store, **options))
    return index(docs, records, store, **options)


def assert_converged(records: RecordManager, store: InMemoryVectorStore, docs: list[Document]):
    """The store holds exactly the corpus's chunks; the records name exactly those keys."""
    expected = {hash_document(doc): doc.page_content for doc in docs}
    assert store.count() == len(expected)
    held = store.get_by_ids(list(expected))
    assert {doc.id: doc.page_content for doc in held} == expected
    assert sorted(records.list_keys()) == sorted(expected)
    assert records.list_pending() == []


def make_records(kind: str, tmp_path: Path, n: int) -> RecordManager:
    if kind == "memory":
        return faulty_records(InMemoryRecordManager)("test")
    return faulty_records(SQLRecordManager)("test", db_url=f"sqlite:///{tmp_path}/r{n}.db")


def count_write_points(kind: str, tmp_path: Path, use_async: bool) -> int:
    records = make_records(kind, tmp_path, 0)
    store = FaultyStore(HashingEmbeddings(dimension=16))
    run(version("v0"), records, store, use_async=use_async)
    counter = Faults()
    type(records).faults = store.faults = counter  # type: ignore[attr-defined]
    FaultyStore.faults = counter
    run(version("v1"), records, store, use_async=use_async)
    FaultyStore.faults = Faults()
    return counter.seen


@pytest.mark.parametrize("use_async", [False, True], ids=["index", "aindex"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_run_stopped_at_any_write_converges_on_the_next_run(
    kind: str, use_async: bool, tmp_path: Path
) -> None:
    points = count_write_points(kind, tmp_path, use_async)
    # v0 -> v1: marks, adds and records for 2 batches of new chunks, then the full
    # cleanup's mark, delete and record delete: at least 5 writes, 2 points each
    assert points >= 10
    for at in range(1, points + 1):
        records = make_records(kind, tmp_path, at)
        store = FaultyStore(HashingEmbeddings(dimension=16))
        run(version("v0"), records, store, use_async=use_async)
        faults = Faults(at)
        type(records).faults = faults  # type: ignore[attr-defined]
        FaultyStore.faults = faults
        with pytest.raises(Fault):
            run(version("v1"), records, store, use_async=use_async)
        FaultyStore.faults = type(records).faults = Faults()  # type: ignore[attr-defined]
        for name in ("v2", "v1"):  # the corpus changes after the failure, then changes back
            run(version(name), records, store, use_async=use_async)
            assert_converged(records, store, version(name))


def test_a_second_failure_during_recovery_still_converges(tmp_path: Path) -> None:
    """Stopped, then stopped again while finishing the first run's writes, then run."""
    points = count_write_points("sqlite", tmp_path, False)
    for first in range(1, points + 1):
        for second in (1, 2, 3, 5):
            records = make_records("sqlite", tmp_path, 1000 * first + second)
            store = FaultyStore(HashingEmbeddings(dimension=16))
            run(version("v0"), records, store, use_async=False)
            for at, corpus in ((first, "v1"), (second, "v2")):
                faults = Faults(at)
                type(records).faults = faults  # type: ignore[attr-defined]
                FaultyStore.faults = faults
                with contextlib.suppress(Fault):
                    run(version(corpus), records, store, use_async=False)
            FaultyStore.faults = type(records).faults = Faults()  # type: ignore[attr-defined]
            run(version("v1"), records, store, use_async=False)
            assert_converged(records, store, version("v1"))


def test_recovery_counts_and_keeps_what_the_store_holds(tmp_path: Path) -> None:
    """A pending add the store holds is recorded, not re-embedded; a pending delete is done."""
    records = SQLRecordManager("test", db_url=f"sqlite:///{tmp_path}/r.db")
    embeddings = HashingEmbeddings(dimension=16)
    store = InMemoryVectorStore(embeddings)
    held, lost = (
        Document("held", metadata={"source": "s"}),
        Document("lost", metadata={"source": "s"}),
    )
    keys = [hash_document(held), hash_document(lost)]
    records.mark_pending(keys, group_ids=["s", "s"], operation="add")
    store.add_documents([held], ids=[keys[0]])  # the run died after writing one of the two
    stale = Document("stale", metadata={"source": "t"})
    stale_key = hash_document(stale)
    store.add_documents([stale], ids=[stale_key])
    records.update([stale_key], group_ids=["t"])
    records.mark_pending([stale_key], group_ids=[None], operation="delete")
    result = index([held, lost], records, store, cleanup="incremental", source_id_key="source")
    assert result == {"num_added": 1, "num_updated": 0, "num_skipped": 1, "num_deleted": 1}
    assert sorted(records.list_keys()) == sorted(keys)
    assert store.get_by_ids([stale_key]) == [] and store.count() == 2
    assert records.list_pending() == []


@pytest.mark.parametrize("use_async", [False, True], ids=["index", "aindex"])
def test_keys_recorded_but_missing_from_the_store_are_written_again(
    tmp_path: Path, use_async: bool
) -> None:
    """A new process: the records file names every chunk, the in-memory store is empty."""
    url = f"sqlite:///{tmp_path}/records.db"
    docs = version("v0")
    first_store = InMemoryVectorStore(HashingEmbeddings(dimension=16))
    run(docs, SQLRecordManager("test", db_url=url), first_store, use_async=use_async)
    records = SQLRecordManager("test", db_url=url)
    store = InMemoryVectorStore(HashingEmbeddings(dimension=16))
    store.add_documents(docs[:2], ids=[hash_document(doc) for doc in docs[:2]])
    result = run(docs, records, store, use_async=use_async)
    assert result == {"num_added": 4, "num_updated": 0, "num_skipped": 2, "num_deleted": 0}
    assert_converged(records, store, docs)


class NoLookUps(InMemoryVectorStore):
    """A store that cannot look ids up (as a LangChain-style store without get_by_ids)."""

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        raise NotImplementedError("no get_by_ids here")

    def held_ids(self, ids: Sequence[str]) -> set[str]:
        raise NotImplementedError("no held_ids here")


class CountingLookUps(InMemoryVectorStore):
    """Counts the ids each look-up method is asked about."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: dict[str, int] = {"get_by_ids": 0, "held_ids": 0}

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        self.asked["get_by_ids"] += len(ids)
        return super().get_by_ids(ids)

    def held_ids(self, ids: Sequence[str]) -> set[str]:
        self.asked["held_ids"] += len(ids)
        return super().held_ids(ids)

    async def aget_by_ids(self, ids: Sequence[str]) -> list[Document]:
        self.asked["get_by_ids"] += len(ids)
        return await super().aget_by_ids(ids)

    async def aheld_ids(self, ids: Sequence[str]) -> set[str]:
        self.asked["held_ids"] += len(ids)
        return await super().aheld_ids(ids)


class DocumentsOnly(CountingLookUps):
    """A store of another library: it has get_by_ids (and its twin) but no held_ids."""

    held_ids = None  # type: ignore[assignment]
    aheld_ids = None  # type: ignore[assignment]


@pytest.mark.parametrize("use_async", [False, True], ids=["index", "aindex"])
def test_recorded_keys_are_looked_up_with_held_ids(use_async: bool) -> None:
    """An unchanged re-run asks the store which recorded keys it holds with held_ids
    (membership), never get_by_ids (which builds every document)."""
    records, store, docs = (
        InMemoryRecordManager("test"),
        CountingLookUps(HashingEmbeddings(dimension=16)),
        version("v0"),
    )
    run(docs, records, store, use_async=use_async)
    result = run(docs, records, store, use_async=use_async)
    assert result == {"num_added": 0, "num_updated": 0, "num_skipped": 6, "num_deleted": 0}
    assert store.asked == {"get_by_ids": 0, "held_ids": 6}


@pytest.mark.parametrize("use_async", [False, True], ids=["index", "aindex"])
def test_a_store_without_held_ids_is_looked_up_with_get_by_ids(use_async: bool) -> None:
    records, store, docs = (
        InMemoryRecordManager("test"),
        DocumentsOnly(HashingEmbeddings(dimension=16)),
        version("v0"),
    )
    run(docs, records, store, use_async=use_async)
    store.delete([hash_document(docs[0])])  # recorded, gone from the store: written again
    result = run(docs, records, store, use_async=use_async)
    assert result == {"num_added": 1, "num_updated": 0, "num_skipped": 5, "num_deleted": 0}
    assert store.asked == {"get_by_ids": 6, "held_ids": 0}
    assert_converged(records, store, docs)


def test_a_store_that_cannot_look_ids_up_is_taken_at_its_word() -> None:
    records = InMemoryRecordManager("test")
    store = NoLookUps(HashingEmbeddings(dimension=16))
    docs = version("v0")
    assert run(docs, records, store, use_async=False)["num_added"] == 6
    result = run(docs, records, store, use_async=False)
    assert result == {"num_added": 0, "num_updated": 0, "num_skipped": 6, "num_deleted": 0}
