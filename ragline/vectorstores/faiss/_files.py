"""Saving and loading a FAISS store: the faiss index file plus JSON, never pickle.

The layout and the format are described in :mod:`ragline.vectorstores._faiss`. The save
protocol makes a crash at any moment harmless:

1. write the faiss index and the documents JSON under names with a fresh random token
   (``durable=True`` also fsyncs them, and later the manifest and the folder, so the
   save survives a power cut too, at about the cost of writing the files again);
2. write the new manifest to a temporary name, then ``os.replace`` it over the old one
   (atomic on POSIX and Windows): from this instant the new copy is the saved one;
3. only then delete the files of the previous copy, and leftovers of crashed saves.

Before step 2 the old manifest still names the old, untouched files; after it, the
new manifest names complete files.

Loading trusts nothing it has not checked: the manifest (format, version, and since
version 3 its own checksum, so a hand-edited metric or index_factory is caught), each
data file's size and checksum (a flipped byte, a file of the same size from another
store, a swapped documents file), and the faiss index itself against the manifest
(dimension, metric, the index type ``index_factory`` builds, vector count). Any mismatch
is a :class:`~ragline.core.PersistenceError` naming the file. A faiss or SQLite file
larger than :data:`HASHED_BYTES` is hashed by a background thread instead
(:class:`LateChecksum`), so a large store opens without reading it (the faiss file's
inverted lists are memory-mapped): the store answers meanwhile, a mismatch makes every
later search raise that error, and a save waits for the checks, so a damaged file is
never saved again under a fresh checksum. Versions 1 and 2 (no
checksums) still load with the other checks; ``save_local`` writes version 3.

This module reads and writes a :class:`~ragline.vectorstores.faiss._index.Snapshot`
(``FAISS.snapshot()`` / ``FAISS.restore()``), never the store's private fields.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import mmap
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ragline.core import InvalidInputError, PersistenceError
from ragline.core._json_encode import one_pass
from ragline.core._optional import require
from ragline.vectorstores.faiss._index import (
    IndexOptions,
    LabeledIndex,
    Snapshot,
    faiss_module,
    read_flags,
)
from ragline.vectorstores.faiss._records import DiskDocuments, DocumentTable, write_documents
from ragline.vectorstores.faiss._vectors import VectorFile

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "deferred_checks", "load", "save"]

FORMAT_NAME = "ragline.faiss"
# 3: content checksums (data files and the manifest itself)
# 2: "labels" only when the faiss index cannot list them (IVF); 1: "labels" always
FORMAT_VERSION = 4
# 4: documents in SQLite (``save_local(documents="sqlite")``); JSON saves stay version 3,
#    so older ragline versions read them
JSON_FORMAT_VERSION = 3
# a faiss or documents file larger than this is hashed by a background thread after the
# store opens, not before: at 1M vectors the faiss file is 0.4 GB, and hashing it was
# half of the open on a loaded machine (see docs/scale.md)
HASHED_BYTES = 64 * 2**20
# whether opening starts that thread (see deferred_checks); a context variable, so one
# thread's one-shot open leaves other threads' opens as they are
_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "ragline_background_checks", default=True
)
_OPTION_NAMES = ("ef_search", "ef_construction", "nprobe", "train_size", "rerank")
# the LangChain distance strategies a saved store may name (FAISS refuses the others)
_STRATEGIES = ("EUCLIDEAN_DISTANCE", "MAX_INNER_PRODUCT", "COSINE")


def _manifest_path(folder: Path, index_name: str) -> Path:
    return folder / f"{index_name}.manifest.json"


def _data_file(index_name: str) -> re.Pattern[str]:
    return re.compile(
        rf"{re.escape(index_name)}\.[0-9a-f]{{16}}\.(faiss|json|sqlite|vectors\.[0-9]+\.f32)|"
        rf"{re.escape(index_name)}\.manifest\.json\.[0-9a-f]{{16}}\.tmp"
    )


def save(snapshot: Snapshot, folder: Path, index_name: str, *, durable: bool) -> Path:
    """Write a store's snapshot to ``folder`` atomically (the caller holds the store's lock,
    so the snapshot's live index does not change meanwhile).

    ``durable`` adds fsync calls (data files, manifest, folder) so the save also survives
    a power cut; without them it is atomic against crashes of the process. Returns the
    documents file written.
    """
    _check_index_name(index_name)
    in_sqlite = snapshot.table is not None
    # before touching the disk: bad metadata raises here (SQLite: while writing, and the
    # files written so far are removed)
    documents = b"" if in_sqlite else _documents_json(snapshot)
    index = snapshot.index
    algorithm = checksum_algorithm()
    token = secrets.token_hex(8)
    index_file = f"{index_name}.{token}.faiss"
    documents_file = f"{index_name}.{token}.{'sqlite' if in_sqlite else 'json'}"
    manifest_path = _manifest_path(folder, index_name)
    temporary_manifest = folder / f"{index_name}.manifest.json.{token}.tmp"
    written = [folder / index_file, folder / documents_file, temporary_manifest]
    try:
        folder.mkdir(parents=True, exist_ok=True)

        def write_index() -> str | None:
            if index is None:
                return None
            index.write(str(folder / index_file))
            if durable:
                _fsync_file(folder / index_file)
            return file_checksum(algorithm, folder / index_file)

        # faiss writes the index with the GIL released (and the disk is most of it): with
        # SQLite documents it runs beside the documents file, not before it. Both land
        # before the manifest, the commit point: leaving the block joins the thread,
        # also on an error (done before its file is removed below).
        with ThreadPoolExecutor(1, thread_name_prefix="ragline-faiss-save") as pool:
            index_job = pool.submit(write_index) if in_sqlite and index is not None else None
            index_checksum = write_index() if index_job is None else None
            if in_sqlite:
                count = _write_sqlite(snapshot, folder / documents_file)
                if durable:
                    _fsync_file(folder / documents_file)
                documents_bytes = (folder / documents_file).stat().st_size
                documents_checksum = file_checksum(algorithm, folder / documents_file)
        if index_job is not None:
            index_checksum = index_job.result()
        vectors: list[dict[str, Any]] | None = None
        if index is not None and index.full is not None:
            prefix = f"{index_name}.{token}.vectors"
            vectors = index.full.save(folder, prefix)  # type: ignore[assignment]
            written += [folder / str(entry["file"]) for entry in vectors]
            for entry in vectors:
                if durable:
                    _fsync_file(folder / str(entry["file"]))
        if not in_sqlite:
            _write(folder / documents_file, documents, durable=durable)
            count, documents_bytes = len(snapshot.ids), len(documents)
            documents_checksum = checksum(algorithm, documents)
        options = snapshot.options
        manifest: dict[str, Any] = {
            "format": FORMAT_NAME,
            "format_version": (
                FORMAT_VERSION if in_sqlite or vectors is not None else JSON_FORMAT_VERSION
            ),
            "dimension": None if index is None else index.dimension,
            "metric": snapshot.metric,
            "index_factory": options.factory,
            "trained": True if index is None else index.trained,
            "count": count,
            "options": {
                **{name: getattr(options, name) for name in _OPTION_NAMES},
                # LangChain-style stores only, so older ragline versions read the rest
                **({"normalize_L2": True} if snapshot.normalize_L2 else {}),
                **(
                    {"distance_strategy": snapshot.distance_strategy}
                    if snapshot.distance_strategy is not None
                    else {}
                ),
            },
            "index_file": index_file if index is not None else None,
            "index_bytes": (folder / index_file).stat().st_size if index is not None else 0,
            "documents_file": documents_file,
            "documents_bytes": documents_bytes,
            "checksum_algorithm": algorithm,
            "index_checksum": index_checksum,
            "documents_checksum": documents_checksum,
        }
        if in_sqlite:
            manifest["documents_format"] = "sqlite"
            manifest["next_label"] = snapshot.next_label
        if vectors is not None:
            # full-precision vectors for re-ranking: sized, not hashed (gigabytes at scale)
            manifest["vectors"] = vectors
        manifest["manifest_checksum"] = _manifest_checksum(manifest, algorithm)
        _write(temporary_manifest, json.dumps(manifest, indent=2).encode(), durable=durable)
        os.replace(temporary_manifest, manifest_path)  # the commit point
    except BaseException as err:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        if isinstance(err, (OSError, RuntimeError, sqlite3.Error)):
            raise PersistenceError(
                f"cannot save the FAISS store to {str(folder)!r}: {err}"
            ) from err
        raise
    if durable:
        _fsync_directory(folder)
    keep = {index_file, documents_file}
    if vectors is not None and index is not None and index.full is not None:
        index.full.adopt(folder, vectors)  # type: ignore[arg-type]
        keep.update(str(entry["file"]) for entry in vectors)
    _remove_stale(folder, index_name, keep=keep)
    return folder / documents_file


# ---------------------------------------------------------------------- checksums

# xxh3_128 hashes at tens of GB/s, so a load or save of a large store does not feel it;
# sha256 (hashlib, about 1.5 GB/s here) when the xxhash package is missing. These are
# checksums against accidents (a flipped byte, a file from another store, a hand-edited
# manifest), not signatures: whoever can write the files can rewrite the checksums too.
_CHECKSUM_ALGORITHMS = ("xxh3_128", "sha256")


def checksum_algorithm() -> str:
    """The checksum a save uses: xxh3_128 when the xxhash package is there, else sha256."""
    try:
        import xxhash  # noqa: F401
    except ImportError:
        return "sha256"
    return "xxh3_128"


def _hasher(algorithm: str) -> Any:
    if algorithm == "xxh3_128":
        return require("xxhash", "faiss").xxh3_128()
    return hashlib.sha256()


def checksum(algorithm: str, data: Any) -> str:
    """Hex digest of bytes (or any buffer) with ``algorithm``."""
    hasher = _hasher(algorithm)
    hasher.update(data)
    return str(hasher.hexdigest())


# Files are hashed in reads of this size into one reused buffer. A memory map of the
# whole file counts every page hashed in the process's RSS: at a save or open of a
# 10M-vector store, the whole 3.9 GB index file on top of the store itself.
_HASH_READ_BYTES = 8 << 20


def _file_size(handle: Any) -> int:
    try:
        return os.fstat(handle.fileno()).st_size
    except (AttributeError, OSError, ValueError):  # not a real file: as if large
        return _HASH_READ_BYTES + 1


def _mapped_checksum(algorithm: str, handle: Any, size: int) -> str | None:
    """The digest of a file of ``size`` bytes, at most 8 MiB, through a memory map (no
    copy: a tenth of the time of reading it; its pages count in RSS no more than the
    buffer would), or None for a larger file or one that cannot be mapped. A map reads by
    offset, never the file's shared position (see :func:`_positional_checksum`)."""
    if size > _HASH_READ_BYTES:
        return None
    hasher = _hasher(algorithm)
    if size:
        try:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                hasher.update(mapped)
        except (OSError, ValueError):
            return None
    return str(hasher.hexdigest())


