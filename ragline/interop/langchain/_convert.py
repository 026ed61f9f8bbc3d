"""Messages, documents, model outputs and configs converted field for field.

Every ragline message class has a LangChain twin with the same fields (``content``,
``additional_kwargs``, ``response_metadata``, ``name``, ``id``, and ``tool_calls``,
``invalid_tool_calls``, ``usage_metadata``, ``tool_call_chunks``, ``tool_call_id``,
``artifact``, ``status``, ``role`` where the class has them), so a message crosses with
nothing lost (``chunk_position`` of a streamed chunk included). A LangChain field
ragline has no place for raises ``InvalidInputError`` naming it, unless it is empty.

``to_ragline`` / ``to_lc`` convert any value that may carry these objects (lists,
tuples, dicts, model outputs) and leave everything else as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from functools import cache
from types import ModuleType
from typing import Any

from ragline.core import Document
from ragline.core._message_dicts import message_fields
from ragline.core._optional import require
from ragline.core.config import RunnableConfig
from ragline.core.documents import stored_document
from ragline.core.exceptions import InvalidInputError
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
    RunInfo,
)
from ragline.core.messages import BaseMessage
from ragline.core.prompts import PromptValue

__all__ = [
    "config_from_langchain",
    "config_to_langchain",
    "document_from_langchain",
    "document_to_langchain",
    "documents_to_langchain",
    "lc",
    "message_from_langchain",
    "message_to_langchain",
    "to_lc",
    "to_ragline",
]

# Config keys both libraries read the same way (callbacks cross through the bridge).
_CONFIG_KEYS = (
    "tags",
    "metadata",
    "run_name",
    "max_concurrency",
    "recursion_limit",
    "configurable",
    "run_id",
)


@cache
def lc(module: str = "") -> ModuleType:
    """``langchain_core`` (or ``langchain_core.<module>``), or an ImportError naming the
    extra to install."""
    name = f"langchain_core.{module}" if module else "langchain_core"
    return require(name, "langchain", package="langchain-core")


@cache
def _ragline_message_classes() -> dict[str, type[BaseMessage]]:
    from ragline.core import _message_dicts

    return dict(_message_dicts._CLASSES)


@cache
def _lc_message_classes() -> dict[str, type[Any]]:
    messages = lc("messages")
    names = ("Human", "AI", "System", "Chat", "Tool", "Function")
    found: dict[str, type[Any]] = {}
    for name in names:
        for cls in (getattr(messages, f"{name}Message"), getattr(messages, f"{name}MessageChunk")):
            found[cls.model_fields["type"].default] = cls
    found["remove"] = messages.RemoveMessage  # (no chunk class)
    return found


def _at_default(model: Any, key: str) -> bool:
    """Whether a pydantic field still holds its declared default (nothing to lose)."""
    spec = type(model).model_fields[key]
    return bool(getattr(model, key) == spec.get_default(call_default_factory=True))


def message_to_langchain(message: BaseMessage) -> Any:
    """The ``langchain_core`` message with the same class and fields as ``message``.

    Raises:
        InvalidInputError: ``message`` is not a ragline message of a known type.

    Example:
        >>> from ragline.core import AIMessage
        >>> message_to_langchain(AIMessage("hi", id="m1")).id
        'm1'
    """
    cls: Any = _lc_message_classes()[message.type]
    ragline_class: Any = type(message)
    names = _direct_fields(ragline_class, cls)
    if names is not None and _needs_no_validation(message):
        # built directly: the values are already valid (about 5 times cheaper than
        # validating them again; the object is the one cls(**fields) makes)
        fields = {name: _copy(getattr(message, name)) for name in names}
        obj = _new(cls)
        _set(obj, "__dict__", fields)
        _set(obj, "__pydantic_fields_set__", set(names) - {"type"})
        _set(obj, "__pydantic_extra__", {})
        _set(obj, "__pydantic_private__", None)
        return obj
    data = dict(message_fields(message, copy_values=True)["data"])
    data.pop("type")
    if message.type == "remove":  # LangChain's refuses a content keyword, even ""
        data.pop("content")
    return cls(**data)


@cache
def _direct_fields(ragline_class: Any, cls: Any) -> tuple[str, ...] | None:
    """The fields, in LangChain's order, of a message class pair that
    :func:`message_to_langchain` may build without validation; None for the others.

    Those are LangChain's human, system and AI messages (not chunks), whose validation
    only checks values of the types ragline's messages hold (the validators that rewrite
    fields act on tool calls, which :func:`_needs_no_validation` sends the slow way),
    when ragline's class has the same fields and pydantic keeps extras in a dict.
    """
    messages = lc("messages")
    if cls not in (messages.HumanMessage, messages.SystemMessage, messages.AIMessage):
        return None
    ours = {spec.name for spec in dataclasses.fields(ragline_class) if spec.init} | {"type"}
    if (
        ours != set(cls.model_fields)
        or cls.model_config.get("extra") != "allow"
        or cls.__private_attributes__
    ):
        return None
    return tuple(cls.model_fields)


def _needs_no_validation(message: Any) -> bool:
    """Whether pydantic would keep a message's values as they are (the common text
    message): text content, str or missing name and id, no tool calls, integer usage."""
    if type(message.content) is not str:
        return False
    name, id = message.name, message.id
    if not (name is None or type(name) is str) or not (id is None or type(id) is str):
        return False
    if getattr(message, "tool_calls", None) or getattr(message, "invalid_tool_calls", None):
        return False
    extra = message.additional_kwargs
    if type(extra) is not dict or "tool_calls" in extra:
        return False
    if type(message.response_metadata) is not dict:
        return False
    usage = getattr(message, "usage_metadata", None)
    return usage is None or (type(usage) is dict and _integer_counts(usage))


def _integer_counts(usage: dict[str, Any]) -> bool:
    for value in usage.values():
        if type(value) is dict:
            if not all(type(count) is int for count in value.values()):
                return False
        elif type(value) is not int:
            return False
    return {"input_tokens", "output_tokens", "total_tokens"} <= usage.keys()


_new = object.__new__
_set = object.__setattr__


def message_from_langchain(message: Any) -> BaseMessage:
    """The ragline message with the same class and fields as a ``langchain_core`` one.

    Raises:
        InvalidInputError: the message has a type ragline does not know, or a field set
            that no ragline message holds (the error names it).

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> message_from_langchain(HumanMessage("hi", id="m1"))
        HumanMessage(content='hi', additional_kwargs={}, response_metadata={}, id='m1')
    """
    kind = getattr(message, "type", None)
    cls: Any = _ragline_message_classes().get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise InvalidInputError(
            f"cannot convert LangChain {type(message).__name__} (type {kind!r}) to a ragline "
            f"message; known types are {', '.join(sorted(_ragline_message_classes()))}"
        )
    values: dict[str, Any] = {}
    lc_class: Any = type(message)
    for key, kept, default in _reading_plan(lc_class, cls):
        value = getattr(message, key)
        if kept:
            if value is not None:
                values[key] = _copy(value)
        elif value != default:
            raise InvalidInputError(
                f"cannot convert LangChain {type(message).__name__} to ragline without "
                f"losing its field {key!r} (= {value!r:.60}); ragline's {cls.__name__} has no "
                "such field"
            )
    return cls(**values)


@cache
def _reading_plan(lc_class: Any, cls: Any) -> tuple[tuple[str, bool, Any], ...]:
    """How to read a LangChain message class into ragline's ``cls``, worked out once per
    pair: per field (``type`` left out), whether ragline keeps it, and if not the value
    it may hold without anything being lost (its default)."""
    names = {spec.name for spec in dataclasses.fields(cls) if spec.init}
    plan: list[tuple[str, bool, Any]] = []
    for key, spec in lc_class.model_fields.items():
        if key == "type":
            continue
        if key in names:
            plan.append((key, True, None))
        else:
            plan.append((key, False, spec.get_default(call_default_factory=True)))
    return tuple(plan)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def document_to_langchain(document: Document) -> Any:
    """``langchain_core.documents.Document`` with the same text, metadata and id.

    Example:
        >>> document_to_langchain(Document("text", metadata={"a": 1}, id="d1")).id
        'd1'
    """
    return documents_to_langchain((document,))[0]


def documents_to_langchain(documents: Iterable[Document]) -> list[Any]:
    """:func:`document_to_langchain` of each document, in order (one loop for a
    retriever's or store's results).

    Example:
        >>> [d.id for d in documents_to_langchain([Document("a", id="1"), Document("b")])]
        ['1', None]
    """
    cls, direct = _lc_document_class()
    if not direct:
        return [
            cls(page_content=d.page_content, metadata=_copy(d.metadata), id=d.id) for d in documents
        ]
    # built directly: the fields are already what a Document holds (a str, a dict, an
    # id), so pydantic's validation would only repeat ragline's checks (3x the cost)
    found = []
    for document in documents:
        metadata = document.metadata
        obj = _new(cls)
        _set(
            obj,
            "__dict__",
            {  # pydantic's order: the declared one
                "id": document.id,
                "metadata": {} if type(metadata) is dict and not metadata else _copy(metadata),
                "page_content": document.page_content,
                "type": "Document",
            },
        )
        _set(obj, "__pydantic_fields_set__", {"page_content", "metadata", "id"})
        _set(obj, "__pydantic_extra__", None)
        _set(obj, "__pydantic_private__", None)
        found.append(obj)
    return found


@cache
def _lc_document_class() -> tuple[Any, bool]:
    """LangChain's Document, and whether it has the fields ``document_to_langchain``
    writes directly (else, a future layout, it is built through its constructor)."""
    cls = lc("documents").Document
    direct = (
        set(cls.model_fields) == {"id", "metadata", "page_content", "type"}
        and cls.model_config.get("extra") != "allow"
        and not cls.__private_attributes__
    )
    return cls, direct


@cache
def _extra_document_fields(cls: Any) -> tuple[str, ...]:
    """The fields of a LangChain Document class that ragline's Document lacks."""
    return tuple(sorted(set(cls.model_fields) - {"page_content", "metadata", "id", "type"}))


