"""RayEngine: index() with reading, splitting and embedding spread over a Ray cluster.

What runs where (``index(..., engine=RayEngine(...))``)::

    this process (the driver)                  the Ray cluster
    -------------------------                  ---------------
    engine.chunks(files, load, split) ──────►  Ray Data tasks: load and split a few
                                               files each, streamed back as they finish
    index()'s plan: hash, de-duplicate,
    ask the records which keys are new
    a batch's new chunks ───────────────────►  embedding actors (the model loaded once
                                               per actor; GPU actors with num_gpus):
                                               a store shared across processes (Redis)
                                               is written by the actor, with its own client
    any other store (FAISS): add_embeddings ◄── the vectors
    index()'s plan: record, clean up

Only the reading and the embedding move: hashing, the record manager, skipping and
cleanup are :func:`~ragline.indexing.index`'s own (the engine is its ``engine=``), so a
distributed run keeps every guarantee of an in-process one, convergence after a crash
included. Ray restarts an actor that dies and retries its call (``max_retries``); chunk
ids are content hashes and every store upserts by id, so a call written twice leaves
each chunk stored once. A worker that keeps dying stops the run; the records keep its
batch pending and the next run finishes it.
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType, TracebackType
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np

from ragline.core import Document, LoaderError, RaglineError, StoreConnectionError
from ragline.core._checks import (
    check_non_negative_int,
    check_number,
    check_optional_number,
    check_positive_int,
)
from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError
from ragline.embeddings import Embeddings
from ragline.indexing.api import WriteBatch, documents_of

__all__ = ["RayEngine", "RayProgress"]

_LOGGER = logging.getLogger("ragline.indexing")

READ_TASK_CPUS = 0.25
"""CPUs a read task asks for: embedding actors hold the rest (a task that fits nowhere
would wait for ever behind actors that hold every CPU)."""

_CONNECT_TIMEOUT = 5.0
_CHUNK, _ITEM = "chunk", "item"


class RayProgress(Protocol):
    """What a distributed run reports as it goes (``IndexProgress`` of the store folder)."""

    def loaded(self, item: Any, documents: int, error: str | None) -> None:
        """One item (a file) was read into ``documents`` documents, or skipped (``error``)."""

    def add_embedded(self, count: int, seconds: float) -> None:
        """A worker embedded ``count`` chunks in ``seconds`` (its own time)."""

    def add_written(self, count: int) -> None:
        """``count`` chunks are in the store."""


def _require_ray() -> ModuleType:
    require("ray.data", "ray", package="ray[data]")
    return require("ray", "ray", package="ray[data]")


class RayEngine:
    """Read, split and embed on a Ray cluster for :func:`~ragline.indexing.index`.

    Use it as ``engine=`` of ``index()``; :meth:`chunks` makes the Ray Dataset of chunks
    from files (or splits a Dataset of documents) in parallel tasks. As a context
    manager it disconnects at the end (and stops a Ray it started itself).

    Args:
        address: the cluster: ``"auto"`` (the one running on this machine),
            ``"host:6379"``, ``"ray://host:10001"``; ``None``: the Ray this process is
            already connected to, else the one ``RAY_ADDRESS`` names, else a new local
            one (loopback only, stopped by :meth:`close`).
        workers: embedding actors (each loads the model once); default: one per CPU of
            the cluster (on a cluster with GPUs: one per GPU, see ``num_gpus``). More
            than the cluster runs at once are lowered to that, with a warning.
        num_cpus: CPUs each actor asks for; default: one, or an equal share of the
            cluster's CPUs minus what a read task needs, when the cluster has fewer. An
            ONNX model then runs on that many threads.
        num_gpus: GPUs each actor asks for; default: one when the cluster has GPUs
            (one embedding actor per GPU, its model on that GPU: Ray shows each actor
            only its own), else none. ``0`` keeps the actors on CPUs.
        embeddings: the Embeddings the actors use, or a function making them in each
            actor (for a model that cannot be pickled); default: the store's
            ``embeddings``. They must give the store's vectors (checked when both
            record an identity).
        worker_batch_size: most chunks in one call to an actor; a batch of ``index()``
            is shared out among the actors in calls of at most this many.
        max_retries: restarts of a dead actor, and retries of its call, before the run
            stops.
        progress: told of items read, chunks embedded and chunks written.

    Raises:
        InvalidInputError: a bad option (named, with what it must be).

    Example:
        >>> from ragline.indexing import RayEngine, SQLRecordManager, index
        >>> with RayEngine(address="auto", workers=4) as engine:  # doctest: +SKIP
        ...     chunks = engine.chunks(paths, load=load_file, split=splitter.split_documents)
        ...     index(chunks, SQLRecordManager("kb", db_url="records.sqlite"), store,
        ...           cleanup="incremental", source_id_key="source", engine=engine)
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        workers: int | None = None,
        num_cpus: float | None = None,
        num_gpus: float | None = None,
        embeddings: Embeddings | Callable[[], Embeddings] | None = None,
        worker_batch_size: int = 64,
        max_retries: int = 3,
        progress: RayProgress | None = None,
    ) -> None:
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise InvalidInputError(
                f"address must be 'auto', 'host:port', 'ray://host:port' or None, got {address!r}"
            )
        if embeddings is not None and not (
            isinstance(embeddings, Embeddings) or callable(embeddings)
        ):
            raise InvalidInputError(
                f"embeddings must be Embeddings or a function making them, got "
                f"{type(embeddings).__name__}"
            )
        self.address = address
        self.workers = None if workers is None else check_positive_int("workers", workers)
        self.num_cpus = check_optional_number("num_cpus", num_cpus, low=0, low_open=True)
        self.num_gpus = None if num_gpus is None else check_number("num_gpus", num_gpus, low=0)
        self.embeddings = embeddings
        self.worker_batch_size = check_positive_int("worker_batch_size", worker_batch_size)
        self.max_retries = check_non_negative_int("max_retries", max_retries)
        self.progress = progress
        self._started = False

    def __repr__(self) -> str:
        return f"RayEngine(address={self.address!r}, workers={self.workers})"

    # ------------------------------------------------------------------ the cluster

    def connect(self) -> ModuleType:
        """Connect to the cluster (once) and return the ``ray`` module.

        Raises:
            MissingDependencyError: Ray is not installed (``pip install 'ragline[ray]'``).
            StoreConnectionError: the cluster cannot be reached; names the address.
        """
        ray = _require_ray()
        if ray.is_initialized():
            return ray
        address = self.address or os.environ.get("RAY_ADDRESS") or None
        if address not in (None, "auto"):
            _probe(address)
        options: dict[str, Any] = {"logging_level": logging.WARNING}
        if address is None:  # a local Ray of our own: loopback only, no dashboard
            options.update(include_dashboard=False, _node_ip_address="127.0.0.1")
        try:
            ray.init(address=address, **options)
        except (ConnectionError, TimeoutError, RuntimeError, ValueError) as err:
            raise StoreConnectionError(_unreachable(address, str(err))) from err
        self._started = True
        return ray

    def close(self) -> None:
        """Disconnect from the cluster this engine connected to (a local Ray it started
        stops); a connection made before, by the caller, stays."""
        if self._started:
            self._started = False
            _require_ray().shutdown()

    def __enter__(self) -> RayEngine:
        self.connect()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def cluster_cpus(self) -> float:
        """The CPUs the cluster has (connects first)."""
        return float(self.connect().cluster_resources().get("CPU", 0.0))

    # ------------------------------------------------------------------ reading

    def chunks(
        self,
        source: Any,
        *,
        load: Callable[[Any], list[Document]] | None = None,
        split: Callable[[list[Document]], list[Document]] | None = None,
        strict: bool = False,
        items_per_task: int = 8,
    ) -> Any:
        """A Ray Dataset of chunks, read and split in parallel tasks (lazily: it runs as
        ``index()`` reads it).

        Args:
            source: items to ``load`` (JSON values: file paths, ``[path, name]`` pairs
                ...), or a Ray Dataset of documents (columns ``page_content`` and
                ``metadata``, a dict or its JSON text) to ``split``.
            load: item -> documents (e.g. ``lambda path: TextLoader(path).load()``);
                runs in the tasks, so it must pickle. A ``LoaderError`` skips the item
                (reported to ``progress``) unless ``strict``.
            split: documents -> chunks, applied to the documents of one item at a time
                (e.g. ``splitter.split_documents``); ``None``: documents are the chunks.
            strict: let a ``LoaderError`` stop the run instead of skipping the item.
            items_per_task: items each task reads.

        Returns:
            A ``ray.data.Dataset``; pass it to ``index(..., engine=self)``.

        Raises:
            InvalidInputError: items without ``load``, or items that are not JSON values.
        """
        ray = self.connect()
        per_task = check_positive_int("items_per_task", items_per_task)
        _quiet_ray_data(ray)
        if isinstance(source, ray.data.Dataset):
            if split is None:
                return source
            return source.map_batches(
                _split_rows, fn_kwargs={"split": split}, batch_size=per_task,
                num_cpus=READ_TASK_CPUS, batch_format="pyarrow",
            )  # fmt: skip
        if load is None:
            raise InvalidInputError("chunks() of items (not a Dataset) needs load=")
        try:
            rows = [{"item": json.dumps(item)} for item in source]
        except (TypeError, ValueError) as err:
            raise InvalidInputError(f"items must be JSON values (paths ...): {err}") from None
        if not rows:
            return ray.data.from_items([{"kind": _ITEM}]).limit(0)
        dataset = ray.data.from_items(rows, override_num_blocks=math.ceil(len(rows) / per_task))
        return dataset.map_batches(
            _load_rows, fn_kwargs={"load": load, "split": split, "strict": strict},
            batch_size=per_task, num_cpus=READ_TASK_CPUS, batch_format="pyarrow",
        )  # fmt: skip

    def documents(self, docs_source: Any) -> Iterator[Document]:
        """The documents of a Ray Dataset (as its tasks finish), or of any other source
        ``index()`` takes (an iterable, a loader), read here."""
        ray = _require_ray()
        if not isinstance(docs_source, ray.data.Dataset):
            yield from documents_of(docs_source)
            return
        for table in docs_source.iter_batches(batch_size=None, batch_format="pyarrow"):
            columns = table.to_pydict()
            yield from self._from_columns(columns, table.num_rows)

    def _from_columns(self, columns: dict[str, list[Any]], rows: int) -> Iterator[Document]:
        kinds = columns.get("kind") or [_CHUNK] * rows
        texts, metadatas = columns.get("page_content"), columns.get("metadata")
        if texts is None:
            raise InvalidInputError(
                f"a Dataset of documents needs a 'page_content' column; it has "
                f"{', '.join(map(repr, columns)) or 'none'}"
            )
        for row, kind in enumerate(kinds):
            if kind == _ITEM:
                if self.progress is not None:
                    item = json.loads(columns["item"][row])
                    self.progress.loaded(item, columns["documents"][row], columns["error"][row])
                continue
            yield Document(texts[row], _metadata(None if metadatas is None else metadatas[row]))

    # ------------------------------------------------------------------ writing

    @contextmanager
    def writing(self, vector_store: Any) -> Iterator[WriteBatch]:
        """The function that embeds and writes a batch, for one run: it starts the actors
        on its first call (a run with nothing new to embed loads no model) and the
        context stops them.

        Raises:
            ConfigurationError: the actors' embeddings give other vectors than the store's.
        """
        embeddings = self.embeddings
        if embeddings is None:
            embeddings = getattr(vector_store, "embeddings", None)
            if embeddings is None:
                raise InvalidInputError(
                    f"{type(vector_store).__name__} has no embeddings attribute; give "
                    "RayEngine(embeddings=...)"
                )
        writer = _Writer(self, vector_store, embeddings)
        try:
            yield writer
        finally:
            writer.stop()

    def worker_count(self) -> int:
        """The embedding actors a run starts: ``workers``, at most what the cluster can run
        at once (its GPUs, or its CPUs at ``num_cpus`` each, default one); without
        ``workers``, that many.

        More actors than the cluster runs at once never start all together, so the run
        made no progress and gave no error (issue 31: ``--workers 1000`` on 2 cores); a
        ``workers`` over the cap is lowered to it with a warning naming both.
        """
        resources = self.connect().cluster_resources()
        gpus = self.gpus_per_worker()
        if gpus > 0:
            room, unit = resources.get("GPU", 0.0) / gpus, f"{resources.get('GPU', 0.0):g} GPUs"
        else:
            room = resources.get("CPU", 0.0) / (self.num_cpus or 1.0)
            unit = f"{resources.get('CPU', 0.0):g} CPUs"
        cap = max(1, int(room))
        if self.workers is None:
            return cap
        if self.workers > cap:
            _LOGGER.warning(
                "workers=%d is more than the Ray cluster can run at once (%s); starting %d "
                "embedding workers",
                self.workers, unit, cap,
            )  # fmt: skip
            return cap
        return self.workers

    def gpus_per_worker(self) -> float:
        """GPUs each actor asks for: ``num_gpus``, else one if the cluster has GPUs."""
        if self.num_gpus is not None:
            return self.num_gpus
        return 1.0 if self.connect().cluster_resources().get("GPU", 0.0) >= 1 else 0.0

    def _cpus_per_worker(self, workers: int) -> float:
        if self.num_cpus is not None:
            return self.num_cpus
        cpus = self.cluster_cpus()
        share = (cpus - READ_TASK_CPUS) / workers
        if share <= 0:
            raise InvalidInputError(
                f"the Ray cluster has {cpus:g} CPUs, too few for {workers} workers; "
                "give num_cpus= (a fraction) or fewer workers"
            )
        return min(1.0, share)

    def replace(self, **changes: Any) -> RayEngine:
        """A new engine with the same options but ``changes`` (not connected yet)."""
        options = {
            "address": self.address, "workers": self.workers, "num_cpus": self.num_cpus,
            "num_gpus": self.num_gpus, "embeddings": self.embeddings,
            "worker_batch_size": self.worker_batch_size, "max_retries": self.max_retries,
            "progress": self.progress,
        }  # fmt: skip
        return RayEngine(**{**options, **changes})

    def _get(self, ray: ModuleType, refs: Sequence[Any]) -> list[Any]:
        """``ray.get``, with a worker's own error raised as itself."""
        try:
            return list(ray.get(list(refs)))
        except ray.exceptions.RayActorError as err:
            raise RaglineError(
                f"a Ray embedding worker died and was restarted {self.max_retries} times "
                f"without finishing its call ({type(err).__name__}); the run stopped. Run it "
                "again: what is stored stays, and the records finish the pending batch"
            ) from err
        except ray.exceptions.RayTaskError as err:
            cause = getattr(err, "cause", None)
            if isinstance(cause, Exception):
                raise cause from err
            raise


