"""EmbedAhead: the index run's vectors, embedded on a thread ahead of the calls."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragline.core import Document
from ragline.embeddings import Embeddings, HashingEmbeddings
from ragline.indexing.api import hash_document
from ragline.store_folder import (
    EmbeddingBackend,
    StoreFolder,
    index_paths,
    load_paths,
    register_embedding,
    split_documents,
)
from ragline.store_folder import _writer as writer_module
from ragline.store_folder._ahead import EmbedAhead
from ragline.store_folder._corpus import FileLoader


class Recording(Embeddings):
    """Real feature hashing; records each call's texts and the thread that made it."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.inner = HashingEmbeddings(dimension=16)
        self.calls: list[tuple[str, list[str]]] = []
        self.fail_on = fail_on

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_on in texts:
            raise OSError(f"cannot embed {self.fail_on!r}")
        self.calls.append((threading.current_thread().name, list(texts)))
        return self.inner.embed_documents_array(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def test_planned_texts_come_from_the_thread_and_others_are_embedded_on_the_spot() -> None:
    recording = Recording()
    ahead = EmbedAhead(recording, block=2)
    ahead.start(["a", "b", "c", "d", "b"])
    asked = ["a", "x", "b", "b", "d", "c"]
    vectors = ahead.embed_documents_array(asked)
    ahead.close()
    np.testing.assert_array_equal(
        vectors, HashingEmbeddings(dimension=16).embed_documents_array(asked)
    )
    on_thread = [texts for name, texts in recording.calls if name == "ragline-embed-ahead"]
    here = [texts for name, texts in recording.calls if name != "ragline-embed-ahead"]
    assert on_thread == [["a", "b"], ["c", "d"], ["b"]]
    assert here == [["x"]]  # not planned; "b" was planned twice, so both copies came ahead


def test_a_text_planned_twice_is_handed_out_twice_and_a_third_copy_is_embedded_here() -> None:
    """Two chunks of one text: each gets a vector from the thread, so the run embeds as many
    texts as it has chunks (the demo printed "embedded 750 of 749 chunks" when the second
    copy was embedded again on the spot)."""
    recording = Recording()
    ahead = EmbedAhead(recording, block=8)
    ahead.start(["same", "other", "same"])
    first = ahead.embed_documents_array(["same", "other"])
    second = ahead.embed_documents_array(["same"])
    third = ahead.embed_documents_array(["same"])
    ahead.close()
    expected = HashingEmbeddings(dimension=16).embed_documents_array(["same", "other"])
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second[0], expected[0])
    np.testing.assert_array_equal(third[0], expected[0])
    on_thread = [texts for name, texts in recording.calls if name == "ragline-embed-ahead"]
    here = [texts for name, texts in recording.calls if name != "ragline-embed-ahead"]
    assert on_thread == [["same", "other", "same"]]
    assert here == [["same"]]  # the copy beyond the plan


def test_an_error_on_the_thread_is_raised_to_the_caller() -> None:
    ahead = EmbedAhead(Recording(fail_on="c"), block=2)
    ahead.start(["a", "b", "c", "d"])
    assert ahead.embed_documents_array(["a", "b"]).shape == (2, 16)
    with pytest.raises(OSError, match="cannot embed 'c'"):
        ahead.embed_documents_array(["c"])
    ahead.close()


def test_index_paths_embeds_the_first_files_while_it_reads_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: reading and splitting overlap with embedding instead of coming before it.
    The last file is read only once the model has embedded something (or after 20 s:
    then the order below shows the run read every file before it embedded anything)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(4):  # 150 chunks per file: one line each at chunk size 200
        lines = (f"file {number} line {line} " + "word " * 30 for line in range(150))
        (corpus / f"doc{number}.txt").write_text("\n\n".join(lines), encoding="utf-8")
    events: list[tuple[str, str]] = []
    embedded = threading.Event()

    class Watching(Recording):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            events.append(("embed", threading.current_thread().name))
            embedded.set()
            return super().embed_documents_array(texts)

    register_embedding("watching-issue-25", EmbeddingBackend(lambda options, bar: Watching()))
    read = FileLoader.__call__

    def reading(loader: FileLoader, item: Sequence[str]) -> list[Document]:
        if item[1] == "doc3.txt":
            embedded.wait(20)
        events.append(("read", item[1]))
        return read(loader, item)

    monkeypatch.setattr(FileLoader, "__call__", reading)
    result = index_paths(
        [corpus], tmp_path / "store", embedding="watching-issue-25", chunk_size=200,
        chunk_overlap=0,
    )  # fmt: skip
    assert result["num_added"] == 600 and result["chunks"] == 600
    assert events.index(("embed", "ragline-embed-ahead")) < events.index(("read", "doc3.txt"))
    assert [name for kind, name in events if kind == "embed"] == ["ragline-embed-ahead"] * 6
    # the same store as a run that reads everything first: ids are the chunks' keys
    store = StoreFolder(tmp_path / "store").open_store()
    chunks = split_documents(
        load_paths([corpus]).documents, chunk_size=200, chunk_overlap=0
    )  # the test's loader hook is still on: it only watches
    assert sorted(store.snapshot().ids) == sorted(hash_document(chunk) for chunk in chunks)


