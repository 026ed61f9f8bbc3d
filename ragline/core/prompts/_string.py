"""StringPromptTemplate: the base of a program's own text prompt (LangChain's).

A subclass declares its options as annotated class attributes and writes
``format(**kwargs) -> str``; it is built by keyword with ``input_variables`` (and
perhaps ``partial_variables``, ``optional_variables``, ``input_types``,
``output_parser``, ``tags``, ``metadata``)::

    class Shout(StringPromptTemplate):
        suffix: str = "!"

        def format(self, **kwargs):
            return kwargs["text"].upper() + self.suffix

    Shout(input_variables=["text"]).invoke({"text": "hi"})  # StringPromptValue("HI!")

``invoke`` checks that every input variable is given and fills in the partial ones
before ``format`` runs; ``format_prompt`` wraps ``format``'s text in a
``StringPromptValue``; ``partial`` returns a copy with some variables filled in.
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from ragline.core.fields import Fields, declared_fields
from ragline.core.prompts._base import BasePromptTemplate
from ragline.core.prompts._values import StringPromptValue

__all__ = ["StringPromptTemplate"]


class _ProgramPromptTemplate(Fields, BasePromptTemplate):
    """What a program's own prompt classes share (:class:`StringPromptTemplate` and
    ``BaseChatPromptTemplate``): built by keyword with the prompt fields and the
    subclass's declared options; ``invoke`` fills in the partial variables."""

    def __init__(
        self,
        *,
        input_variables: Sequence[str],
        optional_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        input_types: Mapping[str, Any] | None = None,
        output_parser: Any = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        self.input_variables = list(input_variables)
        self.optional_variables = list(optional_variables or [])
        self.partial_variables = dict(partial_variables or {})
        self._set_fields(
            tags=tags, metadata=metadata, input_types=input_types, output_parser=output_parser
        )
        super().__init__(**fields)

    def _invoke(self, input: Any) -> Any:
        return self.format_prompt(**self._with_partials(self._input_to_dict(input)))

    async def _aformat_prompt(self, **kwargs: Any) -> Any:
        return self.format_prompt(**self._with_partials(kwargs))

    def _merge_partial_and_user_variables(self, **kwargs: Any) -> dict[str, Any]:
        """The partial variables (callables called now) updated with ``kwargs``; the
        helper LangChain's custom prompts call at the start of ``format``."""
        merged = {
            name: value() if callable(value) else value
            for name, value in self.partial_variables.items()
        }
        return {**merged, **kwargs}

    def partial(self, **kwargs: Any) -> _ProgramPromptTemplate:
        """A copy with ``kwargs`` filled in (no longer input variables)."""
        filled = copy.copy(self)
        filled.input_variables = [v for v in self.input_variables if v not in kwargs]
        filled.partial_variables = {**self.partial_variables, **kwargs}
        return filled

    def __repr__(self) -> str:
        shown = self._shared_printed_fields()
        for name, spec in declared_fields(type(self)).items():  # LangChain shows a field
            value = getattr(self, name)  # that has a default only when it differs
            if spec.required or value != spec.make_default():
                shown.append((name, value))
        inner = ", ".join(f"{name}={value!r}" for name, value in shown)
        return f"{type(self).__name__}({inner})"


class StringPromptTemplate(_ProgramPromptTemplate):
    """A prompt whose ``format`` writes the text (subclass it; module docstring).

    Args:
        input_variables: the variables ``invoke`` requires.
        partial_variables: variables filled in already (values, or callables called
            at format time).
        optional_variables, input_types, output_parser, tags, metadata: LangChain's
            prompt fields.

    Example:
        >>> class Greeting(StringPromptTemplate):
        ...     greeting: str = "Hello"
        ...     def format(self, **kwargs):
        ...         return f"{self.greeting}, {kwargs['name']}."
        >>> Greeting(input_variables=["name"]).invoke({"name": "Ada"}).to_string()
        'Hello, Ada.'
    """

    @abstractmethod
    def format(self, **kwargs: Any) -> str:
        """The prompt's text for these variables."""

    def format_prompt(self, **kwargs: Any) -> StringPromptValue:
        return StringPromptValue(text=self.format(**kwargs))