class _Writer:
    """The write function of one run: a batch shared out among the actors."""

    def __init__(self, engine: RayEngine, vector_store: Any, embeddings: Any) -> None:
        self.engine, self.vector_store, self.embeddings = engine, vector_store, embeddings
        self.shared = bool(getattr(vector_store, "shared_across_processes", False))
        self.actors: list[Any] = []

    def start(self) -> ModuleType:
        """Start the actors (once) and check their embeddings against the store's."""
        engine, ray = self.engine, self.engine.connect()
        if self.actors:
            return ray
        workers = engine.worker_count()
        cpus = engine._cpus_per_worker(workers)
        gpus = engine.gpus_per_worker()
        actor = ray.remote(_Embedder).options(
            num_cpus=cpus, num_gpus=gpus,
            max_restarts=engine.max_retries, max_task_retries=engine.max_retries,
        )  # fmt: skip
        # the store goes to the actors only when they write to it (a store on a server);
        # passed by value (a few hundred bytes), so a restarted actor finds it again
        payload = (self.embeddings, self.vector_store if self.shared else None)
        threads = max(1, round(cpus)) if gpus == 0 else None
        self.actors = [actor.remote(payload, threads) for _ in range(workers)]
        identities = engine._get(ray, [worker.warm_up.remote() for worker in self.actors])
        _check_identities(self.vector_store, identities)
        return ray

    def stop(self) -> None:
        if self.actors:
            ray = self.engine.connect()
            for worker in self.actors:
                ray.kill(worker)
            self.actors = []

    def __call__(self, documents: list[Document], ids: list[str]) -> list[str]:
        ray = self.start()
        engine, actors = self.engine, self.actors
        size = min(engine.worker_batch_size, math.ceil(len(documents) / len(actors)))
        parts = [slice(start, start + size) for start in range(0, len(documents), size)]
        texts = [document.page_content for document in documents]
        metadatas = [dict(document.metadata) for document in documents]
        refs = [
            actors[number % len(actors)].embed.remote(texts[part], metadatas[part], ids[part])
            for number, part in enumerate(parts)
        ]
        results = engine._get(ray, refs)
        progress = engine.progress
        if progress is not None:
            for part, (_, seconds) in zip(parts, results, strict=True):
                progress.add_embedded(len(ids[part]), seconds)
        if not self.shared:
            vectors = np.concatenate([vectors for vectors, _ in results])
            self.vector_store.add_embeddings(zip(texts, vectors, strict=True), metadatas, ids=ids)
        if progress is not None:
            progress.add_written(len(ids))
        return ids


