"""RayEngine: index() on a local Ray (2 CPUs, loopback) gives the in-process results.

The Ray started by the ``ray_cluster`` fixture is shared by every test here (it takes
seconds to start on two cores), so the tests are few and each checks a whole run: the
same ids, texts, metadata and vectors (within 1e-6) as index() in this process, for FAISS
(through the store folder, as ``ragline index --engine ray`` runs it) and for Redis
(workers writing directly); an unchanged re-run embedding nothing; full cleanup; a
worker killed after writing, retried by Ray, duplicating nothing; a worker that keeps
dying, then a re-run converging.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.cli import main
from ragline.core import Document, MissingDependencyError, RaglineError, StoreConnectionError
from ragline.embeddings import HashingEmbeddings, SentenceTransformerEmbeddings
from ragline.indexing import RayEngine, SQLRecordManager, index
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.store_folder import StoreFolder, index_paths
from ragline.vectorstores import Redis

pytestmark = pytest.mark.slow

WORDS = [
    "volcano",
    "river",
    "glacier",
    "desert",
    "forest",
    "canyon",
    "island",
    "meadow",
    "tundra",
    "reef",
    "delta",
    "lagoon",
]


def write_corpus(folder: Path, files: int = 6) -> Path:
    """``files`` text files of three paragraphs each, every paragraph its own chunk."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        paragraphs = [
            " ".join(WORDS[(number * 5 + part * 3 + k) % len(WORDS)] for k in range(14))
            + f" (file {number}, part {part})"
            for part in range(3)
        ]
        (folder / f"notes-{number}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return folder


def folder_rows(path: Path) -> dict[str, tuple[str, dict[str, Any], np.ndarray]]:
    """Every chunk of a store folder: id -> (text, metadata, stored vector)."""
    snapshot = StoreFolder(path).open_store().snapshot()
    assert snapshot.index is not None
    vectors = snapshot.index.vectors(np.asarray(snapshot.labels, dtype=np.int64))
    return {
        doc_id: (text, metadata, vector)
        for doc_id, text, metadata, vector in zip(
            snapshot.ids, snapshot.texts, snapshot.metadatas, vectors, strict=True
        )
    }


def assert_same_rows(ray_rows: dict[str, Any], local_rows: dict[str, Any]) -> None:
    assert sorted(ray_rows) == sorted(local_rows)
    for doc_id, (text, metadata, vector) in local_rows.items():
        assert ray_rows[doc_id][0] == text
        assert ray_rows[doc_id][1] == metadata
        np.testing.assert_allclose(ray_rows[doc_id][2], vector, rtol=0, atol=1e-6)


class Recorder:
    """A RayProgress that keeps what it is told."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, int, str | None]] = []
        self.embedded = 0
        self.written = 0

    def loaded(self, item: Any, documents: int, error: str | None) -> None:
        self.items.append((item, documents, error))

    def add_embedded(self, count: int, seconds: float) -> None:
        self.embedded += count

    def add_written(self, count: int) -> None:
        self.written += count


def test_the_store_folder_on_ray_matches_in_process_and_re_runs_embed_nothing(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """If ids differ, the split or the metadata differ between the read tasks and
    load_paths/split_documents; if vectors differ beyond 1e-6, the actors embed with
    other settings than the store's MiniLM."""
    corpus = write_corpus(tmp_path / "corpus")
    options = {"embedding": "minilm", "chunk_size": 200, "chunk_overlap": 0}
    local = index_paths([corpus], tmp_path / "local", **options)
    notes: list[str] = []
    engine = RayEngine(workers=2)
    on_ray = index_paths([corpus], tmp_path / "ray", note=notes.append, engine=engine, **options)

    assert local["num_added"] == on_ray["num_added"] == 18
    assert (on_ray["documents"], on_ray["chunks"], on_ray["stored_chunks"]) == (6, 18, 18)
    assert_same_rows(folder_rows(tmp_path / "ray"), folder_rows(tmp_path / "local"))
    assert notes[0] == "reading 6 files, embedding on 2 Ray workers"
    assert notes[-1].startswith("read 6 documents into 18 chunks; embedded 18 on 2 Ray workers")

    # unchanged: nothing embedded (no actor even starts), nothing written
    notes.clear()
    again = index_paths([corpus], tmp_path / "ray", note=notes.append, engine=engine, **options)
    assert (again["num_added"], again["num_skipped"], again["num_deleted"]) == (0, 18, 0)
    assert "embedded 0 on 2 Ray workers" in notes[-1]

    # one file changed, one removed: --full on both paths gives the same store
    (corpus / "notes-0.txt").write_text("a new first file about reefs", encoding="utf-8")
    (corpus / "notes-5.txt").unlink()
    local = index_paths([corpus], tmp_path / "local", cleanup="full", **options)
    on_ray = index_paths([corpus], tmp_path / "ray", cleanup="full", engine=engine, **options)
    assert (on_ray["num_added"], on_ray["num_skipped"], on_ray["num_deleted"]) == (1, 12, 6)
    assert local == on_ray
    assert_same_rows(folder_rows(tmp_path / "ray"), folder_rows(tmp_path / "local"))


def test_ragline_index_engine_ray(ray_cluster: Any, tmp_path: Path, capsys: Any) -> None:
    corpus = write_corpus(tmp_path / "corpus", files=3)
    (corpus / "logo.png").write_bytes(b"\x89PNG\0\0\0")
    args = ["index", str(corpus), "--store", str(tmp_path / "store"), "--embedding", "hashing",
            "--chunk-size", "200", "--chunk-overlap", "0"]  # fmt: skip
    assert main([*args, "--engine", "ray", "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "added 9, updated 0, skipped 0, deleted 0"
    assert f"skipped {corpus / 'logo.png'}: binary data (a NUL byte), not text" in captured.err
    assert main([*args, "--workers", "2"]) == 2
    assert "--address and --workers go with --engine ray" in capsys.readouterr().err


def test_redis_workers_write_what_index_writes_in_process(
    ray_cluster: Any, redis_url: str, tmp_path: Path
) -> None:
    """A Dataset of documents split in Ray tasks, embedded and written to Redis by the
    actors: the same documents and vectors as index() in this process."""
    documents = [
        Document(
            " ".join(WORDS[(number * 7 + k) % len(WORDS)] for k in range(40)),
            metadata={"source": f"doc-{number}", "n": number},
        )
        for number in range(8)
    ]
    splitter = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=0)
    embeddings = SentenceTransformerEmbeddings(backend="onnx", normalize_embeddings=True)
    local = Redis(embeddings, redis_url=redis_url, index_name="ray-local")
    on_ray = Redis(embeddings, redis_url=redis_url, index_name="ray-workers")
    options = {"cleanup": "incremental", "source_id_key": "source"}
    expected = index(
        splitter.split_documents(documents),
        SQLRecordManager("local", db_url=f"sqlite:///{tmp_path / 'local.sqlite'}"),
        local,
        **options,
    )
    progress = Recorder()
    engine = RayEngine(workers=2, progress=progress)
    dataset = ray_cluster.data.from_items(
        [{"page_content": doc.page_content, "metadata": json.dumps(doc.metadata)}
         for doc in documents]
    )  # fmt: skip
    records = SQLRecordManager("ray", db_url=f"sqlite:///{tmp_path / 'ray.sqlite'}")
    result = index(
        engine.chunks(dataset, split=splitter.split_documents), records, on_ray,
        engine=engine, **options,
    )  # fmt: skip
    assert result == expected
    assert progress.embedded == progress.written == expected["num_added"]
    assert_same_rows(redis_rows(on_ray, redis_url), redis_rows(local, redis_url))
    local.drop_index(delete_documents=True)
    on_ray.drop_index(delete_documents=True)


def redis_rows(store: Redis, url: str) -> dict[str, tuple[str, dict[str, Any], np.ndarray]]:
    import redis

    client = redis.Redis.from_url(url)
    ids = [key.decode().split("|", 1)[1] for key in client.scan_iter(f"{store.key_prefix}|*")]
    rows = {}
    for document in store.get_by_ids(ids):
        raw = client.hget(f"{store.key_prefix}|{document.id}", "content_vector")
        rows[str(document.id)] = (
            document.page_content,
            document.metadata,
            np.frombuffer(raw, dtype=np.float32),
        )
    client.close()
    return rows


class DyingRedis(Redis):
    """Kills the worker process right after its first write (once per marker file): a
    worker lost after writing part of a batch, whose call Ray then retries."""

    marker = ""

    def _upsert(self, ids: Any, vectors: Any, texts: Any, metadatas: Any) -> None:
        super()._upsert(ids, vectors, texts, metadatas)
        if self.marker and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)


@pytest.fixture
def dying_store(redis_url: str, tmp_path: Path) -> Any:
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests
    store = DyingRedis(HashingEmbeddings(dimension=32), redis_url=redis_url)
    store.marker = str(tmp_path / "killed")
    yield store
    store.drop_index(delete_documents=True)
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def numbered(count: int) -> list[Document]:
    return [Document(f"passage {n}", metadata={"source": f"s{n % 5}"}) for n in range(count)]


def test_a_worker_killed_after_writing_is_retried_and_nothing_is_duplicated(
    ray_cluster: Any, dying_store: Any, tmp_path: Path
) -> None:
    records = SQLRecordManager("kill", db_url=f"sqlite:///{tmp_path / 'records.sqlite'}")
    engine = RayEngine(workers=2, worker_batch_size=4, max_retries=2)
    result = index(numbered(40), records, dying_store, batch_size=20, engine=engine)
    assert Path(dying_store.marker).exists()  # a worker did die after writing
    assert result == {"num_added": 40, "num_updated": 0, "num_skipped": 0, "num_deleted": 0}
    assert dying_store.count() == 40 == len(records.list_keys())
    assert records.list_pending() == []
    stored = dying_store.get_by_ids(records.list_keys())
    assert sorted(doc.page_content for doc in stored) == sorted(f"passage {n}" for n in range(40))


def test_a_worker_dying_past_its_retries_stops_the_run_and_the_next_run_converges(
    ray_cluster: Any, dying_store: Any, tmp_path: Path
) -> None:
    records = SQLRecordManager("stop", db_url=f"sqlite:///{tmp_path / 'records.sqlite'}")
    fragile = RayEngine(workers=2, worker_batch_size=4, max_retries=0)
    with pytest.raises(RaglineError, match="died and was restarted 0 times"):
        index(numbered(40), records, dying_store, batch_size=20, engine=fragile)
    assert records.list_pending() != []  # the batch the worker died in
    result = index(numbered(40), records, dying_store, batch_size=20, engine=RayEngine(workers=2))
    assert result["num_added"] + result["num_skipped"] == 40
    assert dying_store.count() == 40 == len(records.list_keys())
    assert records.list_pending() == []


def test_an_unreachable_cluster_or_a_missing_ray_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr("ray.is_initialized", lambda: False)
    with pytest.raises(StoreConnectionError) as caught:
        RayEngine(address=f"ray://127.0.0.1:{port}").connect()
    message = str(caught.value)
    assert message.startswith(f"cannot reach the Ray cluster at 'ray://127.0.0.1:{port}': ")
    assert "'ray start --head'" in message
    monkeypatch.setitem(sys.modules, "ray.data", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragline\[ray\]'"):
        RayEngine().connect()


def test_actors_ask_for_a_gpu_each_only_where_the_cluster_has_gpus(ray_cluster: Any) -> None:
    # the session's cluster has 2 CPUs and no GPU: CPU actors, one per CPU
    engine = RayEngine()
    assert (engine.gpus_per_worker(), engine.worker_count()) == (0.0, 2)
    assert RayEngine(num_gpus=0.5).gpus_per_worker() == 0.5


def test_workers_are_capped_by_what_the_cluster_runs_at_once(ray_cluster: Any, caplog: Any) -> None:
    """The session's Ray has 2 CPUs: 1000 workers become 2 (a warning names both), as
    many as fit at num_cpus each are kept, and no workers means one per CPU (issue 31)."""
    with caplog.at_level("WARNING", logger="ragline.indexing"):
        assert RayEngine(workers=1000).worker_count() == 2
    assert caplog.messages == [
        "workers=1000 is more than the Ray cluster can run at once (2 CPUs); starting 2 "
        "embedding workers"
    ]
    caplog.clear()
    assert RayEngine(workers=4, num_cpus=0.5).worker_count() == 4
    assert RayEngine(workers=5, num_cpus=0.5).worker_count() == 4
    assert RayEngine().worker_count() == 2
    assert len(caplog.messages) == 1
