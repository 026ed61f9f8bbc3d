"""``load_evaluator`` / ``load_evaluators``: an evaluator by its :class:`EvaluatorType` name.

A model-graded evaluator is built with ``from_llm(llm=llm, **kwargs)``, any other with
``Evaluator(**kwargs)``. Unlike LangChain, which falls back to an OpenAI ``gpt-4``
model when ``llm`` is missing (and raises ``ValueError`` when it cannot make one),
ragline never creates a model: a missing ``llm`` is always that ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragline.evaluation._comparison import (
    LabeledPairwiseStringEvalChain,
    LabeledScoreStringEvalChain,
    PairwiseStringEvalChain,
    ScoreStringEvalChain,
)
from ragline.evaluation._criteria import CriteriaEvalChain, LabeledCriteriaEvalChain
from ragline.evaluation._distances import (
    EmbeddingDistanceEvalChain,
    PairwiseEmbeddingDistanceEvalChain,
    PairwiseStringDistanceEvalChain,
    StringDistanceEvalChain,
)
from ragline.evaluation._evaluator_base import EvaluatorType, LLMEvalChain
from ragline.evaluation._matching import (
    ExactMatchStringEvaluator,
    JsonEditDistanceEvaluator,
    JsonEqualityEvaluator,
    JsonSchemaEvaluator,
    JsonValidityEvaluator,
    RegexMatchStringEvaluator,
)
from ragline.evaluation._qa import ContextQAEvalChain, CotQAEvalChain, QAEvalChain
from ragline.evaluation._trajectory import TrajectoryEvalChain

__all__ = ["load_evaluator", "load_evaluators"]

_EVALUATORS: dict[EvaluatorType, type] = {
    EvaluatorType.QA: QAEvalChain,
    EvaluatorType.COT_QA: CotQAEvalChain,
    EvaluatorType.CONTEXT_QA: ContextQAEvalChain,
    EvaluatorType.PAIRWISE_STRING: PairwiseStringEvalChain,
    EvaluatorType.SCORE_STRING: ScoreStringEvalChain,
    EvaluatorType.LABELED_PAIRWISE_STRING: LabeledPairwiseStringEvalChain,
    EvaluatorType.LABELED_SCORE_STRING: LabeledScoreStringEvalChain,
    EvaluatorType.AGENT_TRAJECTORY: TrajectoryEvalChain,
    EvaluatorType.CRITERIA: CriteriaEvalChain,
    EvaluatorType.LABELED_CRITERIA: LabeledCriteriaEvalChain,
    EvaluatorType.STRING_DISTANCE: StringDistanceEvalChain,
    EvaluatorType.PAIRWISE_STRING_DISTANCE: PairwiseStringDistanceEvalChain,
    EvaluatorType.EMBEDDING_DISTANCE: EmbeddingDistanceEvalChain,
    EvaluatorType.PAIRWISE_EMBEDDING_DISTANCE: PairwiseEmbeddingDistanceEvalChain,
    EvaluatorType.JSON_VALIDITY: JsonValidityEvaluator,
    EvaluatorType.JSON_EQUALITY: JsonEqualityEvaluator,
    EvaluatorType.JSON_EDIT_DISTANCE: JsonEditDistanceEvaluator,
    EvaluatorType.JSON_SCHEMA_VALIDATION: JsonSchemaEvaluator,
    EvaluatorType.REGEX_MATCH: RegexMatchStringEvaluator,
    EvaluatorType.EXACT_MATCH: ExactMatchStringEvaluator,
}


def load_evaluator(evaluator: EvaluatorType | str, *, llm: Any = None, **kwargs: Any) -> Any:
    """The evaluator named ``evaluator``, built with ``kwargs``.

    Args:
        evaluator: an :class:`EvaluatorType` or its value (``"criteria"``, ``"qa"``, ...).
        llm: the grading model, for the model-graded evaluators.
        **kwargs: the evaluator's options (``criteria=``, ``embeddings=``, ``distance=``).

    Returns:
        The evaluator (``evaluate_strings`` or ``evaluate_string_pairs``).

    Raises:
        ValueError: an unknown name, or a model-graded evaluator without ``llm``.

    Example:
        >>> load_evaluator("exact_match").evaluate_strings(prediction="a", reference="a")
        {'score': 1}
    """
    if evaluator not in _EVALUATORS:
        raise ValueError(
            f"Unknown evaluator type: {evaluator}\nValid types are: {list(EvaluatorType)}"
        )
    evaluator_class = _EVALUATORS[EvaluatorType(evaluator)]
    if not issubclass(evaluator_class, LLMEvalChain):
        return evaluator_class(**kwargs)
    if llm is None:
        raise ValueError(
            f"Evaluation with the {evaluator_class} requires a language model to function: "
            "pass llm= (ragline creates no default model)."
        )
    return evaluator_class.from_llm(llm=llm, **kwargs)


def load_evaluators(
    evaluators: Sequence[EvaluatorType | str],
    *,
    llm: Any = None,
    config: Mapping[Any, dict[str, Any]] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """One evaluator per name, in order; ``config[name]`` adds options for that one.

    Example:
        >>> [e.evaluation_name for e in load_evaluators(["exact_match", "regex_match"])]
        ['exact_match', 'regex_match']
    """
    loaded = []
    for evaluator in evaluators:
        options = config.get(evaluator, {}) if config else {}
        loaded.append(load_evaluator(evaluator, llm=llm, **{**kwargs, **options}))
    return loaded