def document_from_langchain(document: Any) -> Document:
    """A ragline ``Document`` with the same text, metadata and id as a LangChain one.

    Raises:
        InvalidInputError: the LangChain document has a field ragline's lacks (a
            subclass's), named in the error.
    """
    cls: Any = type(document)
    for key in _extra_document_fields(cls):
        if not _at_default(document, key):
            raise InvalidInputError(
                f"cannot convert LangChain {type(document).__name__} to a ragline Document "
                f"without losing its field {key!r}"
            )
    text, id = document.page_content, document.id
    if type(text) is str and (id is None or type(id) is str):
        # the checks Document() would make, done: build it directly
        return stored_document(text, _copy(document.metadata), id)
    return Document(text, metadata=_copy(document.metadata), id=id)


def _generation_to_lc(generation: Generation) -> Any:
    outputs = lc("outputs")
    info = _copy(generation.generation_info)
    if isinstance(generation, ChatGenerationChunk):
        message = message_to_langchain(generation.message)
        return outputs.ChatGenerationChunk(message=message, generation_info=info)
    if isinstance(generation, ChatGeneration):
        message = message_to_langchain(generation.message)
        return outputs.ChatGeneration(message=message, generation_info=info)
    if isinstance(generation, GenerationChunk):
        return outputs.GenerationChunk(text=generation.text, generation_info=info)
    return outputs.Generation(text=generation.text, generation_info=info)


