"""`ragline query/ask/eval` search types, --source, score meanings, hints, and `ragline eval`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from ragline.cli import main, search_kwargs

FILES = {
    "library/csv.html": "<h1>csv</h1><p>Read and write comma separated values files.</p>",
    "library/json.html": "<h1>json</h1><p>Encode and decode JSON documents.</p>",
    "tutorial/intro.md": "# Intro\n\nRestarting the server is described in the admin guide.",
    "admin/server.txt": "To restart the server run pg_ctl restart with the data directory.",
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    folder = tmp_path / "store"
    assert main(["index", str(root), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    return folder


def _query(store: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["query", *args, "--store", str(store), "-q"]) == 0
    return capsys.readouterr().out


def test_chunks_record_their_path_relative_to_the_indexed_folder(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = json.loads(_query(store, capsys, "comma separated", "-k", "4", "--json"))
    paths = sorted(row["metadata"]["path"] for row in rows)
    assert paths == sorted(FILES)
    assert [row["source"] for row in rows] == [row["metadata"]["path"] for row in rows]
    assert all(Path(row["metadata"]["source"]).is_absolute() for row in rows)
    rows = json.loads(
        _query(store, capsys, "x", "--filter", '{"path": "library/csv.html"}', "--json")
    )
    assert [row["metadata"]["path"] for row in rows] == ["library/csv.html"]


@pytest.mark.parametrize(
    ("search_type", "meaning"),
    [
        ("hybrid", "score: fused score in [0, 1]: dense and BM25 scores"),
        ("bm25", "score: BM25 keyword score (unbounded; compare within one query only)"),
        ("similarity", "score: relevance in [0, 1] = (1 + cosine) / 2\n"),
    ],
)
def test_query_search_types_say_what_a_score_means(
    store: Path, capsys: pytest.CaptureFixture[str], search_type: str, meaning: str
) -> None:
    out = _query(store, capsys, "restart the server", "--search-type", search_type, "-k", "2")
    assert out.startswith(meaning)
    assert "admin/server.txt" in out.split("[2]")[0]  # the best match first
    rows = json.loads(
        _query(store, capsys, "restart the server", "--search-type", search_type, "--json")
    )
    scores = [row["score"] for row in rows]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert "relevance_score" not in rows[0]["metadata"]  # shown as the score, not twice


def test_source_pattern_filters_by_relative_path(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for search_type in ("similarity", "hybrid", "bm25", "mmr"):
        rows = json.loads(
            _query(
                store,
                capsys,
                "files documents server",
                "--source",
                "library/*",
                "--search-type",
                search_type,
                "-k",
                "4",
                "--json",
            )
        )
        assert (
            sorted(row["metadata"]["path"] for row in rows)
            == [
                "library/csv.html",
                "library/json.html",
            ][: len(rows)]
        )
        assert rows


def test_a_source_pattern_that_matches_nothing_says_what_paths_look_like(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["query", "x", "--store", str(store), "--source", "lib/csv*"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragline: error: --source 'lib/csv*' matches none of the 4 indexed")
    assert "paths are relative to the indexed folder, e.g. 'admin/server.txt'" in err


def test_a_filter_that_matches_nothing_gets_a_hint(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _query(store, capsys, "x", "--filter", '{"source": "library/csv.html"}')
    assert out.startswith("no results: no chunk matches --filter")
    assert "'path' (relative to the indexed folder)" in out


def test_index_keywords_option_sets_the_keyword_tokenizer(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--keywords english,stem,stopwords: 'restarting' then matches 'restarts' in bm25;
    the change is reported; a malformed spec is a one-line error."""
    pytest.importorskip("Stemmer")
    assert _query(store, capsys, "restarts", "--search-type", "bm25", "--json") == "[]\n"
    root = str(tmp_path / "docs")
    command = ["index", root, "--store", str(store), "--keywords", "english,stem,stopwords"]
    assert main(command) == 0
    assert "keyword tokenizer changes from" in capsys.readouterr().err
    rows = json.loads(_query(store, capsys, "restarts", "--search-type", "bm25", "--json"))
    assert sorted(row["metadata"]["path"] for row in rows) == [
        "admin/server.txt",
        "tutorial/intro.md",
    ]
    assert main(["index", root, "--store", str(store), "--keywords", "english,stemming"]) == 2
    assert "--keywords 'english,stemming': give 'plain' or a language" in capsys.readouterr().err


def test_default_score_threshold_follows_the_stores_embedding() -> None:
    args = argparse.Namespace(
        k=4, filter=None, search_type="similarity_score_threshold", score_threshold=None,
        fetch_k=None,
    )  # fmt: skip
    assert search_kwargs(args, "minilm")["score_threshold"] == 0.70
    assert search_kwargs(args, "minilm-onnx")["score_threshold"] == 0.70
    assert search_kwargs(args, "hashing")["score_threshold"] == 0.5
    args.score_threshold = 0.8
    assert search_kwargs(args, "minilm")["score_threshold"] == 0.8
    args.search_type, args.score_threshold, args.fetch_k = "hybrid", None, 7
    assert search_kwargs(args, "minilm") == {"k": 4, "fetch_k": 7}


