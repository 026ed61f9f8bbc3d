"""ragline.evaluation: measure a retriever on judged queries.

:func:`evaluate_retriever` runs queries through any retriever and reports nDCG@k,
Recall@k, MRR@k (equal to pytrec_eval's ``ndcg_cut``, ``recall`` and ``recip_rank`` on the
same rankings) and query latency; :func:`format_table` puts several side by side. The
readers and writers take BEIR and TREC files. ``ragline eval`` is the same from the
command line, over a store folder.

LangChain's evaluators are here too, under their names (``load_evaluator("criteria",
criteria="conciseness", llm=model)``, ``QAEvalChain.from_llm(model).evaluate(examples,
predictions)``, string and embedding distances, exact and regex match, JSON checks,
pairwise comparison and 1-10 scoring); their prompts and criterion descriptions are
ragline's own wording.

Example:
    >>> from ragline.evaluation import evaluate_rankings, format_table
    >>> result = evaluate_rankings({"q1": ["d2", "d1"]}, {"q1": "a question"}, {"q1": {"d1": 1}})
    >>> result.mrr
    0.5
"""

from ragline.core._lazy import attach

_EXPORTS = {
    # LangChain's evaluators (langchain_classic.evaluation), model-graded and not
    "AgentTrajectoryEvaluator": "._evaluator_base",
    "ContextQAEvalChain": "._qa",
    "CotQAEvalChain": "._qa",
    "Criteria": "._criteria",
    "CriteriaEvalChain": "._criteria",
    "EmbeddingDistance": "._distances",
    "EmbeddingDistanceEvalChain": "._distances",
    "EvaluatorType": "._evaluator_base",
    "ExactMatchStringEvaluator": "._matching",
    "JsonEditDistanceEvaluator": "._matching",
    "JsonEqualityEvaluator": "._matching",
    "JsonSchemaEvaluator": "._matching",
    "JsonValidityEvaluator": "._matching",
    "LabeledCriteriaEvalChain": "._criteria",
    "LabeledPairwiseStringEvalChain": "._comparison",
    "LabeledScoreStringEvalChain": "._comparison",
    "PairwiseEmbeddingDistanceEvalChain": "._distances",
    "PairwiseStringDistanceEvalChain": "._distances",
    "PairwiseStringEvalChain": "._comparison",
    "PairwiseStringEvaluator": "._evaluator_base",
    "QAEvalChain": "._qa",
    "QAGenerateChain": "._qa",
    "RegexMatchStringEvaluator": "._matching",
    "ScoreStringEvalChain": "._comparison",
    "StringDistance": "._distances",
    "StringDistanceEvalChain": "._distances",
    "StringEvaluator": "._evaluator_base",
    "TrajectoryEvalChain": "._trajectory",
    "load_evaluator": "._loading",
    "load_evaluators": "._loading",
    # ragline's retrieval evaluation
    "Evaluation": "._evaluate",
    "QueryResult": "._evaluate",
    "evaluate_rankings": "._evaluate",
    "evaluate_retriever": "._evaluate",
    "format_table": "._evaluate",
    "load_beir": "._formats",
    "load_corpus": "._formats",
    "load_qrels": "._formats",
    "load_queries": "._formats",
    "read_trec_run": "._formats",
    "write_trec_run": "._formats",
    "mrr_at_k": "._metrics",
    "ndcg_at_k": "._metrics",
    "recall_at_k": "._metrics",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