def _generation_from_lc(generation: Any) -> Generation:
    info = _copy(generation.generation_info)
    name = type(generation).__name__
    if hasattr(generation, "message"):
        message = message_from_langchain(generation.message)
        if name == "ChatGenerationChunk":
            return ChatGenerationChunk(message=message, generation_info=info)  # type: ignore[arg-type]
        return ChatGeneration(message=message, generation_info=info)
    if name == "GenerationChunk":
        return GenerationChunk(generation.text, info)
    return Generation(generation.text, info)


def to_lc(value: Any) -> Any:
    """``value`` with every ragline message, document, prompt value and model output in
    it (inside lists, tuples and dicts too) replaced by its ``langchain_core`` twin."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, BaseMessage):
        return message_to_langchain(value)
    if isinstance(value, Document):
        return document_to_langchain(value)
    if isinstance(value, PromptValue):
        return lc("prompt_values").ChatPromptValue(messages=to_lc(value.to_messages()))
    if isinstance(value, Generation):
        return _generation_to_lc(value)
    if isinstance(value, LLMResult):
        return lc("outputs").LLMResult(
            generations=[[_generation_to_lc(g) for g in row] for row in value.generations],
            llm_output=_copy(value.llm_output),
            run=[lc("outputs").RunInfo(run_id=info.run_id) for info in value.run]
            if value.run
            else None,
        )
    if isinstance(value, ChatResult):
        return lc("outputs").ChatResult(
            generations=[_generation_to_lc(g) for g in value.generations],
            llm_output=_copy(value.llm_output),
        )
    return _map(value, to_lc)


def to_ragline(value: Any) -> Any:
    """``value`` with every ``langchain_core`` message, document, prompt value and model
    output in it replaced by its ragline twin (see :func:`to_lc`)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    module = type(value).__module__
    if module.startswith("langchain_core."):
        name = type(value).__name__
        if module.startswith("langchain_core.messages"):
            return message_from_langchain(value)
        if name == "Document":
            return document_from_langchain(value)
        if module.startswith("langchain_core.prompt_values"):
            from ragline.core.prompts import ChatPromptValue

            return ChatPromptValue(to_ragline(value.to_messages()))
        if name in ("Generation", "GenerationChunk", "ChatGeneration", "ChatGenerationChunk"):
            return _generation_from_lc(value)
        if name == "LLMResult":
            return LLMResult(
                [[_generation_from_lc(g) for g in row] for row in value.generations],
                _copy(value.llm_output),
                [RunInfo(info.run_id) for info in value.run] if value.run else None,
            )
        if name == "ChatResult":
            return ChatResult(
                [_generation_from_lc(g) for g in value.generations],  # type: ignore[misc]
                _copy(value.llm_output),
            )
    return _map(value, to_ragline)


