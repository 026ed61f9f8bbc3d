"""Parsers that ask a model again when the reply does not parse: ``OutputFixingParser``
(shows the model the format instructions, its reply and the error), ``RetryOutputParser``
(shows it the original prompt and its reply) and ``RetryWithErrorOutputParser`` (the
prompt, the reply and the error).

Each wraps a parser and a *retry chain* (by default ``prompt | llm | StrOutputParser()``,
built by ``from_llm``) and tries at most ``max_retries`` new replies after the first one
fails with an ``OutputParserException``; the last failure is raised. The loop is written
once and run by the sync and the async drivers.

Example:
    >>> from ragline.core import FakeListChatModel, JsonOutputParser
    >>> fixer = OutputFixingParser.from_llm(
    ...     FakeListChatModel(responses=['{"answer": 4}']), JsonOutputParser())
    >>> fixer.parse("the answer is 4")
    {'answer': 4}
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from ragline.core._checks import check_non_negative_int
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.exceptions import InvalidInputError, OutputParserException
from ragline.core.messages import BaseMessage
from ragline.core.output_parsers._base import BaseOutputParser, StrOutputParser, text_of
from ragline.core.output_parsers._json import JsonOutputParser
from ragline.core.prompts import BasePromptTemplate, PromptTemplate, PromptValue
from ragline.core.runnables.base import Runnable, adopt_runnable

__all__ = [
    "FIX_PROMPT",
    "NAIVE_FIX_PROMPT",
    "NAIVE_RETRY_PROMPT",
    "NAIVE_RETRY_WITH_ERROR_PROMPT",
    "RETRY_PROMPT",
    "RETRY_WITH_ERROR_PROMPT",
    "OutputFixingParser",
    "RetryOutputParser",
    "RetryWithErrorOutputParser",
]

FIX_PROMPT = PromptTemplate.from_template(
    "A reply had to follow these instructions:\n{instructions}\n\n"
    "The reply was:\n{completion}\n\n"
    "It could not be used: {error}\n\n"
    "Write the reply again so that it follows the instructions. Answer with the corrected "
    "reply only."
)
RETRY_PROMPT = PromptTemplate.from_template(
    "This request:\n{prompt}\n\nwas answered with:\n{completion}\n\n"
    "That answer does not meet the request's requirements. Answer the request again, "
    "meeting them. Answer with the new reply only."
)
RETRY_WITH_ERROR_PROMPT = PromptTemplate.from_template(
    "This request:\n{prompt}\n\nwas answered with:\n{completion}\n\n"
    "That answer could not be used: {error}\n\n"
    "Answer the request again, meeting its requirements. Answer with the new reply only."
)
# LangChain's names of the three default prompts (its fix and retry modules import them
# so); the same variables, ragline's wording
NAIVE_FIX_PROMPT = FIX_PROMPT
NAIVE_RETRY_PROMPT = RETRY_PROMPT
NAIVE_RETRY_WITH_ERROR_PROMPT = RETRY_WITH_ERROR_PROMPT


class _RetryingParser(BaseOutputParser[Any]):
    """The loop shared by the three parsers: parse, and on failure ask the retry chain."""

    default_prompt: BasePromptTemplate

    def __init__(self, *, parser: BaseOutputParser[Any], retry_chain: Any, max_retries: int = 1):
        if not isinstance(parser, BaseOutputParser):
            raise InvalidInputError(
                f"{type(self).__name__} wraps an output parser, got {type(parser).__name__}"
            )
        adopted = adopt_runnable(retry_chain)  # another library's too (interop registers)
        if adopted is None:
            raise InvalidInputError(
                f"retry_chain must be a Runnable (prompt | llm | StrOutputParser()), got "
                f"{type(retry_chain).__name__}"
            )
        check_non_negative_int("max_retries", max_retries)
        self.parser = parser
        self.retry_chain = adopted
        self.max_retries = max_retries

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        parser: BaseOutputParser[Any],
        prompt: BasePromptTemplate | None = None,
        *,
        max_retries: int = 1,
    ) -> Any:
        """Build the parser with ``prompt | llm | StrOutputParser()`` as its retry chain.

        Args:
            llm: the model that writes the new reply.
            parser: the parser whose failures are retried.
            prompt: the retry prompt (default: this class's, with LangChain's variables).
            max_retries: how many new replies to try after the first failure.
        """
        chain = (prompt or cls.default_prompt) | llm | StrOutputParser()
        return cls(parser=parser, retry_chain=chain, max_retries=max_retries)

    @abstractmethod
    def _retry_values(self, completion: str, prompt: Any, error: Exception) -> dict[str, Any]:
        """The retry chain's input after ``completion`` failed with ``error``."""

    def _attempts(self, value: Any, prompt: Any) -> Operation[Any]:
        for attempt in range(self.max_retries + 1):
            try:
                return self._parse_inner(value)
            except OutputParserException as err:
                if attempt == self.max_retries:
                    raise
                values = self._retry_values(text_of(value), prompt, err)
                value = yield Effect(self.retry_chain.invoke, self.retry_chain.ainvoke, values)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _parse_inner(self, value: Any) -> Any:
        parser = self.parser
        refused = isinstance(value, BaseMessage) and value.additional_kwargs.get("refusal")
        if isinstance(parser, JsonOutputParser) and not refused:
            # as LangChain's wrappers: the inner parser's parse() reads the reply, so a
            # JSON parser subclass's own parse() is used here (its invoke skips it)
            return parser.parse(text_of(value))
        return parser._parse_output(value)

    def parse_with_prompt(self, completion: str, prompt_value: Any) -> Any:
        """Parse ``completion`` (a reply to ``prompt_value``, a ``PromptValue``), asking
        again on failure. The parameter names are LangChain's, so keyword calls port."""
        return drive(self._attempts(completion, prompt_value))

    async def aparse_with_prompt(self, completion: str, prompt_value: Any) -> Any:
        """Async ``parse_with_prompt`` (the retry chain runs with ``ainvoke``)."""
        return await adrive(self._attempts(completion, prompt_value))

    def _split_input(self, value: Any) -> tuple[Any, Any]:
        return value, None

    def _parse_output(self, value: Any) -> Any:
        return drive(self._attempts(*self._split_input(value)))

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Async ``invoke``: the retry chain runs with ``ainvoke``."""
        self._reject_kwargs(kwargs)

        async def parse(value: Any) -> Any:
            return await adrive(self._attempts(*self._split_input(value)))

        return await self._acall_with_config(parse, input, config, run_type="parser")

    def get_format_instructions(self) -> str:
        return self.parser.get_format_instructions()

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.parser._output_json(defs)


class OutputFixingParser(_RetryingParser):
    """Parse with ``parser``; when that fails, show a model the format instructions, the
    reply and the error, and parse its corrected reply (up to ``max_retries`` times).

    The retry prompt's variables are LangChain's: ``instructions``, ``completion`` and
    ``error`` (the exception's repr).

    Args:
        parser: the parser to fix the output of.
        retry_chain: a Runnable from those variables to the corrected reply.
        max_retries: corrections to try before the last error is raised.

    Example:
        >>> from ragline.core import FakeListChatModel, JsonOutputParser
        >>> model = FakeListChatModel(responses=['{"a": 1}'])
        >>> OutputFixingParser.from_llm(model, JsonOutputParser()).invoke("a is 1")
        {'a': 1}
    """

    default_prompt = FIX_PROMPT

    @property
    def _type(self) -> str:
        return "output_fixing"

    def parse(self, completion: str) -> Any:
        return self._parse_output(completion)

    async def aparse(self, completion: str) -> Any:
        """Async ``parse`` (the retry chain runs with ``ainvoke``)."""
        return await adrive(self._attempts(completion, None))

    def _retry_values(self, completion: str, prompt: Any, error: Exception) -> dict[str, Any]:
        return {
            "instructions": self.parser.get_format_instructions(),
            "completion": completion,
            "error": repr(error),
        }


class RetryOutputParser(_RetryingParser):
    """Parse with ``parser``; when that fails, show a model the original prompt and the
    reply, and parse its new reply (up to ``max_retries`` times).

    It needs the prompt, so call ``parse_with_prompt(completion, prompt_value)``, or
    invoke it on ``{"completion": ..., "prompt_value": ...}`` (what
    ``RunnableParallel(completion=prompt | llm, prompt_value=prompt)`` returns). The retry
    prompt's variables are ``prompt`` (the prompt as text) and ``completion``.

    Example:
        >>> from ragline.core import FakeListChatModel, JsonOutputParser, PromptTemplate
        >>> retry = RetryOutputParser.from_llm(
        ...     FakeListChatModel(responses=['{"city": "Paris"}']), JsonOutputParser())
        >>> prompt = PromptTemplate.from_template("Capital of {country}, as JSON?")
        >>> retry.parse_with_prompt("Paris", prompt.format_prompt(country="France"))
        {'city': 'Paris'}
    """

    default_prompt = RETRY_PROMPT

    @property
    def _type(self) -> str:
        return "retry"

    def parse(self, completion: str) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} needs the prompt: call parse_with_prompt(completion, "
            "prompt_value), or invoke it on {'completion': ..., 'prompt_value': ...}"
        )

    def _split_input(self, value: Any) -> tuple[Any, Any]:
        if isinstance(value, Mapping) and {"completion", "prompt_value"} <= set(value):
            return value["completion"], value["prompt_value"]
        return self.parse(text_of(value)), None  # raises: the prompt is missing

    def _retry_values(self, completion: str, prompt: Any, error: Exception) -> dict[str, Any]:
        return {"prompt": _prompt_text(prompt), "completion": completion}

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "required": ["completion", "prompt_value"]}


class RetryWithErrorOutputParser(RetryOutputParser):
    """``RetryOutputParser`` that also shows the model the error (``error`` variable).

    Example:
        >>> "{error}" in RetryWithErrorOutputParser.default_prompt.template
        True
    """

    default_prompt = RETRY_WITH_ERROR_PROMPT

    @property
    def _type(self) -> str:
        return "retry_with_error"

    def _retry_values(self, completion: str, prompt: Any, error: Exception) -> dict[str, Any]:
        return {"prompt": _prompt_text(prompt), "completion": completion, "error": repr(error)}


def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, PromptValue):
        return prompt.to_string()
    if isinstance(prompt, str):
        return prompt
    raise InvalidInputError(
        f"the prompt of a retried reply must be a PromptValue or a str, got {type(prompt).__name__}"
    )
