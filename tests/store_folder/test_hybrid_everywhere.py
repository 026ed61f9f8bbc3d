"""One hybrid search everywhere (issue 30): ``ragline query --search-type hybrid``,
``ragline eval``, the store folder's hybrid, the web page's search (FolderSearch) and a
HybridRetriever built by hand with its defaults give the same documents and scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragline.cli import main
from ragline.retrievers import HybridRetriever
from ragline.serve import FolderSearch
from ragline.store_folder import StoreFolder

FILES = {
    "restart.txt": "To restart the server run pg_ctl restart with the data directory.",
    "vacuum.txt": "VACUUM reclaims storage occupied by dead tuples; run it after big deletes.",
    "backup.txt": "pg_dump writes a consistent backup of one database while it is in use.",
    "ports.txt": "The server listens on port 5432 unless the port setting says otherwise.",
    "logs.txt": "Server log files rotate daily; the log directory setting names where.",
    "etna.txt": "Mount Etna erupts several times a year and the server of the observatory logs it.",
}
QUERIES = ["restart the server", "where do the log files go", "free space after deleting rows"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    folder = root.parent / "store"
    assert main(["index", str(root), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    return folder


def _pairs(documents: list) -> list[tuple[str, float]]:
    return [(d.id, d.metadata["relevance_score"]) for d in documents]


def test_cli_store_folder_web_search_and_retriever_agree(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = StoreFolder(store)
    vectors = folder.open_store()
    keyword = folder.as_retriever(search_type="bm25", store=vectors)
    by_hand = HybridRetriever(vectors, keyword, k=4)
    from_folder = folder.as_retriever(search_type="hybrid", search_kwargs={"k": 4}, store=vectors)
    assert (
        repr(from_folder)
        == repr(by_hand)
        == (
            "HybridRetriever(k=4, fetch_k=50, fusion='adaptive', dense_weight=0.5, adaptivity=1, "
            "coverage=1)"
        )
    )
    page = FolderSearch(vectors, keyword)
    for query in QUERIES:
        expected = _pairs(by_hand.invoke(query))
        assert len(expected) == 4
        assert _pairs(from_folder.invoke(query)) == expected
        found = page.invoke({"query": query, "search_type": "hybrid", "k": 4})
        assert _pairs(found) == expected
        args = ["query", query, "--search-type", "hybrid", "-k", "4", "--json"]
        assert main([*args, "--store", str(store), "-q"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [(row["id"], row["score"]) for row in rows] == expected


def test_eval_ranks_as_the_retriever_does(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"q{i}\t{text}\n" for i, text in enumerate(QUERIES)))
    folder = StoreFolder(store)
    vectors = folder.open_store()
    by_hand = HybridRetriever(vectors, folder.as_retriever(search_type="bm25", store=vectors), k=6)
    first = {f"q{i}": by_hand.invoke(text)[0].id for i, text in enumerate(QUERIES)}
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("".join(f"{q} 0 {chunk} 1\n" for q, chunk in first.items()))
    per_query = tmp_path / "per_query.jsonl"
    args = ["eval", "--store", str(store), "--queries", str(queries), "--qrels", str(qrels)]
    args += ["--search-type", "hybrid", "--id-key", "id", "-k", "2", "--depth", "6"]
    assert main([*args, "--per-query", str(per_query), "-q"]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in per_query.read_text().splitlines()]
    for row, (i, text) in zip(rows, enumerate(QUERIES), strict=True):
        expected = [d.id for d in by_hand.invoke(text)]
        assert row["retrieved"] == expected[: len(row["retrieved"])]
        assert (row["query_id"], row["ndcg@2"]) == (f"q{i}", 1.0)


def test_the_previous_default_stays_reachable(store: Path) -> None:
    folder = StoreFolder(store)
    vectors = folder.open_store()
    keyword = folder.as_retriever(search_type="bm25", store=vectors)
    old = {"fusion": "relative_score", "dense_weight": 0.5, "fetch_k": 50}
    from_folder = folder.as_retriever(
        search_type="hybrid", search_kwargs={"k": 4, **old}, store=vectors
    )
    by_hand = HybridRetriever(vectors, keyword, k=4, **old)  # type: ignore[arg-type]
    assert (
        repr(from_folder)
        == repr(by_hand)
        == ("HybridRetriever(k=4, fetch_k=50, fusion='relative_score', dense_weight=0.5)")
    )
    for query in QUERIES:
        assert _pairs(from_folder.invoke(query)) == _pairs(by_hand.invoke(query))
    feedback = folder.as_retriever(
        search_type="hybrid", search_kwargs={"keyword_feedback": "dense"}, store=vectors
    )
    assert repr(feedback).endswith("adaptivity=1, coverage=1, keyword_feedback='dense')")
    no_coverage = folder.as_retriever(
        search_type="hybrid", search_kwargs={"coverage": 0}, store=vectors
    )
    assert repr(no_coverage).endswith("adaptivity=1, coverage=0)")
