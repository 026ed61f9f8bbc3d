"""Chat prompts: ``ChatPromptTemplate`` and its parts (message templates, placeholders).

Example:
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "You answer in {language}."), ("human", "{question}")])
    >>> prompt.input_variables
    ['language', 'question']
    >>> prompt.invoke({"language": "French", "question": "Hi?"}).to_messages()[1]
    HumanMessage(content='Hi?', additional_kwargs={}, response_metadata={})
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from ragline.core._checks import check_optional_positive_int
from ragline.core.exceptions import (
    InvalidInputError,
    NotAMessageError,
    PromptKeyError,
    UnsupportedPromptPartError,
)
from ragline.core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    _banner,
    _unknown_role,
    convert_to_messages,
)
from ragline.core.prompts._base import (
    BasePromptTemplate,
    PromptTemplate,
    _interactive,
    _marker,
    _warn_ignored,
)
from ragline.core.prompts._formats import check_template_format
from ragline.core.prompts._string import _ProgramPromptTemplate
from ragline.core.prompts._values import ChatPromptValue, ImagePromptValue

__all__ = [
    "AIMessagePromptTemplate",
    "BaseChatPromptTemplate",
    "BaseMessagePromptTemplate",
    "ChatMessagePromptTemplate",
    "ChatPromptTemplate",
    "HumanMessagePromptTemplate",
    "ImagePromptTemplate",
    "MessagesPlaceholder",
    "SystemMessagePromptTemplate",
]


class BaseMessagePromptTemplate(ABC):
    """One part of a chat prompt that formats into zero or more messages."""

    input_variables: list[str]
    optional_variables: list[str]

    @abstractmethod
    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Format this part into messages."""

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Async :meth:`format_messages` (inline unless the part awaits something)."""
        return self.format_messages(**kwargs)

    def pretty_repr(self, html: bool = False) -> str:
        """A banner naming the part, then its template (LangChain's layout)."""
        raise NotImplementedError(f"{type(self).__name__} has no pretty form")

    def pretty_print(self) -> None:
        """Print ``pretty_repr()`` (markers coloured in an interactive session)."""
        print(self.pretty_repr(html=_interactive()))

    def __add__(self, other: Any) -> ChatPromptTemplate:
        """A chat prompt of this part followed by ``other``, as ``ChatPromptTemplate + other``.

        Example:
            >>> prompt = HumanMessagePromptTemplate.from_template(
            ...     "{input}"
            ... ) + AIMessagePromptTemplate.from_template("{output}")
            >>> [m.type for m in prompt.format_messages(input="2+2", output="4")]
            ['human', 'ai']
        """
        return ChatPromptTemplate([self]) + other


def _joined(fields: list[tuple[str, Any]], separator: str) -> str:
    return separator.join(f"{name}={value!r}" for name, value in fields)


# what a message template takes (named in the warning about a keyword it drops)
_MESSAGE_TEMPLATE_OPTIONS = ("prompt", "additional_kwargs")


class _StringMessagePromptTemplate(BaseMessagePromptTemplate):
    message_class: type[BaseMessage] = HumanMessage

    def __init__(
        self,
        prompt: BasePromptTemplate,
        *,
        additional_kwargs: Mapping[str, Any] | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:  # LangChain's message template (a pydantic model) drops them
            _warn_ignored(self, ignored, self._options())
        # LangChain's message template wraps any string prompt: a PromptTemplate, a
        # FewShotPromptTemplate (the SQL-agent few-shot recipe puts one in a system
        # message), a StringPromptTemplate subclass.
        from ragline.core.prompts._few_shot import FewShotPromptTemplate
        from ragline.core.prompts._string import StringPromptTemplate

        if not isinstance(prompt, (PromptTemplate, FewShotPromptTemplate, StringPromptTemplate)):
            raise InvalidInputError(
                "a message template wraps a string prompt template (PromptTemplate, "
                f"FewShotPromptTemplate, StringPromptTemplate), got {type(prompt).__name__}"
            )
        self.prompt = prompt
        self.additional_kwargs = dict(additional_kwargs or {})
        self.input_variables = prompt.input_variables
        self.optional_variables = []

    @classmethod
    def _options(cls) -> tuple[str, ...]:
        return _MESSAGE_TEMPLATE_OPTIONS

    @classmethod
    def from_template(
        cls,
        template: str,
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Build the message template from an f-string (or jinja2) template.

        ``partial_variables`` fills some variables now (as ``PromptTemplate`` does); the
        rest stay inputs. Other keywords (``additional_kwargs``) go to the constructor.

        A list (strings, ``{"text": ...}`` and ``{"image_url": ...}`` blocks, other dicts)
        makes a message whose content is those blocks, each a template, as a
        ``(role, [blocks])`` part of a chat prompt does; it takes no partial variables.

        Example:
            >>> HumanMessagePromptTemplate.from_template("{q}").format(q="hi")
            HumanMessage(content='hi', additional_kwargs={}, response_metadata={})
        """
        if isinstance(template, (list, tuple)):
            if partial_variables:
                raise InvalidInputError(
                    "partial variables are not taken with a list of content-block "
                    "templates; fill them in the blocks' text"
                )
            blocks = _ContentBlocksMessagePromptTemplate(
                cls.message_class,
                template,
                template_format,
                cls.__name__,
                additional_kwargs=kwargs.pop("additional_kwargs", None),
            )
            if kwargs:  # dropped, as the message template's constructor drops them
                _warn_ignored(blocks, kwargs, cls._options())
            return blocks
        prompt = PromptTemplate(
            template, template_format=template_format, partial_variables=partial_variables
        )
        return cls(prompt, **kwargs)

    def format(self, **kwargs: Any) -> BaseMessage:
        """Format into one message (carrying ``additional_kwargs``)."""
        return self.message_class(
            self.prompt.format(**kwargs), additional_kwargs=dict(self.additional_kwargs)
        )

    async def aformat(self, **kwargs: Any) -> BaseMessage:
        """Async :meth:`format`."""
        return self.format(**kwargs)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return [self.format(**kwargs)]

    def _config(self) -> dict[str, Any]:
        config = {"role": self.message_class.type, "template": self._template_text()}
        return self._with_extras(config)

    def _template_text(self) -> str:
        if not isinstance(self.prompt, PromptTemplate):
            raise InvalidInputError(
                "only a message template over a PromptTemplate can be saved, "
                f"this one wraps a {type(self.prompt).__name__}"
            )
        return self.prompt.template

    def _with_extras(self, config: dict[str, Any]) -> dict[str, Any]:
        if self.additional_kwargs:
            config["additional_kwargs"] = dict(self.additional_kwargs)
        return config

    def pretty_repr(self, html: bool = False) -> str:
        # The banner is the class name with "MessagePromptTemplate" turned into
        # " Message" ("Human Message"), as LangChain titles it.
        title = type(self).__name__.replace("MessagePromptTemplate", " Message")
        return f"{_banner(title, bold=html)}\n\n{self.prompt.pretty_repr(html=html)}"

    def _printed_fields(self) -> list[tuple[str, Any]]:
        return [("prompt", self.prompt), ("additional_kwargs", self.additional_kwargs)]

    def __repr__(self) -> str:  # LangChain's printed form (pydantic's)
        return f"{type(self).__name__}({_joined(self._printed_fields(), ', ')})"

    def __str__(self) -> str:
        return _joined(self._printed_fields(), " ")


class SystemMessagePromptTemplate(_StringMessagePromptTemplate):
    """A system message formatted from a template."""

    message_class = SystemMessage


class HumanMessagePromptTemplate(_StringMessagePromptTemplate):
    """A human message formatted from a template."""

    message_class = HumanMessage


class AIMessagePromptTemplate(_StringMessagePromptTemplate):
    """An AI message formatted from a template."""

    message_class = AIMessage


class ChatMessagePromptTemplate(_StringMessagePromptTemplate):
    """A ``ChatMessage`` with any role name, formatted from a template.

    Args:
        prompt: the template of the message's text.
        role: the role name the message carries (``"critic"``, ``"system"`` ...).

    Example:
        >>> ChatMessagePromptTemplate.from_template("{x}!", role="critic").format(x="No")
        ChatMessage(content='No!', additional_kwargs={}, response_metadata={}, role='critic')
    """

    message_class = ChatMessage

    def __init__(
        self,
        prompt: PromptTemplate,
        *,
        role: str,
        additional_kwargs: Mapping[str, Any] | None = None,
        **ignored: Any,
    ) -> None:
        if not isinstance(role, str) or not role:
            raise InvalidInputError(f"a ChatMessagePromptTemplate needs a role name, got {role!r}")
        super().__init__(prompt, additional_kwargs=additional_kwargs, **ignored)
        self.role = role

    @classmethod
    def _options(cls) -> tuple[str, ...]:
        return (*_MESSAGE_TEMPLATE_OPTIONS, "role")

    @classmethod
    def from_template(  # type: ignore[override]
        cls,
        template: str,
        *,
        role: str,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessagePromptTemplate:
        """Build the message template from a template and a role name."""
        prompt = PromptTemplate(
            template, template_format=template_format, partial_variables=partial_variables
        )
        return cls(prompt, role=role, **kwargs)

    def format(self, **kwargs: Any) -> BaseMessage:
        return ChatMessage(
            self.prompt.format(**kwargs),
            role=self.role,
            additional_kwargs=dict(self.additional_kwargs),
        )

    def _config(self) -> dict[str, Any]:
        config = {"role": "chat", "chat_role": self.role, "template": self._template_text()}
        return self._with_extras(config)

    def _printed_fields(self) -> list[tuple[str, Any]]:
        return [*super()._printed_fields(), ("role", self.role)]


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
        self,
        variable_name: str,
        *,
        optional: bool = False,
        n_messages: int | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:  # LangChain's placeholder (a pydantic model) drops them
            _warn_ignored(self, ignored, ("variable_name", "optional", "n_messages"))
        self.variable_name = variable_name
        self.optional = optional
        self.n_messages = check_optional_positive_int("n_messages", n_messages)
        self.input_variables = [] if optional else [variable_name]
        self.optional_variables = [variable_name] if optional else []

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        value = kwargs.get(self.variable_name)
        if value is None and self.optional:
            return []
        if value is None and self.variable_name not in kwargs:
            raise PromptKeyError(
                f"MessagesPlaceholder is missing variable {self.variable_name!r}; "
                f"got {sorted(kwargs)}"
            )
        if not isinstance(value, (list, tuple)):
            # printed as ValueError, the class LangChain's placeholder raises here
            raise NotAMessageError(
                f"variable {self.variable_name!r} should be a list of messages, "
                f"got {type(value).__name__}"
            )
        messages = convert_to_messages(value)
        return messages[-self.n_messages :] if self.n_messages else messages

    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"placeholder": self.variable_name, "optional": self.optional}
        if self.n_messages is not None:
            config["n_messages"] = self.n_messages
        return config

    def pretty_repr(self, html: bool = False) -> str:
        title = _banner("Messages Placeholder", bold=html)
        return f"{title}\n\n{_marker(self.variable_name, html)}"

    def _printed_fields(self) -> list[tuple[str, Any]]:
        shown: list[tuple[str, Any]] = [("variable_name", self.variable_name)]
        if self.optional:
            shown.append(("optional", True))
        if self.n_messages is not None:
            shown.append(("n_messages", self.n_messages))
        return shown

    def __repr__(self) -> str:  # LangChain's printed form (pydantic's)
        return f"MessagesPlaceholder({_joined(self._printed_fields(), ', ')})"

    def __str__(self) -> str:
        return _joined(self._printed_fields(), " ")


def _templated(value: Any, template_format: str) -> Any:
    """``value`` with every string in it (inside dicts and lists too) a PromptTemplate."""
    if isinstance(value, str):
        return PromptTemplate(value, template_format=template_format)
    if isinstance(value, dict):
        return {k: _templated(v, template_format) for k, v in value.items()}
    if isinstance(value, list):
        return [_templated(v, template_format) for v in value]
    return value


def _templates_in(value: Any) -> Iterator[PromptTemplate]:
    if isinstance(value, PromptTemplate):
        yield value
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _templates_in(item)


def _filled(value: Any, values: Mapping[str, Any]) -> Any:
    """A :func:`_templated` value with each template formatted from ``values``."""
    if isinstance(value, PromptTemplate):
        return value.format(**{k: values[k] for k in value.input_variables if k in values})
    if isinstance(value, dict):
        return {k: _filled(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, values) for v in value]
    return value


class _BlockTemplate:
    """An image_url block's url, or any other dict block, as a template (printed as
    LangChain's ImagePromptTemplate / DictPromptTemplate)."""

    def __init__(self, kind: str, template: dict[str, Any], template_format: str) -> None:
        self.kind = kind
        self.template = template
        self.template_format = template_format
        self._templates = _templated(template, template_format)  # parsed once
        self.input_variables = list(
            dict.fromkeys(v for t in _templates_in(self._templates) for v in t.input_variables)
        )

    def format_block(self, values: Mapping[str, Any]) -> dict[str, Any]:
        filled = _filled(self._templates, values)
        return {"type": "image_url", "image_url": filled} if self.kind == "image" else filled

    def __repr__(self) -> str:
        if self.kind == "image":
            return (
                f"ImagePromptTemplate(input_variables={self.input_variables!r}, input_types={{}}, "
                f"partial_variables={{}}, template={self.template!r})"
            )
        return (
            f"DictPromptTemplate(template={self.template!r}, "
            f"template_format={self.template_format!r})"
        )


class ImagePromptTemplate(BasePromptTemplate):
    """A prompt for one image: ``template`` is an ``image_url`` dict (``url``, perhaps
    ``detail``) whose strings are templates; it formats to that dict with the values
    filled in, and ``invoke`` gives an :class:`ImagePromptValue`.

    As LangChain's, the input variables are the ones given (none by default), they may
    not be named ``url``, ``path`` or ``detail``, and a ``url`` (or ``detail``) passed as
    a variable replaces the template's. Images are given by url: a ``path`` is refused.

    Raises:
        InvalidInputError: an input variable named ``url``, ``path`` or ``detail``;
            from ``format``: a ``path``, no url, or a url that is not a string.

    Example:
        >>> ImagePromptTemplate(template={"url": "{u}"}, input_variables=["u"]).format(u="a.png")
        {'url': 'a.png'}
    """

    def __init__(
        self,
        template: Mapping[str, Any] | None = None,
        *,
        input_variables: Sequence[str] | None = None,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        input_types: Mapping[str, Any] | None = None,
        output_parser: Any = None,
        name: str | None = None,
    ) -> None:
        reserved = sorted(set(input_variables or ()) & {"url", "path", "detail"})
        if reserved:
            raise InvalidInputError(
                f"an image template's input variables may not be named url, path or "
                f"detail (those are the image's own keys); got {reserved}"
            )
        check_template_format(template_format)
        if name is not None:
            self.name = name
        self._set_fields(
            tags=tags, metadata=metadata, input_types=input_types, output_parser=output_parser
        )
        self.template = dict(template or {})
        self.template_format = template_format
        self.input_variables = list(input_variables or ())
        self.optional_variables = []
        self.partial_variables = dict(partial_variables or {})
        self._templates = {
            key: PromptTemplate(value, template_format=template_format)
            if isinstance(value, str)
            else value
            for key, value in self.template.items()
        }

    def format(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        """The ``image_url`` dict: ``url`` (a string), and ``detail`` when there is one."""
        values = self._with_partials(kwargs)
        filled = {
            key: value.format(**values) if isinstance(value, PromptTemplate) else value
            for key, value in self._templates.items()
        }
        if values.get("path") or filled.get("path"):
            raise InvalidInputError(
                "an image template does not read files: give the image by its url "
                "(a data: url for a local image)"
            )
        url = values.get("url") or filled.get("url")
        if not url:
            raise InvalidInputError("an image template needs a url, and none was given")
        if not isinstance(url, str):
            raise InvalidInputError(f"an image's url is a string, got {type(url).__name__}")
        image: dict[str, Any] = {"url": url}
        detail = values.get("detail") or filled.get("detail")
        if detail:
            image["detail"] = detail
        return image

    def format_prompt(self, **kwargs: Any) -> ImagePromptValue:
        return ImagePromptValue(self.format(**kwargs))

    def partial(self, **kwargs: Any) -> ImagePromptTemplate:
        """A copy with some variables filled in."""
        return ImagePromptTemplate(
            self.template,
            input_variables=[v for v in self.input_variables if v not in kwargs],
            template_format=self.template_format,
            partial_variables={**self.partial_variables, **kwargs},
            name=self.name,
            **self._fields(),
        )

    def pretty_repr(self, html: bool = False) -> str:
        """The template dict, its variables shown as written."""
        return repr(self.template)

    def _printed_fields(self) -> list[tuple[str, Any]]:
        shown = [*self._shared_printed_fields(), ("template", self.template)]
        if self.template_format != "f-string":
            shown.append(("template_format", self.template_format))
        return shown

    def __repr__(self) -> str:  # LangChain's printed form (pydantic's)
        return f"ImagePromptTemplate({_joined(self._printed_fields(), ', ')})"

    def __str__(self) -> str:
        return _joined(self._printed_fields(), " ")


class _ContentBlocksMessagePromptTemplate(BaseMessagePromptTemplate):
    """A message whose content is a list of blocks, each a template: what a
    ``(role, [blocks])`` part of a chat prompt becomes, as in LangChain.

    A string, or a dict of only ``type`` and ``text``, formats into ``{"type": "text",
    "text": ...}``; an ``image_url`` block (only ``type`` and ``image_url``) has its url,
    given as a string or a dict, as a template; any other dict has every string in it
    formatted.
    """

    def __init__(
        self,
        message_class: type[BaseMessage],
        blocks: Sequence[Any],
        template_format: str,
        role_class_name: str,
        additional_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.message_class = message_class
        self._role_class_name = role_class_name
        self.additional_kwargs = dict(additional_kwargs or {})
        self.prompt: list[PromptTemplate | _BlockTemplate] = []
        for block in blocks:
            if isinstance(block, str):
                self.prompt.append(PromptTemplate(block, template_format=template_format))
            elif not isinstance(block, dict):
                raise InvalidInputError(
                    f"a message's content blocks are strings or dicts, got {block!r}"
                )
            elif isinstance(block.get("text"), str) and set(block) <= {"type", "text"}:
                self.prompt.append(PromptTemplate(block["text"], template_format=template_format))
            elif "image_url" in block and set(block) <= {"type", "image_url"}:
                image = block["image_url"]
                image = {"url": image} if isinstance(image, str) else dict(image)
                self.prompt.append(_BlockTemplate("image", image, template_format))
            else:
                self.prompt.append(_BlockTemplate("dict", dict(block), template_format))
        self.input_variables = list(
            dict.fromkeys(v for part in self.prompt for v in part.input_variables)
        )
        self.optional_variables = []

    def format(self, **kwargs: Any) -> BaseMessage:
        """Format into one message whose content is the formatted blocks."""
        missing = [name for name in self.input_variables if name not in kwargs]
        if missing:
            raise PromptKeyError(
                f"missing variables {missing} for a message's content blocks; "
                f"inputs are {sorted(kwargs)}"
            )
        content: list[Any] = []
        for part in self.prompt:
            if isinstance(part, PromptTemplate):
                values = {k: kwargs[k] for k in part.input_variables}
                content.append({"type": "text", "text": part.format(**values)})
            else:
                content.append(part.format_block(kwargs))
        return self.message_class(content, additional_kwargs=dict(self.additional_kwargs))

    async def aformat(self, **kwargs: Any) -> BaseMessage:
        """Async :meth:`format`."""
        return self.format(**kwargs)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return [self.format(**kwargs)]

    def pretty_repr(self, html: bool = False) -> str:
        title = self._role_class_name.replace("MessagePromptTemplate", " Message")
        shown = [
            p.pretty_repr(html=html) if isinstance(p, PromptTemplate) else repr(p.template)
            for p in self.prompt
        ]
        return "\n\n".join([_banner(title, bold=html), *shown])

    def __repr__(self) -> str:  # LangChain's printed form: the role's class, a list prompt
        return (
            f"{self._role_class_name}(prompt={self.prompt!r}, "
            f"additional_kwargs={self.additional_kwargs!r})"
        )

    def __str__(self) -> str:
        return f"prompt={self.prompt!r} additional_kwargs={self.additional_kwargs!r}"


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
        # LangChain: NotImplementedError for a part of another type, ValueError for a
        # tuple of another length
        error = NotAMessageError if isinstance(item, tuple) else UnsupportedPromptPartError
        raise error(
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
    if isinstance(content, list):  # content blocks, each a template (LangChain's reading)
        return [
            _ContentBlocksMessagePromptTemplate(
                template_class.message_class, content, template_format, template_class.__name__
            )
        ]
    if not isinstance(content, str):
        return [template_class.message_class(content)]
    return [template_class.from_template(content, template_format=template_format)]


# what ChatPromptTemplate() takes (named in the warning about a keyword it drops)
_CHAT_PROMPT_OPTIONS = (
    "messages",
    "template_format",
    "partial_variables",
    "tags",
    "metadata",
    "input_types",
    "output_parser",
    "input_variables",
    "optional_variables",
    "validate_template",
    "name",
)


class BaseChatPromptTemplate(_ProgramPromptTemplate):
    """The base of a program's own chat prompt (LangChain's): a subclass writes
    ``format_messages(**kwargs) -> list[BaseMessage]``; ``format_prompt`` wraps them in a
    ``ChatPromptValue`` and ``format`` returns that value's text (``"Human: ..."``).

    It is built by keyword as :class:`StringPromptTemplate` is: ``input_variables``,
    the other prompt fields, and the subclass's declared options.

    Example:
        >>> from ragline.core.messages import HumanMessage
        >>> class Ask(BaseChatPromptTemplate):
        ...     def format_messages(self, **kwargs):
        ...         return [HumanMessage(content=f"Q: {kwargs['q']}")]
        >>> Ask(input_variables=["q"]).format(q="why?")
        'Human: Q: why?'
    """

    @abstractmethod
    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """The prompt's messages for these variables."""

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Async :meth:`format_messages` (by default the sync one)."""
        return self.format_messages(**kwargs)

    def format_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return ChatPromptValue(messages=self.format_messages(**kwargs))

    async def aformat_prompt(self, **kwargs: Any) -> ChatPromptValue:
        """Async :meth:`format_prompt` (through :meth:`aformat_messages`)."""
        return ChatPromptValue(messages=await self.aformat_messages(**kwargs))

    async def aformat(self, **kwargs: Any) -> str:
        """Async :meth:`format`."""
        return (await self.aformat_prompt(**kwargs)).to_string()

    async def _aformat_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return await self.aformat_prompt(**self._with_partials(kwargs))


class ChatPromptTemplate(BasePromptTemplate):
    """A chat prompt: a list of messages, message templates and placeholders.

    Args:
        messages: ``("system" | "human" | "user" | "ai" | "assistant", template)``
            tuples, ``("placeholder", "{variable}")``, plain strings (human templates),
            messages (used as they are), message templates (``ChatMessagePromptTemplate``
            for other roles), ``MessagesPlaceholder`` and few-shot chat templates.
        template_format: ``"f-string"`` or ``"jinja2"``, for the tuples and strings.
        partial_variables: variables filled in now.
        input_variables, optional_variables, validate_template: LangChain's keywords.
            The input variables always come from the messages; with
            ``validate_template=True`` the ones given must be the same set (an
            ``InvalidInputError`` otherwise). ``optional_variables`` given replace the
            ones found (the optional placeholders').
        tags, metadata, input_types, output_parser: LangChain's prompt fields (see
            ``PromptTemplate``).

    Raises:
        InvalidInputError: an unknown role (the message names the valid roles) or a
            malformed template.

    Example:
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("system", "Be brief."), ("human", "{question}")])
        >>> prompt.invoke("Why?").to_messages()  # doctest: +NORMALIZE_WHITESPACE
        [SystemMessage(content='Be brief.', additional_kwargs={}, response_metadata={}),
         HumanMessage(content='Why?', additional_kwargs={}, response_metadata={})]
    """

    validate_template: bool = False

    def __init__(
        self,
        messages: Sequence[Any],
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        input_types: Mapping[str, Any] | None = None,
        output_parser: Any = None,
        input_variables: Sequence[str] | None = None,
        optional_variables: Sequence[str] | None = None,
        validate_template: bool = False,
        name: str | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:
            _warn_ignored(self, ignored, _CHAT_PROMPT_OPTIONS)
        if name is not None:
            self.name = name
        check_template_format(template_format)
        self._set_fields(
            tags=tags, metadata=metadata, input_types=input_types, output_parser=output_parser
        )
        self.template_format = template_format
        self.messages: list[_Part] = [
            part for item in messages for part in _to_part(item, template_format)
        ]
        self.partial_variables = dict(partial_variables or {})
        # an optional placeholder's variable is filled with no messages, as LangChain's
        # prompt fills it (it shows in partial_variables; a caller's value replaces it)
        for part in self.messages:
            if isinstance(part, MessagesPlaceholder) and part.optional:
                self.partial_variables.setdefault(part.variable_name, [])
        # each placeholder's variable is typed as a list of messages in input_types (a
        # type given for it is kept), as LangChain's constructor fills them in
        for part in self.messages:
            if isinstance(part, MessagesPlaceholder):
                self.input_types.setdefault(part.variable_name, list[AnyMessage])
        self.validate_template = bool(validate_template)
        self._collect_variables()
        # LangChain's keywords: the variables come from the messages; input_variables
        # given is checked against them only with validate_template (its order kept then)
        if input_variables is not None and self.validate_template:
            if set(input_variables) != set(self.input_variables):
                raise InvalidInputError(
                    f"input_variables {list(input_variables)} do not match the messages' "
                    f"variables {self.input_variables} (validate_template=True)"
                )
            self.input_variables = list(input_variables)
        if optional_variables is not None:
            self.optional_variables = list(optional_variables)

    def _collect_variables(self) -> None:
        required: list[str] = []
        optional: list[str] = []
        for part in self.messages:
            if isinstance(part, BaseMessagePromptTemplate):
                required += [v for v in part.input_variables if v not in required]
                optional += [v for v in part.optional_variables if v not in optional]
        self.input_variables = sorted(v for v in required if v not in self.partial_variables)
        # an optional placeholder's variable stays optional though it is filled
        placeholders = {
            part.variable_name
            for part in self.messages
            if isinstance(part, MessagesPlaceholder) and part.optional
        }
        self.optional_variables = sorted(
            v
            for v in optional
            if v not in required and (v not in self.partial_variables or v in placeholders)
        )
        # a jinja2 or mustache message renders a missing variable as nothing in format(),
        # so the chat prompt leaves the check to each message (an f-string one refuses)
        self._blank_when_missing = any(
            getattr(getattr(part, "prompt", None), "_blank_when_missing", False)
            for part in self.messages
        )

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
        cls,
        template: str,
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
    ) -> ChatPromptTemplate:
        """A chat prompt of one human message template.

        ``partial_variables`` fills some of the message's variables now (they belong to
        the message's own prompt, as ``HumanMessagePromptTemplate.from_template`` puts
        them); the rest stay the chat prompt's inputs.

        Example:
            >>> ChatPromptTemplate.from_template("{q}").format_messages(q="hi")
            [HumanMessage(content='hi', additional_kwargs={}, response_metadata={})]
            >>> ChatPromptTemplate.from_template(
            ...     "{q} {fmt}", partial_variables={"fmt": "in JSON"}
            ... ).format_messages(q="hi")
            [HumanMessage(content='hi in JSON', additional_kwargs={}, response_metadata={})]
        """
        if not partial_variables:
            return cls([("human", template)], template_format=template_format)
        message = HumanMessagePromptTemplate.from_template(
            template, template_format=template_format, partial_variables=partial_variables
        )
        return cls([message], template_format=template_format)

    @classmethod
    def from_role_strings(cls, string_messages: Sequence[tuple[str, str]]) -> ChatPromptTemplate:
        """A chat prompt of ``(role, template)`` pairs, each a ``ChatMessagePromptTemplate``:
        every message is a ``ChatMessage`` carrying its role name as given (LangChain's
        older constructor; ``from_messages`` gives typed messages instead).

        Example:
            >>> ChatPromptTemplate.from_role_strings(  # doctest: +NORMALIZE_WHITESPACE
            ...     [("critic", "Judge {work}.")]).format_messages(work="this")
            [ChatMessage(content='Judge this.', additional_kwargs={}, response_metadata={},
             role='critic')]
        """
        return cls(
            [
                ChatMessagePromptTemplate.from_template(text, role=role)
                for role, text in string_messages
            ]
        )

    @classmethod
    def from_strings(
        cls, string_messages: Sequence[tuple[type[BaseMessagePromptTemplate], str]]
    ) -> ChatPromptTemplate:
        """A chat prompt of ``(message template class, template)`` pairs.

        Example:
            >>> ChatPromptTemplate.from_strings(
            ...     [(SystemMessagePromptTemplate, "Be {tone}.")]).input_variables
            ['tone']
        """
        parts = []
        for template_class, text in string_messages:
            if not (
                isinstance(template_class, type)
                and issubclass(template_class, _StringMessagePromptTemplate)
                and template_class is not ChatMessagePromptTemplate
            ):
                raise InvalidInputError(
                    f"from_strings takes (message template class, template) pairs such as "
                    f"(HumanMessagePromptTemplate, '{{question}}'), got {template_class!r}"
                )
            parts.append(template_class.from_template(text))
        return cls(parts)

    def append(self, message: Any) -> None:
        """Add one message-like part at the end (in place); the prompt's variables follow.

        Example:
            >>> prompt = ChatPromptTemplate.from_messages([("system", "Be brief.")])
            >>> prompt.append(("human", "{question}"))
            >>> prompt.input_variables
            ['question']
        """
        self.extend([message])

    def extend(self, messages: Sequence[Any]) -> None:
        """Add message-like parts at the end (in place); the prompt's variables follow.

        Raises:
            InvalidInputError: a part is not message-like (nothing is added then).
        """
        parts = [part for item in messages for part in _to_part(item, self.template_format)]
        self.messages.extend(parts)
        self._collect_variables()

    @overload
    def __getitem__(self, index: int) -> _Part: ...

    @overload
    def __getitem__(self, index: slice) -> ChatPromptTemplate: ...

    def __getitem__(self, index: int | slice) -> _Part | ChatPromptTemplate:
        """A part, or (for a slice) a chat prompt of those parts."""
        if isinstance(index, slice):
            return ChatPromptTemplate(self.messages[index], template_format=self.template_format)
        return self.messages[index]

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Format into a list of messages.

        Raises:
            PromptKeyError: a required variable is missing (a ``MissingVariableError``
                printed as ``KeyError``, as LangChain raises).
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

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Async :meth:`format_messages`: each part's ``aformat_messages`` is awaited (a
        few-shot part's example selector)."""
        values = self._with_partials(kwargs)
        messages: list[BaseMessage] = []
        for part in self.messages:
            if isinstance(part, BaseMessage):
                messages.append(part)
            else:
                messages.extend(await part.aformat_messages(**values))
        return messages

    async def aformat_prompt(self, **kwargs: Any) -> ChatPromptValue:
        """Async :meth:`format_prompt` (through :meth:`aformat_messages`)."""
        return ChatPromptValue(await self.aformat_messages(**kwargs))

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
            validate_template=self.validate_template,
            name=self.name,
            **self._fields(),
        )

    def __add__(self, other: Any) -> ChatPromptTemplate:
        """Append messages: another chat prompt, one message-like part, or a list of them.

        A ``(role, template)`` tuple is one message. This differs from LangChain on
        purpose: LangChain takes the tuple as a sequence and appends each element as a
        human template (a message reading ``"ai"``); ragline warns where the two differ.
        """
        if isinstance(other, tuple):
            warnings.warn(
                f"ChatPromptTemplate + {other!r:.60}: ragline appends the tuple as one "
                "message; LangChain appends each of its elements as a human message. Write "
                "+ [(role, template)] for the same result in both",
                UserWarning,
                stacklevel=2,
            )
        parts = other if isinstance(other, list) else [other]
        partials = dict(self.partial_variables)
        if isinstance(other, ChatPromptTemplate):
            partials.update(other.partial_variables)
        return ChatPromptTemplate(
            [*self.messages, *parts],
            template_format=self.template_format,
            partial_variables=partials,
        )

    def _config(self) -> dict[str, Any]:
        from ragline.core.prompts._loading import part_config

        return {
            "_type": "chat",
            "input_variables": list(self.input_variables),
            "template_format": self.template_format,
            "messages": [part_config(part) for part in self.messages],
        }

    def __len__(self) -> int:
        return len(self.messages)

    def pretty_repr(self, html: bool = False) -> str:
        """Each message part's pretty form, separated by blank lines."""
        return "\n\n".join(part.pretty_repr(html=html) for part in self.messages)

    def _printed_fields(self) -> list[tuple[str, Any]]:
        shown = [*self._shared_printed_fields(), ("messages", list(self.messages))]
        if self.validate_template:
            shown.append(("validate_template", True))
        return shown

    def __repr__(self) -> str:  # LangChain's printed form (pydantic's)
        return f"ChatPromptTemplate({_joined(self._printed_fields(), ', ')})"

    def __str__(self) -> str:
        return _joined(self._printed_fields(), " ")
