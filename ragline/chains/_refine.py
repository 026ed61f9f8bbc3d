"""Refine: an answer from the first document, improved by each following one in turn."""

from __future__ import annotations

import warnings
from collections.abc import Generator
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
from ragline.core._drive import Effect, Emit

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
        initial_llm_chain, refine_llm_chain: LangChain's classic wiring instead of ``llm``
            and the prompts (``load_qa_chain(..., chain_type="refine")`` builds it): the
            two ``LLMChain`` s that run, each call a run of its own; their prompts are
            read at each run.
        initial_response_name: LangChain's name for ``existing_answer_variable`` (give
            one of the two).
        (others as :class:`BaseCombineDocumentsChain`)

    Raises:
        InvalidInputError: a prompt lacks the document variable, or both
            ``existing_answer_variable`` and ``initial_response_name`` are given (a
            refine prompt without the existing-answer variable runs, as LangChain's does,
            with a UserWarning).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["draft", "better"])
        >>> RefineDocumentsChain(model).invoke(
        ...     {"context": [Document("1"), Document("2")], "question": "?"})
        'better'
    """

    def __init__(
        self,
        llm: Runnable[Any, Any] | None = None,
        *,
        question_prompt: BasePromptTemplate | None = None,
        refine_prompt: BasePromptTemplate | None = None,
        existing_answer_variable: str = "existing_answer",
        question_key: str = "question",
        initial_llm_chain: Any = None,
        refine_llm_chain: Any = None,
        initial_response_name: str | None = None,
        **options: Unpack[ChainOptions],
    ) -> None:
        if initial_response_name is not None:
            # LangChain's keyword for the variable of the answer so far
            if existing_answer_variable != "existing_answer":
                raise InvalidInputError(
                    "RefineDocumentsChain takes existing_answer_variable=... or "
                    "initial_response_name=..., not both"
                )
            existing_answer_variable = initial_response_name
        # LangChain's classic wiring: the two LLMChains that run (their prompts are read
        # at each run, so a program may edit them)
        self.initial_llm_chain = initial_llm_chain
        self.refine_llm_chain = refine_llm_chain
        if (initial_llm_chain is None) != (refine_llm_chain is None):
            raise InvalidInputError(
                "RefineDocumentsChain needs both initial_llm_chain=... and refine_llm_chain=..."
            )
        if initial_llm_chain is not None:
            # LangChain's classic chain: takes input_documents, returns output_text
            options.setdefault("input_key", "input_documents")
            options.setdefault("output_key", "output_text")
            llm = initial_llm_chain.llm
            question_prompt = initial_llm_chain.prompt
            refine_prompt = refine_llm_chain.prompt
        if llm is None:
            raise InvalidInputError(
                "RefineDocumentsChain needs llm=... (or initial_llm_chain=LLMChain(...) and "
                "refine_llm_chain=LLMChain(...))"
            )
        super().__init__(llm, **options)
        self.question_prompt = question_prompt or _prompts.refine_initial_prompt(question_key)
        self.refine_prompt = refine_prompt or _prompts.refine_prompt(question_key)
        _require_variable(self.question_prompt, self.document_variable_name, "question_prompt")
        _require_variable(self.refine_prompt, self.document_variable_name, "refine_prompt")
        if existing_answer_variable not in self.refine_prompt.input_variables:
            # LangChain runs such a chain (each refine call then sees only its document);
            # so does ragline, with a warning, as the answer so far is dropped
            warnings.warn(
                f"refine_prompt has no variable {existing_answer_variable!r} for the answer so "
                f"far (its variables are {self.refine_prompt.input_variables}): each refine "
                "call sees only its document",
                UserWarning,
                stacklevel=2,
            )
        self.existing_answer_variable = existing_answer_variable

    @property
    def initial_response_name(self) -> str:
        """LangChain's name for :attr:`existing_answer_variable`."""
        return self.existing_answer_variable

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        if self.initial_llm_chain is not None:
            return [self.initial_llm_chain.prompt, self.refine_llm_chain.prompt]
        return [self.question_prompt, self.refine_prompt]

    def get_name(self) -> str:
        if self.name:
            return self.name
        return "RefineDocumentsChain" if self.initial_llm_chain else "refine_documents_chain"

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
        if self.initial_llm_chain is not None:
            return (yield from self._classic_steps(documents, variables))
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

    def _classic_steps(
        self, documents: list[Document], variables: dict[str, Any]
    ) -> Generator[Effect | Emit, Any, _Final]:
        """LangChain's wiring: the initial LLMChain on the first document, the refine
        LLMChain on each next one with the answer so far; each is a run of its own."""
        inputs = self._inputs_or_empty(documents, variables)
        answers: list[Any] = []
        last = len(inputs) - 1
        for index, step_input in enumerate(inputs):
            chain = self.initial_llm_chain if index == 0 else self.refine_llm_chain
            wanted = set(chain.prompt.input_variables)
            chain_input = {
                k: v for k, v in self._with_answer(step_input, answers).items() if k in wanted
            }
            if index == last:
                return _Final(
                    chain, chain_input, steps=answers, answer_is_step=True, pick=chain.output_key
                )
            try:
                output = yield invoke(chain, chain_input)
            except Exception as err:
                raise self._step_error("refine", index, documents, err) from err
            answers.append(output[chain.output_key])
        raise AssertionError("unreachable: at least one input")  # pragma: no cover
