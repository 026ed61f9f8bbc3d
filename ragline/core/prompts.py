"""Prompt templates: turn a dict of variables into a prompt for a model.

A prompt is a Runnable: ``invoke({"question": ...})`` returns a ``PromptValue`` that a
chat model reads as messages and a completion model reads as text. Templates use
Python f-string syntax (``"Answer {question}"``; ``{{`` and ``}}`` are literal braces);
their variables are found in the template, in order of first appearance.

Example:
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "You answer in {language}."), ("human", "{question}")])
    >>> prompt.input_variables
    ['language', 'question']
    >>> prompt.invoke({"language": "French", "question": "Hi?"}).to_messages()[1]
    HumanMessage(content='Hi?')
"""

from __future__ import annotations

import string
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragline.core._checks import check_optional_positive_int
from ragline.core.exceptions import (
    ConfigurationError,
    InvalidInputError,
    LoaderError,
    MissingVariableError,
)
from ragline.core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    _unknown_role,
    convert_to_messages,
    get_buffer_string,
)
from ragline.core.runnables.base import Runnable

__all__ = [
    "AIMessagePromptTemplate",
    "BaseMessagePromptTemplate",
    "BasePromptTemplate",
    "ChatPromptTemplate",
    "ChatPromptValue",
    "HumanMessagePromptTemplate",
    "MessagesPlaceholder",
    "PromptTemplate",
    "PromptValue",
    "StringPromptValue",
    "SystemMessagePromptTemplate",
    "format_document",
]

_TEMPLATE_FORMATS = ("f-string",)


# --------------------------------------------------------------------------- values


class PromptValue(ABC):
    """A formatted prompt, readable both as text and as messages."""

    @abstractmethod
    def to_string(self) -> str:
        """The prompt as one string (what a completion model receives)."""

    @abstractmethod
    def to_messages(self) -> list[BaseMessage]:
        """The prompt as messages (what a chat model receives)."""


@dataclass
class StringPromptValue(PromptValue):
    """A text prompt; as messages it is one human message.

    Example:
        >>> StringPromptValue("Hi").to_messages()
        [HumanMessage(content='Hi')]
    """

    text: str

    def to_string(self) -> str:
        return self.text

    def to_messages(self) -> list[BaseMessage]:
        return [HumanMessage(self.text)]


@dataclass
class ChatPromptValue(PromptValue):
    """A list of messages; as text it is a ``Role: text`` transcript.

    Example:
        >>> ChatPromptValue([SystemMessage("Be brief."), HumanMessage("Hi")]).to_string()
        'System: Be brief.\\nHuman: Hi'
    """

    messages: list[BaseMessage]

    def to_string(self) -> str:
        return get_buffer_string(self.messages)

    def to_messages(self) -> list[BaseMessage]:
        return list(self.messages)


# --------------------------------------------------------------------------- f-strings


def _fill(template: str, values: dict[str, Any]) -> str:
    """``template.format(**values)``; a value its format spec cannot format (``{x:%}``
    given a str) is an InvalidInputError naming the variable, not a bare ValueError."""
    try:
        return template.format(**values)
    except (ValueError, TypeError) as err:
        for _, field, spec, _ in string.Formatter().parse(template):
            name = (field or "").split(".")[0].split("[")[0]
            if name in values and spec:
                try:
                    format(values[name], spec)
                except (ValueError, TypeError):
                    raise InvalidInputError(
                        f"prompt variable {name!r} = {values[name]!r:.40} cannot be formatted "
                        f"as {{{field}:{spec}}} ({err}); pass a value of the type the format "
                        "spec expects, or change the spec in the template"
                    ) from err
        raise InvalidInputError(f"cannot format the prompt template: {err}") from err


