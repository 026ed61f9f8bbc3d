"""Model-graded comparison and scoring: which of two answers is better, or a 1-10 score.

:class:`PairwiseStringEvalChain` (``"pairwise_string"``) shows a model one question and
two answers and reads its verdict from the first ``[[A]]``, ``[[B]]`` or ``[[C]]`` (a
tie) in the reply: ``{"reasoning": reply, "value": "A" | "B" | None, "score": 1 | 0 |
0.5}``. :class:`ScoreStringEvalChain` (``"score_string"``) reads a score ``[[1]]`` to
``[[10]]``: ``{"reasoning": reply, "score": n}`` (divided by ``normalize_by`` when
given). A reply without a valid verdict is a ``ValueError``, as in LangChain. The
``Labeled...`` variants also show a reference answer.

The default criteria are helpfulness, relevance, correctness and depth. The prompts and
the descriptions of the named criteria are ragline's own wording over LangChain's
variables.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ragline.chains import LLMChain
from ragline.core import BaseOutputParser, BasePromptTemplate, PromptTemplate
from ragline.evaluation._chain_evaluator import PairwiseEvaluatorChain, StringEvaluatorChain
from ragline.evaluation._criteria import (
    DESCRIPTIONS,
    Criteria,
    ModelGrader,
    resolve_criteria,
)
from ragline.evaluation._evaluator_base import (
    LLMEvalChain,
    PairwiseStringEvaluator,
    StringEvaluator,
)

__all__ = [
    "LabeledPairwiseStringEvalChain",
    "LabeledScoreStringEvalChain",
    "PairwiseStringEvalChain",
    "PairwiseStringResultOutputParser",
    "ScoreStringEvalChain",
    "ScoreStringResultOutputParser",
    "resolve_pairwise_criteria",
]

_DEFAULT_CRITERIA = (Criteria.HELPFULNESS, Criteria.RELEVANCE, Criteria.CORRECTNESS, Criteria.DEPTH)
_CRITERIA_INTRO = "Weigh the answers on these criteria:\n"
_NO_CRITERIA = "Weigh how helpful, relevant, correct and thorough the answer is.\n"

COMPARISON_TEMPLATE = PromptTemplate.from_template(
    "You are judging two assistants' answers to the same question.{reference}\n\n"
    "{criteria}\n"
    "Question:\n{input}\n\n"
    "Answer A:\n{prediction}\n\n"
    "Answer B:\n{prediction_b}\n\n"
    "Compare them without favouring either position or length. Explain your comparison, "
    "then end with your verdict in double brackets: [[A]] if A is better, [[B]] if B is "
    "better, [[C]] for a tie."
)
COMPARISON_TEMPLATE_WITH_REFERENCE = PromptTemplate.from_template(
    "You are judging two assistants' answers to the same question, with a reference "
    "answer to check them against.\n\n"
    "{criteria}\n"
    "Question:\n{input}\n\n"
    "Reference answer:\n{reference}\n\n"
    "Answer A:\n{prediction}\n\n"
    "Answer B:\n{prediction_b}\n\n"
    "Compare them without favouring either position or length. Explain your comparison, "
    "then end with your verdict in double brackets: [[A]] if A is better, [[B]] if B is "
    "better, [[C]] for a tie."
)
SCORING_TEMPLATE = PromptTemplate.from_template(
    "You are rating an assistant's answer to a question.{reference}\n\n"
    "{criteria}\n"
    "Question:\n{input}\n\n"
    "Answer:\n{prediction}\n\n"
    "Explain your rating briefly, then end with the score from 1 to 10 in double "
    "brackets, for example [[6]]."
)
SCORING_TEMPLATE_WITH_REFERENCE = PromptTemplate.from_template(
    "You are rating an assistant's answer to a question, with a reference answer to "
    "check it against.\n\n"
    "{criteria}\n"
    "Question:\n{input}\n\n"
    "Reference answer:\n{reference}\n\n"
    "Answer:\n{prediction}\n\n"
    "Explain your rating briefly, then end with the score from 1 to 10 in double "
    "brackets, for example [[6]]."
)

_DOUBLE_BRACKETS = re.compile(r"\[\[(.*?)\]\]")


def _bracketed(text: str, allowed: set[str], what: str) -> str:
    found = _DOUBLE_BRACKETS.search(text)
    if not found or found.group(1) not in allowed:
        raise ValueError(
            f"Invalid output: {text}. Output must contain a double bracketed string "
            f"with the verdict {what}."
        )
    return found.group(1)


class PairwiseStringResultOutputParser(BaseOutputParser[dict]):
    """A judge's reply as ``{"reasoning", "value", "score"}`` from its ``[[A|B|C]]``."""

    @property
    def _type(self) -> str:
        return "pairwise_string_result"

    def parse(self, text: str) -> dict[str, Any]:
        verdict = _bracketed(text, {"A", "B", "C"}, "'A', 'B', or 'C'")
        score = {"A": 1, "B": 0, "C": 0.5}[verdict]
        return {"reasoning": text, "value": None if verdict == "C" else verdict, "score": score}


class ScoreStringResultOutputParser(BaseOutputParser[dict]):
    """A rater's reply as ``{"reasoning", "score"}`` from its ``[[1]]`` ... ``[[10]]``."""

    @property
    def _type(self) -> str:
        return "pairwise_string_result"

    def parse(self, text: str) -> dict[str, Any]:
        allowed = {str(n) for n in range(1, 11)}
        return {"reasoning": text, "score": int(_bracketed(text, allowed, "between 1 and 10"))}