def test_the_first_block_can_be_smaller_so_the_model_starts_sooner() -> None:
    """The thread's first call takes ``first_block`` texts as soon as they are planned,
    the later ones full blocks; every text is still embedded once, in order."""
    recording = Recording()
    ahead = EmbedAhead(recording, block=4, first_block=2)
    ahead.plan(["a", "b"], last=False)
    for _ in range(6000):  # the thread starts on its own, nobody asking yet (<= 60 s)
        if recording.calls:
            break
        time.sleep(0.01)
    assert recording.calls == [("ragline-embed-ahead", ["a", "b"])]
    first = ahead.embed_documents_array(["a", "b"])
    ahead.plan(["c", "d", "e", "f", "g", "h", "i"], last=True)
    rest = ahead.embed_documents_array(["c", "d", "e", "f", "g", "h", "i"])
    ahead.close()
    expected = HashingEmbeddings(dimension=16).embed_documents_array(list("abcdefghi"))
    np.testing.assert_array_equal(np.concatenate([first, rest]), expected)
    on_thread = [texts for name, texts in recording.calls if name == "ragline-embed-ahead"]
    # the second call ends where the first block of 4 ends (index() batches are blocks)
    assert on_thread == [["a", "b"], ["c", "d"], ["e", "f", "g", "h"], ["i"]]
    assert [texts for name, texts in recording.calls if name != "ragline-embed-ahead"] == []


def test_the_calls_grow_from_the_first_block_and_end_where_blocks_end() -> None:
    """After a small first call the thread's calls double up to a block (a GPU waited
    for a whole block to be read and split after the first one), and no call straddles
    a multiple of the block (index() writes a batch of a block only once its last text
    is embedded); every text is embedded once, in order."""
    recording = Recording()
    ahead = EmbedAhead(recording, block=16, first_block=2)
    texts = [f"text {number}" for number in range(60)]
    ahead.start(texts)
    vectors = ahead.embed_documents_array(texts)
    ahead.close()
    np.testing.assert_array_equal(
        vectors, HashingEmbeddings(dimension=16).embed_documents_array(texts)
    )
    sizes = [len(part) for name, part in recording.calls if name == "ragline-embed-ahead"]
    assert sizes == [2, 4, 8, 2, 16, 16, 12]
    assert [part for _, part in recording.calls] == [
        texts[start : start + size]
        for start, size in zip([0, 2, 6, 14, 16, 32, 48], sizes, strict=True)
    ]


def test_time_left_is_the_planned_work_left_at_the_threads_pace() -> None:
    """None while the plan may grow or no call has ended (no pace yet); then the texts
    not embedded at the pace of the calls so far; 0 once the thread is done."""
    gates = [threading.Event() for _ in range(3)]
    started: list[int] = []

    class Gated(Recording):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            call = len(started)
            started.append(call)
            gates[call].wait(20)
            return super().embed_documents_array(texts)

    ahead = EmbedAhead(Gated(), block=2)
    ahead.plan(["a", "b"], last=False)
    assert ahead.time_left() is None  # more may be planned
    ahead.plan(["c", "d", "e", "f"], last=True)
    assert ahead.time_left() is None  # no call has ended: no pace yet
    gates[0].set()
    for _ in range(6000):  # the thread ends its first call and starts the second (<= 60 s)
        if len(started) == 2:
            break
        time.sleep(0.01)
    progress = ahead.time_left()
    assert progress is not None
    left, pace = progress
    # 4 of 6 texts left at the first call's pace (its time over its 2 texts), less the
    # second call's time so far
    assert pace == ahead._busy / 2
    assert 0.0 <= left <= 4 * pace
    gates[1].set()
    gates[2].set()
    vectors = ahead.embed_documents_array(["a", "b", "c", "d", "e", "f"])
    ahead.close()
    assert vectors.shape == (6, 16)
    done = ahead.time_left()
    assert done is not None and done[0] == 0.0


