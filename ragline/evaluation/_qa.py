"""Question-answering graders: a model says whether an answer is CORRECT or INCORRECT.

:class:`QAEvalChain` compares a prediction with the reference answer, and
:class:`ContextQAEvalChain` / :class:`CotQAEvalChain` with a context the answer should
follow from (the latter asks the model to reason first). ``evaluate(examples,
predictions)`` returns the model's raw replies, one dict per example (``[{"results":
"CORRECT"}, ...]`` for QAEvalChain, key ``"text"`` for the context graders, as in
LangChain); ``evaluate_strings`` reads the grade: ``GRADE: CORRECT`` anywhere, else the
first word, else the last word (case and punctuation ignored), giving ``{"reasoning":
the reply, "value": "CORRECT" | "INCORRECT" | None, "score": 1 | 0 | None}``.

The prompts are ragline's own wording over LangChain's variables (``query``,
``answer`` or ``context``, ``result``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any, ClassVar

from ragline.chains import LLMChain
from ragline.core import BasePromptTemplate, PromptTemplate
from ragline.evaluation._chain_evaluator import StringEvaluatorChain
from ragline.evaluation._criteria import check_prompt
from ragline.evaluation._evaluator_base import LLMEvalChain, StringEvaluator

__all__ = ["ContextQAEvalChain", "CotQAEvalChain", "QAEvalChain", "QAGenerateChain"]

_GRADE_ONLY = "Reply with one word: CORRECT or INCORRECT."
PROMPT = PromptTemplate.from_template(
    "You check a student's answer against the answer key. Judge only whether the "
    "facts agree; wording, spelling and extra true detail do not matter.\n\n"
    "Question: {query}\nAnswer key: {answer}\nStudent's answer: {result}\n\n" + _GRADE_ONLY
)
CONTEXT_PROMPT = PromptTemplate.from_template(
    "You check a student's answer against the context it should follow from. Judge "
    "only whether the facts agree with the context; wording does not matter.\n\n"
    "Question: {query}\nContext: {context}\nStudent's answer: {result}\n\n" + _GRADE_ONLY
)
COT_PROMPT = PromptTemplate.from_template(
    "You check a student's answer against the context it should follow from. Judge "
    "only whether the facts agree with the context; wording does not matter.\n\n"
    "Question: {query}\nContext: {context}\nStudent's answer: {result}\n\n"
    "Explain your judgement step by step, then end with a line of the form "
    "'GRADE: CORRECT' or 'GRADE: INCORRECT'."
)

_GRADE = re.compile(r"grade:\s*(correct|incorrect)", re.IGNORECASE)
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_SCORES = {"CORRECT": 1, "INCORRECT": 0}


def _grade(text: str) -> str | None:
    found = _GRADE.search(text)
    if found:
        return found.group(1).upper()
    words = text.split()
    for word in words[:1] + words[-1:]:
        word = word.translate(_NO_PUNCTUATION).upper()
        if word in _SCORES:
            return word
    return None


def parse_grade(text: str) -> dict[str, Any]:
    """A grader's reply as ``{"reasoning", "value", "score"}``."""
    reasoning = text.strip()
    value = _grade(reasoning)
    return {"reasoning": reasoning, "value": value, "score": _SCORES.get(value or "")}


