"""``JsonOutputParser`` and ``PydanticOutputParser``: a model's JSON, as a dict or a model.

Both read JSON bare or inside a Markdown ```json fence, stream progressively more
complete objects, and describe the expected shape in ``get_format_instructions()`` when
given a schema. pydantic is imported by nobody here: a model class brings its own.

Example:
    >>> JsonOutputParser().invoke('```json\\n{"answer": "Paris"}\\n```')
    {'answer': 'Paris'}
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from ragline.core._json_schema import json_schema_of
from ragline.core._partial_json import PartialJsonScanner, parse_json_markdown, parse_json_reply
from ragline.core.exceptions import InvalidInputError, OutputParserException
from ragline.core.messages import BaseMessage
from ragline.core.output_parsers._base import (
    NOT_YET,
    StreamProgress,
    excerpt,
    text_of,
)
from ragline.core.output_parsers._cumulative import (
    BaseCumulativeTransformOutputParser,
    StreamsByProgress,
)
from ragline.core.runnables.base import Runnable
from ragline.core.tools._schema import _pydantic_json_schema
from ragline.core.tools._validate import is_pydantic_model

__all__ = [
    "JSON_FORMAT_INSTRUCTIONS",
    "PYDANTIC_FORMAT_INSTRUCTIONS",
    "STRUCTURED_FORMAT_INSTRUCTIONS",
    "STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS",
    "JsonOutputParser",
    "PydanticOutputParser",
    "ResponseSchema",
    "SimpleJsonOutputParser",
    "StructuredOutputParser",
    "format_instructions",
    "schema_json",
    "validate_model",
]


def schema_json(schema: Any) -> dict[str, Any]:
    """The JSON Schema of a pydantic model class, a TypedDict or dataclass, or a JSON
    Schema dict (returned as it is)."""
    if isinstance(schema, dict):
        return schema
    if is_pydantic_model(schema):
        return _pydantic_json_schema(schema)
    return json_schema_of(schema)


def format_instructions(schema: Any) -> str:
    """What to tell a model so that it answers with JSON that fits ``schema``.

    Example:
        >>> print(format_instructions({"title": "Answer", "type": "object",
        ...     "properties": {"text": {"type": "string"}}, "required": ["text"]}))
        Reply with one JSON object and nothing else. It must be valid against the JSON Schema below (fill in values: do not repeat the schema).
        ```json
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        ```
    """  # noqa: E501
    shown = {key: value for key, value in schema_json(schema).items() if key != "title"}
    return JSON_FORMAT_INSTRUCTIONS.format(schema=json.dumps(shown, ensure_ascii=False))


# The template of ``format_instructions``: ``{schema}`` is the JSON Schema's text. Public
# (LangChain's name, in its format_instructions module) for parsers that describe a
# schema of their own; the wording is ragline's.
JSON_FORMAT_INSTRUCTIONS = (
    "Reply with one JSON object and nothing else. It must be valid against the JSON "
    "Schema below (fill in values: do not repeat the schema).\n"
    "```json\n{schema}\n```"
)
# LangChain's name (its classic format_instructions module) of the same template
PYDANTIC_FORMAT_INSTRUCTIONS = JSON_FORMAT_INSTRUCTIONS
# StructuredOutputParser's instructions: ``{format}`` is one line per expected key; the
# SIMPLE one is the block alone (``only_json=True``). LangChain's names, ragline's wording.
STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS = "\n```json\n{{\n{format}\n}}\n```"
STRUCTURED_FORMAT_INSTRUCTIONS = (
    "Reply with one JSON object in a ```json code block, with these keys:\n\n"
    "```json\n{{\n{format}\n}}\n```"
)


def validate_model(model: type, value: Any) -> Any:
    """``value`` validated into an instance of the pydantic ``model`` (v2 or v1).

    Raises:
        ValueError: pydantic's ValidationError (a ValueError), or ``value`` is no object.
    """
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    validate = getattr(model, "model_validate", None) or model.parse_obj  # type: ignore[attr-defined]
    return validate(value)


def _parse_json(text: str) -> Any:
    try:  # truncated JSON (cut off by max_tokens) parses to what arrived
        return parse_json_reply(text)
    except ValueError as err:
        raise OutputParserException(
            f"model output is not valid JSON ({err}): {excerpt(text)!r}", llm_output=text
        ) from err


class JsonOutputParser(StreamsByProgress, BaseCumulativeTransformOutputParser[Any]):
    """Parse JSON from the model, also inside a Markdown ```json fence.

    Streaming yields the object parsed so far each time a chunk makes it grow, e.g.
    ``{}``, ``{"answer": "Pa"}``, ``{"answer": "Paris"}`` ... (text that is not yet valid
    JSON is held back until more arrives).

    Args:
        pydantic_object: the expected shape, for ``get_format_instructions()`` (a
            pydantic model class, a TypedDict or a JSON Schema dict); the output stays a
            plain dict, as in LangChain (use ``PydanticOutputParser`` for instances).
        diff: when streaming, yield JSON Patch operations (RFC 6902) from the previous
            object to the new one instead of the object (the first from ``None``:
            ``[{"op": "replace", "path": "", "value": {}}]``); ``invoke`` still returns
            the object.

    Raises:
        OutputParserException: (when parsing) the text is not JSON; ``llm_output``
            holds it.

    Example:
        >>> JsonOutputParser().invoke('{"answer": "Paris"}')
        {'answer': 'Paris'}
    """

    diff = False  # also for subclasses and objects built without this __init__
    _asdict_attrs = ("pydantic_object",)

    @property
    def _type(self) -> str:
        return "simple_json_output_parser"

    def __init__(self, *, pydantic_object: Any = None, diff: bool = False) -> None:
        if pydantic_object is not None:
            _check_schema(pydantic_object, "pydantic_object")
        self.pydantic_object = pydantic_object
        self.diff = diff

    def parse(self, text: str) -> Any:
        return self._parse_text(text)

    def _parse_text(self, text: str) -> Any:
        return _parse_json(text)

    def _parse_output(self, value: Any) -> Any:
        refusal = value.additional_kwargs.get("refusal") if isinstance(value, BaseMessage) else None
        if refusal:  # OpenAI's structured outputs: the model declined, there is no JSON
            raise OutputParserException(f"the model refused to answer: {refusal}", llm_output="")
        # as LangChain's JSON parsers: invoke / parse_result read the reply themselves, so
        # a subclass's own parse() serves direct calls only (not invoke, not a chain)
        return self._parse_text(text_of(value))

    def _parse_partial(self, value: Any) -> Any:
        # a cut-off reply parses to what has arrived; what does not parse yet is None
        try:
            return self._parse_whole(value)
        except OutputParserException:
            return None

    def _progress(self) -> StreamProgress:
        return _JsonDiffProgress(self) if self.diff else _JsonProgress(self)

    def _combine(self, total: Any, piece: Any) -> Any:
        if self.diff:
            return [*total, *piece]  # patches add up: the run's output is all of them
        return piece  # each object replaces the previous one: it is not a delta

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        # any JSON, with or without pydantic_object: the output is a plain dict (as
        # LangChain's output schema, {"title": "JsonOutputParserOutput"})
        return {}

    def get_format_instructions(self) -> str:
        """``"Return a JSON object and nothing else."``, or with ``pydantic_object`` the
        instructions that show its JSON Schema (see :func:`format_instructions`)."""
        if self.pydantic_object is None:
            return "Return a JSON object and nothing else."
        return format_instructions(self.pydantic_object)

    def _set_fields(self) -> list[str]:
        shown = [f"name={self.name!r}"] if self.name else []
        if self.diff:
            shown.append("diff=True")
        if self.pydantic_object is not None:
            shown.append(f"pydantic_object={self.pydantic_object!r}")
        return shown

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._set_fields())})"

    def __str__(self) -> str:  # LangChain's: the fields set, as a pydantic model prints them
        return " ".join(self._set_fields())


SimpleJsonOutputParser = JsonOutputParser
"""LangChain's other name for ``JsonOutputParser`` (the same class there too)."""


class PydanticOutputParser(JsonOutputParser):
    """Parse the model's JSON into an instance of a pydantic model.

    Streaming yields an instance each time the JSON so far validates into a new one (a
    required field still missing means nothing yet); at the end the whole output must
    validate.

    Args:
        pydantic_object: the pydantic model class (v2, or ``pydantic.v1``).

    Raises:
        InvalidInputError: ``pydantic_object`` is not a pydantic model class.
        OutputParserException: (when parsing) the text is not JSON, or its JSON does not
            validate; the message names the model and pydantic's errors, ``llm_output``
            holds the text.

    Example:
        >>> from pydantic import BaseModel
        >>> class Joke(BaseModel):
        ...     setup: str
        ...     punchline: str
        >>> PydanticOutputParser(pydantic_object=Joke).parse(
        ...     '{"setup": "Why?", "punchline": "Because."}')
        Joke(setup='Why?', punchline='Because.')
    """

    @property
    def _type(self) -> str:
        return "pydantic"

    def __init__(self, *, pydantic_object: type) -> None:
        if not is_pydantic_model(pydantic_object):
            raise InvalidInputError(
                f"PydanticOutputParser needs a pydantic model class, got {pydantic_object!r:.80}"
                "; for a TypedDict or a JSON Schema use JsonOutputParser(pydantic_object=...)"
            )
        super().__init__(pydantic_object=pydantic_object)

    @property
    def OutputType(self) -> Any:
        """The pydantic model class (what ``parse`` returns)."""
        return self.pydantic_object

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return schema_json(self.pydantic_object)  # an instance of the model

    def _parse_text(self, text: str) -> Any:
        return self._validated(_parse_json(text), text)

    def _validated(self, value: Any, text: str) -> Any:
        try:
            return validate_model(self.pydantic_object, value)
        except ValueError as err:
            raise OutputParserException(
                f"the model's JSON does not fit {self.pydantic_object.__name__}: {err}",
                llm_output=text,
            ) from err

    def get_format_instructions(self) -> str:
        return format_instructions(self.pydantic_object)


class _JsonProgress(StreamProgress):
    """The text of one JSON stream so far; for a pydantic parser, the latest instance that
    validated."""

    def __init__(self, parser: JsonOutputParser) -> None:
        super().__init__()
        self.parser = parser
        self.text = ""
        self.model = parser.pydantic_object if isinstance(parser, PydanticOutputParser) else None
        self._scanner = PartialJsonScanner()  # resumes where the previous chunk ended

    def add(self, chunk: Any) -> Any:
        self.text += text_of(chunk)
        try:
            parsed = parse_json_markdown(self.text, partial=True, scanner=self._scanner)
        except ValueError:
            return NOT_YET  # not JSON yet (e.g. only the opening fence has arrived)
        if parsed is None:  # null, or malformed: LangChain's stream leaves it out too
            return NOT_YET
        if self.model is None:
            return parsed
        try:
            return validate_model(self.model, parsed)
        except ValueError:
            return NOT_YET  # e.g. a required field has not arrived yet

    def finish(self) -> Any:
        if self.model is not None:
            return self.parser._parse_text(self.text)  # the whole output must validate
        if self.text and self.last is NOT_YET:
            self.parser._parse_text(self.text)  # nothing ever parsed: raise the full error
        return NOT_YET


def _check_schema(schema: Any, name: str) -> None:
    if isinstance(schema, dict) or is_pydantic_model(schema) or isinstance(schema, type):
        return
    raise InvalidInputError(
        f"{name} must be a pydantic model class, a TypedDict or a JSON Schema dict, "
        f"got {schema!r:.80}"
    )


class ResponseSchema:
    """One key ``StructuredOutputParser`` expects: its name, description and type.

    Args:
        name: the JSON key.
        description: what the value is (shown to the model).
        type: the value's type, as written in the instructions (``"string"``, ``"List[string]"``).
    """

    def __init__(self, name: str, description: str, type: str = "string") -> None:
        for field, value in (("name", name), ("description", description), ("type", type)):
            if not isinstance(value, str):
                raise InvalidInputError(f"ResponseSchema {field} must be a str, got {value!r}")
        self.name, self.description, self.type = name, description, type

    def model_dump(self) -> dict[str, str]:
        """``{"name", "description", "type"}``, as LangChain's (pydantic) schema dumps."""
        return {"name": self.name, "description": self.description, "type": self.type}

    def __repr__(self) -> str:
        return (
            f"ResponseSchema(name={self.name!r}, description={self.description!r}, "
            f"type={self.type!r})"
        )


class StructuredOutputParser(JsonOutputParser):
    """A JSON object with the keys of its ``response_schemas`` (LangChain's classic
    parser); the reply may be fenced as ```json, and each expected key must be there.

    Raises:
        OutputParserException: (when parsing) not JSON, or an expected key is missing.

    Example:
        >>> parser = StructuredOutputParser.from_response_schemas(
        ...     [ResponseSchema(name="answer", description="the answer")])
        >>> parser.parse('```json\\n{"answer": "Paris"}\\n```')
        {'answer': 'Paris'}
    """

    _asdict_attrs = ("response_schemas",)
    _asdict_hidden = ("diff",)  # LangChain's is no JSON parser: it has neither field

    @property
    def _type(self) -> str:
        return "structured"

    def __init__(self, *, response_schemas: list[ResponseSchema]) -> None:
        super().__init__()
        if not response_schemas or not all(isinstance(s, ResponseSchema) for s in response_schemas):
            raise InvalidInputError(
                f"StructuredOutputParser needs a list of ResponseSchema, got {response_schemas!r}"
            )
        self.response_schemas = list(response_schemas)

    def __repr__(self) -> str:
        return f"StructuredOutputParser({', '.join(self._shown())})"

    def __str__(self) -> str:
        return " ".join(self._shown())

    def _shown(self) -> list[str]:
        named = [f"name={self.name!r}"] if self.name else []
        return [*named, f"response_schemas={self.response_schemas!r}"]

    @classmethod
    def from_response_schemas(
        cls, response_schemas: list[ResponseSchema]
    ) -> StructuredOutputParser:
        return cls(response_schemas=response_schemas)

    def get_format_instructions(self, only_json: bool = False) -> str:
        """Ask for a ```json block with one line per expected key (``only_json``: the
        block alone, without the sentence before it, after a newline as LangChain's)."""
        lines = "\n".join(
            f'\t"{s.name}": {s.type}  // {s.description}' for s in self.response_schemas
        )
        if only_json:
            return STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS.format(format=lines)
        return STRUCTURED_FORMAT_INSTRUCTIONS.format(format=lines)

    def transform(self, input: Iterator[Any], config: Any = None, **kwargs: Any) -> Iterator[Any]:
        """The whole reply, parsed once: the chunks are added up first. LangChain's
        StructuredOutputParser is not a JSON stream, so a chain's ``stream`` yields the
        parsed object once, at the end, with no partial objects before it."""
        return Runnable.transform(self, input, config, **kwargs)

    def atransform(
        self, input: AsyncIterator[Any], config: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async ``transform``: the whole reply, parsed once."""
        return Runnable.atransform(self, input, config, **kwargs)

    def _parse_text(self, text: str) -> Any:
        # LangChain's StructuredOutputParser reads a reply with its parse(), so a
        # subclass's own parse() is what invoke uses
        return self.parse(text)

    def parse(self, text: str) -> Any:
        value = _parse_json(text)
        if not isinstance(value, dict):
            raise OutputParserException(
                f"expected a JSON object, got {type(value).__name__}: {excerpt(text)!r}",
                llm_output=text,
            )
        missing = [s.name for s in self.response_schemas if s.name not in value]
        if missing:
            raise OutputParserException(
                f"the reply lacks the key(s) {missing}; it has {sorted(value)}", llm_output=text
            )
        return value


class _JsonDiffProgress(_JsonProgress):
    """The same stream, reported as JSON Patch operations from the previous object."""

    def __init__(self, parser: JsonOutputParser) -> None:
        super().__init__(parser)
        self._object: Any = None  # the object the last patch led to (None at first)

    def changed(self, parsed: Any) -> bool:
        if parsed is NOT_YET or parsed == self._object:
            return False
        self.last = json_patch(self._object, parsed)
        self._object = parsed
        return True


def json_patch(before: Any, after: Any) -> list[dict[str, Any]]:
    """The JSON Patch (RFC 6902) operations that turn ``before`` into ``after``, as
    LangChain's streaming JSON parsers report them: objects are compared key by key
    (removed keys, then added ones, then the shared ones, each in the object's order), arrays
    index by index (then the added or removed tail), other values replaced when their
    JSON differs; an array item removed and added at the same place is one ``replace``.
    A value removed in one place and added in another stays a remove and an add (no
    ``move``: a stream of partial JSON only grows).

    Example:
        >>> json_patch({"a": [1]}, {"a": [1, 2], "b": "x"})
        [{'op': 'add', 'path': '/b', 'value': 'x'}, {'op': 'add', 'path': '/a/1', 'value': 2}]
    """
    ops: list[dict[str, Any]] = []
    _patch_value(ops, "", before, after)
    merged: list[dict[str, Any]] = []
    for op in ops:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last["op"] == "remove"
            and op["op"] == "add"
            and last["path"] == op["path"]
        ):
            merged[-1] = {"op": "replace", "path": op["path"], "value": op["value"]}
        else:
            merged.append(op)
    return merged


def _pointer(path: str, key: Any) -> str:
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _patch_value(ops: list[dict[str, Any]], path: str, before: Any, after: Any) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        _patch_object(ops, path, before, after)
    elif isinstance(before, list) and isinstance(after, list):
        _patch_array(ops, path, before, after)
    elif _differs(before, after):
        ops.append({"op": "replace", "path": path, "value": after})


def _differs(before: Any, after: Any) -> bool:
    """Whether two leaf values differ: by their JSON, else (a document, a message: what
    a run log's output holds) by equality."""
    try:
        return json.dumps(before) != json.dumps(after)
    except (TypeError, ValueError):
        return bool(before != after)


def _patch_object(ops: list[dict[str, Any]], path: str, before: dict, after: dict) -> None:
    # in the objects' own key order, as jsonpatch lists them (not set order, which
    # changes from one process to the next)
    for key in before:
        if key not in after:
            ops.append({"op": "remove", "path": _pointer(path, key)})
    for key in after:
        if key not in before:
            ops.append({"op": "add", "path": _pointer(path, key), "value": after[key]})
    for key in before:
        if key in after:
            _patch_value(ops, _pointer(path, key), before[key], after[key])


def _patch_array(ops: list[dict[str, Any]], path: str, before: list, after: list) -> None:
    shared = min(len(before), len(after))
    for index in range(max(len(before), len(after))):
        if index < shared:
            old, new = before[index], after[index]
            if old == new:
                continue
            if isinstance(old, dict) and isinstance(new, dict):
                _patch_object(ops, _pointer(path, index), old, new)
            elif isinstance(old, list) and isinstance(new, list):
                _patch_array(ops, _pointer(path, index), old, new)
            else:
                ops.append({"op": "remove", "path": _pointer(path, index)})
                ops.append({"op": "add", "path": _pointer(path, index), "value": new})
        elif len(before) > len(after):
            ops.append({"op": "remove", "path": _pointer(path, len(after))})
        else:
            ops.append({"op": "add", "path": _pointer(path, index), "value": after[index]})
