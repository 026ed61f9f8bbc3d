"""Refine: an answer from the first document, improved by each following one in turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragline.chains import _prompts
from ragline.chains._base import (
    BaseCombineDocumentsChain,
    ChainOptions,
    Prepared,
    _Final,
    _require_variable,
)
from ragline.chains._steps import invoke
from ragline.core import BasePromptTemplate, Document, InvalidInputError, Runnable

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["RefineDocumentsChain"]


class RefineDocumentsChain(BaseCombineDocumentsChain):
    """Answer from the first document, then refine the answer with each next document.

    Each refine call sees the existing answer (``{existing_answer}``), one new
    document and the question. The calls are sequential by nature; ``stream`` streams
    the last one.

    Args:
        llm: the model.
        question_prompt: the first call's prompt (documents variable + question).
        refine_prompt: the later calls' prompt; must have ``existing_answer_variable``.
        existing_answer_variable: the refine prompt's variable for the answer so far.
        question_key: the question variable of the default prompts.
        (others as :class:`BaseCombineDocumentsChain`)

    Raises:
        InvalidInputError: a prompt lacks the document or existing-answer variable.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["draft", "better"])
        >>> RefineDocumentsChain(model).invoke(
        ...     {"context": [Document("1"), Document("2")], "question": "?"})
        'better'
    """

    def __init__(
        self,
        llm: Runnable[Any, Any],
        *,
        question_prompt: BasePromptTemplate | None = None,
        refine_prompt: BasePromptTemplate | None = None,
        existing_answer_variable: str = "existing_answer",
        question_key: str = "question",
        **options: Unpack[ChainOptions],
    ) -> None:
        super().__init__(llm, **options)
        self.question_prompt = question_prompt or _prompts.refine_initial_prompt(question_key)
        self.refine_prompt = refine_prompt or _prompts.refine_prompt(question_key)
        _require_variable(self.question_prompt, self.document_variable_name, "question_prompt")
        _require_variable(self.refine_prompt, self.document_variable_name, "refine_prompt")
        if existing_answer_variable not in self.refine_prompt.input_variables:
            raise InvalidInputError(
                f"refine_prompt has no variable {existing_answer_variable!r} for the answer so "
                f"far; its variables are {self.refine_prompt.input_variables}"
            )
        self.existing_answer_variable = existing_answer_variable

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return [self.question_prompt, self.refine_prompt]

    def get_name(self) -> str:
        return self.name or "refine_documents_chain"

    def _calls(
        self, documents: list[Document], variables: dict[str, Any]
    ) -> list[tuple[Runnable[Any, Any], dict[str, Any]]]:
        """The prompt chain and input of every call; inputs of refine calls lack the answer."""
        inputs = self._inputs_or_empty(documents, variables)
        last = len(inputs) - 1
        first = (
            self._model_chain(self.question_prompt, "initial_answer", final=last == 0),
            inputs[0],
        )
        refine = self._model_chain(self.refine_prompt, "refine")
        final_refine = self._model_chain(self.refine_prompt, "refine", final=True)
        return [
            first,
            *((final_refine if i == last else refine, one) for i, one in enumerate(inputs[1:], 1)),
        ]

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        calls = self._calls(documents, variables)
        answers: list[Any] = []
        for index, (runnable, call_input) in enumerate(calls[:-1]):
            try:
                answers.append((yield invoke(runnable, self._with_answer(call_input, answers))))
            except Exception as err:
                raise self._step_error("refine", index, documents, err) from err
        last_runnable, last_input = calls[-1]
        last = self._with_answer(last_input, answers)
        return _Final(last_runnable, last, steps=answers, answer_is_step=True)

    def _with_answer(self, step_input: dict[str, Any], answers: list[Any]) -> dict[str, Any]:
        return {**step_input, self.existing_answer_variable: answers[-1]} if answers else step_input