def file_checksum(algorithm: str, path: Path) -> str:
    """Hex digest of a file's bytes, read in 8 MiB pieces (RSS stays flat)."""
    with open(path, "rb") as handle:
        return _positional_checksum(algorithm, handle)


def _positional_checksum(algorithm: str, handle: Any) -> str:
    """Hex digest of an open file's bytes from byte 0, a small file through a memory map,
    a larger one in 8 MiB pieces, by explicit offsets where the platform has them: a
    forked child shares the open file's offset with its parent, whose thread may be
    reading the same file at that moment (see :class:`LateChecksum`)."""
    size = _file_size(handle)
    small = _mapped_checksum(algorithm, handle, size)
    if small is not None:
        return small
    hasher = _hasher(algorithm)
    # 8 MiB, or the file's size (plus one byte) when it is smaller: bytearray(n) writes
    # every byte of it, so a whole 8 MiB for a small store's files cost more than the
    # hashing itself (a 1,000-vector save or load took about twice as long)
    buffer = bytearray(min(size + 1, _HASH_READ_BYTES))
    view = memoryview(buffer)
    if hasattr(os, "preadv"):
        offset = 0
        while count := os.preadv(handle.fileno(), [buffer], offset):
            hasher.update(view[:count])
            offset += count
    else:
        handle.seek(0)
        while count := handle.readinto(buffer):
            hasher.update(view[:count])
    return str(hasher.hexdigest())


