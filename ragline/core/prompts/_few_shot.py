"""Few-shot prompts: examples (fixed, or chosen per input by an example selector) shown
to the model before the question.

``FewShotPromptTemplate`` renders text: the prefix, each example through
``example_prompt``, the suffix, joined by ``example_separator``.
``FewShotChatMessagePromptTemplate`` renders each example as messages (an exchange) and
is usually one part of a ``ChatPromptTemplate``. ``FewShotPromptWithTemplates`` takes
prompt templates as its prefix and suffix and formats the joined text a second time.

Example:
    >>> examples = [{"word": "happy", "antonym": "sad"}, {"word": "tall", "antonym": "short"}]
    >>> prompt = FewShotPromptTemplate(
    ...     examples=examples,
    ...     example_prompt=PromptTemplate.from_template("{word} -> {antonym}"),
    ...     prefix="Give the antonym.", suffix="{input} ->")
    >>> print(prompt.format(input="big"))
    Give the antonym.
    <BLANKLINE>
    happy -> sad
    <BLANKLINE>
    tall -> short
    <BLANKLINE>
    big ->
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.exceptions import InvalidInputError, PromptKeyError, as_validation_error
from ragline.core.messages import BaseMessage, get_buffer_string
from ragline.core.prompts._base import BasePromptTemplate, PromptTemplate
from ragline.core.prompts._chat import BaseMessagePromptTemplate, ChatPromptTemplate, _joined
from ragline.core.prompts._formats import Template, check_template_format
from ragline.core.prompts._values import ChatPromptValue, PromptValue, StringPromptValue

__all__ = [
    "FewShotChatMessagePromptTemplate",
    "FewShotPromptTemplate",
    "FewShotPromptWithTemplates",
]

# LangChain's few-shot prompts take these two (mustache is refused there too)
_FEW_SHOT_FORMATS = ("f-string", "jinja2")


class _FewShot(BasePromptTemplate):
    """What both few-shot prompts share: fixed examples or a selector, each example cut to
    the example prompt's variables."""

    example_prompt: Any

    def _set_examples(self, examples: Any, example_selector: Any) -> None:
        if (examples is None) == (example_selector is None):
            # also pydantic's ValidationError, the class LangChain's pydantic prompt raises
            error = InvalidInputError(
                f"{type(self).__name__} needs either examples=[...] or example_selector=..., "
                "not both and not neither"
            )
            given = {"examples": examples, "example_selector": example_selector}
            raise as_validation_error(error, type(self).__name__, given)
        if examples is not None and (
            isinstance(examples, (str, Mapping))
            or not all(isinstance(example, Mapping) for example in examples)
        ):
            raise InvalidInputError(f"examples must be a list of dicts, got {examples!r:.80}")
        if example_selector is not None and not hasattr(example_selector, "select_examples"):
            raise InvalidInputError(
                f"example_selector must have select_examples(input_variables), got "
                f"{type(example_selector).__name__}"
            )
        self.examples = None if examples is None else [dict(example) for example in examples]
        self.example_selector = example_selector

    def __str__(self) -> str:  # LangChain's printed form (pydantic's str: the fields alone)
        return _joined(self._printed_fields(), " ")

    def _printed_fields(self) -> list[tuple[str, Any]]:
        """The fields LangChain prints, in its order: each kind lists its own."""
        raise NotImplementedError

    def _example_fields(self) -> list[tuple[str, Any]]:
        """The examples or the selector, whichever is set (LangChain's printed fields)."""
        if self.examples is not None:
            return [("examples", self.examples)]
        return [("example_selector", self.example_selector)]

    def _selecting(self, values: dict[str, Any]) -> Operation[list[dict[str, Any]]]:
        if self.examples is not None:
            chosen = self.examples
        else:
            selector = self.example_selector
            asynchronous = getattr(selector, "aselect_examples", None)
            chosen = yield Effect(selector.select_examples, asynchronous, values)
        wanted = self.example_prompt.input_variables
        cut = []
        for example in chosen:
            missing = [name for name in wanted if name not in example]
            if missing:
                raise PromptKeyError(
                    f"example {example!r:.80} lacks {missing}, which the example prompt uses"
                )
            cut.append({name: example[name] for name in wanted})
        return cut

    def _formatting(self, kwargs: dict[str, Any]) -> Operation[PromptValue]:
        values = self._with_partials(kwargs)
        examples = yield from self._selecting(values)
        return self._render(values, examples)

    def _render(self, values: dict[str, Any], examples: list[dict[str, Any]]) -> PromptValue:
        raise NotImplementedError

    def format_prompt(self, **kwargs: Any) -> PromptValue:
        return drive(self._formatting(kwargs))

    async def _aformat_prompt(self, **kwargs: Any) -> PromptValue:
        return await adrive(self._formatting(kwargs))


