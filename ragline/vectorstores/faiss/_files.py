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
new manifest names complete files. Loading checks the manifest (format, version,
sizes) before trusting anything, so a missing, truncated or foreign folder raises
:class:`~ragline.core.PersistenceError` that says what is wrong.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragline.core import InvalidInputError, PersistenceError
from ragline.vectorstores.faiss._index import IndexOptions, LabeledIndex

if TYPE_CHECKING:
    from ragline.embeddings import Embeddings
    from ragline.vectorstores.faiss._store import FAISS

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "load", "save"]

FORMAT_NAME = "ragline.faiss"
FORMAT_VERSION = 2  # 2: "labels" only when the faiss index cannot list them (IVF)
_OPTION_NAMES = ("ef_search", "ef_construction", "nprobe", "train_size")


def _manifest_path(folder: Path, index_name: str) -> Path:
    return folder / f"{index_name}.manifest.json"


def _data_file(index_name: str) -> re.Pattern[str]:
    return re.compile(
        rf"{re.escape(index_name)}\.[0-9a-f]{{16}}\.(faiss|json)|"
        rf"{re.escape(index_name)}\.manifest\.json\.[0-9a-f]{{16}}\.tmp"
    )


def save(store: FAISS, folder: Path, index_name: str, *, durable: bool) -> None:
    """Write ``store`` to ``folder`` atomically (the caller holds the store's lock).

    ``durable`` adds fsync calls (data files, manifest, folder) so the save also survives
    a power cut; without them it is atomic against crashes of the process.
    """
    _check_index_name(index_name)
    documents = _documents_json(store)  # before touching the disk: bad metadata raises here
    index = store._index
    token = secrets.token_hex(8)
    index_file = f"{index_name}.{token}.faiss"
    documents_file = f"{index_name}.{token}.json"
    manifest_path = _manifest_path(folder, index_name)
    temporary_manifest = folder / f"{index_name}.manifest.json.{token}.tmp"
    written = [folder / index_file, folder / documents_file, temporary_manifest]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if index is not None:
            index.write(str(folder / index_file))
            if durable:
                _fsync_file(folder / index_file)
        _write(folder / documents_file, documents, durable=durable)
        manifest = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "dimension": store.dimension,
            "metric": store.metric,
            "index_factory": store._options.factory,
            "trained": True if index is None else index.trained,
            "count": store.count(),
            "options": {name: getattr(store._options, name) for name in _OPTION_NAMES},
            "index_file": index_file if index is not None else None,
            "index_bytes": (folder / index_file).stat().st_size if index is not None else 0,
            "documents_file": documents_file,
            "documents_bytes": len(documents),
        }
        _write(temporary_manifest, json.dumps(manifest, indent=2).encode(), durable=durable)
        os.replace(temporary_manifest, manifest_path)  # the commit point
    except BaseException as err:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        if isinstance(err, (OSError, RuntimeError)):
            raise PersistenceError(
                f"cannot save the FAISS store to {str(folder)!r}: {err}"
            ) from err
        raise
    if durable:
        _fsync_directory(folder)
    _remove_stale(folder, index_name, keep={index_file, documents_file})


def _check_index_name(index_name: str) -> None:
    if not isinstance(index_name, str) or not index_name or "/" in index_name or "\\" in index_name:
        raise InvalidInputError(f"index_name must be a plain file-name prefix, got {index_name!r}")


def _documents_json(store: FAISS) -> bytes:
    records = store._records
    columns: dict[str, list[Any]] = {"ids": [record[0] for record in records.values()]}
    if store._index is not None and not store._index.lists_labels:
        columns["labels"] = list(records)  # else the index file lists them, in this order
    columns["texts"] = [record[1] for record in records.values()]
    columns["metadatas"] = [record[2] for record in records.values()]
    try:
        text = json.dumps(columns, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError) as err:
        bad = next(doc_id for doc_id, _, metadata in records.values() if not _json_ok(metadata))
        raise InvalidInputError(
            f"document {bad!r} has metadata JSON cannot hold ({err}); save_local keeps "
            "str, int, float, bool, None, lists and dicts"
        ) from err
    return text.encode("utf-8")


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


def load(cls: type[FAISS], folder: Path, embeddings: Embeddings, index_name: str) -> FAISS:
    """Read a store written by :func:`save`; every problem is a PersistenceError."""
    _check_index_name(index_name)
    manifest_path = _manifest_path(folder, index_name)
    try:
        manifest_bytes = manifest_path.read_bytes()
    except OSError as err:
        if not folder.is_dir():
            raise PersistenceError(
                f"no saved FAISS store: folder {str(folder)!r} does not exist"
            ) from err
        raise PersistenceError(
            f"no saved FAISS store named {index_name!r} in {str(folder)!r}: "
            f"{manifest_path.name} is missing or unreadable ({err.strerror})"
        ) from err
    manifest = _parse(manifest_path, manifest_bytes, dict)
    _check_manifest(manifest, manifest_path)
    documents_path = folder / manifest["documents_file"]
    raw = _read_sized(documents_path, manifest["documents_bytes"])
    documents = _parse(documents_path, raw, dict)
    ids, labels, texts, metadatas = _check_documents(documents, documents_path, manifest["count"])
    options = manifest["options"]
    store = cls(
        embeddings,
        metric=manifest["metric"],
        index_factory=manifest["index_factory"],
        **{name: options.get(name) for name in _OPTION_NAMES},
    )
    if manifest["index_file"] is None:
        if ids:
            raise PersistenceError(f"{manifest_path} lists documents but no index file")
        return store
    index_path = folder / manifest["index_file"]
    _read_sized(index_path, manifest["index_bytes"], read=False)
    try:
        index = LabeledIndex.read(
            str(index_path),
            manifest["dimension"],
            IndexOptions(
                factory=manifest["index_factory"],
                inner_product=manifest["metric"] != "l2",
                **{name: options.get(name) for name in _OPTION_NAMES},
            ),
            trained=manifest["trained"],
        )
    except (RuntimeError, ValueError) as err:
        raise PersistenceError(f"{index_path} is not a readable faiss index: {err}") from err
    labels = _check_labels(index, labels, index_path)
    store._restore(index, ids, labels, texts, metadatas)
    if store.count() != len(store._label_of):
        raise PersistenceError(f"{documents_path}: ids must be unique")
    return store


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


def _plain_name(value: Any) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and "/" not in value
        and "\\" not in value
        and value not in (".", "..")
    )


def _read_sized(path: Path, expected: int, *, read: bool = True) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as err:
        raise PersistenceError(f"the saved store is incomplete: {path} is missing") from err
    if size != expected:
        raise PersistenceError(
            f"{path} has {size} bytes but the manifest says {expected}: the file is truncated "
            "or was changed after saving"
        )
    return path.read_bytes() if read else b""


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