class _Embedder:
    """A Ray actor: embeds texts (the model loaded once), writes them to a shared store."""

    def __init__(self, payload: tuple[Any, Any], threads: int | None) -> None:
        embeddings, store = payload
        if not isinstance(embeddings, Embeddings):
            embeddings = embeddings()
        if threads is not None and getattr(embeddings, "threads", 0) is None:
            # an ONNX model would run a thread per core of the machine in every actor
            embeddings.threads = threads
        self.embeddings = embeddings
        self.store = store

    def warm_up(self) -> dict[str, Any] | None:
        """Load the model now (not inside the first timed call); return its identity."""
        warm_up = getattr(self.embeddings, "warm_up", None)
        if callable(warm_up):
            warm_up()
        identity = getattr(self.embeddings, "embedding_identity", None)
        return dict(identity) if identity is not None else None

    def embed(
        self, texts: list[str], metadatas: list[dict[str, Any]], ids: list[str]
    ) -> tuple[np.ndarray | None, float]:
        started = time.perf_counter()
        embeddings: Any = self.embeddings
        if hasattr(embeddings, "embed_documents_array"):
            vectors = np.asarray(embeddings.embed_documents_array(texts), dtype=np.float32)
        else:
            vectors = np.asarray(embeddings.embed_documents(texts), dtype=np.float32)
        seconds = time.perf_counter() - started
        if self.store is None:
            return vectors, seconds
        self.store.add_embeddings(zip(texts, vectors, strict=True), metadatas, ids=ids)
        return None, seconds