class FewShotPromptTemplate(_FewShot):
    """A text prompt with examples between a prefix and a suffix.

    Args:
        example_prompt: a ``PromptTemplate`` that renders one example.
        suffix: the template after the examples (usually the question).
        examples: the examples (dicts with the example prompt's variables), or
        example_selector: an object whose ``select_examples(variables)`` chooses them
            per input (``LengthBasedExampleSelector``, ``SemanticSimilarityExampleSelector``
            ...); exactly one of the two.
        prefix: the template before the examples.
        example_separator: what goes between the pieces (empty pieces are left out).
        input_variables: optional; the variables are those of the prefix and suffix
            (minus partial variables), as in LangChain: a list that disagrees is
            refused only with ``validate_template=True``.
        partial_variables: variables filled in now.
        template_format: ``"f-string"`` or ``"jinja2"`` for the prefix and suffix.
        validate_template: check ``input_variables`` against the templates.

    Raises:
        InvalidInputError: both or neither of examples / example_selector, or
            ``input_variables`` disagree with the templates under ``validate_template``.

    Example:
        >>> prompt = FewShotPromptTemplate(
        ...     examples=[{"q": "2+2", "a": "4"}],
        ...     example_prompt=PromptTemplate.from_template("Q: {q} A: {a}"),
        ...     suffix="Q: {question} A:", input_variables=["question"])
        >>> prompt.format(question="3+3")
        'Q: 2+2 A: 4\\n\\nQ: 3+3 A:'
    """

    def __init__(
        self,
        *,
        example_prompt: PromptTemplate,
        suffix: str,
        examples: Sequence[Mapping[str, Any]] | None = None,
        example_selector: Any = None,
        prefix: str = "",
        example_separator: str = "\n\n",
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
        validate_template: bool = False,
    ) -> None:
        if not isinstance(example_prompt, PromptTemplate):
            raise InvalidInputError(
                f"example_prompt must be a PromptTemplate, got {type(example_prompt).__name__}"
            )
        check_template_format(template_format, _FEW_SHOT_FORMATS)
        self._set_examples(examples, example_selector)
        self.example_prompt = example_prompt
        self.example_separator = example_separator
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        self.optional_variables = []
        self._parse(prefix, suffix)
        self.validate_template = bool(validate_template)
        if (
            input_variables is not None
            and self.validate_template
            and sorted(input_variables) != sorted(self.input_variables)
        ):
            raise InvalidInputError(
                f"input_variables {list(input_variables)} do not match the variables of the "
                f"prefix and suffix {self.input_variables} (validate_template=True)"
            )

    def _parse(self, prefix: str, suffix: str) -> None:
        self._prefix = Template(prefix, self.template_format)
        self._suffix = Template(suffix, self.template_format)
        found = list(dict.fromkeys(self._prefix.variables + self._suffix.variables))
        self.input_variables = sorted(name for name in found if name not in self.partial_variables)

    # Setting either (configurable_fields does, on a copy) parses both again.
    @property
    def prefix(self) -> str:
        """The template before the examples."""
        return self._prefix.template

    @prefix.setter
    def prefix(self, prefix: str) -> None:
        self._parse(prefix, self.suffix)

    @property
    def suffix(self) -> str:
        """The template after the examples."""
        return self._suffix.template

    @suffix.setter
    def suffix(self, suffix: str) -> None:
        self._parse(self.prefix, suffix)

    def _render(self, values: dict[str, Any], examples: list[dict[str, Any]]) -> PromptValue:
        # The prefix and suffix are rendered on their own and the examples stay literal
        # text (LangChain renders the joined text again, so braces in examples break it).
        pieces = [
            *([self._prefix.render(values)] if self.prefix else []),
            *(self.example_prompt.format(**example) for example in examples),
            *([self._suffix.render(values)] if self.suffix else []),
        ]
        return StringPromptValue(self.example_separator.join(pieces))

    def partial(self, **kwargs: Any) -> FewShotPromptTemplate:
        """A copy with some variables filled in."""
        return _text_copy(FewShotPromptTemplate, self, kwargs)

    def _config(self) -> dict[str, Any]:
        if self.example_selector is not None:
            raise InvalidInputError(
                "cannot save a FewShotPromptTemplate with an example selector (its examples "
                "live in the selector); save one with examples=[...]"
            )
        return {
            "_type": "few_shot",
            "input_variables": list(self.input_variables),
            "examples": self.examples,
            "example_prompt": self.example_prompt._config(),
            "prefix": self.prefix,
            "suffix": self.suffix,
            "example_separator": self.example_separator,
            "template_format": self.template_format,
        }

    def _printed_fields(self) -> list[tuple[str, Any]]:
        # LangChain's printed form (pydantic's): the prompt's shared fields, then its own
        # in its order, those with a default value only when set to another
        shown = [*self._shared_printed_fields(), *self._example_fields()]
        shown += [("example_prompt", self.example_prompt), ("suffix", self.suffix)]
        if self.example_separator != "\n\n":
            shown.append(("example_separator", self.example_separator))
        if self.prefix:
            shown.append(("prefix", self.prefix))
        if self.template_format != "f-string":
            shown.append(("template_format", self.template_format))
        return shown

    def __repr__(self) -> str:
        return f"FewShotPromptTemplate({_joined(self._printed_fields(), ', ')})"


