"""LLMCheckerChain: answer, then check the answer's own claims (LangChain's older chain).

Four model calls in one ``SequentialChain``, each an ``LLMChain`` whose output key the
next one reads:

1. draft an answer to ``{question}`` (``statement``);
2. list the claims the draft makes (``{statement}`` -> ``assertions``);
3. check each claim (``{assertions}`` -> ``checked_assertions``);
4. answer again in the light of the checks (``{checked_assertions}``, ``{question}`` ->
   ``revised_statement``), which the chain returns under ``output_key`` (``"result"``).

The prompts are ragline's own wording with LangChain's variables, so a prompt written
for LangChain's chain fits here too. As in LangChain, the inner sequence prints its own
run (``verbose=True``).
"""

from __future__ import annotations

import warnings
from typing import Any

from ragline.chains._chain import Chain
from ragline.chains._llm_chain import LLMChain
from ragline.chains._sequential import SequentialChain
from ragline.core import ConfigurationError, PromptTemplate
from ragline.core.fields import constructor_stacklevel

__all__ = ["LLMCheckerChain"]

CREATE_DRAFT_ANSWER_PROMPT = PromptTemplate.from_template("Answer this question:\n{question}\n\n")
LIST_ASSERTIONS_PROMPT = PromptTemplate.from_template(
    "A draft answer:\n{statement}\n"
    "List every fact this draft takes for granted, one per line, each line starting "
    "with '- '.\n\n"
)
CHECK_ASSERTIONS_PROMPT = PromptTemplate.from_template(
    "Claims to verify:\n{assertions}\n"
    "Mark each claim true or false; for a false one, give the reason.\n\n"
)
REVISED_ANSWER_PROMPT = PromptTemplate.from_template(
    "{checked_assertions}\n\n"
    "With these verdicts in mind, give a final reply to: {question}\n"
    "Final reply:"
)


def _checked_assertions_chain(
    llm: Any,
    create_draft_answer_prompt: Any,
    list_assertions_prompt: Any,
    check_assertions_prompt: Any,
    revised_answer_prompt: Any,
) -> SequentialChain:
    steps = [
        (create_draft_answer_prompt, "statement"),
        (list_assertions_prompt, "assertions"),
        (check_assertions_prompt, "checked_assertions"),
        (revised_answer_prompt, "revised_statement"),
    ]
    return SequentialChain(
        chains=[LLMChain(llm=llm, prompt=prompt, output_key=key) for prompt, key in steps],
        input_variables=["question"],
        output_variables=["revised_statement"],
        verbose=True,
    )


class LLMCheckerChain(Chain):
    """Answer a question, list the answer's claims, check them, and answer again.

    Args:
        question_to_checked_assertions_chain: the four steps (module docstring); built
            by :meth:`from_llm`.
        llm: (deprecated, as in LangChain) build the steps from this model and the
            four prompts below instead; warns.
        create_draft_answer_prompt, list_assertions_prompt, check_assertions_prompt,
            revised_answer_prompt: the steps' prompts, with ``llm`` only.
        input_key: the question's key (``"query"``).
        output_key: the answer's key (``"result"``).

    Raises:
        ConfigurationError: neither the steps nor ``llm`` is given.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> llm = FakeListLLM(responses=["Paris", "- Paris is in France", "True", "Paris."])
        >>> LLMCheckerChain.from_llm(llm).run("Capital of France?")  # doctest: +ELLIPSIS
        <BLANKLINE>
        ...Entering new SequentialChain chain...
        'Paris.'
    """

    question_to_checked_assertions_chain: Any = None
    llm: Any = None
    create_draft_answer_prompt: Any = CREATE_DRAFT_ANSWER_PROMPT
    list_assertions_prompt: Any = LIST_ASSERTIONS_PROMPT
    check_assertions_prompt: Any = CHECK_ASSERTIONS_PROMPT
    revised_answer_prompt: Any = REVISED_ANSWER_PROMPT
    input_key: str = "query"
    output_key: str = "result"

    def __post_init__(self) -> None:
        if self.llm is not None:
            warnings.warn(
                "LLMCheckerChain(llm=...) is deprecated: build it with "
                "LLMCheckerChain.from_llm(llm) or pass question_to_checked_assertions_chain",
                stacklevel=constructor_stacklevel(self),
            )
            if self.question_to_checked_assertions_chain is None:
                self.question_to_checked_assertions_chain = _checked_assertions_chain(
                    self.llm,
                    self.create_draft_answer_prompt,
                    self.list_assertions_prompt,
                    self.check_assertions_prompt,
                    self.revised_answer_prompt,
                )
        if self.question_to_checked_assertions_chain is None:
            raise ConfigurationError(
                "LLMCheckerChain needs question_to_checked_assertions_chain; build it with "
                "LLMCheckerChain.from_llm(llm)"
            )

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        create_draft_answer_prompt: Any = CREATE_DRAFT_ANSWER_PROMPT,
        list_assertions_prompt: Any = LIST_ASSERTIONS_PROMPT,
        check_assertions_prompt: Any = CHECK_ASSERTIONS_PROMPT,
        revised_answer_prompt: Any = REVISED_ANSWER_PROMPT,
        **kwargs: Any,
    ) -> LLMCheckerChain:
        """The chain whose four steps ask ``llm`` with these prompts (each prompt takes
        the variables listed in the module docstring); ``kwargs`` are the chain's own
        options (``verbose``, ``callbacks``, ``input_key`` ...)."""
        steps = _checked_assertions_chain(
            llm,
            create_draft_answer_prompt,
            list_assertions_prompt,
            check_assertions_prompt,
            revised_answer_prompt,
        )
        return cls(question_to_checked_assertions_chain=steps, **kwargs)

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key]

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        steps = self.question_to_checked_assertions_chain
        outputs = steps({"question": inputs[self.input_key]}, callbacks=callbacks)
        return {self.output_key: outputs["revised_statement"]}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        steps = self.question_to_checked_assertions_chain
        outputs = await steps.acall({"question": inputs[self.input_key]}, callbacks=callbacks)
        return {self.output_key: outputs["revised_statement"]}
