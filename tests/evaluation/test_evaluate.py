"""evaluate_retriever and the BEIR / TREC files, on the small dev sets in tests/data."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path

import pytest

import ragline.evaluation
from ragline.core import Document, InvalidInputError, LoaderError, RunnableLambda
from ragline.evaluation import (
    evaluate_rankings,
    evaluate_retriever,
    format_table,
    load_beir,
    load_qrels,
    load_queries,
    read_trec_run,
    write_trec_run,
)
from ragline.retrievers import BM25Retriever

DEVSETS = Path(__file__).resolve().parent.parent / "data" / "devsets"


def test_exports_are_pinned() -> None:
    assert ragline.evaluation.__all__ == [
        "AgentTrajectoryEvaluator",
        "ContextQAEvalChain",
        "CotQAEvalChain",
        "Criteria",
        "CriteriaEvalChain",
        "EmbeddingDistance",
        "EmbeddingDistanceEvalChain",
        "Evaluation",
        "EvaluatorType",
        "ExactMatchStringEvaluator",
        "JsonEditDistanceEvaluator",
        "JsonEqualityEvaluator",
        "JsonSchemaEvaluator",
        "JsonValidityEvaluator",
        "LabeledCriteriaEvalChain",
        "LabeledPairwiseStringEvalChain",
        "LabeledScoreStringEvalChain",
        "PairwiseEmbeddingDistanceEvalChain",
        "PairwiseStringDistanceEvalChain",
        "PairwiseStringEvalChain",
        "PairwiseStringEvaluator",
        "QAEvalChain",
        "QAGenerateChain",
        "QueryResult",
        "RegexMatchStringEvaluator",
        "ScoreStringEvalChain",
        "StringDistance",
        "StringDistanceEvalChain",
        "StringEvaluator",
        "TrajectoryEvalChain",
        "evaluate_rankings",
        "evaluate_retriever",
        "format_table",
        "load_beir",
        "load_corpus",
        "load_evaluator",
        "load_evaluators",
        "load_qrels",
        "load_queries",
        "mrr_at_k",
        "ndcg_at_k",
        "read_trec_run",
        "recall_at_k",
        "write_trec_run",
    ]


@pytest.mark.parametrize(
    "module",
    [
        "_metrics",
        "_evaluate",
        "__init__",
        "_criteria",
        "_qa",
        "_comparison",
        "_distances",
        "_matching",
        "_loading",
        "_trajectory",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    name = "ragline.evaluation" + ("" if module == "__init__" else f".{module}")
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# ----------------------------------------------------------------------------- files


@pytest.mark.parametrize("name", ["postgresql", "django", "devil"])
def test_the_small_dev_sets_load_and_every_judged_document_is_in_the_corpus(name: str) -> None:
    corpus, queries, qrels = load_beir(DEVSETS / name)
    assert len(queries) == 20
    assert set(qrels) == set(queries)
    for judged in qrels.values():
        assert set(judged) <= set(corpus)
        assert list(judged.values()) == [1]


def test_qrels_read_beir_with_header_and_trec(tmp_path: Path) -> None:
    beir = tmp_path / "test.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\nq1\tdoc one\t2\nq1\td2\t0\nq2\td3\t1\n")
    assert load_qrels(beir) == {"q1": {"doc one": 2, "d2": 0}, "q2": {"d3": 1}}
    trec = tmp_path / "qrels.trec"
    trec.write_text("q1 0 d1 1\nq1 0 d2 -1\n\nq2 0 d3 3\n")
    assert load_qrels(trec) == {"q1": {"d1": 1, "d2": -1}, "q2": {"d3": 3}}


def test_queries_read_jsonl_and_tsv(tmp_path: Path) -> None:
    jsonl = tmp_path / "queries.jsonl"
    jsonl.write_text('{"_id": 1, "text": "first"}\n{"_id": "b", "text": "second"}\n')
    assert load_queries(jsonl) == {"1": "first", "b": "second"}
    tsv = tmp_path / "topics.tsv"
    tsv.write_text("q1\twhat is a tab\tseparated file\nq2\tsecond\n")
    assert load_queries(tsv) == {"q1": "what is a tab\tseparated file", "q2": "second"}


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("q.tsv", "q1 0 d1 x\n", r"q.tsv:1: relevance 'x' is not an integer"),
        ("q.tsv", "a\tb\n", r"q.tsv:1: expected 'query doc grade' \(BEIR\)"),
        ("q.jsonl", '{"text": "no id"}\n', r"q.jsonl:1: expected a JSON object with an '_id'"),
        ("q.jsonl", '{"_id": 1, "text": "a"}\n{"_id": 1, "text": "b"}\n', "id '1' repeated"),
        ("q.jsonl", "{nope\n", r"q.jsonl:1: not JSON"),
    ],
)
def test_malformed_files_name_the_line(tmp_path: Path, file: str, text: str, message: str) -> None:
    path = tmp_path / file
    path.write_text(text)
    reader = load_qrels if "relevance" in message or "BEIR" in message else load_queries
    with pytest.raises(InvalidInputError, match=message):
        reader(path)


def test_a_missing_file_is_a_loader_error(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match=r"cannot read .*nothing\.tsv"):
        load_qrels(tmp_path / "nothing.tsv")


def test_trec_runs_round_trip_in_trec_eval_order(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    write_trec_run(path, {"q1": ["c", "a", "c", "b"], "q2": []})
    assert path.read_text().splitlines()[0] == "q1 Q0 c 1 1.0 ragline"
    assert read_trec_run(path) == {"q1": ["c", "a", "b"]}
    tied = tmp_path / "tied.trec"
    tied.write_text("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 2.0 t\n")
    assert read_trec_run(tied) == {"q": ["c", "b", "a"]}  # ties: document id descending


# ----------------------------------------------------------------------------- evaluate


def test_evaluate_rankings_means_and_missing_queries() -> None:
    queries = {"q1": "a", "q2": "b", "q3": "not judged"}
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1, "d3": 1}}
    result = evaluate_rankings({"q1": ["d9", "d1"], "q3": ["d1"]}, queries, qrels, k=10)
    assert [r.query_id for r in result.results] == ["q1", "q2"]  # q3 has no judgements
    assert result.mrr == 0.25  # (1/2 + 0) / 2: q2 has no ranking and counts 0
    assert result.recall == 0.5
    assert result.latency_ms() is None
    with pytest.raises(InvalidInputError, match=r"judge 1 queries the queries lack \(e.g. 'q9'\)"):
        evaluate_rankings({}, queries, {"q9": {"d": 1}})


def test_chunks_map_to_their_document_through_id_key() -> None:
    """Three chunks of doc A and one of B; the best chunk of B is second, so MRR 0.5."""
    chunks = [
        Document("x", {"doc": "A"}),
        Document("y", {"doc": "B"}),
        Document("z", {"doc": "A"}),
    ]
    retriever = RunnableLambda(lambda query: chunks)
    result = evaluate_retriever(retriever, {"q": "?"}, {"q": {"B": 1}}, id_key="doc", name="fake")
    assert result.results[0].ranked == ["A", "B"]
    assert result.mrr == 0.5
    assert result.latency_ms("p95") is not None
    with pytest.raises(InvalidInputError, match=r"no metadata\['path'\] to match the qrels"):
        evaluate_retriever(retriever, {"q": "?"}, {"q": {"B": 1}}, id_key="path")


def test_bm25_on_the_small_postgresql_set_agrees_with_pytrec_eval(tmp_path: Path) -> None:
    """BM25 over the 93 sections of the small PostgreSQL set: the means equal pytrec_eval's
    over the same run (written and read back as a TREC file), and the per-query file holds
    one line per query with its retrieved ids."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    corpus, queries, qrels = load_beir(DEVSETS / "postgresql")
    retriever = BM25Retriever.from_texts(
        [f"{d['title']}\n\n{d['text']}" for d in corpus.values()], ids=list(corpus), k=10
    )
    result = evaluate_retriever(retriever, queries, qrels, k=10, name="bm25")
    run_file = tmp_path / "bm25.trec"
    result.write_trec_run(run_file)
    run = {
        q: {d: 1.0 / r for r, d in enumerate(ranked, 1)}
        for q, ranked in read_trec_run(run_file).items()
    }
    measured = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "recall.10", "recip_rank"}
    ).evaluate(run)
    assert len(measured) == 20  # BM25 found something for every query
    for metric, key in (("ndcg", "ndcg_cut_10"), ("recall", "recall_10"), ("mrr", "recip_rank")):
        expected = sum(row[key] for row in measured.values()) / len(measured)
        assert getattr(result, metric) == pytest.approx(expected, abs=1e-12)
    assert 0.5 < result.ndcg <= 1.0
    per_query = tmp_path / "per_query.jsonl"
    result.write_per_query(per_query)
    rows = [json.loads(line) for line in per_query.read_text().splitlines()]
    assert [row["query_id"] for row in rows] == list(queries)
    assert rows[0]["retrieved"] == result.results[0].ranked
    assert set(rows[0]) == {
        "name",
        "query_id",
        "query",
        "ndcg@10",
        "recall@10",
        "mrr@10",
        "seconds",
        "retrieved",
    }
    table = format_table([result])
    assert table.splitlines()[1].startswith("bm25 ")
    assert f"{result.ndcg:.3f}" in table
