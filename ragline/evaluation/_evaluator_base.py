"""The evaluator interfaces LangChain's ``evaluation`` package defines, and their names.

A string evaluator grades one prediction (``evaluate_strings(prediction=, reference=,
input=)``), a pairwise one compares two (``evaluate_string_pairs(prediction=,
prediction_b=, ...)``); both return a dict, usually with ``score``, ``value`` and
``reasoning``. The public methods check the arguments once (a required ``input`` or
``reference`` that is missing is a ``ValueError``; one given but not used is a
``UserWarning``) and call the one hook a class implements, ``_evaluate_strings`` or
``_evaluate_string_pairs`` (the async hook runs the sync one in a thread unless a class
writes its own). :class:`EvaluatorType` names what ``load_evaluator`` builds.
"""

from __future__ import annotations

import asyncio
import warnings
from abc import ABC, abstractmethod
from collections.abc import Sequence
from enum import Enum
from typing import Any

__all__ = [
    "AgentTrajectoryEvaluator",
    "EvaluatorType",
    "LLMEvalChain",
    "PairwiseStringEvaluator",
    "StringEvaluator",
    "call_options",
]


class EvaluatorType(str, Enum):
    """The evaluators ``load_evaluator`` knows, by the name a program passes."""

    QA = "qa"
    COT_QA = "cot_qa"
    CONTEXT_QA = "context_qa"
    PAIRWISE_STRING = "pairwise_string"
    SCORE_STRING = "score_string"
    LABELED_PAIRWISE_STRING = "labeled_pairwise_string"
    LABELED_SCORE_STRING = "labeled_score_string"
    AGENT_TRAJECTORY = "trajectory"
    CRITERIA = "criteria"
    LABELED_CRITERIA = "labeled_criteria"
    STRING_DISTANCE = "string_distance"
    EXACT_MATCH = "exact_match"
    REGEX_MATCH = "regex_match"
    PAIRWISE_STRING_DISTANCE = "pairwise_string_distance"
    EMBEDDING_DISTANCE = "embedding_distance"
    PAIRWISE_EMBEDDING_DISTANCE = "pairwise_embedding_distance"
    JSON_VALIDITY = "json_validity"
    JSON_EQUALITY = "json_equality"
    JSON_EDIT_DISTANCE = "json_edit_distance"
    JSON_SCHEMA_VALIDATION = "json_schema_validation"


