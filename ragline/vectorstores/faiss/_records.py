"""A FAISS store's documents: in memory, or in a saved SQLite file plus what changed since.

A store built in memory keeps ``label -> (id, text, metadata)`` and ``id -> label`` in
two dicts. A store loaded from a format-4 save keeps its documents where they are: in
the saved SQLite file, opened read-only (``immutable=1``: saved files never change, so
SQLite takes no lock and writes no journal; no ``-wal`` file ever sits beside a saved
database), and reads a document only when a search
returns it. What the store does after loading lives in memory on top of the file:

* ``added``: ``label -> record`` of documents added since (labels only grow, so every
  added label is above every label in the file);
* ``deleted``: labels of the file that were deleted (or replaced) since.

:class:`DocumentTable` joins the two and shows them as the two mappings the store reads
(:attr:`DocumentTable.records`, :attr:`DocumentTable.label_of`). Opening a saved store
reads no document, so it takes milliseconds at any size; a search's k documents cost one
primary-key lookup each (microseconds). A save writes a new file: the saved one copied
(SQLite's page-by-page backup, no parsing), then the deletions and additions applied in
one transaction; the store then reads from the new file and forgets its changes.

File layout (SQLite)::

    documents(label INTEGER PRIMARY KEY, id TEXT NOT NULL, text TEXT NOT NULL,
              metadata TEXT NOT NULL)      -- metadata: a JSON object
    UNIQUE INDEX documents_id ON documents(id)
    meta(key TEXT PRIMARY KEY, value TEXT) -- "format": "ragline.faiss.documents",
                                           -- "count": number of rows
"""

from __future__ import annotations

import json
import operator
import os
import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DOCUMENTS_FORMAT", "DiskDocuments", "DocumentTable", "write_documents"]

DOCUMENTS_FORMAT = "ragline.faiss.documents"
Record = tuple[str, str, dict[str, Any]]  # (id, text, metadata)

_BATCH = 10_000