def test_caller_waited_says_whether_the_last_call_waited_for_the_thread() -> None:
    """True after a call that found a planned text not embedded yet and waited; False
    after one whose vectors were all ready (and before any call)."""
    gate = threading.Event()

    class Gated(Recording):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            gate.wait(20)
            return super().embed_documents_array(texts)

    ahead = EmbedAhead(Gated(), block=2)
    ahead.plan(["a", "b", "c", "d"], last=True)
    assert ahead.caller_waited() is False
    threading.Timer(0.2, gate.set).start()
    ahead.embed_documents_array(["a", "b"])  # waits for the gate
    assert ahead.caller_waited() is True
    for _ in range(6000):  # the thread embeds c and d (<= 60 s)
        if ahead._finished:
            break
        time.sleep(0.01)
    ahead.embed_documents_array(["c", "d"])  # ready
    assert ahead.caller_waited() is False
    ahead.close()


def test_no_commit_while_the_model_embeds_when_the_run_is_behind_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: a run whose batches' vectors are ready when it asks (behind the model, as
    on 2 cores against a GPU's 14,000 chunks/s) made its early commit all the same, in
    front of the batches it had left. With the model's time left in the commit's window
    (as in the test below) but no call that waited, it commits once, at the end."""
    corpus = _written_files(tmp_path / "corpus", range(4))
    commits = _counted_commits(monkeypatch)
    per_chunk = writer_module.COMMIT_SECONDS_PER_CHUNK
    progress = (360 * per_chunk, 0.5 * per_chunk)
    monkeypatch.setattr(EmbedAhead, "time_left", lambda self: progress)
    monkeypatch.setattr(EmbedAhead, "caller_waited", lambda self: False)
    result = index_paths([corpus], tmp_path / "behind", embedding="hashing", chunk_size=200,
                         chunk_overlap=0)  # fmt: skip
    assert (result["num_added"], result["chunks"]) == (600, 600)
    assert [count for count, _ in commits] == [600]


def _keyword_files(folder: StoreFolder) -> tuple[list[str], list[str], list[np.ndarray]]:
    data = folder.data_path(folder.read_manifest())
    saved = json.loads((data / "bm25.json").read_text())
    with np.load(data / "bm25.npz", allow_pickle=False) as arrays:
        return saved["ids"], saved["terms"], [arrays[name] for name in sorted(arrays.files)]


def test_index_paths_commits_once_while_the_model_embeds_its_last_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: the commit after the last block wrote every chunk while nothing else was
    left to do. When the model's work left takes about as long as committing what is
    stored (here made so from 210 to 360 of 600 chunks), the run commits then, once; the
    last commit adds the rest on top. The folder is the one a run without that commit
    writes: the same chunks, the same keyword index."""
    corpus = _written_files(tmp_path / "corpus", range(4))
    commits = _counted_commits(monkeypatch)
    # the model's time left is that of committing 360 chunks, and a batch of 100 texts
    # embeds in the time of committing 50: the commit of c stored chunks fits, and that
    # of c + 100 after the model's next batch would not, for c from 210 to 360
    per_chunk = writer_module.COMMIT_SECONDS_PER_CHUNK
    progress = (360 * per_chunk, 0.5 * per_chunk)
    monkeypatch.setattr(EmbedAhead, "time_left", lambda self: progress)
    monkeypatch.setattr(EmbedAhead, "caller_waited", lambda self: True)  # the run is ahead
    result = index_paths([corpus], tmp_path / "ahead", embedding="hashing", chunk_size=200,
                         chunk_overlap=0)  # fmt: skip
    assert (result["num_added"], result["chunks"]) == (600, 600)
    # batches of 100: once, at the first boundary in the window
    assert [count for count, _ in commits] == [300, 600]

    commits.clear()
    monkeypatch.setattr(EmbedAhead, "time_left", lambda self: None)  # pace not known
    index_paths([corpus], tmp_path / "plain", embedding="hashing", chunk_size=200,
                chunk_overlap=0)  # fmt: skip
    assert [count for count, _ in commits] == [600]
    ahead, plain = StoreFolder(tmp_path / "ahead"), StoreFolder(tmp_path / "plain")
    ahead_ids, ahead_terms, ahead_arrays = _keyword_files(ahead)
    plain_ids, plain_terms, plain_arrays = _keyword_files(plain)
    assert (ahead_ids, ahead_terms) == (plain_ids, plain_terms)
    for mine, theirs in zip(ahead_arrays, plain_arrays, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    stored, expected = ahead.open_store().snapshot(), plain.open_store().snapshot()
    assert (stored.ids, stored.texts, stored.metadatas) == (
        expected.ids, expected.texts, expected.metadatas,
    )  # fmt: skip
    again = index_paths([corpus], tmp_path / "ahead")
    assert (again["num_added"], again["num_skipped"], again["num_deleted"]) == (0, 600, 0)


def _indexed_corpus(tmp_path: Path, *, new_files: int) -> Path:
    """tmp_path/corpus: two files indexed into tmp_path/store (hashing, chunks of 200),
    then ``new_files`` more not yet indexed; 150 chunks a file."""
    corpus = _written_files(tmp_path / "corpus", range(2))
    index_paths([corpus], tmp_path / "store", embedding="hashing", chunk_size=200,
                chunk_overlap=0)  # fmt: skip
    return _written_files(corpus, range(2, 2 + new_files))


def _written_files(corpus: Path, numbers: range) -> Path:
    """Files doc<number>.txt in ``corpus``, 150 chunks each at chunk size 200."""
    corpus.mkdir(exist_ok=True)
    for number in numbers:
        lines = (f"file {number} line {line} " + "word " * 30 for line in range(150))
        (corpus / f"doc{number}.txt").write_text("\n\n".join(lines), encoding="utf-8")
    return corpus


def _counted_commits(patch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """Each FolderWriter.commit from now on, as (chunks stored, changed since the last)."""
    commits: list[tuple[int, bool]] = []
    commit = writer_module.FolderWriter.commit

    def counted(writer: writer_module.FolderWriter) -> None:
        assert writer.store is not None
        commits.append((writer.store.count(), writer._changed))
        commit(writer)

    patch.setattr(writer_module.FolderWriter, "commit", counted)
    return commits


def test_the_commit_while_the_model_embeds_waits_for_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-run whose first batches are all skipped does not spend its one early commit
    on a boundary where it has changed nothing (a generation written for nothing): it
    commits once the store changed."""
    corpus = _indexed_corpus(tmp_path, new_files=2)
    commits = _counted_commits(monkeypatch)
    # the window of the test above: a commit of 210 to 360 stored chunks fits
    per_chunk = writer_module.COMMIT_SECONDS_PER_CHUNK
    progress = (360 * per_chunk, 0.5 * per_chunk)
    monkeypatch.setattr(EmbedAhead, "time_left", lambda self: progress)
    monkeypatch.setattr(EmbedAhead, "caller_waited", lambda self: True)  # the run is ahead
    result = index_paths([corpus], tmp_path / "store")
    assert (result["num_added"], result["num_skipped"], result["chunks"]) == (300, 300, 600)
    assert [changed for _, changed in commits] == [True] * len(commits)
    assert commits[-1] == (600, True)


def test_a_timed_checkpoint_waits_for_a_change(tmp_path: Path) -> None:
    """A re-run whose batches are skipped committed a whole generation at every timed
    checkpoint all the same (here every boundary: checkpoint_seconds=0), each one
    copying the documents file for nothing: it now commits once the store changed, and
    the folder holds what a run without checkpoints writes."""
    corpus = _indexed_corpus(tmp_path, new_files=1)
    with pytest.MonkeyPatch.context() as patch:
        commits = _counted_commits(patch)
        patch.setattr(EmbedAhead, "caller_waited", lambda self: False)  # no early commit
        result = index_paths([corpus], tmp_path / "store", checkpoint_seconds=0.0)
    assert (result["num_added"], result["num_skipped"], result["chunks"]) == (150, 300, 450)
    # batches of 100: 300 skipped (boundaries at 100, 200, 300: nothing changed), then
    # the new file's chunks, committed at each boundary after a change and at the end
    assert commits == [(400, True), (450, True)]
    index_paths([corpus], tmp_path / "plain", embedding="hashing", chunk_size=200,
                chunk_overlap=0)  # fmt: skip
    stored = StoreFolder(tmp_path / "store").open_store().snapshot()
    expected = StoreFolder(tmp_path / "plain").open_store().snapshot()
    assert (sorted(stored.ids), sorted(stored.texts)) == (
        sorted(expected.ids),
        sorted(expected.texts),
    )