def _manifest_checksum(manifest: dict[str, Any], algorithm: str) -> str:
    """The checksum of every manifest field but itself, in one canonical spelling."""
    fields = {key: value for key, value in manifest.items() if key != "manifest_checksum"}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return checksum(algorithm, canonical.encode())


def _check_index_name(index_name: str) -> None:
    if not isinstance(index_name, str) or not index_name or "/" in index_name or "\\" in index_name:
        raise InvalidInputError(f"index_name must be a plain file-name prefix, got {index_name!r}")


def _documents_json(snapshot: Snapshot) -> bytes:
    columns: dict[str, list[Any]] = {"ids": snapshot.ids}
    if snapshot.index is not None and not snapshot.index.lists_labels:
        columns["labels"] = snapshot.labels  # else the index file lists them, in this order
    columns["texts"] = snapshot.texts
    columns["metadatas"] = snapshot.metadatas
    try:
        text = json.dumps(columns, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError) as err:
        bad = next(
            doc_id
            for doc_id, metadata in zip(snapshot.ids, snapshot.metadatas, strict=True)
            if not _json_ok(metadata)
        )
        raise InvalidInputError(
            f"document {bad!r} has metadata JSON cannot hold ({err}); save_local keeps "
            "str, int, float, bool, None, lists and dicts"
        ) from err
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:  # a lone surrogate (stores refuse them when added)
        raise InvalidInputError(
            f"cannot save: a text or metadata string holds a lone surrogate ({err})"
        ) from err