class FewShotPromptWithTemplates(_FewShot):
    """A text prompt with examples between a prefix and a suffix that are prompt templates.

    The prefix and suffix are formatted with their own variables, the examples with
    ``example_prompt``; the pieces are joined by ``example_separator`` and the joined
    text is formatted once more (in ``template_format``) with the variables the prefix
    and suffix did not take. That second pass is how this prompt is used: a suffix
    written ``{{items}}`` leaves ``{items}`` for it to fill. So, unlike in
    ``FewShotPromptTemplate``, text in the examples is a template too: double the
    braces of literal ``{`` and ``}`` in them (as LangChain requires). So is a value the
    prefix or suffix puts in: a user's text holding a brace is refused, and one holding
    ``{name}`` of a variable left for the second pass is filled (as in LangChain).

    Args:
        example_prompt: a ``PromptTemplate`` that renders one example.
        suffix: the prompt template after the examples.
        examples: the examples (dicts with the example prompt's variables), or
        example_selector: chooses them per input; exactly one of the two.
        prefix: the prompt template before the examples (optional).
        example_separator: what goes between the pieces (empty pieces are left out).
        input_variables: optional; the variables are those of the prefix and suffix
            (minus partial variables); with ``validate_template=True`` a list lacking
            one of them is refused.
        partial_variables: variables filled in now.
        template_format: the format of the second pass (``"f-string"`` or ``"jinja2"``).
        validate_template: check ``input_variables`` against the templates.

    Raises:
        InvalidInputError: both or neither of examples / example_selector, a prefix or
            suffix that is not a prompt template, or ``input_variables`` lacking a
            variable of the templates under ``validate_template``.

    Example:
        >>> prompt = FewShotPromptWithTemplates(
        ...     examples=[{"q": "2+2", "a": "4"}],
        ...     example_prompt=PromptTemplate.from_template("Q: {q} A: {a}"),
        ...     prefix=PromptTemplate.from_template("You do {kind} sums."),
        ...     suffix=PromptTemplate.from_template("Q: {{question}} A:"))
        >>> prompt.format(kind="quick", question="3+3")
        'You do quick sums.\\n\\nQ: 2+2 A: 4\\n\\nQ: 3+3 A:'
    """

    def __init__(
        self,
        *,
        example_prompt: PromptTemplate,
        suffix: BasePromptTemplate,
        examples: Sequence[Mapping[str, Any]] | None = None,
        example_selector: Any = None,
        prefix: BasePromptTemplate | None = None,
        example_separator: str = "\n\n",
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
        validate_template: bool = False,
    ) -> None:
        if not isinstance(example_prompt, PromptTemplate):
            raise InvalidInputError(
                f"example_prompt must be a PromptTemplate, got {type(example_prompt).__name__}"
            )
        for name, part in (("suffix", suffix), ("prefix", prefix)):
            if not isinstance(part, BasePromptTemplate) and not (name == "prefix" and part is None):
                raise InvalidInputError(
                    f"{name} must be a prompt template (PromptTemplate.from_template(...)), "
                    f"got {type(part).__name__}; FewShotPromptTemplate takes a str {name}"
                )
        check_template_format(template_format, _FEW_SHOT_FORMATS)
        self._set_examples(examples, example_selector)
        self.example_prompt = example_prompt
        self.suffix = suffix
        self.prefix = prefix
        self.example_separator = example_separator
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        self.optional_variables = []
        self.validate_template = bool(validate_template)
        found = {*suffix.input_variables, *(prefix.input_variables if prefix else [])}
        if self.validate_template:
            lacking = sorted((found | set(self.partial_variables)) - set(input_variables or []))
            if lacking:
                raise InvalidInputError(
                    f"input_variables {list(input_variables or [])} lack {lacking}, "
                    "variables of the prefix and suffix (validate_template=True)"
                )
            self.input_variables = list(input_variables or [])
        else:
            self.input_variables = sorted(found - set(self.partial_variables))

    def _render(self, values: dict[str, Any], examples: list[dict[str, Any]]) -> PromptValue:
        left = dict(values)
        pieces = [self.prefix.format(**_taken(self.prefix, left))] if self.prefix else []
        pieces += [self.example_prompt.format(**example) for example in examples]
        pieces.append(self.suffix.format(**_taken(self.suffix, left)))
        joined = self.example_separator.join(piece for piece in pieces if piece)
        return StringPromptValue(self._second_pass(joined, left))

    def _second_pass(self, joined: str, values: dict[str, Any]) -> str:
        try:
            template = Template(joined, self.template_format)
        except InvalidInputError as err:
            raise InvalidInputError(
                f"FewShotPromptWithTemplates formats the joined prefix, examples and suffix "
                f"again, and that text is not a valid {self.template_format} template "
                f"({err}); {_DOUBLE_BRACES}"
            ) from err
        missing = [name for name in template.variables if name not in values]
        if missing and self.template_format == "f-string":
            raise PromptKeyError(
                f"FewShotPromptWithTemplates formats the joined prefix, examples and suffix "
                f"again, and its text holds {{{missing[0]}}}, a variable not given (or taken "
                f"by the prefix or suffix); given {sorted(values)}; {_DOUBLE_BRACES}"
            )
        return template.render(values)

    def partial(self, **kwargs: Any) -> FewShotPromptWithTemplates:
        """A copy with some variables filled in."""
        return _text_copy(FewShotPromptWithTemplates, self, kwargs)

    def _printed_fields(self) -> list[tuple[str, Any]]:
        # LangChain's printed form (pydantic's field order; defaults left out)
        shown = [*self._shared_printed_fields(), *self._example_fields()]
        shown += [("example_prompt", self.example_prompt), ("suffix", self.suffix)]
        if self.example_separator != "\n\n":
            shown.append(("example_separator", self.example_separator))
        if self.prefix is not None:
            shown.append(("prefix", self.prefix))
        if self.template_format != "f-string":
            shown.append(("template_format", self.template_format))
        if self.validate_template:
            shown.append(("validate_template", True))
        return shown

    def __repr__(self) -> str:
        return f"FewShotPromptWithTemplates({_joined(self._printed_fields(), ', ')})"