class DiskDocuments:
    """A saved documents file, opened read-only.

    Raises:
        ValueError: the file is not a ragline documents database (says what is wrong).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        try:
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            self._by_label = "SELECT id, text, metadata FROM documents WHERE label = ?"
            self._by_id = "SELECT label FROM documents WHERE id = ?"
            row = self._db.execute("SELECT max(label) FROM documents").fetchone()
        except sqlite3.DatabaseError as err:
            raise ValueError(f"not a readable documents database ({err})") from err
        if meta.get("format") != DOCUMENTS_FORMAT:
            raise ValueError(f"not a ragline documents database (format {meta.get('format')!r})")
        self.count = int(meta.get("count", -1))
        self.max_label = -1 if row[0] is None else int(row[0])
        # the file opened (see copy_file_to); None when it is gone already (a store
        # folder's writer dropped its generation after the connection opened it)
        self._identity: tuple[int, int, int, int] | None
        try:
            self._identity = _file_identity(path)
        except OSError:
            self._identity = None
        self._labels: np.ndarray | None = None
        # the file's background checksum until it matched (a large file: see
        # _files.LateChecksum): reads raise its error, a copy waits for it
        self.pending_check: Any = None

    def _checked(self, *, wait: bool = False) -> None:
        if self.pending_check is not None and self.pending_check(wait=wait):
            self.pending_check = None

    def close(self) -> None:
        self._db.close()

    def copy_file_to(self, target: Path) -> bool:
        """Copy the saved file itself to ``target`` (a new name; in the kernel where the
        system can), once its checksum matched; False, with nothing left at ``target``,
        when the file at the saved path is no longer the one opened (unlinked, replaced)
        or cannot be read: :meth:`copy_to` then copies the pages through the connection.

        SQLite's page copy of a 20 MB documents file took ~0.15 s, as long as writing
        its 17,000 rows anew; this is a plain file copy (issue 25: a store folder's
        commit after the last embedding block copies the previous generation's file).
        The saved files are never written again, so one with the same inode, size and
        modification time is the one the connection reads.
        """
        self._checked(wait=True)
        try:
            if self._identity is None or _file_identity(self.path) != self._identity:
                return False
            shutil.copyfile(self.path, target)
            if target.stat().st_size == self._identity[2]:
                return True
        except OSError:
            pass
        target.unlink(missing_ok=True)
        return False

    def copy_to(self, target: sqlite3.Connection) -> None:
        """Copy the whole database into ``target`` (SQLite's backup, page by page), once
        its checksum matched: a damaged file is never saved again under a new checksum."""
        self._checked(wait=True)
        self._db.backup(target, pages=65536)

    def record(self, label: int) -> Record | None:
        self._checked()
        row = self._db.execute(self._by_label, (label,)).fetchone()
        if row is None:
            return None
        return row[0], row[1], json.loads(row[2])

    def label(self, doc_id: str) -> int | None:
        self._checked()
        row = self._db.execute(self._by_id, (doc_id,)).fetchone()
        return None if row is None else int(row[0])

    def labels_of(self, ids: list[str]) -> dict[str, int]:
        """``id -> label`` of those of ``ids`` the file holds: one query for all of them
        (one :meth:`label` call each cost ~5 us of the caller's CPU per id: an add of
        4,096 new ids after a checkpoint looked every one of them up)."""
        self._checked()
        rows = self._db.execute(
            "SELECT id, label FROM documents WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        return {str(doc_id): int(label) for doc_id, label in rows}

    def labels(self) -> np.ndarray:
        """Every label, increasing (read once, then kept: 8 bytes per document)."""
        if self._labels is None:
            self._checked()
            cursor = self._db.execute("SELECT label FROM documents ORDER BY label")
            chunks = []
            while rows := cursor.fetchmany(_BATCH * 10):
                chunks.append(np.array(rows, dtype=np.int64).reshape(-1))
            self._labels = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
        return self._labels

    def items(self) -> Iterator[tuple[int, Record]]:
        self._checked()
        cursor = self._db.execute("SELECT label, id, text, metadata FROM documents ORDER BY label")
        while rows := cursor.fetchmany(_BATCH):
            for label, doc_id, text, metadata in rows:
                yield label, (doc_id, text, json.loads(metadata))

    def ids(self) -> Iterator[str]:
        self._checked()
        cursor = self._db.execute("SELECT id FROM documents ORDER BY label")
        while rows := cursor.fetchmany(_BATCH):
            for (doc_id,) in rows:
                yield doc_id

    def field_items(self, field: str) -> Iterator[tuple[int, Any]]:
        """``(label, value)`` of the documents whose metadata has ``field``, read by
        SQLite's JSON functions (no Python-side parse of whole metadata objects)."""
        self._checked()
        path = "$." + json.dumps(field)
        cursor = self._db.execute(
            "SELECT label, json_type(metadata, ?), json_extract(metadata, ?) FROM documents "
            "WHERE json_type(metadata, ?) IS NOT NULL ORDER BY label",
            (path, path, path),
        )
        while rows := cursor.fetchmany(_BATCH * 10):
            for label, kind, value in rows:
                if kind == "true":
                    yield label, True
                elif kind == "false":
                    yield label, False
                elif kind in ("object", "array"):
                    yield label, json.loads(value)
                else:  # integer, real, text, null
                    yield label, value


class DocumentTable:
    """The documents of one store: a saved file (optional) plus the changes since.

    Args:
        base: the saved documents file the store was loaded from, or None.
    """

    def __init__(self, base: DiskDocuments | None = None) -> None:
        self.base = base
        self.added: dict[int, Record] = {}
        self.added_ids: dict[str, int] = {}
        self.deleted: set[int] = set()
        self.records = _Records(self)
        self.label_of = _LabelOf(self)

    def __len__(self) -> int:
        base = 0 if self.base is None else self.base.count - len(self.deleted)
        return base + len(self.added)

    def existing(self, ids: list[str]) -> dict[str, int]:
        """``id -> label`` of those of ``ids`` the table holds (one set operation for
        the ids added in memory: a large add of new ids costs no per-id lookup there)."""
        added = self.added_ids
        found = {doc_id: added[doc_id] for doc_id in added.keys() & ids} if added else {}
        if self.base is not None:
            deleted = self.deleted
            wanted = [doc_id for doc_id in ids if doc_id not in found] if found else ids
            for doc_id, label in self.base.labels_of(wanted).items():
                if label not in deleted:
                    found[doc_id] = label
        return found

    def changes(self) -> tuple[Path, list[str], list[Record]] | None:
        """What changed since the saved file was written: ``(file, removed ids, added
        records)``, the added in label order; None when there is no saved file. Costs
        what changed (one look-up per removed label), not the file's size.

        An id replaced since is both removed (its saved row) and added (its new row).
        """
        if self.base is None:
            return None
        removed = []
        for label in sorted(self.deleted):
            record = self.base.record(label)
            if record is not None:
                removed.append(record[0])
        return self.base.path, removed, list(self.added.values())

    def labels(self) -> np.ndarray:
        """Every live label, increasing."""
        added = np.fromiter(self.added, dtype=np.int64, count=len(self.added))
        if self.base is None:
            return added
        base = self.base.labels()
        if self.deleted:
            deleted = np.fromiter(self.deleted, dtype=np.int64, count=len(self.deleted))
            base = base[~np.isin(base, deleted)]
        return np.concatenate([base, added]) if len(added) else base

    def field_items(self, field: str) -> Iterator[tuple[int, Any]]:
        """``(label, value)`` of each live document whose metadata has ``field``."""
        if self.base is not None:
            deleted = self.deleted
            for label, value in self.base.field_items(field):
                if label not in deleted:
                    yield label, value
        for label, (_, _, metadata) in self.added.items():
            if field in metadata:
                yield label, metadata[field]


class _Records(MutableMapping[int, Record]):
    """``label -> (id, text, metadata)``, in label order (the store's ``_records``)."""

    def __init__(self, table: DocumentTable) -> None:
        self._table = table

    def __getitem__(self, label: int) -> Record:
        table = self._table
        found = table.added.get(label)
        if found is not None:
            return found
        if table.base is not None and label not in table.deleted:
            record = table.base.record(label)
            if record is not None:
                return record
        raise KeyError(label)

    def __contains__(self, label: object) -> bool:
        table = self._table
        if label in table.added:
            return True
        if table.base is None or label in table.deleted:
            return False
        try:
            number = operator.index(label)  # type: ignore[arg-type]
        except TypeError:
            return False
        return 0 <= number <= table.base.max_label and table.base.record(number) is not None

    def __setitem__(self, label: int, record: Record) -> None:
        self._table.added[label] = record

    def __delitem__(self, label: int) -> None:
        table = self._table
        if table.added.pop(label, None) is not None:
            return
        if label not in self:
            raise KeyError(label)
        table.deleted.add(label)

    def __iter__(self) -> Iterator[int]:
        table = self._table
        if table.base is not None:
            deleted = table.deleted
            yield from (int(label) for label in table.base.labels() if label not in deleted)
        yield from list(table.added)

    def __len__(self) -> int:
        return len(self._table)

    def items(self) -> Iterator[tuple[int, Record]]:  # type: ignore[override]
        table = self._table
        if table.base is not None:
            deleted = table.deleted
            yield from (item for item in table.base.items() if item[0] not in deleted)
        yield from list(table.added.items())

    def values(self) -> Iterator[Record]:  # type: ignore[override]
        return (record for _, record in self.items())

    def update(self, pairs: Any = (), /) -> None:  # type: ignore[override]
        self._table.added.update(pairs.items() if isinstance(pairs, Mapping) else pairs)

    def field_items(self, field: str) -> Iterator[tuple[int, Any]]:
        return self._table.field_items(field)

    def labels(self) -> np.ndarray:
        return self._table.labels()


class _LabelOf(MutableMapping[str, int]):
    """``id -> label`` (the store's ``_label_of``)."""

    def __init__(self, table: DocumentTable) -> None:
        self._table = table

    def get(self, doc_id: str, default: Any = None) -> Any:  # type: ignore[override]
        table = self._table
        found = table.added_ids.get(doc_id)
        if found is not None:
            return found
        if table.base is not None and isinstance(doc_id, str):
            label = table.base.label(doc_id)
            if label is not None and label not in table.deleted:
                return label
        return default

    def __getitem__(self, doc_id: str) -> int:
        found = self.get(doc_id)
        if found is None:
            raise KeyError(doc_id)
        return int(found)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self.get(doc_id) is not None

    def __setitem__(self, doc_id: str, label: int) -> None:
        self._table.added_ids[doc_id] = label

    def __delitem__(self, doc_id: str) -> None:
        table = self._table
        if table.added_ids.pop(doc_id, None) is not None:
            return
        # an id of the file: gone once its label is in ``deleted`` (the store deletes the
        # record first), so only an id still live here is an error
        if self.get(doc_id) is not None or table.base is None or table.base.label(doc_id) is None:
            raise KeyError(doc_id)

    def __iter__(self) -> Iterator[str]:
        return (record[0] for record in self._table.records.values())

    def __len__(self) -> int:
        return len(self._table)

    def update(self, pairs: Any = (), /) -> None:  # type: ignore[override]
        self._table.added_ids.update(pairs.items() if isinstance(pairs, Mapping) else pairs)


def _file_identity(path: Path) -> tuple[int, int, int, int]:
    """What tells a file apart from another at the same path: device, inode, size, mtime."""
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


def write_documents(
    path: Path,
    table: DocumentTable | None,
    rows: Iterable[tuple[int, str, str, str]] | None,
) -> int:
    """Write a documents file at ``path`` (a new name); returns the row count.

    With a ``table`` whose documents came from a saved file, that file is copied and the
    table's changes applied; otherwise ``rows`` (label, id, text, metadata JSON) are
    written into a new file. The caller renames nothing: the store's manifest names the
    file, and is replaced only once the file is complete.

    Raises:
        sqlite3.IntegrityError: an id repeats.
    """
    base = None if table is None else table.base
    copied = base is not None and base.copy_file_to(path)
    db = sqlite3.connect(path)
    try:
        if base is not None and not copied:
            # a page copy through the open connection: the saved file may be unlinked
            # by now (a store folder drops the generation a store was loaded from)
            base.copy_to(db)
        db.execute("PRAGMA journal_mode=OFF")  # a new file nobody reads until committed
        db.execute("PRAGMA synchronous=OFF")  # the caller fsyncs when asked to be durable
        if base is None:
            db.execute(
                "CREATE TABLE documents (label INTEGER PRIMARY KEY, id TEXT NOT NULL, "
                "text TEXT NOT NULL, metadata TEXT NOT NULL)"
            )
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        else:
            assert table is not None
            db.executemany(
                "DELETE FROM documents WHERE label = ?", ((label,) for label in table.deleted)
            )
        if rows is not None:
            db.executemany("INSERT INTO documents VALUES (?, ?, ?, ?)", rows)
        if base is None:
            db.execute("CREATE UNIQUE INDEX documents_id ON documents(id)")
        (count,) = db.execute("SELECT count(*) FROM documents").fetchone()
        db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("format", DOCUMENTS_FORMAT), ("count", str(count))],
        )
        db.commit()
    finally:
        db.close()
    return int(count)