def _write_sqlite(snapshot: Snapshot, path: Path) -> int:
    """Write the snapshot's document table as a SQLite file; returns its row count."""
    table = snapshot.table

    encode = _metadata_json()

    def rows() -> Iterator[tuple[int, str, str, str]]:
        for label, (doc_id, text, metadata) in table.added.items():
            try:
                encoded = encode(metadata)
            except (TypeError, ValueError) as err:
                raise InvalidInputError(
                    f"document {doc_id!r} has metadata JSON cannot hold ({err}); save_local "
                    "keeps str, int, float, bool, None, lists and dicts"
                ) from err
            yield label, doc_id, text, encoded

    try:
        return write_documents(path, table, rows())
    except UnicodeEncodeError as err:  # a lone surrogate (stores refuse them when added)
        raise InvalidInputError(
            f"cannot save: a text or metadata string holds a lone surrogate ({err})"
        ) from err
    except sqlite3.IntegrityError as err:
        raise InvalidInputError(f"cannot save: the document ids repeat ({err})") from err


def _metadata_json() -> Callable[[Any], str]:
    """``JSONEncoder(ensure_ascii=False, allow_nan=True).encode``, the same text, faster
    (:func:`~ragline.core._json_encode.one_pass`); a failure of any kind is retried by
    ``encode``, which raises its own error."""
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=True)
    fast = one_pass(encoder)
    if fast is None:  # pragma: no cover - CPython always has it
        return encoder.encode

    def encode(value: Any) -> str:
        try:
            return fast(value)
        except Exception:  # the error is encode's, below
            return encoder.encode(value)

    return encode


def _json_ok(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _write(path: Path, data: bytes, *, durable: bool) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())


