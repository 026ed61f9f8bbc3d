"""The store folder's keyword index (bm25.json + bm25.npz): kept in step with the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.core import ConfigurationError, Document, InvalidInputError
from ragline.retrievers import BM25Retriever, BM25Tokenizer, HybridRetriever
from ragline.retrievers import _tokenizer as tokenizer_module
from ragline.store_folder import StoreFolder
from ragline.store_folder._text_index import (
    RowsAhead,
    _Numbering,
    _rows_of,
    load_text_index,
    save_text_index,
    sync_text_index,
)

DOCS = {
    "vacuum": "VACUUM reclaims storage occupied by dead tuples.",
    "restart": "Restarting the server with pg_ctl restart.",
    "volcano": "Mount Etna erupts several times a year.",
}


def _write(folder: StoreFolder, docs: dict[str, str]) -> None:
    with folder.writer(embedding="hashing") as writer:
        writer.index([Document(text, {"source": name}) for name, text in docs.items()])


def _watch_tokenizing(patch: pytest.MonkeyPatch, seen: list[str]) -> None:
    """Record in ``seen`` every text a BM25Tokenizer tokenizes: text by text (its
    ``__call__``) or in a run of ASCII texts joined into one string (separated_tokens)."""
    call, run = BM25Tokenizer.__call__, tokenizer_module._ascii_run_tokens
    patch.setattr(
        BM25Tokenizer, "__call__", lambda self, text: seen.append(text) or call(self, text)
    )
    patch.setattr(
        tokenizer_module, "_ascii_run_tokens", lambda texts: seen.extend(texts) or run(texts)
    )


def _data(folder: StoreFolder) -> Path:
    """The committed generation, where the keyword index lives beside the store."""
    return folder.data_path(folder.read_manifest())


def _saved(folder: StoreFolder) -> dict:
    return json.loads((_data(folder) / "bm25.json").read_text())


def test_index_saves_the_keyword_index_of_the_stored_chunks(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    store = folder.open_store()
    saved = _saved(folder)
    assert sorted(saved["ids"]) == sorted(store.snapshot().ids)
    assert saved["tokenizer"] == {"language": "english", "stem": False, "stopwords": False}
    with np.load(_data(folder) / "bm25.npz", allow_pickle=False) as arrays:
        assert sorted(arrays.files) == ["doc_ptr", "doc_terms", "doc_tfs"]
    found = folder.as_retriever(search_type="bm25", search_kwargs={"k": 1}).invoke(
        "how to restart servers"
    )
    assert [d.metadata["source"] for d in found] == ["restart"]
    assert found[0].metadata["relevance_score"] > 0


def test_a_rerun_tokenizes_only_the_changed_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    seen: list[str] = []
    _watch_tokenizing(monkeypatch, seen)
    _write(folder, {**DOCS, "volcano": "Stromboli erupts every few minutes."})
    assert seen == ["Stromboli erupts every few minutes."]
    saved = _saved(folder)
    assert len(saved["ids"]) == 3
    assert "etna" not in saved["terms"]  # the deleted chunk's words are dropped
    assert "stromboli" in saved["terms"]


def test_a_keyword_index_behind_the_store_is_repaired_on_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyword index behind its store (a folder written before the index was committed
    with the store, or a damaged copy): the next search brings the index in step from
    the store (in memory), the next run saves it."""
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    stale = _saved(folder)
    _write_keeping_the_old_index(folder, monkeypatch)
    assert _saved(folder) == stale  # behind: the store holds Stromboli, the index Etna
    stored = [d.page_content for d in folder.open_store().similarity_search("x", k=3)]
    assert "Stromboli erupts every few minutes." in stored
    for search_type in ("bm25", "hybrid"):
        found = folder.as_retriever(search_type=search_type, search_kwargs={"k": 1}).invoke(
            "Stromboli"
        )
        assert [d.page_content for d in found] == ["Stromboli erupts every few minutes."]
    assert folder.as_retriever(search_type="bm25").invoke("Etna") == []
    _write(folder, {**DOCS, "volcano": "Stromboli erupts every few minutes."})
    assert "stromboli" in _saved(folder)["terms"]