def resolve_pairwise_criteria(criteria: Any) -> dict[str, str]:
    """``{name: description}`` for the comparison and scoring evaluators: a known name
    gets its description, another name an empty one, a list merges its items, None means
    the four default criteria.

    Raises:
        ValueError: an empty mapping.
    """
    if criteria is None:
        return {c.value: DESCRIPTIONS[c] for c in _DEFAULT_CRITERIA}
    if isinstance(criteria, str):
        if criteria in {c.value for c in Criteria}:
            known = Criteria(criteria)
            return {known.value: DESCRIPTIONS[known]}
        return {criteria: ""}
    if isinstance(criteria, (list, tuple)):
        merged: dict[str, str] = {}
        for item in criteria:
            merged.update(resolve_pairwise_criteria(item))
        return merged
    return resolve_criteria(criteria)  # a principle or a mapping, as for criteria


def _criteria_lines(criteria: dict[str, str], *, bare_names: bool) -> str:
    return "\n".join(
        f"{name}: {text}" if text or not bare_names else name for name, text in criteria.items()
    )


class PairwiseStringEvalChain(
    ModelGrader, PairwiseEvaluatorChain, PairwiseStringEvaluator, LLMEvalChain, LLMChain
):
    """Asks a model which of two answers is better (``"pairwise_string"``).

    Example:
        >>> from ragline.core import FakeListLLM
        >>> judge = PairwiseStringEvalChain.from_llm(FakeListLLM(responses=["B is wrong. [[A]]"]))
        >>> judge.evaluate_string_pairs(prediction="4", prediction_b="5", input="2+2?")
        {'reasoning': 'B is wrong. [[A]]', 'value': 'A', 'score': 1}
    """

    output_key: str = "results"

    _default_prompt = COMPARISON_TEMPLATE.partial(reference="")
    _default_parser = PairwiseStringResultOutputParser
    _prompt_inputs: ClassVar[dict[str, str]] = {
        "prediction": "prediction",
        "prediction_b": "prediction_b",
        "input": "input",
    }

    @property
    def _skip_reference_warning(self) -> str:
        return (
            f"Ignoring reference in {type(self).__name__}, as it is not expected."
            "\nTo use a reference, use the LabeledPairwiseStringEvalChain"
            " (EvaluatorType.LABELED_PAIRWISE_STRING) instead."
        )

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        *,
        prompt: BasePromptTemplate | None = None,
        criteria: Any = None,
        **kwargs: Any,
    ) -> PairwiseStringEvalChain:
        """Build the judge over ``llm`` (criteria: a name, a list of names, a mapping).

        Raises:
            ValueError: ``prompt`` has other variables than the judge fills.
        """
        template = cls._resolve_prompt(prompt)
        resolved = resolve_pairwise_criteria(criteria)
        lines = _criteria_lines(resolved, bare_names=not cls._labeled)
        text = _CRITERIA_INTRO + lines if lines else ""
        return cls(llm=llm, prompt=template.partial(criteria=text), **kwargs)


class LabeledPairwiseStringEvalChain(PairwiseStringEvalChain):
    """:class:`PairwiseStringEvalChain` with a reference answer (``"labeled_pairwise_string"``)."""

    _labeled = True
    _default_prompt = COMPARISON_TEMPLATE_WITH_REFERENCE


class ScoreStringEvalChain(
    ModelGrader, StringEvaluatorChain, StringEvaluator, LLMEvalChain, LLMChain
):
    """Asks a model to rate an answer from 1 to 10 (``"score_string"``).

    Example:
        >>> from ragline.core import FakeListLLM
        >>> rater = ScoreStringEvalChain.from_llm(FakeListLLM(responses=["Fine. [[7]]"]))
        >>> rater.evaluate_strings(prediction="4", input="2+2?")
        {'reasoning': 'Fine. [[7]]', 'score': 7}
    """

    criterion_name: str
    output_key: str = "results"
    normalize_by: float | None = None

    _default_prompt = SCORING_TEMPLATE.partial(reference="")
    _default_parser = ScoreStringResultOutputParser
    _prompt_inputs: ClassVar[dict[str, str]] = {"prediction": "prediction", "input": "input"}

    @property
    def evaluation_name(self) -> str:
        return f"score_string:{self.criterion_name}"

    @property
    def _skip_reference_warning(self) -> str:
        return (
            f"Ignoring reference in {type(self).__name__}, as it is not expected."
            "\nTo use a reference, use the LabeledScoreStringEvalChain instead."
            " (EvaluatorType.LABELED_SCORE_STRING) instead."
        )

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        *,
        prompt: BasePromptTemplate | None = None,
        criteria: Any = None,
        normalize_by: float | None = None,
        **kwargs: Any,
    ) -> ScoreStringEvalChain:
        """Build the rater over ``llm``; ``normalize_by`` divides every score.

        Other keywords are ignored, as LangChain's ``from_llm`` ignores them.

        Raises:
            ValueError: ``prompt`` has other variables than the rater fills.
        """
        template = cls._resolve_prompt(prompt)
        resolved = resolve_pairwise_criteria(criteria)
        lines = _criteria_lines(resolved, bare_names=not cls._labeled).strip()
        text = f"{_CRITERIA_INTRO}{lines}\n" if lines else _NO_CRITERIA
        return cls(
            llm=llm,
            prompt=template.partial(criteria=text),
            normalize_by=normalize_by,
            criterion_name="-".join(resolved),
        )

    def _prepare_output(self, result: dict[str, Any]) -> dict[str, Any]:
        parsed = super()._prepare_output(result)
        if "score" in parsed and self.normalize_by is not None:
            parsed["score"] = parsed["score"] / self.normalize_by
        return parsed


class LabeledScoreStringEvalChain(ScoreStringEvalChain):
    """:class:`ScoreStringEvalChain` with a reference answer (``"labeled_score_string"``)."""

    _labeled = True
    _default_prompt = SCORING_TEMPLATE_WITH_REFERENCE
