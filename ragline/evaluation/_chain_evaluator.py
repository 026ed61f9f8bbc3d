"""Evaluators that are chains: their evaluator hooks, sync and async, written once.

A model-graded evaluator (criteria, comparison, scoring, QA, trajectory) and a distance
evaluator are chains, and they grade in the same three steps: the evaluator's arguments
become the chain's inputs (``_eval_inputs``), the chain runs with the call options of
``evaluate_strings(**kwargs)``, and its outputs become the result (``_prepare_output``),
with the run's info when ``include_run_info`` asked for it. :class:`EvaluatorChain` runs
the steps for the sync and the async hook alike. :class:`StringEvaluatorChain` and
:class:`PairwiseEvaluatorChain` are the ``_evaluate_strings`` and
``_evaluate_string_pairs`` hooks on top of it; a class lists one before its evaluator
interface, so that its hooks are the ones found.
"""

from __future__ import annotations

from typing import Any

from ragline.chains import RUN_KEY, Chain
from ragline.evaluation._evaluator_base import call_options

__all__ = ["EvaluatorChain", "PairwiseEvaluatorChain", "StringEvaluatorChain"]


class EvaluatorChain(Chain):
    """A chain that grades: its inputs from the evaluator's arguments, its result parsed.

    A keyword that names none of its fields is dropped with a ``UserWarning``, where other
    chains refuse it: LangChain's evaluator chains drop it silently, so
    ``load_evaluator("string_distance", requires_reference=True)`` and
    ``load_evaluators([QA, CRITERIA], criteria=...)`` (the criterion reaches the QA
    grader too) build and run.
    """

    __ragline_extra__ = "ignore"

    def _eval_inputs(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The chain's inputs for the evaluator's arguments (by default, the arguments)."""
        return arguments

    def _prepare_output(self, result: dict[str, Any]) -> dict[str, Any]:
        """The evaluator's result from the chain's outputs (by default, all of them)."""
        return result

    def _run_evaluation(self, arguments: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        inputs = self._eval_inputs(arguments)
        return self._graded(self(inputs, return_only_outputs=True, **call_options(kwargs)))

    async def _arun_evaluation(
        self, arguments: dict[str, Any], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        inputs = self._eval_inputs(arguments)
        return self._graded(
            await self.acall(inputs, return_only_outputs=True, **call_options(kwargs))
        )

    def _graded(self, result: dict[str, Any]) -> dict[str, Any]:
        """The evaluator's result, with the run's info when ``include_run_info`` asked."""
        output = self._prepare_output(result)
        if RUN_KEY in result:
            output[RUN_KEY] = result[RUN_KEY]
        return output


class StringEvaluatorChain(EvaluatorChain):
    """The string evaluator's hooks: ``prediction``, ``reference``, ``input`` graded."""

    def _evaluate_strings(
        self,
        *,
        prediction: Any,
        reference: Any = None,
        input: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        arguments = {"prediction": prediction, "reference": reference, "input": input}
        return self._run_evaluation(arguments, kwargs)

    async def _aevaluate_strings(
        self,
        *,
        prediction: Any,
        reference: Any = None,
        input: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        arguments = {"prediction": prediction, "reference": reference, "input": input}
        return await self._arun_evaluation(arguments, kwargs)


class PairwiseEvaluatorChain(EvaluatorChain):
    """The pairwise evaluator's hooks: ``prediction``, ``prediction_b``, ``reference``,
    ``input`` graded."""

    def _evaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return self._run_evaluation(
            _pair_arguments(prediction, prediction_b, reference, input), kwargs
        )

    async def _aevaluate_string_pairs(
        self,
        *,
        prediction: str,
        prediction_b: str,
        reference: str | None = None,
        input: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return await self._arun_evaluation(
            _pair_arguments(prediction, prediction_b, reference, input), kwargs
        )


def _pair_arguments(
    prediction: str, prediction_b: str, reference: Any, input_: Any
) -> dict[str, Any]:
    return {
        "prediction": prediction,
        "prediction_b": prediction_b,
        "reference": reference,
        "input": input_,
    }