def _map(value: Any, convert: Any) -> Any:
    if type(value) is list:
        return [convert(item) for item in value]
    if type(value) is tuple:
        return tuple(convert(item) for item in value)
    if type(value) is dict:
        return {key: convert(item) for key, item in value.items()}
    if isinstance(value, dict) and type(value).__name__ == "AddableDict":
        return type(value)({key: convert(item) for key, item in value.items()})
    return value


def _config_keys(config: Mapping[str, Any], direction: str) -> dict[str, Any]:
    unknown = sorted(set(config) - set(_CONFIG_KEYS) - {"callbacks"})
    if unknown:
        raise InvalidInputError(
            f"cannot convert the config {direction}: key(s) {', '.join(map(repr, unknown))} "
            f"have no equivalent; known keys are {', '.join(_CONFIG_KEYS)}, callbacks"
        )
    return {key: _copy(config[key]) for key in _CONFIG_KEYS if config.get(key) is not None}


def config_to_langchain(config: RunnableConfig | None) -> dict[str, Any]:
    """A LangChain ``RunnableConfig`` with the same tags, metadata, run name, limits,
    configurable values and run id; ragline callbacks are reached through a bridging
    handler (runs LangChain starts under it report to them, with their parents).

    Raises:
        InvalidInputError: a key LangChain has no equivalent for.
    """
    given: dict[str, Any] = dict(config or {})
    converted = _config_keys(given, "to LangChain")
    if given.get("callbacks") is not None:
        from ragline.core.callbacks.manager import CallbackManager
        from ragline.interop.langchain._callbacks import ToRaglineHandler

        manager = CallbackManager.from_config({"callbacks": given["callbacks"]})
        converted["callbacks"] = [ToRaglineHandler(manager, skip_root=False)]
    return converted


def config_from_langchain(config: Mapping[str, Any] | None) -> RunnableConfig:
    """A ragline ``RunnableConfig`` from a LangChain one (see :func:`config_to_langchain`);
    LangChain callbacks are reached through a bridging handler.

    Raises:
        InvalidInputError: a key ragline has no equivalent for.
    """
    config = dict(config or {})
    converted = _config_keys(config, "from LangChain")
    if config.get("callbacks") is not None:
        from ragline.interop.langchain._callbacks import ToLangChainHandler

        manager = lc("callbacks.manager").CallbackManager.configure(config["callbacks"])
        converted["callbacks"] = [ToLangChainHandler(manager, skip_root=False)]
    return converted  # type: ignore[return-value]
