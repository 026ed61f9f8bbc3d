"""``BasePromptTemplate`` (variables in, a ``PromptValue`` out), ``PromptTemplate`` and
``format_document``.

Templates use Python f-string syntax (``"Answer {question}"``; ``{{`` and ``}}`` are
literal braces) or, with ``template_format="jinja2"``, jinja2 rendered in its sandbox.

Example:
    >>> prompt = PromptTemplate.from_template("Tell me about {topic}.")
    >>> prompt.invoke("RAG").to_string()
    'Tell me about RAG.'
"""

from __future__ import annotations

import copy
import difflib
import sys
import warnings
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ragline.core.callbacks.manager import _own_run_of
from ragline.core.exceptions import (
    DocumentVariableError,
    InvalidInputError,
    LoaderError,
    PromptInputTypeError,
    PromptKeyError,
)
from ragline.core.fields import constructor_stacklevel
from ragline.core.prompts._formats import Template
from ragline.core.prompts._values import PromptValue, StringPromptValue
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["BasePromptTemplate", "FormatOutputType", "PromptTemplate", "format_document"]

FormatOutputType = TypeVar("FormatOutputType")
"""What a prompt's ``format`` returns, as LangChain's generic prompt classes name it in
their annotations (``BasePromptTemplate[FormatOutputType]``); ragline's prompt classes
are not generic, so it only appears in type hints."""


def _marker(name: str, html: bool) -> str:
    """``{name}``, in bold yellow terminal codes when ``html`` (LangChain's pretty form)."""
    marker = "{" + name + "}"
    return f"\u001b[33;1m\033[1;3m{marker}\u001b[0m" if html else marker


