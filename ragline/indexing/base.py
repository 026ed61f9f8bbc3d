"""The RecordManager interface: which document keys were written, from which source, when.

``index()`` keeps one record per stored document: its key (the document's content hash,
also its id in the vector store), a *group id* (the source it came from, e.g. a file
path) and the time it was last written or confirmed. From those it can skip documents
already stored and find the stale ones to delete.

A record manager implements the methods below for one ``namespace``; two managers on
the same database with different namespaces never see each other's keys.

Writes that must survive a crash of the process between the vector store and the
records go through an *intent log* (:meth:`RecordManager.mark_pending`): before
``index()`` adds documents to, or deletes them from, the vector store, it records the
keys as pending; :meth:`~RecordManager.update` (for added keys) and
:meth:`~RecordManager.delete_keys` (for deleted ones) clear them in the same
transaction as the records they write. Whatever is still pending when the next run
starts was interrupted, and that run finishes it from what the store really holds (see
``ragline.indexing.api``). A manager that does not keep an intent log still works;
``index()`` then cannot repair a crash between the two writes.

Times are seconds since the epoch (floats). ``get_time()`` never goes backwards for a
given manager, and is strictly later than every time it has stamped before, so records
written by an earlier run always compare as older than the start of a later run, even
when both fall in the same clock tick (otherwise a quick re-run could miss a stale
record).
"""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal, NamedTuple

from ragline.core import InvalidInputError
from ragline.core._checks import check_choice, check_str_list

__all__ = [
    "PENDING_OPERATIONS",
    "PendingWrite",
    "RecordManager",
    "check_group_ids",
    "check_keys",
    "next_time",
]

PendingOperation = Literal["add", "delete"]
PENDING_OPERATIONS: tuple[PendingOperation, ...] = ("add", "delete")


class PendingWrite(NamedTuple):
    """A vector-store write that was started and not yet confirmed in the records."""

    key: str
    group_id: str | None
    operation: PendingOperation
    """``"add"``: the document may or may not be in the store; ``"delete"``: likewise."""


