"""InMemoryRecordManager: records in a dict, for tests and short-lived stores."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ragline.core._checks import check_optional_positive_int
from ragline.indexing.base import (
    PendingOperation,
    PendingWrite,
    RecordManager,
    check_group_ids,
    check_keys,
    check_operation,
    next_time,
)

__all__ = ["InMemoryRecordManager"]


class InMemoryRecordManager(RecordManager):
    """A record manager that keeps its records in memory (lost when the process ends).

    Pair it with a vector store that lives as long (an ``InMemoryVectorStore``); for a
    store saved to disk use :class:`~ragline.indexing.SQLRecordManager` with a file.

    Args:
        namespace: the name of this set of records.

    Example:
        >>> manager = InMemoryRecordManager("docs")
        >>> manager.update(["k1", "k2"], group_ids=["a.txt", "b.txt"])
        >>> manager.exists(["k1", "k3"])
        [True, False]
        >>> manager.list_keys(group_ids=["b.txt"])
        ['k2']
    """

    def __init__(self, namespace: str) -> None:
        super().__init__(namespace)
        # key -> (group id, time stamped); insertion order kept, so listings are stable
        self._records: dict[str, tuple[str | None, float]] = {}
        self._pending: dict[str, PendingWrite] = {}  # the intent log
        self._last_stamp: float | None = None
        self._lock = threading.RLock()  # update holds it while get_time takes it

    def create_schema(self) -> None:
        """Nothing to create."""

    def get_time(self) -> float:
        with self._lock:
            return self._tick()

    def _tick(self) -> float:
        now = next_time(self._last_stamp)
        self._last_stamp = now
        return now

    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        keys = check_keys(keys)
        groups = check_group_ids(group_ids, len(keys))
        with self._lock:
            # through get_time, so a clock a program puts in its place (a test patching
            # get_time to fixed stamps, as LangChain's tests do) stamps the records too;
            # under the lock (reentrant), so no other run's start falls between this
            # stamp and the write, which would make these records look stale to it
            now = self.get_time()
            if time_at_least is not None and now < time_at_least:
                now = self._last_stamp = float(time_at_least)
            # one dict.update: either every record is written or (on error) none
            self._records.update(
                (key, (group, now)) for key, group in zip(keys, groups, strict=True)
            )
            if self._pending:
                for key in keys:
                    self._pending.pop(key, None)

    def exists(self, keys: Sequence[str]) -> list[bool]:
        keys = check_keys(keys)
        records = self._records
        return [key in records for key in keys]

    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        limit = check_optional_positive_int("limit", limit)
        groups = None if group_ids is None else set(check_keys(group_ids, what="group_ids"))
        found: list[str] = []
        with self._lock:
            for key, (group, stamped) in self._records.items():
                if before is not None and stamped >= before:
                    continue
                if after is not None and stamped <= after:
                    continue
                if groups is not None and group not in groups:
                    continue
                found.append(key)
                if limit is not None and len(found) == limit:
                    break
        return found

    def delete_keys(self, keys: Sequence[str]) -> None:
        keys = check_keys(keys)
        with self._lock:
            for key in keys:
                self._records.pop(key, None)
                self._pending.pop(key, None)

    def mark_pending(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        operation: PendingOperation,
    ) -> None:
        keys = check_keys(keys)
        groups = check_group_ids(group_ids, len(keys))
        operation = check_operation(operation)
        with self._lock:
            for key, group in zip(keys, groups, strict=True):
                self._pending.pop(key, None)  # a re-marked key moves to the end
                self._pending[key] = PendingWrite(key, group, operation)

    def list_pending(self, *, limit: int | None = None) -> list[PendingWrite]:
        limit = check_optional_positive_int("limit", limit)
        with self._lock:
            pending = list(self._pending.values())
        return pending if limit is None else pending[:limit]

    def count_groups(self) -> int:
        with self._lock:
            return len({group for group, _ in self._records.values() if group is not None})

    # Nothing here blocks, so the async twins run inline (no worker thread).

    async def acreate_schema(self) -> None:
        self.create_schema()

    async def aget_time(self) -> float:
        return self.get_time()

    async def aupdate(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        self.update(keys, group_ids=group_ids, time_at_least=time_at_least)

    async def aexists(self, keys: Sequence[str]) -> list[bool]:
        return self.exists(keys)

    async def alist_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        return self.list_keys(before=before, after=after, group_ids=group_ids, limit=limit)

    async def adelete_keys(self, keys: Sequence[str]) -> None:
        self.delete_keys(keys)

    async def amark_pending(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        operation: PendingOperation,
    ) -> None:
        self.mark_pending(keys, group_ids=group_ids, operation=operation)

    async def alist_pending(self, *, limit: int | None = None) -> list[PendingWrite]:
        return self.list_pending(limit=limit)