def _template_variables(template: str, template_format: str) -> list[str]:
    """The variables of an f-string template, in order of first appearance."""
    if template_format not in _TEMPLATE_FORMATS:
        options = ", ".join(repr(name) for name in _TEMPLATE_FORMATS)
        raise ConfigurationError(
            f"template_format {template_format!r} is not supported; valid formats are {options}"
        )
    if not isinstance(template, str):
        raise InvalidInputError(f"a template must be a str, got {type(template).__name__}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as err:
        raise InvalidInputError(f"invalid f-string template {template!r}: {err}") from err
    names: list[str] = []
    for _literal, field_name, format_spec, conversion in parsed:
        if field_name is None:
            continue
        # Plain names only: attribute access or indexing ({user.password}, {x[0]}) would
        # let a template reach into the objects it is given.
        if not field_name or field_name.isdigit() or any(c in field_name for c in ".[]"):
            raise InvalidInputError(
                f"template variable {{{field_name}}} in {template!r} is not a plain name; "
                f"use named variables such as {{question}} (and {{{{ }}}} for literal braces)"
            )
        if conversion not in (None, "r", "s", "a"):  # else format() fails at invoke time
            raise InvalidInputError(
                f"unknown conversion !{conversion} in {{{field_name}!{conversion}}} of "
                f"{template!r}; valid conversions are !r, !s and !a"
            )
        if format_spec and "{" in format_spec:
            raise InvalidInputError(
                f"nested variables in the format spec of {{{field_name}}} are not supported"
            )
        if field_name not in names:
            names.append(field_name)
    return names


# --------------------------------------------------------------------------- base


class BasePromptTemplate(Runnable[Any, PromptValue]):
    """Base of prompt templates: variables in, ``PromptValue`` out.

    Subclasses implement ``format_prompt(**kwargs)``; ``invoke`` checks the input,
    fills in partial variables and reports the run to callbacks (as a ``prompt`` run).
    """

    input_variables: list[str]
    optional_variables: list[str]
    partial_variables: dict[str, Any]

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> PromptValue:
        """Format the prompt from a dict of variables (or a single value).

        Args:
            input: a dict of variables; when the prompt has exactly one variable, its
                value alone is accepted too.
            config: a RunnableConfig.

        Returns:
            The formatted ``PromptValue``.

        Raises:
            MissingVariableError: a required variable is missing; the message names it
                and the keys that were given.
            TypeError: keyword options were given (a prompt takes none).
        """
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._invoke, input, config, run_type="prompt")

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> PromptValue:
        """Async ``invoke`` (formatting is quick, so it runs inline, not in a thread)."""
        self._reject_kwargs(kwargs)

        async def format_input(value: Any) -> PromptValue:
            return self._invoke(value)

        return await self._acall_with_config(format_input, input, config, run_type="prompt")

    def _invoke(self, input: Any) -> PromptValue:
        return self.format_prompt(**self._input_to_dict(input))

    def _input_title(self) -> str:
        return "PromptInput"

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        from ragline.core._json_schema import field_title, messages_schema

        lists = {
            part.variable_name
            for part in getattr(self, "messages", [])
            if isinstance(part, MessagesPlaceholder)
        }
        properties: dict[str, Any] = {}
        for name in sorted(self.input_variables) + sorted(self.optional_variables):
            schema = messages_schema(defs) if name in lists else {"type": "string"}
            if name in self.optional_variables:
                schema = {**schema, "default": None}
            properties[name] = {"title": field_title(name), **schema}
        schema = {"type": "object", "properties": properties}
        if self.input_variables:
            schema["required"] = sorted(self.input_variables)
        return schema

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        from ragline.core._json_schema import json_schema_of

        return json_schema_of(PromptValue, defs)

    def _input_to_dict(self, input: Any) -> dict[str, Any]:
        if isinstance(input, Mapping):
            return dict(input)
        if len(self.input_variables) == 1:
            return {self.input_variables[0]: input}
        raise InvalidInputError(
            f"{type(self).__name__} expects a dict with keys {self.input_variables}, "
            f"got {type(input).__name__}"
        )

    def _with_partials(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Fill in partial variables (callables are called now), then check for missing."""
        values = {
            name: value() if callable(value) else value
            for name, value in self.partial_variables.items()
            if name not in kwargs
        }
        values.update(kwargs)
        missing = [name for name in self.input_variables if name not in values]
        if missing:
            raise MissingVariableError(
                f"{type(self).__name__} is missing variable(s) {missing}; "
                f"got {sorted(kwargs)}; expected {self.input_variables}"
            )
        return values

    @abstractmethod
    def format_prompt(self, **kwargs: Any) -> PromptValue:
        """Format the prompt into a ``PromptValue``."""

    def format(self, **kwargs: Any) -> str:
        """Format the prompt as a string.

        Example:
            >>> PromptTemplate.from_template("Hi {name}").format(name="Ada")
            'Hi Ada'
        """
        return self.format_prompt(**kwargs).to_string()

    @abstractmethod
    def partial(self, **kwargs: Any) -> BasePromptTemplate:
        """A copy with some variables filled in (values, or callables called at format time)."""


# --------------------------------------------------------------------------- text prompts


class PromptTemplate(BasePromptTemplate):
    """A text prompt from an f-string template.

    Args:
        template: the template, e.g. ``"Answer {question} using {context}"``.
        input_variables: optional; when given it must equal the variables found in the
            template (minus partial variables), which catches typos early.
        partial_variables: variables filled in now (values, or callables called at
            format time).
        template_format: only ``"f-string"``.

    Raises:
        InvalidInputError: the template is malformed or ``input_variables`` disagrees
            with it.

    Example:
        >>> prompt = PromptTemplate.from_template("Tell me about {topic}.")
        >>> prompt.invoke("RAG").to_string()
        'Tell me about RAG.'
    """

    def __init__(
        self,
        template: str,
        *,
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
    ) -> None:
        found = _template_variables(template, template_format)
        self.template = template
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        self.input_variables = [name for name in found if name not in self.partial_variables]
        self.optional_variables = []
        if input_variables is not None and sorted(input_variables) != sorted(self.input_variables):
            raise InvalidInputError(
                f"input_variables {list(input_variables)} do not match the template's "
                f"variables {self.input_variables} (template {template!r})"
            )

    @classmethod
    def from_template(
        cls,
        template: str,
        *,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
    ) -> PromptTemplate:
        """Build a prompt whose variables are read from the template.

        Example:
            >>> PromptTemplate.from_template("{a} and {b}").input_variables
            ['a', 'b']
        """
        return cls(template, partial_variables=partial_variables, template_format=template_format)

    @classmethod
    def from_file(
        cls, path: str | Path, *, encoding: str = "utf-8", template_format: str = "f-string"
    ) -> PromptTemplate:
        """Build a prompt from a template stored in a text file.

        Raises:
            LoaderError: the file cannot be read; the message names it.

        Example:
            >>> PromptTemplate.from_file("prompts/qa.txt")  # doctest: +SKIP
        """
        try:
            template = Path(path).read_text(encoding=encoding)
        except (OSError, UnicodeDecodeError) as err:
            raise LoaderError(f"cannot read prompt template file {str(path)!r}: {err}") from err
        return cls(template, template_format=template_format)

    def format_prompt(self, **kwargs: Any) -> StringPromptValue:
        return StringPromptValue(_fill(self.template, self._with_partials(kwargs)))

    def partial(self, **kwargs: Any) -> PromptTemplate:
        """A copy with some variables filled in.

        Example:
            >>> PromptTemplate.from_template("{a}-{b}").partial(a="x").format(b="y")
            'x-y'
        """
        return PromptTemplate(
            self.template,
            partial_variables={**self.partial_variables, **kwargs},
            template_format=self.template_format,
        )

    def __add__(self, other: Any) -> PromptTemplate:
        """Concatenate two templates (or a template and a string)."""
        if isinstance(other, str):
            other = PromptTemplate(other, template_format=self.template_format)
        if not isinstance(other, PromptTemplate):
            return NotImplemented
        return PromptTemplate(
            self.template + other.template,
            partial_variables={**self.partial_variables, **other.partial_variables},
            template_format=self.template_format,
        )

    def __repr__(self) -> str:
        return f"PromptTemplate(template={self.template!r})"


# --------------------------------------------------------------------------- message templates


class BaseMessagePromptTemplate(ABC):
    """One part of a chat prompt that formats into zero or more messages."""

    input_variables: list[str]
    optional_variables: list[str]

    @abstractmethod
    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Format this part into messages."""


class _StringMessagePromptTemplate(BaseMessagePromptTemplate):
    message_class: type[BaseMessage] = HumanMessage

    def __init__(self, prompt: PromptTemplate) -> None:
        self.prompt = prompt
        self.input_variables = prompt.input_variables
        self.optional_variables = []

    @classmethod
    def from_template(cls, template: str, *, template_format: str = "f-string") -> Any:
        """Build the message template from an f-string template.

        Example:
            >>> HumanMessagePromptTemplate.from_template("{q}").format(q="hi")
            HumanMessage(content='hi')
        """
        return cls(PromptTemplate(template, template_format=template_format))

    def format(self, **kwargs: Any) -> BaseMessage:
        """Format into one message."""
        return self.message_class(self.prompt.format(**kwargs))

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return [self.format(**kwargs)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(template={self.prompt.template!r})"


class SystemMessagePromptTemplate(_StringMessagePromptTemplate):
    """A system message formatted from a template."""

    message_class = SystemMessage


class HumanMessagePromptTemplate(_StringMessagePromptTemplate):
    """A human message formatted from a template."""

    message_class = HumanMessage


class AIMessagePromptTemplate(_StringMessagePromptTemplate):
    """An AI message formatted from a template."""

    message_class = AIMessage


class MessagesPlaceholder(BaseMessagePromptTemplate):
    """A slot in a chat prompt filled by a list of messages (a chat history, say).

    Args:
        variable_name: the input key holding the messages.
        optional: when true, a missing variable means no messages.
        n_messages: keep only the last ``n_messages`` messages.

    Example:
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [MessagesPlaceholder("history", optional=True), ("human", "{q}")])
        >>> len(prompt.invoke({"q": "hi", "history": [("ai", "hello")]}).to_messages())
        2
    """

    def __init__(
        self, variable_name: str, *, optional: bool = False, n_messages: int | None = None
    ) -> None:
        self.variable_name = variable_name
        self.optional = optional
        self.n_messages = check_optional_positive_int("n_messages", n_messages)
        self.input_variables = [] if optional else [variable_name]
        self.optional_variables = [variable_name] if optional else []

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        value = kwargs.get(self.variable_name)
        if value is None and self.optional:
            return []
        if not isinstance(value, (list, tuple)):
            raise InvalidInputError(
                f"variable {self.variable_name!r} should be a list of messages, "
                f"got {type(value).__name__}"
            )
        messages = convert_to_messages(value)
        return messages[-self.n_messages :] if self.n_messages else messages

    def __repr__(self) -> str:
        return f"MessagesPlaceholder({self.variable_name!r}, optional={self.optional})"


# --------------------------------------------------------------------------- chat prompts

_TEMPLATE_ROLES: dict[str, type[_StringMessagePromptTemplate]] = {
    "system": SystemMessagePromptTemplate,
    "human": HumanMessagePromptTemplate,
    "user": HumanMessagePromptTemplate,
    "ai": AIMessagePromptTemplate,
    "assistant": AIMessagePromptTemplate,
}
_VALID_TEMPLATE_ROLES = (*_TEMPLATE_ROLES, "placeholder")

_Part = BaseMessage | BaseMessagePromptTemplate


def _to_part(item: Any, template_format: str) -> list[_Part]:
    if isinstance(item, (BaseMessage, BaseMessagePromptTemplate)):
        return [item]
    if isinstance(item, ChatPromptTemplate):
        return list(item.messages)
    if isinstance(item, str):
        item = ("human", item)
    if isinstance(item, dict) and "role" in item and "content" in item:
        item = (item["role"], item["content"])
    if not (isinstance(item, tuple) and len(item) == 2):
        raise InvalidInputError(
            f"cannot use {item!r} in a chat prompt; expected a (role, template) tuple, a "
            f"message, a message template or a MessagesPlaceholder"
        )
    role, content = item
    if role == "placeholder":
        name = content.strip() if isinstance(content, str) else None
        if not (name and name.startswith("{") and name.endswith("}")):
            raise InvalidInputError(
                f"a placeholder is written ('placeholder', '{{variable}}'), got {item!r}"
            )
        return [MessagesPlaceholder(name[1:-1], optional=True)]
    template_class = _TEMPLATE_ROLES.get(role) if isinstance(role, str) else None
    if template_class is None:
        raise _unknown_role(role, item, _VALID_TEMPLATE_ROLES)
    if not isinstance(content, str):  # multimodal content blocks are used as they are
        return [template_class.message_class(content)]
    return [template_class.from_template(content, template_format=template_format)]


class ChatPromptTemplate(BasePromptTemplate):
    """A chat prompt: a list of messages, message templates and placeholders.

    Args:
        messages: ``("system" | "human" | "user" | "ai" | "assistant", template)``
            tuples, ``("placeholder", "{variable}")``, plain strings (human templates),
            messages (used as they are), message templates and ``MessagesPlaceholder``.
        template_format: only ``"f-string"``.
        partial_variables: variables filled in now.

    Raises:
        InvalidInputError: an unknown role (the message names the valid roles) or a
            malformed template.

    Example:
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("system", "Be brief."), ("human", "{question}")])
        >>> prompt.invoke("Why?").to_messages()
        [SystemMessage(content='Be brief.'), HumanMessage(content='Why?')]
    """

    def __init__(
        self,
        messages: Sequence[Any],
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
    ) -> None:
        if template_format not in _TEMPLATE_FORMATS:
            _template_variables("", template_format)  # raises the ConfigurationError
        self.template_format = template_format
        self.messages: list[_Part] = [
            part for item in messages for part in _to_part(item, template_format)
        ]
        self.partial_variables = dict(partial_variables or {})
        required: list[str] = []
        optional: list[str] = []
        for part in self.messages:
            if isinstance(part, BaseMessagePromptTemplate):
                required += [v for v in part.input_variables if v not in required]
                optional += [v for v in part.optional_variables if v not in optional]
        self.input_variables = [v for v in required if v not in self.partial_variables]
        self.optional_variables = [
            v for v in optional if v not in required and v not in self.partial_variables
        ]

    @classmethod
    def from_messages(
        cls, messages: Sequence[Any], *, template_format: str = "f-string"
    ) -> ChatPromptTemplate:
        """Build a chat prompt from message-like parts (see the class docstring).

        Example:
            >>> ChatPromptTemplate.from_messages([("user", "{q}")]).input_variables
            ['q']
        """
        return cls(messages, template_format=template_format)

    @classmethod
    def from_template(
        cls, template: str, *, template_format: str = "f-string"
    ) -> ChatPromptTemplate:
        """A chat prompt of one human message template.

        Example:
            >>> ChatPromptTemplate.from_template("{q}").format_messages(q="hi")
            [HumanMessage(content='hi')]
        """
        return cls([("human", template)], template_format=template_format)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Format into a list of messages.

        Raises:
            MissingVariableError: a required variable is missing.
        """
        values = self._with_partials(kwargs)
        messages: list[BaseMessage] = []
        for part in self.messages:
            if isinstance(part, BaseMessage):
                messages.append(part)
            else:
                messages.extend(part.format_messages(**values))
        return messages

    def format_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return ChatPromptValue(self.format_messages(**kwargs))

    def partial(self, **kwargs: Any) -> ChatPromptTemplate:
        """A copy with some variables filled in.

        Example:
            >>> ChatPromptTemplate.from_template("{a}{b}").partial(a="x").input_variables
            ['b']
        """
        return ChatPromptTemplate(
            self.messages,
            template_format=self.template_format,
            partial_variables={**self.partial_variables, **kwargs},
        )

    def __add__(self, other: Any) -> ChatPromptTemplate:
        """Append messages: another chat prompt, one message-like part, or a list of them."""
        parts = other if isinstance(other, list) else [other]
        partials = dict(self.partial_variables)
        if isinstance(other, ChatPromptTemplate):
            partials.update(other.partial_variables)
        return ChatPromptTemplate(
            [*self.messages, *parts],
            template_format=self.template_format,
            partial_variables=partials,
        )

    def __len__(self) -> int:
        return len(self.messages)

    def __repr__(self) -> str:
        return f"ChatPromptTemplate(messages={self.messages!r})"


# --------------------------------------------------------------------------- documents


def format_document(document: Any, prompt: BasePromptTemplate) -> str:
    """Render one document with a prompt over ``page_content`` and its metadata keys.

    Raises:
        MissingVariableError: the prompt names a metadata key the document lacks.

    Example:
        >>> from ragline.core import Document
        >>> format_document(Document("text", metadata={"source": "a.txt"}),
        ...                 PromptTemplate.from_template("[{source}] {page_content}"))
        '[a.txt] text'
    """
    values = {**document.metadata, "page_content": document.page_content}
    missing = [name for name in prompt.input_variables if name not in values]
    if missing:
        raise MissingVariableError(
            f"document prompt needs {missing}, which document {document.id or ''!s} "
            f"(source {document.metadata.get('source')!r}) lacks; it has "
            f"{sorted(values)}"
        )
    return prompt.format(**{name: values[name] for name in prompt.input_variables})
