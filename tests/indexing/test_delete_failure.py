"""index() when the vector store's delete answers False during cleanup."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragline.core import Document, RaglineError
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.indexing import (
    IndexingException,
    InMemoryRecordManager,
    SQLRecordManager,
    aindex,
    index,
)
from ragline.vectorstores import InMemoryVectorStore


class RefusingStore(InMemoryVectorStore):
    """Deletes nothing and says so while ``refuse`` is set."""

    refuse = False

    def delete(self, ids=None, **kwargs):
        if self.refuse:
            return False
        return super().delete(ids, **kwargs)

    async def adelete(self, ids=None, **kwargs):
        return self.delete(ids, **kwargs)


@pytest.fixture(params=["memory", "sqlite"])
def records(request, tmp_path):
    if request.param == "memory":
        return InMemoryRecordManager("refusal")
    manager = SQLRecordManager("refusal", db_url=f"sqlite:///{tmp_path / 'records.db'}")
    manager.create_schema()
    return manager


def texts(store, records) -> list[str]:
    return sorted(doc.page_content for doc in store.get_by_ids(records.list_keys()))


def test_a_refused_delete_raises_and_keeps_the_records(records) -> None:
    store = RefusingStore(DeterministicFakeEmbedding(size=4))
    index([Document("old"), Document("kept")], records, store, cleanup="full")
    store.refuse = True
    with pytest.raises(IndexingException, match=r"delete returned False for 1 stale id") as err:
        index([Document("kept"), Document("new")], records, store, cleanup="full")
    assert isinstance(err.value, RaglineError)
    assert texts(store, records) == ["kept", "new", "old"]
    store.refuse = False
    result = index([Document("kept"), Document("new")], records, store, cleanup="full")
    assert result == {"num_added": 0, "num_updated": 0, "num_skipped": 2, "num_deleted": 1}
    assert texts(store, records) == ["kept", "new"]


def test_the_async_run_raises_too(records) -> None:
    store = RefusingStore(DeterministicFakeEmbedding(size=4))
    asyncio.run(aindex([Document("old")], records, store, cleanup="full"))
    store.refuse = True
    with pytest.raises(IndexingException):
        asyncio.run(aindex([Document("new")], records, store, cleanup="full"))
    assert texts(store, records) == ["new", "old"]


def test_a_patched_clock_stamps_the_in_memory_records() -> None:
    records = InMemoryRecordManager("clock")
    records.get_time = lambda: 1_000.0  # type: ignore[method-assign]
    records.update(["a"])
    assert records.list_keys(before=1_000.5) == ["a"]
    assert records.list_keys(before=1_000.0) == []


def test_a_refused_delete_does_not_block_the_runs_after_it(records) -> None:
    """The refused delete's pending mark stays in the intent log, and the next run's
    recovery retries it: a store still refusing must not stop that run from adding its
    documents (LangChain's adds them, then its cleanup raises), nor a run without cleanup
    from finishing (review of 4a4934c)."""
    store = RefusingStore(DeterministicFakeEmbedding(size=4))
    index([Document("old"), Document("kept")], records, store, cleanup="full")
    store.refuse = True
    with pytest.raises(IndexingException):
        index([Document("kept"), Document("new")], records, store, cleanup="full")
    with pytest.warns(UserWarning, match=r"refused to delete 1 id\(s\) left pending"):
        result = index([Document("newer")], records, store, cleanup=None)
    assert result == {"num_added": 1, "num_updated": 0, "num_skipped": 0, "num_deleted": 0}
    assert texts(store, records) == ["kept", "new", "newer", "old"]
    with pytest.warns(UserWarning), pytest.raises(IndexingException):
        asyncio.run(aindex([Document("kept"), Document("last")], records, store, cleanup="full"))
    assert texts(store, records) == ["kept", "last", "new", "newer", "old"]
    store.refuse = False
    result = index([Document("kept"), Document("last")], records, store, cleanup="full")
    assert result == {"num_added": 0, "num_updated": 0, "num_skipped": 2, "num_deleted": 3}
    assert texts(store, records) == ["kept", "last"]
    assert records.list_pending() == []


def test_the_in_memory_stamp_is_taken_under_the_write_lock() -> None:
    # Stamping outside the lock let another run's get_time() (its start) fall between
    # this update's stamp and its write: records written after that start but stamped
    # before it, which the other run's cleanup would take for stale and delete.
    seen: list[bool] = []

    class Watched(InMemoryRecordManager):
        def get_time(self) -> float:
            def try_the_lock() -> None:
                taken = self._lock.acquire(blocking=False)
                if taken:
                    self._lock.release()
                seen.append(taken)

            other = threading.Thread(target=try_the_lock)
            other.start()
            other.join()
            return super().get_time()

    manager = Watched("docs")
    manager.update(["k1"])
    assert seen == [False]  # the other thread could not take the lock: update held it
    assert manager.list_keys() == ["k1"]