class LLMEvalChain:
    """Marks an evaluator built around a language model: ``from_llm(llm, ...)`` builds it."""

    @classmethod
    def from_llm(cls, llm: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{cls.__name__} does not implement from_llm")


def call_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The chain-call options of ``evaluate_strings(**kwargs)`` (others are ignored)."""
    names = ("callbacks", "tags", "metadata", "include_run_info")
    return {name: kwargs[name] for name in names if kwargs.get(name) is not None}


class _EvaluationArguments:
    """Which of ``input`` and ``reference`` an evaluator needs, and the check of both."""

    @property
    def requires_reference(self) -> bool:
        return False

    @property
    def requires_input(self) -> bool:
        return False

    @property
    def _skip_input_warning(self) -> str:
        return f"Ignoring input in {type(self).__name__}, as it is not expected."

    @property
    def _skip_reference_warning(self) -> str:
        return f"Ignoring reference in {type(self).__name__}, as it is not expected."

    def _check_evaluation_args(
        self, reference: str | None = None, input_: str | None = None
    ) -> None:
        """Raise for a missing needed argument; warn for a given unneeded one."""
        name = type(self).__name__
        if self.requires_input and input_ is None:
            raise ValueError(f"{name} requires an input string.")
        if input_ is not None and not self.requires_input:
            warnings.warn(self._skip_input_warning, stacklevel=3)
        if self.requires_reference and reference is None:
            raise ValueError(f"{name} requires a reference string.")
        if reference is not None and not self.requires_reference:
            warnings.warn(self._skip_reference_warning, stacklevel=3)


class StringEvaluator(_EvaluationArguments, ABC):
    """Grades one prediction, against an input and/or a reference when it needs them."""

    @property
    def evaluation_name(self) -> str:
        return type(self).__name__

    @abstractmethod
    def _evaluate_strings(
        self,
        *,
        prediction: Any,
        reference: Any = None,
        input: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The grade of ``prediction`` (the one hook a string evaluator writes)."""

    async def _aevaluate_strings(
        self,
        *,
        prediction: Any,
        reference: Any = None,
        input: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._evaluate_strings,
            prediction=prediction,
            reference=reference,
            input=input,
            **kwargs,
        )

    def evaluate_strings(
        self,
        *,
        prediction: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Grade ``prediction``.

        Args:
            prediction: the model's or chain's output.
            reference: the expected answer, for evaluators that compare with one.
            input: the question or task, for evaluators that read it.
            **kwargs: ``callbacks``, ``tags``, ``metadata``, ``include_run_info``.

        Returns:
            A dict: ``score`` and, for model-graded evaluators, ``value`` and ``reasoning``.

        Raises:
            ValueError: the evaluator needs ``input`` or ``reference`` and it is missing.
        """
        self._check_evaluation_args(reference=reference, input_=input)
        return self._evaluate_strings(
            prediction=prediction, reference=reference, input=input, **kwargs
        )

    async def aevaluate_strings(
        self,
        *,
        prediction: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async :meth:`evaluate_strings`."""
        self._check_evaluation_args(reference=reference, input_=input)
        return await self._aevaluate_strings(
            prediction=prediction, reference=reference, input=input, **kwargs
        )


class PairwiseStringEvaluator(_EvaluationArguments, ABC):
    """Compares two predictions for the same input (and reference, when it needs one)."""

    @abstractmethod
    def _evaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The comparison of the two predictions (the one hook a pairwise evaluator writes)."""

    async def _aevaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._evaluate_string_pairs,
            prediction=prediction,
            prediction_b=prediction_b,
            reference=reference,
            input=input,
            **kwargs,
        )

    def evaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Compare ``prediction`` (A) with ``prediction_b`` (B).

        Returns:
            A dict: ``score`` and, for model-graded evaluators, ``value`` and ``reasoning``.

        Raises:
            ValueError: the evaluator needs ``input`` or ``reference`` and it is missing.
        """
        self._check_evaluation_args(reference=reference, input_=input)
        return self._evaluate_string_pairs(
            prediction=prediction,
            prediction_b=prediction_b,
            reference=reference,
            input=input,
            **kwargs,
        )

    async def aevaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async :meth:`evaluate_string_pairs`."""
        self._check_evaluation_args(reference=reference, input_=input)
        return await self._aevaluate_string_pairs(
            prediction=prediction,
            prediction_b=prediction_b,
            reference=reference,
            input=input,
            **kwargs,
        )


class AgentTrajectoryEvaluator(_EvaluationArguments, ABC):
    """Grades an agent's run: its final answer and the tool calls that led to it."""

    @property
    def requires_input(self) -> bool:
        return True

    @abstractmethod
    def _evaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The grade of the run (the one hook a trajectory evaluator writes)."""

    async def _aevaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._evaluate_agent_trajectory,
            prediction=prediction,
            agent_trajectory=agent_trajectory,
            input=input,
            reference=reference,
            **kwargs,
        )

    def evaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Grade an agent's run.

        Args:
            prediction: the agent's final answer.
            agent_trajectory: its steps, ``(AgentAction, observation)`` pairs.
            input: the question the agent was given.
            reference: the expected answer, when the evaluator uses one.

        Raises:
            ValueError: ``input`` is missing, or a needed ``reference``.
        """
        self._check_evaluation_args(reference=reference, input_=input)
        return self._evaluate_agent_trajectory(
            prediction=prediction,
            input=input,
            agent_trajectory=agent_trajectory,
            reference=reference,
            **kwargs,
        )

    async def aevaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async :meth:`evaluate_agent_trajectory`."""
        self._check_evaluation_args(reference=reference, input_=input)
        return await self._aevaluate_agent_trajectory(
            prediction=prediction,
            input=input,
            agent_trajectory=agent_trajectory,
            reference=reference,
            **kwargs,
        )