def _write_keeping_the_old_index(folder: StoreFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commit Stromboli on top of ``DOCS`` with the committed keyword index copied into
    the new generation instead of saved: an index behind its store."""
    import ragline.store_folder._writer as writer_module

    committed = _data(folder)

    def keep_the_old_index(self: object, data: Path, previous: object) -> None:
        for name in ("bm25.json", "bm25.npz"):
            shutil.copy(committed / name, data / name)

    with monkeypatch.context() as patch:
        patch.setattr(writer_module.FolderWriter, "_save_keyword_index", keep_the_old_index)
        _write(folder, {**DOCS, "volcano": "Stromboli erupts every few minutes."})


def _fresh_scores(folder: StoreFolder, queries: list[list[str]]) -> list[float]:
    """Per query, each stored chunk's BM25 score (in id order) in an index built afresh."""
    store = folder.open_store()
    snapshot = store.snapshot()
    tokenizer = BM25Tokenizer.from_dict(_saved(folder)["tokenizer"])
    fresh, _, _ = sync_text_index(None, snapshot.ids, snapshot.texts, tokenizer)
    return _scores(fresh, queries)


def _scores(text_index: Any, queries: list[list[str]]) -> list[float]:
    order = sorted(range(len(text_index.ids)), key=text_index.ids.__getitem__)
    return [float(text_index.index.get_scores(q)[row]) for q in queries for row in order]


def test_a_commit_updates_the_keyword_index_by_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run on a committed folder brings the keyword index in step by what the run
    changed (chunks added, deleted, replaced): no stored chunk is read back (that cost
    grew with the store: every text read from the documents file on every commit), and
    the index is the one a fresh build from the store gives. A run that changes nothing
    checks the index without reading the store either."""
    import ragline.store_folder._writer as writer_module
    from ragline.vectorstores import FAISS

    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)

    def read_back(*args: object) -> None:
        raise AssertionError("every stored chunk was read back")

    with monkeypatch.context() as patch:
        patch.setattr(writer_module, "store_records", read_back)
        patch.setattr(FAISS, "snapshot", read_back)
        changed = {**DOCS, "volcano": "Stromboli erupts every few minutes.", "new": "Kilauea"}
        del changed["vacuum"]
        with folder.writer(embedding="hashing") as writer:
            writer.index(
                [Document(text, {"source": name}) for name, text in changed.items()],
                cleanup="full",
            )
        _write(folder, changed)  # nothing to do: no commit, the index is the store's
    saved = load_text_index(_data(folder))[0]
    assert saved is not None and sorted(saved.ids) == sorted(folder.open_store().snapshot().ids)
    assert len(saved.ids) == 3
    queries = [["stromboli"], ["kilauea"], ["etna"], ["vacuum"], ["restart", "server"]]
    assert _scores(saved, queries) == pytest.approx(_fresh_scores(folder, queries))
    assert "etna" not in _saved(folder)["terms"] and "vacuum" not in _saved(folder)["terms"]


def test_a_stale_keyword_index_is_brought_in_step_by_a_commit_of_other_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyword index behind its store (here: the previous generation's copied into the
    committed one, as a folder written before the index was committed with the store
    holds) is not updated by the next run's changes alone, which would keep it behind:
    only an index its own generation's commit wrote is trusted, any other is brought in
    step from every stored chunk."""
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    _write_keeping_the_old_index(folder, monkeypatch)
    assert "etna" in _saved(folder)["terms"]  # behind: the store holds Stromboli
    _write(folder, {"new": "Kilauea erupts too."})  # another source: one chunk added
    queries = [["stromboli"], ["kilauea"], ["etna"], ["erupts"]]
    saved = load_text_index(_data(folder))[0]
    assert saved is not None and len(saved.ids) == 4
    assert _scores(saved, queries) == pytest.approx(_fresh_scores(folder, queries))
    assert "etna" not in _saved(folder)["terms"]


def test_checkpoints_update_the_keyword_index_of_the_run_s_last_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that commits at checkpoints (here before each batch of 2 chunks) starts each
    commit from the keyword index its previous commit wrote, kept in memory: the
    committed one is read once per run, no stored chunk is read back, not even in a
    --rebuild run after its first commit, and every generation's index is its store's."""
    import ragline.store_folder._writer as writer_module

    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    reads: list[str] = []
    real_load = writer_module.load_text_rows
    real_records = writer_module.store_records

    def counted_load(path: Path) -> Any:
        reads.append("index")
        return real_load(path)

    def counted_records(store: Any) -> Any:
        reads.append("every chunk")
        return real_records(store)

    real_save = writer_module.save_text_rows

    def counted_save(path: Path, rows: Any) -> None:
        reads.append("saved")
        real_save(path, rows)

    monkeypatch.setattr(writer_module, "load_text_rows", counted_load)
    monkeypatch.setattr(writer_module, "store_records", counted_records)
    monkeypatch.setattr(writer_module, "save_text_rows", counted_save)
    texts = {f"doc{i}": f"Volcano number {i} erupts." for i in range(7)}
    documents = [Document(text, {"source": name}) for name, text in texts.items()]
    for rebuild in (False, True):
        reads.clear()
        with folder.writer(embedding="hashing", checkpoint_seconds=0, rebuild=rebuild) as w:
            w.index(documents, batch_size=2, cleanup="full")
        # three checkpoints (before chunks 2, 4 and 6) and the commit at the end
        assert reads == ["every chunk" if rebuild else "index", *["saved"] * 4]
        saved = load_text_index(_data(folder))[0]
        assert saved is not None and sorted(saved.ids) == sorted(folder.open_store().snapshot().ids)
        queries = [["volcano"], ["3"], ["erupts"], ["etna"]]
        assert _scores(saved, queries) == pytest.approx(_fresh_scores(folder, queries))


def test_damaged_or_mismatched_files_are_rebuilt_from_the_store(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    arrays = _data(folder) / "bm25.npz"
    arrays.write_bytes(arrays.read_bytes()[:-10])
    assert load_text_index(_data(folder)) == (
        None,
        "bm25.npz does not belong to bm25.json (an interrupted save)",
    )
    assert len(folder.as_retriever(search_type="bm25").invoke("Etna")) == 1
    (_data(folder) / "bm25.json").unlink()
    assert load_text_index(_data(folder))[1] == "no keyword index yet"
    assert len(folder.as_retriever(search_type="hybrid").invoke("Etna")) >= 1
    _write(folder, DOCS)  # the next run writes it again
    assert load_text_index(_data(folder))[0] is not None


def test_sync_matches_a_fresh_index_exactly() -> None:
    """Adding and removing rows gives the same scores as building from scratch."""
    tokenizer = BM25Tokenizer(stopwords=True)
    texts = {
        f"id{i}": f"text number {i} about {'cats' if i % 2 else 'dogs'} and {i * 7}"
        for i in range(30)
    }
    first, added, removed = sync_text_index(
        None, list(texts)[:20], list(texts.values())[:20], tokenizer
    )
    assert (added, removed) == (20, 0)
    ids = list(texts)[5:]
    updated, added, removed = sync_text_index(first, ids, [texts[i] for i in ids], tokenizer)
    assert (added, removed) == (10, 5)
    fresh = BM25Retriever.from_texts(
        [texts[i] for i in updated.ids], preprocess_func=tokenizer, idf="lucene"
    ).vectorizer
    for query in (["cats"], ["dogs", "35"], ["number"], ["missing"]):
        assert updated.index.get_scores(query).tolist() == pytest.approx(
            fresh.get_scores(query).tolist()
        )


class _OneByOne(BM25Tokenizer):
    """A subclass: _rows_of tokenizes its texts one call each (the path before d6f3a59)."""


def test_rows_of_tokenizing_texts_together_equal_one_text_at_a_time() -> None:
    """A plain BM25Tokenizer's rows (texts tokenized together) are those of a tokenizer of
    another type (one call per text): terms numbered in the same order, same counts."""
    texts = ["Cats and DOGS, cats", "", "\u212aelvin café cats", "a\x00b dogs", "zebra", "  "]
    together, one_by_one = ["dogs"], ["dogs"]
    rows = _rows_of(texts, together, BM25Tokenizer())
    expected = _rows_of(texts, one_by_one, _OneByOne())
    assert together == one_by_one == ["dogs", "cats", "and", "kelvin", "café", "a", "b", "zebra"]
    assert [array.tolist() for array in rows] == [array.tolist() for array in expected]
    assert [array.tolist() for array in rows] == [
        [0, 1, 2, 1, 3, 4, 0, 5, 6, 7],
        [1, 2, 1, 1, 1, 1, 1, 1, 1, 1],
        [3, 0, 3, 3, 1, 0],
    ]


# ASCII texts (joined when tokenized together), NUL (the separator), word characters at a
# text's ends, non-ASCII letters and blanks; few distinct words, so terms repeat
_WORDS = ["cat", "Cat", "dog", "x_1", "42", "", " ", "\x00", "-", "'s", "\u212a", "é", "\xa0"]
_TEXT = st.lists(st.sampled_from(_WORDS), max_size=8).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    start=st.lists(st.sampled_from(["cat", "dog", "k", "é", "zebra", "\x00"]), unique=True),
    batches=st.lists(st.lists(_TEXT, max_size=8), max_size=4),
)
def test_rows_of_batches_numbered_as_one_text_at_a_time(
    start: list[str], batches: list[list[str]]
) -> None:
    """Batches after one another from one numbering (as RowsAhead computes them): a plain
    tokenizer's rows and vocabulary are those of one tokenizer call per text (also from
    a vocabulary holding the separator as a term, which a subclass could have made)."""
    together, one_by_one = _Numbering(list(start)), _Numbering(list(start))
    for texts in batches:
        rows = _rows_of(texts, together.vocabulary, BM25Tokenizer(), together)
        expected = _rows_of(texts, one_by_one.vocabulary, _OneByOne(), one_by_one)
        assert _rows_equal(rows, expected)
        assert together.vocabulary == one_by_one.vocabulary
    # and from a plain list, as a commit numbers them
    texts = [text for batch in batches for text in batch]
    vocabulary, expected_vocabulary = list(start), list(start)
    rows = _rows_of(texts, vocabulary, BM25Tokenizer())
    assert _rows_equal(rows, _rows_of(texts, expected_vocabulary, _OneByOne()))
    assert vocabulary == expected_vocabulary


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    tokenizer = BM25Tokenizer(language="french", stopwords=True)
    index, _, _ = sync_text_index(None, ["a", "b"], ["le chat dort", "un chien aboie"], tokenizer)
    save_text_index(tmp_path, index)
    loaded, why = load_text_index(tmp_path)
    assert why == ""
    assert loaded is not None and loaded.ids == ["a", "b"] and loaded.tokenizer == tokenizer
    assert loaded.index.get_scores(["chat"]).tolist() == index.index.get_scores(["chat"]).tolist()


def test_a_new_tokenizer_in_the_manifest_rebuilds_the_index(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    manifest = json.loads((folder.path / "ragline.json").read_text())
    assert folder.as_retriever(search_type="bm25").invoke("restarts") == []  # not stemmed
    stemmed = {"language": "english", "stem": True, "stopwords": True}
    manifest["bm25"] = {"tokenizer": stemmed}
    (folder.path / "ragline.json").write_text(json.dumps(manifest))
    found = folder.as_retriever(search_type="bm25").invoke("restarts")
    assert [d.metadata["source"] for d in found] == ["restart"]  # restart(s|ing) -> restart
    _write(folder, DOCS)
    assert _saved(folder)["tokenizer"] == stemmed


def test_the_writer_chooses_the_tokenizer_and_a_change_is_reported(tmp_path: Path) -> None:
    """keyword_tokenizer sets a new store's tokenizer; on an existing store a different one
    is a reported change that rebuilds the keyword index; None keeps the store's."""
    pytest.importorskip("Stemmer")
    folder = StoreFolder(tmp_path / "store")
    stemmed = BM25Tokenizer(stem=True, stopwords=True)
    docs = [Document(text, {"source": name}) for name, text in DOCS.items()]
    with folder.writer(embedding="hashing", keyword_tokenizer=stemmed) as writer:
        assert writer.changes == []  # a new store: nothing changes
        writer.index(docs)
    assert _saved(folder)["tokenizer"] == stemmed.to_dict()
    found = folder.as_retriever(search_type="bm25").invoke("restarts")
    assert [d.metadata["source"] for d in found] == ["restart"]
    _write(folder, DOCS)  # no tokenizer given: the store's stays
    assert _saved(folder)["tokenizer"] == stemmed.to_dict()
    with folder.writer(keyword_tokenizer=BM25Tokenizer(language="french")) as writer:
        assert writer.changes == [
            "keyword tokenizer changes from BM25Tokenizer(language='english', stem=True, "
            "stopwords=True) to BM25Tokenizer(language='french', stem=False, stopwords=False) "
            "(recorded in ragline.json): the keyword index is rebuilt"
        ]
        writer.index(docs)
    assert _saved(folder)["tokenizer"] == {"language": "french", "stem": False, "stopwords": False}
    assert folder.as_retriever(search_type="bm25").invoke("restarts") == []  # not stemmed now