def _fsync_file(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _fsync_directory(folder: Path) -> None:
    # makes the rename itself durable; not possible (nor needed) on every platform
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _remove_stale(folder: Path, index_name: str, *, keep: set[str]) -> None:
    """Delete the previous copy's files and leftovers of crashed saves (best effort).

    One writer per folder and index_name: a concurrent save's files would match too.
    """
    pattern = _data_file(index_name)
    for path in folder.iterdir():
        if path.name not in keep and pattern.fullmatch(path.name):
            with contextlib.suppress(OSError):
                path.unlink()


# ---------------------------------------------------------------------- loading


class MissingStoreError(PersistenceError, RuntimeError):
    """No saved store where ``load_local`` looked: a PersistenceError (an OSError) that
    is also a RuntimeError, the class LangChain's ``FAISS.load_local`` raises there (faiss
    cannot open the index file), so a program's ``except RuntimeError`` that builds a new
    store on a first run still catches it."""


def load(folder: Path, index_name: str) -> Snapshot:
    """Read a store written by :func:`save`; every problem is a PersistenceError naming
    the file. Checks, before trusting anything: the manifest (format, version, its own
    checksum), each data file's size and checksum, and the faiss index against the
    manifest (dimension, metric, the index type ``index_factory`` builds, count)."""
    _check_index_name(index_name)
    manifest_path = _manifest_path(folder, index_name)
    try:
        manifest_bytes = manifest_path.read_bytes()
    except OSError as err:
        if not folder.is_dir():
            raise MissingStoreError(
                f"could not open a saved FAISS store: folder {str(folder)!r} does not exist"
            ) from err
        if (folder / f"{index_name}.pkl").is_file():
            raise PersistenceError(
                f"{str(folder)!r} holds a store LangChain saved ({index_name}.faiss with a "
                f"pickled {index_name}.pkl); ragline never unpickles a file, so it cannot "
                "load it: build the store again from the documents with ragline"
            ) from err
        raise MissingStoreError(
            f"could not open a saved FAISS store named {index_name!r} in {str(folder)!r}: "
            f"{manifest_path.name} is missing or unreadable ({err.strerror})"
        ) from err
    manifest = _parse(manifest_path, manifest_bytes, dict)
    _check_manifest(manifest, manifest_path)
    # checksums since format version 3 (older folders load with the other checks)
    algorithm = manifest["checksum_algorithm"] if manifest["format_version"] >= 3 else None
    documents_path = folder / manifest["documents_file"]
    table = None
    if manifest.get("documents_format") == "sqlite":
        table = _open_sqlite(documents_path, manifest, algorithm)
        ids: list[str] = []
        texts: list[str] = []
        metadatas: list[dict[str, Any]] = []
        labels = None
    else:
        raw = _read_sized(documents_path, manifest["documents_bytes"])
        if algorithm is not None:
            _check_checksum(
                documents_path, checksum(algorithm, raw), manifest["documents_checksum"]
            )
        documents = _parse(documents_path, raw, dict)
        ids, labels, texts, metadatas = _check_documents(
            documents, documents_path, manifest["count"]
        )
    options = manifest["options"]
    index_options = IndexOptions(
        factory=manifest["index_factory"],
        inner_product=manifest["metric"] != "l2",
        **{name: options.get(name) for name in _OPTION_NAMES},
    )
    strategy = options.get("distance_strategy")
    if strategy is not None and strategy not in _STRATEGIES:
        raise PersistenceError(f"{manifest_path} names an unknown distance_strategy {strategy!r}")
    snapshot = partial(Snapshot, manifest["metric"], index_options, ids=ids, texts=texts,
                       metadatas=metadatas, normalize_L2=options.get("normalize_L2") is True,
                       distance_strategy=strategy, table=table,
                       next_label=manifest.get("next_label"))  # fmt: skip
    if manifest["index_file"] is None:
        if ids or manifest["count"]:
            raise PersistenceError(f"{manifest_path} lists documents but no index file")
        return snapshot(index=None, labels=[])
    index_path = folder / manifest["index_file"]
    late = _checked_file(index_path, manifest, "index", algorithm)
    try:
        flags = read_flags(index_options, trained=manifest["trained"])
        loaded = faiss_module().read_index(str(index_path), flags)
    except RuntimeError as err:
        raise PersistenceError(f"{index_path} is not a readable faiss index: {err}") from err
    try:
        index = LabeledIndex.from_faiss(
            loaded, manifest["dimension"], index_options, trained=manifest["trained"]
        )
    except ValueError as err:
        raise PersistenceError(
            f"{index_path} does not match {manifest_path.name}: {err} (a file from another "
            "store, or an edited manifest); save the store again from its source"
        ) from err
    index.pending_check = late
    if index_options.rerank is not None:
        index.full = _open_vectors(folder, manifest, manifest_path)
    if index.ntotal != manifest["count"]:
        raise PersistenceError(
            f"{index_path} holds {index.ntotal} vectors but {manifest_path.name} counts "
            f"{manifest['count']} documents (a file from another store?)"
        )
    if table is not None:  # labels: the database's primary keys (checksummed file)
        return snapshot(index=index, labels=[])
    labels = _check_labels(index, labels, index_path)
    return snapshot(index=index, labels=labels)


@contextlib.contextmanager
def deferred_checks() -> Iterator[None]:
    """Stores loaded inside do not start the background checksum of their large files.

    For one-shot commands (``ragline query``): the check of a 10M store's 3.9 GB index
    cannot finish before the command exits, and its reads slowed the command's own cold
    search several times over (docs/scale.md, "cold query"). The check is deferred, not
    dropped: whatever waits for it (a save of the store, a copy of its documents) computes
    it then, before going on, so a damaged file is still never saved again; searches do
    not wait, so a damaged large file is not refused by a search in such a process.
    Long-lived users (``ragline serve``, a library's ``FAISS.load_local``) load outside
    this and keep the background check.
    """
    token = _BACKGROUND.set(False)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


class LateChecksum:
    """A data file's checksum, computed by a background thread while the store answers.

    The file is opened at once, so a store folder dropping the generation meanwhile
    (unlinking the file) does not stop the check. Call it: ``check(wait=False)`` is True
    once the file matched (False while the thread still runs), ``check(wait=True)``
    waits for the answer; either raises the PersistenceError of a mismatch. Opened in
    :func:`deferred_checks`, no thread starts (``thread`` is None): ``check(wait=False)``
    stays False, and ``check(wait=True)`` hashes the file then, in the caller's thread.
    """

    def __init__(self, path: Path, algorithm: str, expected: Any) -> None:
        self.path, self.algorithm, self.expected = path, algorithm, expected
        try:
            self.handle = open(path, "rb")  # noqa: SIM115 (closed by run)
        except OSError as err:
            raise _missing(path) from err
        self.error: PersistenceError | None = None
        self.done = False
        self.process = os.getpid()
        self.thread: threading.Thread | None = None
        if _BACKGROUND.get():
            self.thread = threading.Thread(target=self.run, name="ragline-checksum", daemon=True)
            self.thread.start()

    def run(self) -> None:
        try:
            found = _positional_checksum(self.algorithm, self.handle)
            _check_checksum(self.path, found, self.expected)
        except PersistenceError as err:
            self.error = err
        except (OSError, ValueError) as err:
            self.error = PersistenceError(f"cannot read {self.path} to check it: {err}")
        finally:
            self.handle.close()
            self.done = True  # after error: readers see the error once they see done

    def __call__(self, *, wait: bool) -> bool:
        if not self.done:
            if not wait:
                return False
            if self.thread is not None and self.process == os.getpid():
                self.thread.join()
            else:  # deferred, or a forked child (the thread stayed in the parent): here
                self.run()
        if self.error is not None:
            raise self.error
        return True


def _open_vectors(folder: Path, manifest: dict[str, Any], manifest_path: Path) -> VectorFile:
    """The saved full-precision vectors, each file checked against its size."""
    listed = manifest.get("vectors")
    dimension = manifest["dimension"]
    if not isinstance(listed, list):
        raise PersistenceError(f"{manifest_path}: a store with rerank lists no 'vectors' files")
    for entry in listed:
        valid = (
            isinstance(entry, dict)
            and _plain_name(entry.get("file"))
            and all(
                isinstance(entry.get(key), int) and entry[key] >= 0 for key in ("start", "rows")
            )
        )
        if not valid:
            raise PersistenceError(f"{manifest_path}: invalid 'vectors' entry {entry!r}")
        _read_sized(folder / entry["file"], entry["rows"] * dimension * 4, read=False)
    return VectorFile.load(folder, dimension, listed)


def _open_sqlite(path: Path, manifest: dict[str, Any], algorithm: str | None) -> DocumentTable:
    """Open a format-4 documents database, checked by size, checksum (when not larger than
    :data:`HASHED_BYTES`, else in the background), format and row count."""
    late = _checked_file(path, manifest, "documents", algorithm)
    next_label = manifest.get("next_label")
    if not isinstance(next_label, int) or next_label < 0:
        raise PersistenceError(f"{path.name}: the manifest's next_label is missing or invalid")
    try:
        base = DiskDocuments(path)
    except ValueError as err:
        raise PersistenceError(f"{path} is corrupt: {err}") from err
    if base.count != manifest["count"] or base.max_label >= next_label:
        raise PersistenceError(
            f"{path} holds {base.count} documents (labels up to {base.max_label}) but the "
            f"manifest counts {manifest['count']} (next label {next_label}): a file from "
            "another store?"
        )
    base.pending_check = late
    return DocumentTable(base)


def _checked_file(
    path: Path, manifest: dict[str, Any], kind: str, algorithm: str | None
) -> LateChecksum | None:
    """Check ``path`` against the manifest's ``{kind}_bytes`` and, with ``algorithm``,
    ``{kind}_checksum``: the checksum now for a file up to :data:`HASHED_BYTES`, for a
    larger one later (the :class:`LateChecksum` returned, to run in the background)."""
    size = manifest[f"{kind}_bytes"]
    _read_sized(path, size, read=False)
    if algorithm is None:
        return None
    if size > HASHED_BYTES:
        return LateChecksum(path, algorithm, manifest[f"{kind}_checksum"])
    try:
        found = file_checksum(algorithm, path)
    except OSError as err:  # removed since it was sized (see _read_sized)
        raise _missing(path) from err
    _check_checksum(path, found, manifest[f"{kind}_checksum"])
    return None


def _check_checksum(path: Path, found: str, expected: Any) -> None:
    if found != expected:
        raise PersistenceError(
            f"{path} does not match the checksum in its manifest: the file was changed or "
            "replaced after saving (a damaged byte, or a file from another store); restore "
            "the folder from a backup or save the store again from its source"
        )


def _parse(path: Path, raw: bytes, kind: type) -> Any:
    try:
        value = json.loads(raw)
    except ValueError as err:
        raise PersistenceError(f"{path} is not valid JSON (truncated or corrupt?): {err}") from err
    if not isinstance(value, kind):
        raise PersistenceError(f"{path} should hold a JSON object, got {type(value).__name__}")
    return value


def _check_manifest(manifest: dict[str, Any], path: Path) -> None:
    if manifest.get("format") != FORMAT_NAME:
        raise PersistenceError(
            f"{path} is not a ragline FAISS manifest (format {manifest.get('format')!r}, "
            f"expected {FORMAT_NAME!r})"
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise PersistenceError(f"{path} has an invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise PersistenceError(
            f"{path} was written in format version {version}, newer than this ragline reads "
            f"(up to {FORMAT_VERSION}); upgrade ragline to load it"
        )
    expected: dict[str, Callable[[Any], bool]] = {
        "dimension": lambda v: v is None or (isinstance(v, int) and v > 0),
        "metric": lambda v: v in ("cosine", "inner_product", "l2"),
        "index_factory": lambda v: isinstance(v, str) and bool(v),
        "trained": lambda v: isinstance(v, bool),
        "count": lambda v: isinstance(v, int) and v >= 0,
        "options": lambda v: isinstance(v, dict),
        "index_file": lambda v: v is None or _plain_name(v),
        "index_bytes": lambda v: isinstance(v, int) and v >= 0,
        "documents_file": _plain_name,
        "documents_bytes": lambda v: isinstance(v, int) and v >= 0,
    }
    for key, valid in expected.items():
        if key not in manifest or not valid(manifest[key]):
            raise PersistenceError(
                f"{path}: field {key!r} is missing or invalid ({manifest.get(key)!r})"
            )
    if manifest["index_file"] is not None and manifest["dimension"] is None:
        raise PersistenceError(f"{path}: an index file but no dimension")
    if version < 3:
        return  # saved before checksums: loads, checked against the index only
    algorithm = manifest.get("checksum_algorithm")
    if algorithm not in _CHECKSUM_ALGORITHMS:
        raise PersistenceError(
            f"{path}: field 'checksum_algorithm' is missing or unknown ({algorithm!r}); "
            f"known: {', '.join(_CHECKSUM_ALGORITHMS)}"
        )
    if manifest.get("manifest_checksum") != _manifest_checksum(manifest, algorithm):
        raise PersistenceError(
            f"{path} does not match its own checksum: the manifest was edited after saving "
            "(metric, index_factory, count ... cannot be trusted); restore it from a backup "
            "or save the store again from its source"
        )
    for key in ("documents_checksum", "index_checksum"):
        value = manifest.get(key)
        if not (isinstance(value, str) or (value is None and key == "index_checksum")):
            raise PersistenceError(f"{path}: field {key!r} is missing or invalid ({value!r})")


def _plain_name(value: Any) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and "/" not in value
        and "\\" not in value
        and value not in (".", "..")
    )


def _read_sized(path: Path, expected: int, *, read: bool = True) -> bytes:
    # One open for the size and the bytes: a file removed between a stat and a read (a
    # store folder's writer dropping an old generation) is "missing" like an absent one,
    # which readers of a folder retry on the generation that replaced it.
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size != expected:
                raise PersistenceError(
                    f"{path} has {size} bytes but the manifest says {expected}: the file is "
                    "truncated or was changed after saving"
                )
            return handle.read() if read else b""
    except PersistenceError:
        raise
    except OSError as err:
        raise _missing(path) from err


def _missing(path: Path) -> PersistenceError:
    return PersistenceError(f"the saved store is incomplete: {path} is missing")


def _check_documents(
    documents: dict[str, Any], path: Path, count: int
) -> tuple[list[str], list[int] | None, list[str], list[dict[str, Any]]]:
    """The documents file's columns, checked; labels None when the index lists them."""
    ids, texts, metadatas = (_column(documents, key, path, count) for key in _COLUMNS)
    labels = None if "labels" not in documents else _column(documents, "labels", path, count)
    # JSON gives exact types, so one C-level pass per column checks them
    if not _only(ids, str) or "" in ids:
        raise PersistenceError(f"{path}: ids must be non-empty strings")
    if labels is not None and not _only(labels, int):  # their order: see _check_labels
        raise PersistenceError(f"{path}: labels must be increasing integers")
    if not _only(texts, str):
        raise PersistenceError(f"{path}: texts must be strings")
    if not _only(metadatas, dict):
        raise PersistenceError(f"{path}: metadatas must be JSON objects")
    return ids, labels, texts, metadatas


_COLUMNS = ("ids", "texts", "metadatas")


def _column(documents: dict[str, Any], key: str, path: Path, count: int) -> list[Any]:
    column = documents.get(key)
    if not isinstance(column, list) or len(column) != count:
        raise PersistenceError(
            f"{path}: {key!r} should be a list of {count} items (the manifest's count)"
        )
    return column


def _only(column: list[Any], kind: type) -> bool:
    return set(map(type, column)) <= {kind}


def _check_labels(index: LabeledIndex, labels: list[int] | None, path: Path) -> list[int]:
    """The documents' labels: the documents file's when it lists them (they must be the
    vectors' labels), else the index's own; increasing either way (the store keeps its
    records in label order)."""
    count = index.ntotal
    if labels is not None and count != len(labels):
        raise PersistenceError(
            f"{path} holds {count} vectors but the documents file lists {len(labels)}"
        )
    if index.lists_labels:
        stored = index.labels()
        if labels is None:
            labels = stored.tolist()
        elif stored.tolist() != labels:
            raise PersistenceError(f"{path}: the vectors' labels do not match the documents file")
    elif labels is None:
        raise PersistenceError(
            f"{path}: this index does not list its labels, and the documents file has none"
        )
    else:
        stored = np.asarray(labels, dtype=np.int64)
    if len(stored) > 1 and not bool((stored[1:] > stored[:-1]).all()):
        raise PersistenceError(f"{path}: labels must be increasing integers")
    return labels