class RecordManager(ABC):
    """Where ``index()`` remembers which documents it has written (LangChain's interface).

    Subclasses implement the sync methods; the async twins run them in a worker thread
    unless overridden.

    Args:
        namespace: the name of this set of records, usually the vector store it tracks
            (e.g. ``"faiss/my_docs"``). A non-empty string.

    Raises:
        InvalidInputError: namespace is not a non-empty string.
    """

    def __init__(self, namespace: str) -> None:
        if not isinstance(namespace, str) or not namespace:
            raise InvalidInputError(f"namespace must be a non-empty string, got {namespace!r}")
        self.namespace = namespace

    def __repr__(self) -> str:
        return f"{type(self).__name__}(namespace={self.namespace!r})"

    @abstractmethod
    def create_schema(self) -> None:
        """Create the storage the manager needs (idempotent; a no-op where nothing is needed)."""

    @abstractmethod
    def get_time(self) -> float:
        """Return the current time, later than every time this manager stamped before."""

    @abstractmethod
    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        """Insert or refresh records: each key gets its group id and the current time.

        All of them are written, or none (one transaction).

        Args:
            keys: the document keys.
            group_ids: one group id (or None) per key; None for all when omitted. A
                key already recorded takes the new group id.
            time_at_least: stamp no earlier than this (``index()`` passes the time its
                run started, so a clock that stepped back cannot make this run's
                records look older than the run).

        Raises:
            InvalidInputError: keys is not a list of strings, or group_ids has another
                length.
        """

    @abstractmethod
    def exists(self, keys: Sequence[str]) -> list[bool]:
        """Return, for each key in order, whether it is recorded."""

    @abstractmethod
    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        """Return recorded keys, filtered (all filters combine with AND).

        Args:
            before: only records stamped strictly before this time.
            after: only records stamped strictly after this time.
            group_ids: only records in one of these groups.
            limit: at most this many keys (a positive integer).
        """

    @abstractmethod
    def delete_keys(self, keys: Sequence[str]) -> None:
        """Forget these keys (all in one transaction); keys not recorded are ignored."""

    # The intent log. Not part of LangChain's interface: a manager that does not
    # override these keeps no log, and index() falls back to ordering its writes.

    @property
    def keeps_intents(self) -> bool:
        """Whether this manager keeps an intent log (overrides :meth:`mark_pending`)."""
        return type(self).mark_pending is not RecordManager.mark_pending

    def mark_pending(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        operation: PendingOperation,
    ) -> None:
        """Log that a vector-store write of these keys is about to start (one transaction).

        :meth:`update` and :meth:`delete_keys` clear a key's entry in the same transaction
        as its record. A key already pending takes the new group id and operation.

        Args:
            keys: the document keys about to be written to (or deleted from) the store.
            group_ids: one group id (or None) per key.
            operation: ``"add"`` or ``"delete"``.
        """
        raise NotImplementedError(f"{type(self).__name__} keeps no intent log")

    def list_pending(self, *, limit: int | None = None) -> list[PendingWrite]:
        """The writes logged by :meth:`mark_pending` and not yet confirmed, oldest first."""
        return []

    def count_groups(self) -> int:
        """How many distinct group ids (sources) the recorded keys have (None not counted).

        Not part of LangChain's interface: managers written for it need not provide it.
        """
        raise NotImplementedError(f"{type(self).__name__} does not count its groups")

    # Async twins: the sync method in a worker thread unless a subclass overrides them.

    async def acreate_schema(self) -> None:
        """Async :meth:`create_schema`."""
        await asyncio.to_thread(self.create_schema)

    async def aget_time(self) -> float:
        """Async :meth:`get_time`."""
        return await asyncio.to_thread(self.get_time)

    async def aupdate(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        """Async :meth:`update`."""
        await asyncio.to_thread(
            lambda: self.update(keys, group_ids=group_ids, time_at_least=time_at_least)
        )

    async def aexists(self, keys: Sequence[str]) -> list[bool]:
        """Async :meth:`exists`."""
        return await asyncio.to_thread(self.exists, keys)

    async def alist_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        """Async :meth:`list_keys`."""
        return await asyncio.to_thread(
            lambda: self.list_keys(before=before, after=after, group_ids=group_ids, limit=limit)
        )

    async def adelete_keys(self, keys: Sequence[str]) -> None:
        """Async :meth:`delete_keys`."""
        await asyncio.to_thread(self.delete_keys, keys)

    async def amark_pending(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        operation: PendingOperation,
    ) -> None:
        """Async :meth:`mark_pending`."""
        await asyncio.to_thread(
            lambda: self.mark_pending(keys, group_ids=group_ids, operation=operation)
        )

    async def alist_pending(self, *, limit: int | None = None) -> list[PendingWrite]:
        """Async :meth:`list_pending`."""
        return await asyncio.to_thread(lambda: self.list_pending(limit=limit))


def next_time(last_stamped: float | None) -> float:
    """The wall-clock time, or the smallest float after ``last_stamped`` if that is later.

    Example:
        >>> next_time(4e9) > 4e9  # a clock behind the last stamp still moves forward
        True
    """
    now = time.time()
    if last_stamped is not None and now <= last_stamped:
        return math.nextafter(last_stamped, math.inf)
    return now


def check_keys(keys: Sequence[str], *, what: str = "keys") -> list[str]:
    """Return ``keys`` as a list after checking every item is a string.

    Raises:
        InvalidInputError: a single string was passed, or an item is not a string.

    Example:
        >>> check_keys(("a", "b"))
        ['a', 'b']
    """
    return check_str_list(keys, what=what)


def check_group_ids(group_ids: Sequence[str | None] | None, count: int) -> list[str | None]:
    """Return one group id per key (None for all when ``group_ids`` is None).

    Raises:
        InvalidInputError: a length other than ``count``, or an item neither str nor None.

    Example:
        >>> check_group_ids(None, 2)
        [None, None]
    """
    if group_ids is None:
        return [None] * count
    if isinstance(group_ids, (str, bytes)):
        raise InvalidInputError(
            f"group_ids must be a list (one per key), got a single {type(group_ids).__name__}"
        )
    items = list(group_ids)
    if len(items) != count:
        raise InvalidInputError(
            f"got {len(items)} group_ids for {count} keys; expected one group id per key"
        )
    for position, item in enumerate(items):
        if item is not None and not isinstance(item, str):
            raise InvalidInputError(
                f"group_ids[{position}] must be a str or None, got {type(item).__name__}: "
                f"{item!r:.60}"
            )
    return items


def check_operation(operation: str) -> PendingOperation:
    """``operation`` if it is ``"add"`` or ``"delete"``, else InvalidInputError."""
    check_choice("operation", operation, PENDING_OPERATIONS, error=InvalidInputError)
    return "add" if operation == "add" else "delete"