def test_ask_without_a_model_shows_hybrid_passages(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["ask", "how do I restart the server", "--store", str(store), "-k", "1"]
    assert main([*args, "--search-type", "hybrid"]) == 3  # passages, no answer
    assert capsys.readouterr().out.startswith("[1] ")


def test_eval_compares_search_types(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"_id": "q1", "text": "restart the server with pg_ctl"}\n'
        '{"_id": "q2", "text": "comma separated values"}\n'
        '{"_id": "q3", "text": "decode JSON"}\n'
    )
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text(
        "query-id\tcorpus-id\tscore\nq1\tadmin/server.txt\t1\nq2\tlibrary/csv.html\t1\n"
        "q3\tlibrary/json.html\t1\n"
    )
    args = ["eval", "--store", str(store), "--queries", str(queries), "--qrels", str(qrels)]
    per_query, runs = tmp_path / "per_query.jsonl", tmp_path / "runs"
    extra = ["--per-query", str(per_query), "--runs", str(runs), "-q"]
    assert main([*args, *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "3 judged queries"
    assert lines[1].split() == ["search", "nDCG@10", "Recall@10", "MRR@10", "ms/query", "p95", "ms"]
    assert [line.split()[0] for line in lines[2:]] == ["similarity", "bm25", "hybrid"]
    bm25 = lines[3].split()
    assert bm25[1:4] == ["1.000", "1.000", "1.000"]  # every query's file ranks first
    rows = [json.loads(line) for line in per_query.read_text().splitlines()]
    assert len(rows) == 9 and rows[3]["name"] == "bm25"
    assert rows[3]["retrieved"][0] == "admin/server.txt"
    assert sorted(p.name for p in runs.iterdir()) == ["bm25.trec", "hybrid.trec", "similarity.trec"]
    assert main([*args, "--search-type", "bm25", "--json", "-q"]) == 0
    (summary,) = json.loads(capsys.readouterr().out)
    assert (summary["name"], summary["ndcg@10"], summary["queries"]) == ("bm25", 1.0, 3)


def test_eval_errors(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tserver\n")
    qrels = tmp_path / "r.tsv"
    qrels.write_text("q9 0 admin/server.txt 1\n")
    args = ["eval", "--store", str(store), "--queries", str(queries), "--qrels", str(qrels)]
    assert main(args) == 2
    assert "the qrels judge 1 queries the queries lack (e.g. 'q9')" in capsys.readouterr().err
    assert main([*args, "-k", "0"]) == 2
    assert "-k and --depth must be at least 1" in capsys.readouterr().err


def test_results_name_the_file_relative_to_the_indexed_folder_and_the_section(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: results showed an absolute path and a character offset ('@ 8638')."""
    out = _query(store, capsys, "comma separated values", "-k", "1", "--search-type", "bm25")
    assert out.splitlines()[2].endswith("  library/csv.html § csv")
    assert " @ " not in out and str(store.parent) not in out
    rows = json.loads(_query(store, capsys, "restart the server", "--json", "-k", "4"))
    places = {(row["source"], row["section"]) for row in rows}
    assert places == {
        ("library/csv.html", "csv"),
        ("library/json.html", "json"),
        ("tutorial/intro.md", "Intro"),
        ("admin/server.txt", None),
    }


def test_fusion_option_picks_the_hybrid_fusion_of_query_and_eval(
    store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragline.cli._common import HYBRID_FUSIONS as CLI_FUSIONS
    from ragline.retrievers._hybrid import HYBRID_FUSIONS
    from ragline.store_folder import StoreFolder

    assert CLI_FUSIONS == HYBRID_FUSIONS
    folder = StoreFolder(store)
    text = "restart the server"
    by_fusion = {}
    for fusion in HYBRID_FUSIONS:
        rows = json.loads(
            _query(store, capsys, text, "-k", "4", "--search-type", "hybrid", "--fusion", fusion,
                   "--json")
        )  # fmt: skip
        retriever = folder.as_retriever(
            search_type="hybrid", search_kwargs={"k": 4, "fusion": fusion}
        )
        expected = [(d.id, d.metadata["relevance_score"]) for d in retriever.invoke(text)]
        got = [(row["id"], row["score"]) for row in rows]
        assert got == expected
        by_fusion[fusion] = got
    # rrf scores ranks (1/(60 + rank) per side), the others min-max scores: not the same
    assert by_fusion["rrf"] != by_fusion["relative_score"]
    default = json.loads(_query(store, capsys, text, "-k", "4", "--search-type", "hybrid",
                                "--json"))  # fmt: skip
    assert [(row["id"], row["score"]) for row in default] == by_fusion["adaptive"]
    assert main(["query", text, "--store", str(store), "--fusion", "rrf", "-q"]) == 2
    assert "--fusion goes with --search-type hybrid" in capsys.readouterr().err

    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\trestart the server with pg_ctl\nq2\tcomma separated values\n")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1 0 admin/server.txt 1\nq2 0 library/json.html 1\n")
    args = ["eval", "--store", str(store), "--queries", str(queries), "--qrels", str(qrels)]
    # the store folder builds the retrievers (the real ones, recorded on the way)
    asked = []
    real = StoreFolder.as_retriever

    def recording(self: StoreFolder, **options: Any) -> Any:
        asked.append((options["search_type"], dict(options["search_kwargs"])))
        return real(self, **options)

    monkeypatch.setattr(StoreFolder, "as_retriever", recording)
    assert main([*args, "--search-type", "bm25", "--search-type", "hybrid", "--fusion", "rrf",
                 "-k", "2", "--depth", "4", "-q"]) == 0  # fmt: skip
    assert asked == [("bm25", {"k": 4}), ("hybrid", {"k": 4, "fusion": "rrf"})]
    capsys.readouterr()
    assert main([*args, "--search-type", "bm25", "--fusion", "rrf"]) == 2
    assert "--fusion goes with --search-type hybrid" in capsys.readouterr().err