# ---------------------------------------------------------------------- tasks


def _load_rows(
    batch: Any, *, load: Callable[[Any], list[Document]], split: Any, strict: bool
) -> Any:
    """A read task: each item loaded and split, its chunks then one row about the item."""
    rows: dict[str, list[Any]] = {
        name: [] for name in ("kind", "page_content", "metadata", "item", "documents", "error")
    }

    def add(kind: str, text: str, metadata: str, item: str, count: int, error: str) -> None:
        for name, value in zip(rows, (kind, text, metadata, item, count, error), strict=True):
            rows[name].append(value)

    pyarrow = require("pyarrow", "ray", package="ray[data]")
    for text in batch.column("item").to_pylist():
        try:
            documents = load(json.loads(text))
        except LoaderError as err:
            if strict:
                raise
            add(_ITEM, "", "{}", text, 0, str(err).splitlines()[0])
            continue
        for chunk in split(documents) if split is not None else documents:
            add(_CHUNK, chunk.page_content, _json(chunk.metadata), "", 0, "")
        add(_ITEM, "", "{}", text, len(documents), "")
    return pyarrow.table(rows)


def _split_rows(batch: Any, *, split: Callable[[list[Document]], list[Document]]) -> Any:
    """A split task over a Dataset of documents."""
    columns = batch.to_pydict()
    metadatas = columns.get("metadata") or [None] * batch.num_rows
    documents = [
        Document(text, _metadata(metadata))
        for text, metadata in zip(columns["page_content"], metadatas, strict=True)
    ]
    chunks = split(documents)
    return require("pyarrow", "ray", package="ray[data]").table(
        {
            "page_content": [chunk.page_content for chunk in chunks],
            "metadata": [_json(chunk.metadata) for chunk in chunks],
        }
    )