def _interactive() -> bool:
    """True in an interactive interpreter (``sys.ps2`` is set), as LangChain checks."""
    return hasattr(sys, "ps2")


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class BasePromptTemplate(Runnable[Any, PromptValue]):
    """Base of prompt templates: variables in, ``PromptValue`` out.

    Subclasses implement ``format_prompt(**kwargs)``; ``invoke`` checks the input,
    fills in partial variables and reports the run to callbacks (as a ``prompt`` run).
    ``save(path)`` writes the prompts that ``load_prompt`` reads (JSON or YAML).
    """

    input_variables: list[str]
    optional_variables: list[str]
    partial_variables: dict[str, Any]
    # LangChain's prompt fields: tags and metadata join every run of the prompt; the
    # output parser and the input types are kept for the program (and the schema).
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    output_parser: Any = None
    _input_types: dict[str, Any] | None = None
    # whether format() renders a missing variable as nothing (a jinja2 or mustache
    # template, as LangChain's); invoke() refuses a missing one whatever the format
    _blank_when_missing: bool = False

    @property
    def input_types(self) -> dict[str, Any]:
        """The declared types of the variables (``{}`` when none were declared)."""
        if self._input_types is None:
            self._input_types = {}
        return self._input_types

    @input_types.setter
    def input_types(self, value: Mapping[str, Any] | None) -> None:
        self._input_types = dict(value or {})

    def _set_fields(
        self,
        *,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        input_types: Mapping[str, Any] | None = None,
        output_parser: Any = None,
    ) -> None:
        """Set LangChain's prompt fields from a constructor's keyword arguments."""
        if tags is not None:
            self.tags = list(tags)
        if metadata is not None:
            self.metadata = dict(metadata)
        if input_types is not None:
            self.input_types = input_types
        if output_parser is not None:
            self.output_parser = output_parser

    def _fields(self) -> dict[str, Any]:
        """The fields ``_set_fields`` takes, as this prompt has them (for its copies)."""
        return {
            "tags": self.tags,
            "metadata": self.metadata,
            "input_types": self._input_types,
            "output_parser": self.output_parser,
        }

    def _run_serialized(self) -> Any:
        # LangChain's prompts pass their serialized form (its other runnables None):
        # ragline's prompts give its class's head of that form and the run's name
        return _own_run_of(self)

    def _run_config(self, config: Any) -> Any:
        if not self.tags and not self.metadata:
            return config
        from ragline.core.config import merge_configs

        own: dict[str, Any] = {}
        if self.tags:
            own["tags"] = self.tags
        if self.metadata:
            own["metadata"] = self.metadata
        return merge_configs(config, own)  # type: ignore[arg-type]

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
        config = self._run_config(config)
        return self._call_with_config(self._invoke, input, config, run_type="prompt")

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> PromptValue:
        """Async ``invoke`` (formatting is quick, so it runs inline, not in a thread)."""
        self._reject_kwargs(kwargs)

        async def format_input(value: Any) -> PromptValue:
            return await self._aformat_prompt(**self._input_to_dict(value))

        config = self._run_config(config)
        return await self._acall_with_config(format_input, input, config, run_type="prompt")

    def _invoke(self, input: Any) -> PromptValue:
        return self.format_prompt(**self._input_to_dict(input))

    async def _aformat_prompt(self, **kwargs: Any) -> PromptValue:
        """Async ``format_prompt``; inline unless formatting awaits something (a few-shot
        prompt's example selector)."""
        return self.format_prompt(**kwargs)

    async def aformat_prompt(self, **kwargs: Any) -> PromptValue:
        """Async :meth:`format_prompt` (a few-shot prompt awaits its example selector).

        Example:
            >>> import asyncio
            >>> asyncio.run(PromptTemplate.from_template("Hi {name}").aformat_prompt(name="Ada"))
            StringPromptValue(text='Hi Ada')
        """
        return await self._aformat_prompt(**kwargs)

    async def aformat(self, **kwargs: Any) -> str:
        """Async :meth:`format`: the text of :meth:`aformat_prompt`."""
        return (await self.aformat_prompt(**kwargs)).to_string()

    @property
    def InputType(self) -> Any:
        """``dict[str, Any]``: the variables, by name (LangChain's input type)."""
        return dict[str, Any]

    def _input_title(self) -> str:
        return "PromptInput"

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        from ragline.core._json_schema import field_title, messages_schema
        from ragline.core.prompts._chat import MessagesPlaceholder

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
            values = dict(input)
            if self._blank_when_missing:  # format would render it blank: invoke refuses
                self._refuse_missing(values, values)
            return values
        if len(self.input_variables) == 1:
            return {self.input_variables[0]: input}
        raise PromptInputTypeError(
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
        if missing and not self._blank_when_missing:
            self._refuse_missing(values, kwargs)
        return values

    def _refuse_missing(self, values: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        """Raise PromptKeyError for the variables neither ``values`` nor the partial
        variables hold (``given``: the keys the caller passed, for the message)."""
        missing = [
            name
            for name in self.input_variables
            if name not in values and name not in self.partial_variables
        ]
        if missing:
            raise PromptKeyError(
                f"{type(self).__name__} is missing variable(s) {missing}; "
                f"got {sorted(given)}; expected {self.input_variables}"
            )

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

    def pretty_repr(self, html: bool = False) -> str:
        """The prompt formatted with each variable shown as ``{name}`` (partial variables
        filled in), as LangChain prints it.

        Args:
            html: the ``{name}`` markers in bold yellow (terminal escape codes).
        """
        markers = {name: _marker(name, html) for name in self.input_variables}
        return self.format(**markers)

    def pretty_print(self) -> None:
        """Print ``pretty_repr()`` (markers coloured in an interactive session)."""
        print(self.pretty_repr(html=_interactive()))

    @abstractmethod
    def partial(self, **kwargs: Any) -> BasePromptTemplate:
        """A copy with some variables filled in (values, or callables called at format time)."""

    def save(self, file_path: str | Path) -> None:
        """Write the prompt to a ``.json``, ``.yaml`` or ``.yml`` file (``load_prompt``
        reads it back; LangChain's ``load_prompt`` reads text and few-shot prompts).

        Raises:
            InvalidInputError: the prompt has partial variables or parts that cannot be
                written (an example selector, a fixed multimodal message ...), or the
                suffix is not .json / .yaml / .yml.

        Example:
            >>> PromptTemplate.from_template("Hi {name}").save("hi.json")  # doctest: +SKIP
        """
        from ragline.core.prompts._loading import save_prompt

        save_prompt(self, Path(file_path))

    def _config(self) -> dict[str, Any]:
        """The prompt as the JSON-ready dict ``save`` writes (with its ``_type``)."""
        raise InvalidInputError(f"a {type(self).__name__} cannot be saved")

    def _shared_printed_fields(self) -> list[tuple[str, Any]]:
        # LangChain's printed form (pydantic's) starts with the fields every prompt has, in
        # its order: the ones that default to a factory always, the others only when set.
        shown: list[tuple[str, Any]] = [("input_variables", list(self.input_variables))]
        if self.name is not None:
            shown.insert(0, ("name", self.name))
        if self.optional_variables:
            shown.append(("optional_variables", list(self.optional_variables)))
        shown.append(("input_types", self.input_types))
        if self.output_parser is not None:
            shown.append(("output_parser", self.output_parser))
        shown.append(("partial_variables", self.partial_variables))
        if self.metadata is not None:
            shown.append(("metadata", self.metadata))
        if self.tags is not None:
            shown.append(("tags", self.tags))
        return shown


_PROMPT_OPTIONS = (
    "template",
    "input_variables",
    "optional_variables",
    "partial_variables",
    "template_format",
    "tags",
    "metadata",
    "input_types",
    "output_parser",
    "validate_template",
    "name",
)


def _warn_ignored(
    prompt: Any, ignored: Mapping[str, Any], options: Sequence[str] = _PROMPT_OPTIONS
) -> None:
    """Say which keywords ``prompt``'s constructor drops (LangChain's pydantic prompt drops
    them silently), at the user's line (through ``from_template`` too)."""
    hints = []
    for name in ignored:
        close = difflib.get_close_matches(name, options, n=1)
        hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    warnings.warn(
        f"{type(prompt).__name__}() ignores {', '.join(hints)}: not an option of a prompt "
        f"template (its options are: {', '.join(options)})",
        UserWarning,
        stacklevel=constructor_stacklevel(prompt),
    )


class PromptTemplate(BasePromptTemplate):
    """A text prompt from an f-string (or jinja2, or mustache) template.

    Args:
        template: the template, e.g. ``"Answer {question} using {context}"``.
        input_variables: optional; when given it must equal the variables found in the
            template (minus partial variables), which catches typos early.
        partial_variables: variables filled in now (values, or callables called at
            format time).
        template_format: ``"f-string"``, ``"jinja2"`` (rendered in jinja2's immutable
            sandbox; needs the ``jinja2`` extra) or ``"mustache"`` (``{{name}}``, HTML
            escaped, and sections; ``validate_template`` does not apply to it).
        tags, metadata: added to every run of the prompt (as in LangChain).
        input_types: the variables' types (``{}`` by default).
        output_parser: kept on the prompt for the program (LangChain's field).
        optional_variables: variables the prompt may do without (in its input schema
            with a default of None).
        name: the prompt's run name (LangChain's field).

    Another keyword is ignored with a ``UserWarning`` naming it (and the option it may
    stand for): LangChain's pydantic prompt drops it silently, and programs pass some by
    mistake (``input_variable=[...]`` for ``input_variables``), so they run as there.

    Raises:
        InvalidInputError: the template is malformed or ``input_variables`` disagrees
            with it, or ``validate_template`` is asked of a mustache template.
        ConfigurationError: an unknown ``template_format``.
        MissingDependencyError: ``"jinja2"`` without the jinja2 package.

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
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        input_types: Mapping[str, Any] | None = None,
        output_parser: Any = None,
        validate_template: bool = False,
        optional_variables: Sequence[str] | None = None,
        name: str | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:
            _warn_ignored(self, ignored)
        self.partial_variables = dict(partial_variables or {})
        self.optional_variables = list(optional_variables or [])
        if name is not None:
            self.name = name
        self.validate_template = bool(validate_template)
        if self.validate_template and template_format == "mustache":
            # as LangChain refuses it: a mustache template's names depend on the values
            raise InvalidInputError(
                "validate_template=True cannot check a mustache template's variables; "
                "leave validate_template at False for template_format='mustache'"
            )
        self._set_fields(
            tags=tags, metadata=metadata, input_types=input_types, output_parser=output_parser
        )
        self._parse(template, template_format)
        # As LangChain's: the variables are the template's, and a declared input_variables
        # that disagrees is refused only when validate_template asks for the check
        # (course code declares input_variables=[] beside a partial and invokes with the
        # template's variable; the prompt it gets is the template's either way).
        if input_variables is not None and self.validate_template:
            self._check_declared(list(input_variables), template)

    def _check_declared(self, declared: list[str], template: str) -> None:
        """validate_template's check of ``input_variables`` against the template's, as
        LangChain's: an f-string template needing a variable not declared is refused (one
        declared and unused formats all the same); a jinja2 template's differences are a
        warning, as its variables are guessed from the template's text."""
        missing = [name for name in self.input_variables if name not in declared]
        extra = [name for name in declared if name not in self.input_variables]
        if self.template_format == "jinja2" and (missing or extra):
            warnings.warn(
                f"input_variables {declared} differ from the jinja2 template's variables "
                f"{self.input_variables} (missing {missing}, extra {extra}); the template's "
                "are used (validate_template=True)",
                UserWarning,
                stacklevel=constructor_stacklevel(self),
            )
        elif missing:
            raise InvalidInputError(
                f"input_variables {declared} lack {missing}, which the template uses "
                f"(template {template!r}, validate_template=True)"
            )

    def model_dump(
        self, *, exclude_none: bool = False, exclude: Any = None, include: Any = None, **_: Any
    ) -> dict[str, Any]:
        """The prompt's fields as a dict, as pydantic's ``model_dump()`` of LangChain's
        ``PromptTemplate`` gives them (same keys, same order).

        Example:
            >>> PromptTemplate.from_template("Hi {name}").model_dump()["input_variables"]
            ['name']
        """
        fields: dict[str, Any] = {
            "name": self.name,
            "input_variables": list(self.input_variables),
            "optional_variables": list(self.optional_variables),
            "output_parser": self.output_parser,
            "partial_variables": dict(self.partial_variables),
            "metadata": copy.deepcopy(self.metadata),
            "tags": None if self.tags is None else list(self.tags),
            "template": self.template,
            "template_format": self.template_format,
            "validate_template": self.validate_template,
        }
        return {
            key: value
            for key, value in fields.items()
            if not (exclude_none and value is None)
            and (include is None or key in include)
            and (exclude is None or key not in exclude)
        }

    def __eq__(self, other: object) -> bool:
        """Equal to a prompt of the same class with the same fields and input types, as
        LangChain's pydantic prompts compare (a prompt saved and loaded again equals the
        original)."""
        if not isinstance(other, PromptTemplate) or type(other) is not type(self):
            return NotImplemented
        return (self.model_dump(), self.input_types) == (other.model_dump(), other.input_types)

    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value (LangChain's too)

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        # a mustache template's input is read from its tags (sections as objects), as
        # LangChain's is; the other formats list the input variables as strings
        if self.template_format == "mustache":
            from ragline.core.prompts._mustache import mustache_input_json

            return mustache_input_json(self.template, defs)
        return super()._input_json(defs)

    def _parse(self, template: str, template_format: str) -> None:
        self._template = Template(template, template_format)
        # jinja2's undefined and mustache's missing name render as nothing in format()
        self._blank_when_missing = template_format in ("jinja2", "mustache")
        # sorted, as LangChain lists them (a printed prompt.input_variables reads the same)
        self.input_variables = sorted(
            name for name in self._template.variables if name not in self.partial_variables
        )

    # Setting the template (configurable_fields does, on a copy) parses it again.
    @property
    def template(self) -> str:
        """The template text."""
        return self._template.template

    @template.setter
    def template(self, template: str) -> None:
        self._parse(template, self.template_format)

    @property
    def template_format(self) -> str:
        """``"f-string"`` or ``"jinja2"``."""
        return self._template.template_format

    @template_format.setter
    def template_format(self, template_format: str) -> None:
        self._parse(self.template, template_format)

    @classmethod
    def from_template(
        cls,
        template: str,
        *,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
        **fields: Any,
    ) -> PromptTemplate:
        """Build a prompt whose variables are read from the template.

        ``fields``: ``tags``, ``metadata``, ``input_types``, ``output_parser`` (as for
        the constructor).

        Example:
            >>> PromptTemplate.from_template("{a} and {b}").input_variables
            ['a', 'b']
        """
        return cls(
            template,
            partial_variables=partial_variables,
            template_format=template_format,
            **fields,
        )

    @classmethod
    def from_examples(
        cls,
        examples: Sequence[str],
        suffix: str,
        input_variables: Sequence[str],
        example_separator: str = "\n\n",
        prefix: str = "",
        *,
        template_format: str = "f-string",
    ) -> PromptTemplate:
        """A prompt of ``prefix``, the example texts and ``suffix`` joined by
        ``example_separator`` (an empty prefix still takes its place, as in LangChain, so
        the template then starts with the separator). The examples become part of the
        template: braces in them are template syntax.

        Raises:
            InvalidInputError: ``input_variables`` differ from the template's variables.

        Example:
            >>> PromptTemplate.from_examples(["2+2=4", "3+3=6"], "{sum}=", ["sum"],
            ...                              prefix="Add:").template
            'Add:\\n\\n2+2=4\\n\\n3+3=6\\n\\n{sum}='
        """
        template = example_separator.join([prefix, *examples, suffix])
        return cls(template, input_variables=input_variables, template_format=template_format)

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
        return StringPromptValue(self._template.render(self._with_partials(kwargs)))

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
            optional_variables=self.optional_variables,
            name=self.name,
            **self._fields(),
        )

    def __add__(self, other: Any) -> PromptTemplate:
        """Concatenate two templates (or a template and a string, read in this one's
        format).

        Raises:
            InvalidInputError: the templates have different formats (their text joined
                would be read in one of them), or both fill the same partial variable.
        """
        if isinstance(other, str):
            other = PromptTemplate(other, template_format=self.template_format)
        if not isinstance(other, PromptTemplate):
            return NotImplemented
        if other.template_format != self.template_format:
            raise InvalidInputError(
                f"cannot add a {other.template_format} template to a "
                f"{self.template_format} one: their text joined would be read in one format"
            )
        if twice := sorted(set(self.partial_variables) & set(other.partial_variables)):
            raise InvalidInputError(
                f"both templates fill the partial variable(s) {twice}; fill them in one"
            )
        return PromptTemplate(
            self.template + other.template,
            partial_variables={**self.partial_variables, **other.partial_variables},
            template_format=self.template_format,
            validate_template=self.validate_template and other.validate_template,
        )

    def _config(self) -> dict[str, Any]:
        return {
            "_type": "prompt",
            "input_variables": list(self.input_variables),
            "template": self.template,
            "template_format": self.template_format,
        }

    def _printed_fields(self) -> list[tuple[str, Any]]:
        shown = self._shared_printed_fields()
        shown.append(("template", self.template))
        if self.template_format != "f-string":
            shown.append(("template_format", self.template_format))
        if self.validate_template:  # off its default, so LangChain's printed form has it
            shown.append(("validate_template", True))
        return shown

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self._printed_fields())
        return f"PromptTemplate({inner})"

    def __str__(self) -> str:
        return " ".join(f"{name}={value!r}" for name, value in self._printed_fields())

    def dict(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        """:meth:`model_dump` with LangChain's ``"_type": "prompt"`` (pydantic v1's name)."""
        return {**self.model_dump(**kwargs), "_type": "prompt"}


def format_document(document: Any, prompt: BasePromptTemplate) -> str:
    """Render one document with a prompt over ``page_content`` and its metadata keys.

    Raises:
        DocumentVariableError: the prompt names a metadata key the document lacks (a
            ``MissingVariableError`` printed as ``ValueError``, LangChain's class there).

    Example:
        >>> from ragline.core import Document
        >>> format_document(Document("text", metadata={"source": "a.txt"}),
        ...                 PromptTemplate.from_template("[{source}] {page_content}"))
        '[a.txt] text'
    """
    values = {**document.metadata, "page_content": document.page_content}
    missing = [name for name in prompt.input_variables if name not in values]
    if missing:
        raise DocumentVariableError(
            f"document prompt needs {missing}, which document {document.id or ''!s} "
            f"(source {document.metadata.get('source')!r}) lacks; it has "
            f"{sorted(values)}"
        )
    return prompt.format(**{name: values[name] for name in prompt.input_variables})