# where a literal brace of the second pass comes from: the examples, or a value (a user's
# text) the prefix or suffix put in
_DOUBLE_BRACES = (
    "double the braces of literal { and } in the examples and in the values the prefix "
    "and suffix took"
)


def _taken(part: BasePromptTemplate, values: dict[str, Any]) -> dict[str, Any]:
    """Take out of ``values`` the variables ``part`` formats (the second pass gets the rest)."""
    return {name: values.pop(name) for name in list(values) if name in part.input_variables}


class FewShotChatMessagePromptTemplate(_FewShot, BaseMessagePromptTemplate):
    """Examples as chat messages: each example rendered by ``example_prompt`` (a chat
    prompt or message template, e.g. a human question and an AI answer).

    Put it in a ``ChatPromptTemplate`` between the instructions and the question.

    Args:
        example_prompt: a ``ChatPromptTemplate`` (or message template) for one example.
        examples: the examples, or
        example_selector: chooses them per input (exactly one of the two).
        input_variables: the variables the selector reads (default: none).

    Example:
        >>> few_shot = FewShotChatMessagePromptTemplate(
        ...     examples=[{"input": "2+2", "output": "4"}],
        ...     example_prompt=ChatPromptTemplate.from_messages(
        ...         [("human", "{input}"), ("ai", "{output}")]))
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("system", "You do sums."), few_shot, ("human", "{input}")])
        >>> [m.content for m in prompt.format_messages(input="3+3")]
        ['You do sums.', '2+2', '4', '3+3']
    """

    def __init__(
        self,
        *,
        example_prompt: ChatPromptTemplate | BaseMessagePromptTemplate,
        examples: Sequence[Mapping[str, Any]] | None = None,
        example_selector: Any = None,
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(example_prompt, (ChatPromptTemplate, BaseMessagePromptTemplate)):
            raise InvalidInputError(
                f"example_prompt must be a ChatPromptTemplate or a message template, got "
                f"{type(example_prompt).__name__}"
            )
        self._set_examples(examples, example_selector)
        self.example_prompt = example_prompt
        self.partial_variables = dict(partial_variables or {})
        self.input_variables = [
            name for name in input_variables or [] if name not in self.partial_variables
        ]
        self.optional_variables = []

    def _render(self, values: dict[str, Any], examples: list[dict[str, Any]]) -> PromptValue:
        return ChatPromptValue(self._messages(examples))

    def _messages(self, examples: list[dict[str, Any]]) -> list[BaseMessage]:
        return [
            message
            for example in examples
            for message in self.example_prompt.format_messages(**example)
        ]

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """The examples as messages (the selector sees ``kwargs``)."""
        return self.format_prompt(**kwargs).to_messages()

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Async :meth:`format_messages` (the selector's ``aselect_examples`` awaited)."""
        return (await self._aformat_prompt(**kwargs)).to_messages()

    def format(self, **kwargs: Any) -> str:
        """The examples as a ``Role: text`` transcript."""
        return get_buffer_string(self.format_messages(**kwargs))

    def partial(self, **kwargs: Any) -> FewShotChatMessagePromptTemplate:
        """A copy with some variables filled in."""
        return FewShotChatMessagePromptTemplate(
            example_prompt=self.example_prompt,
            examples=self.examples,
            example_selector=self.example_selector,
            input_variables=self.input_variables,
            partial_variables={**self.partial_variables, **kwargs},
        )

    def _printed_fields(self) -> list[tuple[str, Any]]:
        # LangChain's printed form (pydantic's): here the examples come first
        shown = [*self._example_fields(), *self._shared_printed_fields()]
        return [*shown, ("example_prompt", self.example_prompt)]

    def __repr__(self) -> str:
        return f"FewShotChatMessagePromptTemplate({_joined(self._printed_fields(), ', ')})"

    def __add__(self, other: Any) -> Any:
        # LangChain's few-shot chat prompt is not one message part and has no ``+``:
        # ``few_shot + other`` raises TypeError there; put it in a ChatPromptTemplate
        return NotImplemented


_TextFewShot = TypeVar("_TextFewShot", "FewShotPromptTemplate", "FewShotPromptWithTemplates")


def _text_copy(cls: type[_TextFewShot], prompt: Any, filled: dict[str, Any]) -> _TextFewShot:
    """A copy of a text few-shot ``prompt`` as ``cls``, with ``filled`` added to its
    partial variables (what ``partial`` of both text prompts returns)."""
    return cls(
        example_prompt=prompt.example_prompt,
        suffix=prompt.suffix,
        examples=prompt.examples,
        example_selector=prompt.example_selector,
        prefix=prompt.prefix,
        example_separator=prompt.example_separator,
        partial_variables={**prompt.partial_variables, **filled},
        template_format=prompt.template_format,
    )