def test_search_types_and_their_options(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    hybrid = folder.as_retriever(search_type="hybrid", search_kwargs={"k": 2, "fetch_k": 3})
    assert isinstance(hybrid, HybridRetriever) and hybrid.fetch_k == 3
    filtered = folder.as_retriever(
        search_type="hybrid", search_kwargs={"filter": {"source": "vacuum"}}
    )
    assert [d.metadata["source"] for d in filtered.invoke("server storage volcano")] == ["vacuum"]
    with pytest.raises(InvalidInputError, match="'lambda_mult' not accepted by search_type 'bm25'"):
        folder.as_retriever(search_type="bm25", search_kwargs={"lambda_mult": 0.5})
    with pytest.raises(ConfigurationError, match="search_type 'keyword' is not one of"):
        folder.as_retriever(search_type="keyword")
    assert folder.as_retriever(search_type="mmr", search_kwargs={"k": 1}).invoke("Etna")


def _rows_equal(got: Any, expected: Any) -> bool:
    return len(got) == len(expected) and all(
        np.array_equal(a, b) for a, b in zip(got, expected, strict=True)
    )


def test_rows_ahead_hands_out_exactly_the_rows_of_the_next_texts() -> None:
    """Rows computed ahead (in two groups) and taken in two other pieces (a checkpoint,
    then the end) are what tokenizing each piece at its commit gives, vocabulary too."""
    tokenizer = BM25Tokenizer()
    base = ["etna", "erupts"]
    texts = ["Etna erupts; Stromboli erupts.", "Vesuvius sleeps", "", "Etna and Vesuvius",
             "Hekla erupts, Hekla sleeps"]  # fmt: skip
    ids = [f"id{i}" for i in range(len(texts))]
    ahead = RowsAhead(base, tokenizer)
    ahead.add(ids[:3], texts[:3])
    ahead.add(ids[3:], texts[3:])
    vocabulary, expected_vocabulary = list(base), list(base)
    for piece in (slice(0, 2), slice(2, 5)):
        got = ahead.take(vocabulary, ids[piece], texts[piece], tokenizer)
        expected = _rows_of(texts[piece], expected_vocabulary, tokenizer)
        assert got is not None and _rows_equal(got, expected)
        assert vocabulary == expected_vocabulary
        # what was handed out is no longer held (a long run keeps only what is ahead)
        assert ahead.ids == ids[piece.stop :] and ahead.texts == texts[piece.stop :]
    assert vocabulary == ["etna", "erupts", "stromboli", "vesuvius", "sleeps", "and", "hekla"]


def test_rows_ahead_refuses_what_it_did_not_compute() -> None:
    """Other texts, another order, another starting vocabulary or tokenizer: None (the
    commit then tokenizes), the vocabulary left as it was, and None from then on."""
    tokenizer = BM25Tokenizer()
    texts = ["Etna erupts", "Vesuvius sleeps", "Hekla erupts"]
    ids = ["a", "b", "c"]
    for vocabulary, asked, other in (
        ([], slice(1, 3), tokenizer),  # not the next texts
        (["etna"], slice(0, 2), tokenizer),  # not the vocabulary they were numbered from
        ([], slice(0, 2), BM25Tokenizer(stopwords=True)),
    ):
        ahead = RowsAhead([], tokenizer)
        ahead.add(ids, texts)
        before = list(vocabulary)
        assert ahead.take(vocabulary, ids[asked], texts[asked], other) is None
        assert vocabulary == before
        assert ahead.take([], ids, texts, tokenizer) is None  # given up
    ahead = RowsAhead([], tokenizer)
    ahead.add(ids, texts)
    assert ahead.take([], ids, ["Etna erupts", "changed", "Hekla erupts"], tokenizer) is None


def _keyword_files(folder: StoreFolder) -> tuple[Any, ...]:
    data = _data(folder)
    meta = json.loads((data / "bm25.json").read_text())
    with np.load(data / "bm25.npz", allow_pickle=False) as arrays:
        rows = tuple(arrays[name].tolist() for name in ("doc_ptr", "doc_terms", "doc_tfs"))
    snapshot = folder.open_store().snapshot()
    return meta["ids"], meta["terms"], rows, snapshot.ids, snapshot.texts


def test_index_paths_computes_keyword_rows_ahead_and_writes_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """index_paths tells the writer which chunks it will add as each group of files is
    split (FolderWriter.expect), and their keyword rows are computed then, beside the
    embedding: its commits (a checkpoint before every batch; a re-run with a file changed
    and one deleted) tokenize nothing, and write exactly the index, store and ids a run
    that tokenizes at each commit writes."""
    from ragline.store_folder import _writer as writer_module
    from ragline.store_folder import index_paths

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = ["lava", "ash", "crater", "magma", "vent", "plume", "cone", "caldera", "tuff"]
    for number in range(8):
        lines = [" ".join(words[(number * line + k) % len(words)] + str((line * k) % 13)
                          for k in range(6)) for line in range(30)]  # fmt: skip
        (corpus / f"f{number}.txt").write_text("\n".join(lines))
    tokenized_in_commits: list[str] = []
    real_save = writer_module.FolderWriter._save_keyword_index

    def watched_save(self: Any, *args: Any) -> None:
        with monkeypatch.context() as inner:
            _watch_tokenizing(inner, tokenized_in_commits)
            real_save(self, *args)

    monkeypatch.setattr(writer_module.FolderWriter, "_save_keyword_index", watched_save)

    def run(store: Path) -> tuple[Any, ...]:
        options: dict[str, Any] = {"embedding": "hashing", "chunk_size": 120, "chunk_overlap": 0,
                                   "checkpoint_seconds": 0.0, "cleanup": "full"}  # fmt: skip
        index_paths([corpus], store, **options)
        first = _keyword_files(StoreFolder(store))
        assert len(first[0]) > 100  # more than one batch: checkpoints ran
        (corpus / "f3.txt").write_text("Hekla erupts.\nA fresh crater and new ash.")
        (corpus / "f5.txt").unlink()
        index_paths([corpus], store, **options)
        return first, _keyword_files(StoreFolder(store))

    original_files = {path.name: path.read_bytes() for path in corpus.iterdir()}
    ahead = run(tmp_path / "ahead")
    assert tokenized_in_commits == []
    for name, content in original_files.items():
        (corpus / name).write_bytes(content)
    monkeypatch.setattr(writer_module.FolderWriter, "expect", lambda self, ids, texts: None)
    at_commit = run(tmp_path / "at-commit")
    assert tokenized_in_commits  # the same runs without expect() tokenize at their commits
    assert ahead == at_commit


def test_the_commit_writes_the_keyword_index_while_the_store_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyword index's files are written beside the store's save, not before it (after
    the last embedding block, the commit is what an index run waits for): the keyword
    save here waits until the store's save has begun, which a commit doing one after the
    other never reaches. The files are those of a plain save."""
    import threading

    import ragline.store_folder._writer as writer_module
    from ragline.vectorstores import FAISS

    folder = StoreFolder(tmp_path / "store")
    store_save_started = threading.Event()
    overlapped: list[bool] = []
    real_save_rows = writer_module.save_text_rows
    real_save_local = FAISS.save_local

    def save_rows(data: Path, rows: Any) -> None:
        overlapped.append(store_save_started.wait(timeout=60))
        real_save_rows(data, rows)

    def save_local(self: FAISS, *args: Any, **kwargs: Any) -> None:
        store_save_started.set()
        real_save_local(self, *args, **kwargs)

    monkeypatch.setattr(writer_module, "save_text_rows", save_rows)
    monkeypatch.setattr(FAISS, "save_local", save_local)
    _write(folder, DOCS)
    assert overlapped == [True]
    monkeypatch.undo()
    plain = StoreFolder(tmp_path / "plain")
    _write(plain, DOCS)
    assert _saved(folder)["ids"] == _saved(plain)["ids"]
    assert _saved(folder)["terms"] == _saved(plain)["terms"]
    with (
        np.load(_data(folder) / "bm25.npz", allow_pickle=False) as threaded,
        np.load(_data(plain) / "bm25.npz", allow_pickle=False) as arrays,
    ):
        for name in ("doc_ptr", "doc_terms", "doc_tfs"):
            np.testing.assert_array_equal(threaded[name], arrays[name])


def test_a_keyword_index_that_cannot_be_written_fails_the_commit_and_keeps_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyword save's error (raised on the commit's thread) fails the commit: the
    folder keeps its last commit and no half-written generation."""
    import ragline.store_folder._writer as writer_module

    folder = StoreFolder(tmp_path / "store")
    _write(folder, DOCS)
    committed = folder.read_manifest().generation

    def no_space(data: Path, rows: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer_module, "save_text_rows", no_space)
    with pytest.raises(OSError, match="No space left"):
        _write(folder, {**DOCS, "volcano": "Stromboli erupts every few minutes."})
    assert folder.read_manifest().generation == committed
    generations = [p.name for p in (tmp_path / "store").iterdir() if p.name.startswith("gen")]
    assert generations == [committed]
    monkeypatch.undo()
    assert "etna" in _saved(folder)["terms"]