def _json(metadata: dict[str, Any]) -> str:
    return json.dumps(metadata, ensure_ascii=False, separators=(",", ":"))


def _metadata(value: Any) -> dict[str, Any]:
    """A row's metadata: JSON text (what :meth:`RayEngine.chunks` writes) or a dict."""
    if value is None:
        return {}
    if isinstance(value, str):
        return dict(json.loads(value))
    return dict(value)


def _quiet_ray_data(ray: ModuleType) -> None:
    """No Ray Data progress bars or plan logs: the run's own progress reports."""
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)


def _check_identities(vector_store: Any, identities: Iterable[dict[str, Any] | None]) -> None:
    from ragline.embeddings import check_same_vectors

    own = getattr(getattr(vector_store, "embeddings", None), "embedding_identity", None)
    for identity in identities:
        if own is not None and identity is not None:
            check_same_vectors(own, identity, where=f"the {type(vector_store).__name__} store")


def _probe(address: str) -> None:
    """Fail fast on an address nothing listens on (ray.init would wait a long time)."""
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as err:
        raise StoreConnectionError(_unreachable(address, str(err))) from None
    if host is None or port is None:
        raise StoreConnectionError(_unreachable(address, "no host:port in the address"))
    try:
        socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT).close()
    except OSError as err:
        raise StoreConnectionError(_unreachable(address, str(err))) from None


def _unreachable(address: str | None, reason: str) -> str:
    where = "a local Ray" if address is None else f"the Ray cluster at {address!r}"
    return (
        f"cannot reach {where}: {reason.rstrip('.')}. Start a cluster with 'ray start --head' "
        "and give its address ('auto' on one of its machines, 'host:6379', or "
        "'ray://host:10001' through Ray Client), or give no address to run a local Ray"
    )
