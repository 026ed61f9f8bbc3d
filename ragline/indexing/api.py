"""index() and aindex(): load documents into a vector store, re-writing only what changed.

Each document is keyed by a hash of its content and metadata (a stable JSON encoding,
sha256 by default; never Python's per-process ``hash()``). The key is also the
document's id in the vector store, so writing it twice replaces it (upsert). A record
manager remembers every key written, with the document's source and a time stamp.

The write order makes a run converge after it stops at ANY point (an exception, a
killed process): the next run of the same call leaves the store holding exactly the
documents a complete run would have, nothing stale, nothing missing. With a record
manager that keeps an intent log (``SQLRecordManager``, ``InMemoryRecordManager``):

1. recovery: writes a stopped run had started and not confirmed are finished first.
   A pending delete is done again (deleting twice is harmless) and forgotten; a
   pending add is looked up in the store (``held_ids``): documents the store holds
   are recorded (as older than this run, so cleanup judges them like any other), the
   others forgotten, so this run adds them again if they are still in the corpus;
2. the run asks the record manager for the time it starts at;
3. per batch: documents are hashed and de-duplicated; keys already recorded are
   skipped (only their time stamp is refreshed) if the store holds them (looked up with
   ``held_ids``, or ``get_by_ids`` in a store without it: a store kept in memory starts
   empty in a new process, a server may restart empty); the others are marked pending,
   added to the vector store, and then recorded, which clears their pending mark in the
   same transaction;
4. cleanup marks the keys whose stamp is older than the run's start pending, deletes
   them from the vector store, then from the records (clearing the marks): for
   ``"incremental"`` those of the sources seen in the run (as the stream moves past
   each source), for ``"full"`` every key not seen in the run, for ``"scoped_full"``
   those of the sources seen, at the end.

So a key is recorded only once the store holds it, and a key the store may hold is
always either recorded or pending. A record manager without an intent log gets the
same order without the marks: a failed write is retried by the next run, but a
process killed between a store write and its record can leave a stale document.

Both writes must be durable when they return for this to survive a killed process: a
store on a server (Redis) with a SQLite file of records. A store kept in memory and never
saved (``InMemoryVectorStore``) starts empty in each process, and the look-up in step 3
re-adds what the records name but it lacks. A store kept in memory and saved later
(FAISS ``save_local``, ``InMemoryVectorStore.dump``) is durable only when saved: a kill
between a cleanup and the save leaves deleted chunks in the saved copy that no record
names; the store folder (``ragline.store_folder``) saves the store and its records
together, as one generation, so it has no such gap.

Documents of one source are expected to come together (as loaders yield them):
incremental cleanup of a source waits until a batch no longer ends inside it, so a
source split over several batches is not deleted and re-added on an unchanged re-run.
``docs_source`` is read lazily, one batch at a time: when the first document of a batch
is taken from it, every earlier batch is stored, recorded and (incremental) cleaned up.

``index`` and ``aindex`` share one implementation: a generator of the calls to make
(``ragline.core._drive`` effects) run by that module's sync and async drivers. An
``engine`` (:class:`~ragline.indexing.RayEngine`) changes only where the documents come
from and how a batch is embedded and written; the plan above, the records and cleanup
stay this module's.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

from ragline.core import ConfigurationError, Document, InvalidInputError
from ragline.core._checks import check_choice, check_positive_int
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core._json_encode import one_pass
from ragline.core.exceptions import IndexingException
from ragline.core.fields import user_stacklevel
from ragline.indexing.base import RecordManager

__all__ = [
    "CLEANUP_MODES",
    "KEY_ENCODERS",
    "IndexEngine",
    "IndexingException",
    "IndexingResult",
    "aindex",
    "documents_of",
    "hash_document",
    "index",
]

CLEANUP_MODES = ("incremental", "full", "scoped_full")
KEY_ENCODERS: dict[str, Callable[[bytes], Any]] = {
    "sha1": hashlib.sha1,
    "sha256": hashlib.sha256,
    "sha512": hashlib.sha512,
    "blake2b": hashlib.blake2b,
}

Cleanup = Literal["incremental", "full", "scoped_full"] | None
SourceIdKey = str | Callable[[Document], Any] | None
KeyEncoder = str | Callable[[Document], str]


class IndexingResult(TypedDict):
    """What a run did, document by document (LangChain's ``IndexingResult``)."""

    num_added: int
    """Documents written to the vector store that it did not hold before."""
    num_updated: int
    """Documents already stored and written again (``force_update=True``)."""
    num_skipped: int
    """Documents already stored (left alone) plus duplicates within a batch."""
    num_deleted: int
    """Documents deleted by cleanup."""


WriteBatch = Callable[[list[Document], list[str]], object]
"""Embed and store one batch of documents under the given ids (upserting by id)."""


class IndexEngine(Protocol):
    """Where :func:`index` reads documents and embeds and writes them (not how it plans).

    :func:`index` without an engine reads ``docs_source`` in this process and calls the
    store's ``add_documents``. An engine (:class:`~ragline.indexing.RayEngine`) reads it
    its own way and writes each batch its own way; hashing, the record manager, skipping
    and cleanup stay :func:`index`'s, so the guarantees are the same.
    """

    def documents(self, docs_source: Any) -> Iterable[Any]:
        """The documents of ``docs_source``, those of one source together."""
        ...

    def writing(self, vector_store: Any) -> AbstractContextManager[WriteBatch]:
        """A context for one run, giving the function that embeds and writes a batch.

        The function must be idempotent per id: a batch written twice (a retry) leaves
        each document stored once.
        """
        ...


# the key payload's encoder, built once: json.dumps with options builds one per call, which
# cost about a third of hashing a 1,000-character chunk (issue 25); the same output
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
_KEY_PAYLOAD = _KEY_ENCODER.encode


# its C part built once, for the metadata (a failure of any kind is retried by _KEY_PAYLOAD)
_METADATA_JSON = one_pass(_KEY_ENCODER)
# the bytes below 0x20 that JSON writes as \b, \f or \u00XX: a text holding one takes the
# JSON encoder's path (text holds tabs and line ends, almost never these)
_RARE_CONTROLS = bytes(byte for byte in range(0x20) if byte not in b"\t\n\r")


def _key_payload(document: Document) -> bytes:
    """The UTF-8 bytes of ``_KEY_PAYLOAD([page_content, metadata])``, built faster.

    Escaping the text is most of the JSON encoder's time (it looks at every character):
    here the text is encoded to UTF-8 and its backslashes, quotes, tabs and line ends
    escaped by ``bytes.replace`` (none of these bytes occurs inside a multi-byte UTF-8
    character), which gives the same bytes for a text without other control
    characters; any other text, a metadata value JSON cannot hold, a lone surrogate,
    and a ``str`` subclass go the JSON encoder's way (its output, or its error). The
    keys, and so every store's ids, stay what they were (issue 25: 6.3 -> ~3.8 us of
    CPU per 1,000-character chunk).
    """
    text = document.page_content
    if type(text) is str and _METADATA_JSON is not None:
        try:
            data = text.encode("utf-8")
            if len(data.translate(None, _RARE_CONTROLS)) == len(data):
                data = (
                    data.replace(b"\\", b"\\\\")
                    .replace(b'"', b'\\"')
                    .replace(b"\n", b"\\n")
                    .replace(b"\t", b"\\t")
                    .replace(b"\r", b"\\r")
                )
                metadata = _METADATA_JSON(document.metadata).encode("utf-8")
                return b'["' + data + b'",' + metadata + b"]"
        except Exception:  # the slow path below gives the encoder's own output or error
            pass
    try:
        payload = _KEY_PAYLOAD([document.page_content, document.metadata])
    except (TypeError, ValueError) as err:
        raise InvalidInputError(
            f"cannot hash the metadata of the document starting {document.page_content[:60]!r}: "
            f"{err}; metadata values must be JSON values (str, int, float, bool, None, "
            f"lists and dicts of them)"
        ) from None
    return payload.encode("utf-8")


def hash_document(document: Document, algorithm: str = "sha256") -> str:
    """Return the hex digest of a document's content and metadata.

    The payload is the JSON array ``[page_content, metadata]`` with sorted keys and no
    extra spaces, UTF-8 encoded, so equal documents get equal keys in every process.
    The document's own ``id`` is not part of it.

    Args:
        document: the document.
        algorithm: ``"sha1"``, ``"sha256"``, ``"sha512"`` or ``"blake2b"``.

    Raises:
        InvalidInputError: the metadata holds a value JSON cannot encode.

    Example:
        >>> hash_document(Document("hi", metadata={"source": "a.txt"}))[:12]
        'bbef4ed1f301'
    """
    return str(KEY_ENCODERS[algorithm](_key_payload(document)).hexdigest())


@dataclass
class _Prepared:
    """One batch, hashed and de-duplicated."""

    documents: list[Document]  # each with id = its key
    keys: list[str]
    sources: list[str | None]
    duplicates: int


@dataclass
class _Writes:
    """The documents of a batch to write, and their sources."""

    documents: list[Document] = field(default_factory=list)
    sources: list[str | None] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [str(doc.id) for doc in self.documents]


class _Run:
    """The checked options of one index run and its counts (shared by index and aindex)."""

    def __init__(
        self,
        record_manager: RecordManager,
        vector_store: Any,
        *,
        batch_size: int,
        cleanup: Cleanup,
        source_id_key: SourceIdKey,
        cleanup_batch_size: int,
        force_update: bool,
        key_encoder: KeyEncoder,
        is_async: bool,
    ) -> None:
        check_choice("cleanup", cleanup, CLEANUP_MODES, optional=True)
        if cleanup in ("incremental", "scoped_full") and source_id_key is None:
            raise InvalidInputError(
                f"cleanup={cleanup!r} deletes stale documents per source, so it needs "
                f"source_id_key (a metadata key such as 'source', or a function of the document)"
            )
        if source_id_key is not None and not (
            isinstance(source_id_key, str) or callable(source_id_key)
        ):
            raise InvalidInputError(
                f"source_id_key must be a metadata key (str), a function of the document "
                f"or None, got {type(source_id_key).__name__}"
            )
        check_positive_int("batch_size", batch_size)
        check_positive_int("cleanup_batch_size", cleanup_batch_size)
        if not (
            callable(key_encoder) or (isinstance(key_encoder, str) and key_encoder in KEY_ENCODERS)
        ):
            raise ConfigurationError(
                f"key_encoder {key_encoder!r} is not one of "
                f"{', '.join(map(repr, KEY_ENCODERS))} or a function of the document"
            )
        if not isinstance(record_manager, RecordManager):
            raise InvalidInputError(
                f"record_manager must be a RecordManager (InMemoryRecordManager, "
                f"SQLRecordManager ...), got {type(record_manager).__name__}"
            )
        prefix = "a" if is_async else ""
        needed = [prefix + "add_documents"]
        if cleanup is not None:
            needed.append(prefix + "delete")
        for method in needed:
            if not callable(getattr(vector_store, method, None)):
                raise InvalidInputError(
                    f"vector store {type(vector_store).__name__} has no {method}() method; "
                    f"index() with cleanup={cleanup!r} needs "
                    f"{' and '.join(name + '()' for name in needed)}"
                )
        self.record_manager = record_manager
        self.vector_store = vector_store
        self.intents = record_manager.keeps_intents
        # how the store says which ids it holds: held_ids tests membership, get_by_ids
        # reads the documents; None: it cannot say (recovery then deletes pending adds)
        self.lookup: str | None = next(
            (
                name
                for name in ("held_ids", "get_by_ids")
                if callable(getattr(vector_store, prefix + name, None))
            ),
            None,
        )
        self.can_delete = callable(getattr(vector_store, prefix + "delete", None))
        self.batch_size = batch_size
        self.cleanup = cleanup
        self.source_id_key = source_id_key
        self.cleanup_batch_size = cleanup_batch_size
        self.force_update = force_update
        self.key_encoder = key_encoder
        self.result = IndexingResult(num_added=0, num_updated=0, num_skipped=0, num_deleted=0)
        self._carried: list[str] = []  # incremental: sources the last batch ended inside
        # the next batch of documents (None when done), as the driver reads them
        self.next_batch: Callable[[], Effect] = lambda: Effect(lambda: None, None)
        # how a batch is embedded and written (an engine replaces it)
        self.add: Callable[[list[Document], list[str]], Effect] = lambda documents, ids: _call(
            vector_store, "add_documents", documents, ids=ids
        )

    def prepare(self, batch: list[Any], first_position: int) -> _Prepared:
        """Check, hash and de-duplicate one batch (raises before anything is written)."""
        documents: dict[str, Document] = {}
        sources: list[str | None] = []
        for position, document in enumerate(batch, first_position):
            if not isinstance(document, Document):
                raise InvalidInputError(
                    f"docs_source item {position} is a {type(document).__name__}, not a Document"
                )
            key = self._key(document)
            if key in documents:
                continue
            documents[key] = Document(document.page_content, document.metadata, id=key)
            sources.append(self._source(document))
        return _Prepared(
            list(documents.values()), list(documents), sources, len(batch) - len(documents)
        )

    def _key(self, document: Document) -> str:
        if isinstance(self.key_encoder, str):
            return hash_document(document, self.key_encoder)
        key = self.key_encoder(document)
        if not isinstance(key, str) or not key:
            raise InvalidInputError(
                f"key_encoder returned {key!r} for the document starting "
                f"{document.page_content[:60]!r}; it must return a non-empty string"
            )
        return key

    def _source(self, document: Document) -> str | None:
        key = self.source_id_key
        if key is None:
            return None
        source = key(document) if callable(key) else document.metadata.get(key)
        if source is None:
            if self.cleanup in ("incremental", "scoped_full"):
                where = f"metadata[{key!r}]" if isinstance(key, str) else "source_id_key(document)"
                raise InvalidInputError(
                    f"the document starting {document.page_content[:60]!r} has no source id "
                    f"({where} is missing), which cleanup={self.cleanup!r} needs"
                )
            return None
        return source if isinstance(source, str) else str(source)

    def select(self, prepared: _Prepared, exists: list[bool]) -> _Writes:
        """The documents to write (with their sources), counting skipped and updated ones."""
        writes = _Writes()
        for doc, source, stored in zip(prepared.documents, prepared.sources, exists, strict=True):
            if self.force_update or not stored:
                writes.documents.append(doc)
                writes.sources.append(source)
        to_write = writes.documents
        stored_count = sum(exists)
        result = self.result
        result["num_skipped"] += prepared.duplicates
        if self.force_update:
            result["num_updated"] += stored_count
            result["num_added"] += len(to_write) - stored_count
        else:
            result["num_skipped"] += stored_count
            result["num_added"] += len(to_write)
        return writes

    def sources_to_clean(self, prepared: _Prepared | None) -> list[str]:
        """Incremental: the sources the stream has moved past (all of them at the end)."""
        if prepared is None:
            finished, self._carried = self._carried, []
            return finished
        seen = dict.fromkeys([*self._carried, *(s for s in prepared.sources if s is not None)])
        last = prepared.sources[-1] if prepared.sources else None
        self._carried = [last] if last is not None else []
        return [source for source in seen if source != last]


Steps = Operation[IndexingResult]


def _call(target: object, name: str, *args: object, **kwargs: object) -> Effect:
    """``target.name(...)`` in the sync driver, ``await target.a<name>(...)`` in the async
    one (every method the steps use has that twin; a sync-only store runs inline)."""
    return Effect(getattr(target, name), getattr(target, "a" + name, None), *args, **kwargs)


def _steps(run: _Run) -> Steps:
    """The whole of one index run, as the calls to make (see the module docstring)."""
    records = run.record_manager
    if run.intents:
        yield from _recover(run)
    started = yield _call(records, "get_time")
    seen_sources: dict[str, None] = {}
    position = 0
    while (batch := (yield run.next_batch())) is not None:
        prepared = run.prepare(batch, position)
        position += len(batch)
        exists = yield _call(records, "exists", prepared.keys)
        if run.lookup is not None and not run.force_update and any(exists):
            exists = yield from _held(run, prepared.keys, exists)
        writes = run.select(prepared, exists)
        if writes.documents:
            ids = writes.ids
            if run.intents:
                yield _mark(records, ids, writes.sources, "add")
            yield run.add(writes.documents, ids)
        yield _call(
            records, "update", prepared.keys, group_ids=prepared.sources, time_at_least=started
        )
        if run.cleanup == "incremental":
            yield from _delete_stale(run, started, run.sources_to_clean(prepared))
        elif run.cleanup == "scoped_full":
            seen_sources.update(dict.fromkeys(s for s in prepared.sources if s is not None))
    if run.cleanup == "incremental":
        yield from _delete_stale(run, started, run.sources_to_clean(None))
    elif run.cleanup == "full":
        yield from _delete_stale(run, started, None)
    elif run.cleanup == "scoped_full" and seen_sources:
        yield from _delete_stale(run, started, list(seen_sources))
    return run.result


def _held(run: _Run, keys: list[str], recorded: list[bool]) -> Operation[list[bool]]:
    """Which recorded keys the store really holds: a key recorded but missing from the store
    (a store kept in memory and gone with its process, a server restarted empty) is written
    again instead of skipped forever. A store that cannot look ids up is taken at its word."""
    wanted = [key for key, known in zip(keys, recorded, strict=True) if known]
    held = yield from _stored(run, wanted)
    if held is None:
        return recorded
    return [known and key in held for key, known in zip(keys, recorded, strict=True)]


def _stored(run: _Run, keys: list[str]) -> Operation[set[str] | None]:
    """Which of ``keys`` the vector store holds; None (and ``lookup`` turned off) for a
    store that has, or turns out to have, no way to tell."""
    if run.lookup is None:
        return None
    try:
        found = yield _call(run.vector_store, run.lookup, keys)
    except NotImplementedError:  # a LangChain-style store without get_by_ids
        run.lookup = None
        return None
    return set(found) if run.lookup == "held_ids" else {document.id for document in found}


def _mark(records: RecordManager, keys: list[str], groups: list[str | None], op: str) -> Effect:
    return _call(records, "mark_pending", keys, group_ids=groups, operation=op)


def _delete_stale(run: _Run, started: float, sources: list[str] | None) -> Steps:
    """Delete keys stamped before the run started (of these sources; all when None)."""
    if sources is not None and not sources:
        return run.result
    records, store = run.record_manager, run.vector_store
    while keys := (
        yield _call(
            records,
            "list_keys",
            before=started,
            group_ids=sources,
            limit=run.cleanup_batch_size,
        )
    ):
        if run.intents:
            yield _mark(records, keys, [None] * len(keys), "delete")
        # the store first: a failure leaves the records, so a later run deletes again
        yield from _delete_from_store(store, keys)
        yield _call(records, "delete_keys", keys)
        run.result["num_deleted"] += len(keys)
    return run.result


def _delete_from_store(store: Any, keys: list[str]) -> Operation[None]:
    """``store.delete(keys)``; a store that answers ``False`` (it could not delete) stops
    the run before the records of those keys are forgotten."""
    deleted = yield _call(store, "delete", keys)
    if deleted is False:
        raise IndexingException(
            f"the vector store's delete returned False for {len(keys)} stale id(s) "
            f"({', '.join(keys[:3])}{', ...' if len(keys) > 3 else ''}); their records are "
            "kept, so the next index run with cleanup deletes them again"
        )


def _recover(run: _Run) -> Steps:
    """Finish the writes a stopped run left pending (see the module docstring).

    A pending delete the store refuses (``delete`` returns ``False``) stays pending, its
    record kept, and the run goes on with a warning: the store still holds those
    documents, and a later run retries (its cleanup raises if the store still refuses,
    as LangChain's does), so one refusal does not stop every run after it."""
    records, store = run.record_manager, run.vector_store
    refused: dict[str, None] = {}  # kept pending; the page size leaves room past them
    while pending := (
        yield _call(records, "list_pending", limit=run.cleanup_batch_size + len(refused))
    ):
        pending = [write for write in pending if write.key not in refused]
        if not pending:
            break
        adds = [write for write in pending if write.operation == "add"]
        deletes = [write.key for write in pending if write.operation == "delete"]
        held = (yield from _stored(run, [write.key for write in adds])) if adds else set()
        if held is None:  # the store cannot say which adds it holds: delete them all
            deletes.extend(write.key for write in adds)
            adds, held = [], set()
        if adds:
            stored = [write for write in adds if write.key in held]
            if stored:
                yield _call(
                    records,
                    "update",
                    [write.key for write in stored],
                    group_ids=[write.group_id for write in stored],
                )
            missing = [write.key for write in adds if write.key not in held]
            if missing:
                yield _call(records, "delete_keys", missing)
        if deletes:
            if run.can_delete and (yield _call(store, "delete", deletes)) is False:
                refused.update(dict.fromkeys(deletes))
                continue
            yield _call(records, "delete_keys", deletes)
            run.result["num_deleted"] += len(deletes)
    if refused:
        warnings.warn(
            f"the vector store refused to delete {len(refused)} id(s) left pending by an "
            f"earlier run ({', '.join(list(refused)[:3])}{', ...' if len(refused) > 3 else ''}"
            "); their records are kept and a later run tries again",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    return run.result


def _no_sync(*args: object) -> None:
    raise AssertionError("an async batch source is read by the async driver only")


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


async def _abatches(items: AsyncIterable[Any], size: int) -> AsyncIterator[list[Any]]:
    batch: list[Any] = []
    async for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def documents_of(docs_source: Any) -> Iterable[Any]:
    """The documents of an iterable or a loader (its ``lazy_load()``); engines use it too."""
    if isinstance(docs_source, (str, bytes, Document)):
        raise InvalidInputError(
            f"docs_source must be an iterable of Documents or a loader, got a single "
            f"{type(docs_source).__name__}"
        )
    if callable(getattr(docs_source, "lazy_load", None)):  # a document loader
        return docs_source.lazy_load()  # type: ignore[no-any-return]
    if isinstance(docs_source, Iterable):
        return docs_source
    raise InvalidInputError(
        "docs_source must be an iterable of Documents or a loader, got "
        f"{type(docs_source).__name__}"
    )


async def _as_async(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _adocuments_of(docs_source: Any) -> AsyncIterable[Any]:
    if callable(getattr(docs_source, "alazy_load", None)):
        return docs_source.alazy_load()  # type: ignore[no-any-return]
    if isinstance(docs_source, AsyncIterable):
        return docs_source
    return _as_async(documents_of(docs_source))


def index(
    docs_source: Any,
    record_manager: RecordManager,
    vector_store: Any,
    *,
    batch_size: int = 100,
    cleanup: Cleanup = None,
    source_id_key: SourceIdKey = None,
    cleanup_batch_size: int = 1_000,
    force_update: bool = False,
    key_encoder: KeyEncoder = "sha256",
    engine: IndexEngine | None = None,
) -> IndexingResult:
    """Write documents to a vector store, skipping those already there; clean up stale ones.

    Args:
        docs_source: an iterable of Documents, or a loader (its ``lazy_load()`` is used).
        record_manager: remembers what was written (one namespace per vector store).
        vector_store: any store with ``add_documents(docs, ids=...)`` (upserting by id)
            and, with cleanup, ``delete(ids)``.
        batch_size: documents hashed, looked up and written together.
        cleanup: ``None`` (only add), ``"incremental"`` (delete the stale documents of
            each source seen), ``"full"`` (delete every document not in this run: give
            the WHOLE corpus) or ``"scoped_full"`` (as full, among the sources seen).
        source_id_key: the metadata key holding a document's source (e.g. ``"source"``)
            or a function of the document; needed by incremental and scoped_full.
        cleanup_batch_size: keys deleted per round trip during cleanup.
        force_update: write documents even when already stored (counted as updated),
            e.g. after changing the embedding model.
        key_encoder: ``"sha256"`` (default), ``"sha1"``, ``"sha512"``, ``"blake2b"``
            or a function of the document returning its key.
        engine: where documents are read, embedded and written; ``None``: here, through
            ``vector_store.add_documents``. :class:`~ragline.indexing.RayEngine` reads a
            Ray Dataset in parallel and embeds on a pool of Ray actors; ``docs_source``
            may then be a Ray Dataset (see :meth:`RayEngine.chunks`).

    Returns:
        ``{"num_added", "num_updated", "num_skipped", "num_deleted"}``.

    Raises:
        ConfigurationError: an unknown cleanup mode or key_encoder (names the valid ones).
        InvalidInputError: cleanup needing source_id_key without one, a document without
            its source id, a vector store without the methods needed, metadata that
            cannot be hashed. Options are checked before anything is written, each
            batch before that batch is written.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.indexing import InMemoryRecordManager
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore(HashingEmbeddings(dimension=64))
        >>> records = InMemoryRecordManager("demo")
        >>> docs = [Document("cats purr", metadata={"source": "a.txt"}),
        ...         Document("dogs bark", metadata={"source": "b.txt"})]
        >>> index(docs, records, store, cleanup="incremental", source_id_key="source")
        {'num_added': 2, 'num_updated': 0, 'num_skipped': 0, 'num_deleted': 0}
        >>> docs[1] = Document("dogs bark loudly", metadata={"source": "b.txt"})
        >>> index(docs, records, store, cleanup="incremental", source_id_key="source")
        {'num_added': 1, 'num_updated': 0, 'num_skipped': 1, 'num_deleted': 1}
    """
    run = _Run(
        record_manager, vector_store, batch_size=batch_size, cleanup=cleanup,
        source_id_key=source_id_key, cleanup_batch_size=cleanup_batch_size,
        force_update=force_update, key_encoder=key_encoder, is_async=False,
    )  # fmt: skip
    if engine is None:
        batches = _batches(documents_of(docs_source), batch_size)
        run.next_batch = lambda: Effect(next, None, batches, None)
        return drive(_steps(run))
    with engine.writing(vector_store) as write:
        batches = _batches(engine.documents(docs_source), batch_size)
        run.next_batch = lambda: Effect(next, None, batches, None)
        run.add = lambda documents, ids: Effect(write, None, documents, ids)
        return drive(_steps(run))


async def aindex(
    docs_source: Any,
    record_manager: RecordManager,
    vector_store: Any,
    *,
    batch_size: int = 100,
    cleanup: Cleanup = None,
    source_id_key: SourceIdKey = None,
    cleanup_batch_size: int = 1_000,
    force_update: bool = False,
    key_encoder: KeyEncoder = "sha256",
) -> IndexingResult:
    """Async :func:`index`: the same arguments, result and errors.

    ``docs_source`` may also be an async iterable or a loader with ``alazy_load()``; the
    record manager's and vector store's async methods are used.

    Example:
        >>> import asyncio
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.indexing import InMemoryRecordManager
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore(HashingEmbeddings(dimension=64))
        >>> asyncio.run(aindex([Document("hi")], InMemoryRecordManager("demo"), store))
        {'num_added': 1, 'num_updated': 0, 'num_skipped': 0, 'num_deleted': 0}
    """
    run = _Run(
        record_manager, vector_store, batch_size=batch_size, cleanup=cleanup,
        source_id_key=source_id_key, cleanup_batch_size=cleanup_batch_size,
        force_update=force_update, key_encoder=key_encoder, is_async=True,
    )  # fmt: skip
    batches = _abatches(_adocuments_of(docs_source), batch_size)
    run.next_batch = lambda: Effect(_no_sync, anext, batches, None)
    return await adrive(_steps(run))