class _GradingChain(StringEvaluatorChain, StringEvaluator, LLMEvalChain, LLMChain):
    """What the three graders share: the prompt check, ``evaluate``, ``evaluate_strings``."""

    _variables: ClassVar[tuple[str, str, str]] = ("query", "answer", "result")
    _default_prompt: ClassVar[BasePromptTemplate] = PROMPT

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def requires_input(self) -> bool:
        return True

    @classmethod
    def _validate_input_vars(cls, prompt: BasePromptTemplate) -> None:
        check_prompt(prompt, set(cls._variables))

    @classmethod
    def from_llm(cls, llm: Any, prompt: BasePromptTemplate | None = None, **kwargs: Any) -> Any:
        """Build the grader over ``llm``, with ragline's prompt unless ``prompt`` is given.

        Raises:
            ValueError: ``prompt``'s variables are not the grader's.
        """
        template = prompt or cls._default_prompt
        cls._validate_input_vars(template)
        return cls(llm=llm, prompt=template, **kwargs)

    def _grading_inputs(self, query: Any, reference: Any, result: Any) -> dict[str, Any]:
        question, key, answer = self._variables
        return {question: query, key: reference, answer: result}

    def _evaluate_inputs(
        self,
        examples: Sequence[dict[str, Any]],
        predictions: Sequence[dict[str, Any]],
        keys: tuple[str, str, str],
    ) -> list[dict[str, Any]]:
        question, reference, prediction = keys
        return [
            self._grading_inputs(example[question], example[reference], predictions[i][prediction])
            for i, example in enumerate(examples)
        ]

    def _prepare_output(self, result: dict[str, Any]) -> dict[str, Any]:
        return parse_grade(result[self.output_key])

    def _eval_inputs(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self._grading_inputs(
            arguments["input"], arguments["reference"], arguments["prediction"]
        )


class QAEvalChain(_GradingChain):
    """Grades answers against reference answers (LangChain's ``"qa"`` evaluator).

    Example:
        >>> from ragline.core import FakeListLLM
        >>> grader = QAEvalChain.from_llm(FakeListLLM(responses=["CORRECT"]))
        >>> grader.evaluate([{"query": "2+2?", "answer": "4"}], [{"result": "four"}])
        [{'results': 'CORRECT'}]
    """

    output_key: str = "results"

    @property
    def evaluation_name(self) -> str:
        return "correctness"

    def evaluate(
        self,
        examples: Sequence[dict[str, Any]],
        predictions: Sequence[dict[str, Any]],
        question_key: str = "query",
        answer_key: str = "answer",
        prediction_key: str = "result",
        *,
        callbacks: Any = None,
    ) -> list[dict[str, Any]]:
        """The model's reply for each example and its prediction (same order), unparsed."""
        inputs = self._evaluate_inputs(
            examples, predictions, (question_key, answer_key, prediction_key)
        )
        return self.apply(inputs, callbacks=callbacks)


class ContextQAEvalChain(_GradingChain):
    """Grades answers against the context they should follow from (``"context_qa"``)."""

    _variables = ("query", "context", "result")
    _default_prompt = CONTEXT_PROMPT

    @property
    def evaluation_name(self) -> str:
        return "Contextual Accuracy"

    def evaluate(
        self,
        examples: Sequence[dict[str, Any]],
        predictions: Sequence[dict[str, Any]],
        question_key: str = "query",
        context_key: str = "context",
        prediction_key: str = "result",
        *,
        callbacks: Any = None,
    ) -> list[dict[str, Any]]:
        """The model's reply for each example and its prediction (same order), unparsed."""
        inputs = self._evaluate_inputs(
            examples, predictions, (question_key, context_key, prediction_key)
        )
        return self.apply(inputs, callbacks=callbacks)


class CotQAEvalChain(ContextQAEvalChain):
    """:class:`ContextQAEvalChain` whose model reasons step by step first (``"cot_qa"``)."""

    _default_prompt = COT_PROMPT

    @property
    def evaluation_name(self) -> str:
        return "COT Contextual Accuracy"


GENERATE_PROMPT = PromptTemplate.from_template(
    "Write one question a reader could answer from the document below, and its answer, "
    "taken from the document.\n\nDocument:\n{doc}\n\n"
    "Reply in exactly this form:\nQUESTION: <the question>\nANSWER: <the answer>"
)


def _qa_pair_parser() -> Any:
    from ragline.core.output_parsers import RegexParser

    return RegexParser(regex=r"QUESTION: (.*?)\n+ANSWER: (.*)", output_keys=["query", "answer"])


class QAGenerateChain(LLMChain):
    """Writes a test example from a document: ``{"doc": text}`` in, ``{"qa_pairs":
    {"query": ..., "answer": ...}}`` out (the model's ``QUESTION: ...`` / ``ANSWER: ...``
    reply, parsed). Its examples feed :class:`QAEvalChain`'s ``evaluate``.

    Raises:
        ValueError: (when run) the reply has no ``QUESTION:`` line followed by an
            ``ANSWER:`` line.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> model = FakeListLLM(responses=["QUESTION: Who?\\nANSWER: Ada"])
        >>> chain = QAGenerateChain.from_llm(model)
        >>> chain.apply([{"doc": "Ada wrote the first program."}])
        [{'qa_pairs': {'query': 'Who?', 'answer': 'Ada'}}]
    """

    output_key: str = "qa_pairs"
    output_parser: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.output_parser is None:
            self.output_parser = _qa_pair_parser()

    @classmethod
    def from_llm(cls, llm: Any, **kwargs: Any) -> QAGenerateChain:
        """The chain over ``llm`` with ragline's generation prompt (variable ``doc``)."""
        return cls(llm=llm, prompt=GENERATE_PROMPT, **kwargs)
