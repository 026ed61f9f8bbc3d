"""LangChain's serialization format for Documents, messages, prompt templates and the
chains composed of them: ``dumpd``, ``dumps``, ``loads``, ``load``.

An object is written as ``{"lc": 1, "type": "constructor", "id": [...], "kwargs":
{...}}``, with LangChain's ids (``["langchain", "schema", "document", "Document"]``) and
its choice and order of keyword arguments, so ``dumps(doc)`` is the very string
LangChain's ``dumps`` gives for the same document: a dedupe key (RAG fusion's) computed
by either library matches, and either library reads the other's text.

Chains are written as LangChain writes them: ``RunnableSequence`` (``first``,
``middle``, ``last``), ``RunnableParallel`` (``steps__``, also the one a dict in a chain
becomes), ``RunnablePassthrough``, ``RunnablePassthrough.assign``'s ``RunnableAssign``
(``mapper``), ``RunnableBinding`` (``bind`` / ``with_config`` / ``with_types``: ``bound``,
``kwargs``, ``config``, the types as not_implemented entries), ``RunnablePick``
(``keys``), ``map()``'s ``RunnableEach`` (``bound``),
``RunnableWithFallbacks`` (``runnable``, ``fallbacks``, ``exceptions_to_handle``: the
classes as not_implemented entries, as LangChain), ``RunnableBranch`` (``branches``,
``default``; LangChain cannot read its own back, ragline does), ``with_retry``'s
``RunnableRetry`` (never read back: its exception classes), ``configurable_fields`` /
``configurable_alternatives`` (``default``, ``fields`` or ``which`` / ``alternatives`` /
``default_key`` / ``prefix_keys``; a field as LangChain's named-tuple list) and
``StrOutputParser`` (also as a prompt's ``output_parser``), each with LangChain's id and
run name. A prompt's ``input_types`` are left out, as LangChain leaves them out.

Reading builds only the classes this module writes (Documents, the plain message
classes and their chunks, PromptTemplate, ChatPromptTemplate, its role message templates,
MessagesPlaceholder and the runnables above), looked up by id in a fixed table: nothing
is imported by name, and an unknown id raises
:class:`~ragline.core.exceptions.InvalidInputError` naming it.
Values JSON cannot hold are written as LangChain writes them (``"type":
"not_implemented"`` with their repr) and refused when read back; so are few-shot
prompts, ``RunnableLambda`` steps, functions and the fake models, as LangChain writes
them (under LangChain's ids); so are a ``VectorStoreRetriever`` and a retriever (or
other runnable) class a program defines, named by its own module and class, as
LangChain. Other ragline objects (real models, other runnables ...) are refused when
written, rather than written in a form LangChain would not give. A plain dict that reading
would take for an entry (user data such as metadata with an ``"lc"`` key) is written
wrapped as ``{"__lc_escaped__": dict}`` and read back as that dict, as LangChain's; data
nested more than 200 levels deep is refused when read (LangChain's limit).

Example:
    >>> from ragline.core import Document
    >>> text = dumps(Document("Etna erupts.", metadata={"source": "etna.txt"}))
    >>> text[:74]
    '{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document",'
    >>> loads(text)
    Document(metadata={'source': 'etna.txt'}, page_content='Etna erupts.')
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any, Literal

from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError
from ragline.core.fake_models import (
    FakeChatModel,
    FakeListChatModel,
    FakeListLLM,
    FakeMessagesListChatModel,
    FakeStreamingListLLM,
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from ragline.core.fields import declared_fields
from ragline.core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    RemoveMessage,
    SystemMessage,
    SystemMessageChunk,
    ToolMessage,
    ToolMessageChunk,
)
from ragline.core.output_parsers import StrOutputParser
from ragline.core.prompts import (
    AIMessagePromptTemplate,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
)
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.binding import RunnableBinding
from ragline.core.runnables.branch import RunnableBranch
from ragline.core.runnables.configurable import (
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
    RunnableConfigurableAlternatives,
    RunnableConfigurableFields,
)
from ragline.core.runnables.each import RunnableEach
from ragline.core.runnables.fallbacks import RunnableWithFallbacks
from ragline.core.runnables.lambdas import RunnableLambda
from ragline.core.runnables.parallel import RunnableParallel
from ragline.core.runnables.passthrough import RunnableAssign, RunnablePassthrough, RunnablePick
from ragline.core.runnables.retry import RunnableRetry
from ragline.core.runnables.sequence import RunnableSequence
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["dumpd", "dumps", "load", "loads"]

AllowedObjects = Iterable[type] | Literal["all", "core", "messages"] | None

# a plain dict that looks like an entry is written wrapped under this key (LangChain's)
_ESCAPED = "__lc_escaped__"
# the deepest nesting of dicts and lists read (LangChain's limit)
_MAX_DEPTH = 200
_TOO_DEEP = f"cannot load data nested more than {_MAX_DEPTH} levels deep"

_MESSAGE_TYPES: dict[type, str] = {
    HumanMessage: "human",
    AIMessage: "ai",
    SystemMessage: "system",
    ChatMessage: "chat",
    FunctionMessage: "function",
    ToolMessage: "tool",
    RemoveMessage: "remove",
}
# a chunk's type is its class name
_CHUNKS = (
    HumanMessageChunk,
    AIMessageChunk,
    SystemMessageChunk,
    ChatMessageChunk,
    FunctionMessageChunk,
    ToolMessageChunk,
)
_MESSAGE_TYPES |= {chunk: chunk.__name__ for chunk in _CHUNKS}
_ROLE_TEMPLATES: tuple[Any, ...] = (
    SystemMessagePromptTemplate,
    HumanMessagePromptTemplate,
    AIMessagePromptTemplate,
    ChatMessagePromptTemplate,
)
_PROMPTS: tuple[type, ...] = (PromptTemplate, ChatPromptTemplate, MessagesPlaceholder)
_PROMPTS += _ROLE_TEMPLATES
_CLASSES: dict[str, type] = (
    {"Document": Document}
    | {cls.__name__: cls for cls in _MESSAGE_TYPES}
    | {cls.__name__: cls for cls in _PROMPTS}
)
# the module each class lives in, in langchain_core (a second id LangChain reads)
_CORE_MODULES = {
    "Document": ("documents", "base"),
    "HumanMessage": ("messages", "human"),
    "AIMessage": ("messages", "ai"),
    "SystemMessage": ("messages", "system"),
    "ChatMessage": ("messages", "chat"),
    "FunctionMessage": ("messages", "function"),
    "ToolMessage": ("messages", "tool"),
    "RemoveMessage": ("messages", "modifier"),
    "PromptTemplate": ("prompts", "prompt"),
} | {cls.__name__: ("prompts", "chat") for cls in _PROMPTS if cls is not PromptTemplate}
_CORE_MODULES |= {chunk.__name__: _CORE_MODULES[chunk.__mro__[1].__name__] for chunk in _CHUNKS}


def _lc_id(name: str) -> list[str]:
    if name == "Document":
        return ["langchain", "schema", "document", name]
    if _CORE_MODULES[name][0] == "prompts":
        return ["langchain", *_CORE_MODULES[name], name]
    return ["langchain", "schema", "messages", name]


_RUNNABLE_NAMESPACE = ("langchain", "schema", "runnable")
# the runnables written as constructors: the namespace LangChain writes in their id, and
# their module in langchain_core (a second id LangChain reads)
_RUNNABLES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {
    RunnableSequence: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "base")),
    RunnableParallel: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "base")),
    RunnableBinding: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "base")),
    RunnablePassthrough: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "passthrough")),
    RunnableAssign: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "passthrough")),
    RunnablePick: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "passthrough")),
    RunnableEach: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "base")),
    RunnableWithFallbacks: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "fallbacks")),
    RunnableBranch: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "branch")),
    RunnableRetry: (_RUNNABLE_NAMESPACE, ("langchain_core", "runnables", "retry")),
    RunnableConfigurableFields: (
        _RUNNABLE_NAMESPACE,
        ("langchain_core", "runnables", "configurable"),
    ),
    RunnableConfigurableAlternatives: (
        _RUNNABLE_NAMESPACE,
        ("langchain_core", "runnables", "configurable"),
    ),
    StrOutputParser: (
        ("langchain", "schema", "output_parser"),
        ("langchain_core", "output_parsers", "string"),
    ),
}
# ragline runnables LangChain does not serialize: written by their printed form under
# the id of LangChain's class (its module in langchain_core)
_FAKE_CHAT = ("langchain_core", "language_models", "fake_chat_models")
_FAKE_LLM = ("langchain_core", "language_models", "fake")
_NOT_SERIALIZED: dict[type, tuple[str, ...]] = {
    RunnableLambda: ("langchain_core", "runnables", "base"),
    FakeListLLM: _FAKE_LLM,
    FakeStreamingListLLM: _FAKE_LLM,
}
_NOT_SERIALIZED |= {
    cls: _FAKE_CHAT
    for cls in (
        FakeChatModel,
        FakeListChatModel,
        FakeMessagesListChatModel,
        GenericFakeChatModel,
        ParrotFakeChatModel,
    )
}

# every class this module builds, and the id it writes for it
_IDS: dict[type, list[str]] = {cls: _lc_id(name) for name, cls in _CLASSES.items()}
_BY_ID: dict[tuple[str, ...], type] = {}
for _name, _cls in _CLASSES.items():
    _BY_ID[tuple(_IDS[_cls])] = _cls
    _BY_ID[("langchain_core",) + _CORE_MODULES[_name] + (_name,)] = _cls
for _cls, (_written, _core) in _RUNNABLES.items():
    _IDS[_cls] = [*_written, _cls.__name__]
    for _ident in ([*_written, _cls.__name__], [*_core, _cls.__name__]):
        _BY_ID[tuple(_ident)] = _cls


def _written_class(kind: type) -> type:
    """The class ``kind`` is written as: its own, or the one a ragline class stands in for
    (a chat model's ``_ChatModelBinding`` is a ``RunnableBinding``, as LangChain writes its
    own)."""
    written: type = kind.__dict__.get("_lc_written_as", kind)
    return written


def _class_id(cls: type) -> list[str]:
    """The id written for ``cls``: LangChain's for the classes this module writes or names,
    else the class's own module and name (LangChain's default)."""
    cls = _written_class(cls)
    if cls in _IDS:
        return list(_IDS[cls])
    return [*_NOT_SERIALIZED.get(cls, tuple(cls.__module__.split("."))), cls.__name__]


def dumps(obj: Any, *, pretty: bool = False, **kwargs: Any) -> str:
    """``obj`` as LangChain's serialization JSON text.

    Args:
        obj: a Document, a message, or JSON data holding them (dicts, lists ...).
        pretty: indent the text (by ``kwargs["indent"]``, 2 when not given).
        **kwargs: passed to :func:`json.dumps` (``sort_keys``, ``ensure_ascii`` ...).

    Raises:
        InvalidInputError: ``default`` was passed (the encoder is this module's).
        TypeError: ``obj`` holds a ragline object this format does not cover here.

    Example:
        >>> from ragline.core import HumanMessage
        >>> dumps(HumanMessage("hi")).partition('"kwargs": ')[2]
        '{"content": "hi", "type": "human"}}'
    """
    if "default" in kwargs:
        raise InvalidInputError("dumps() writes objects itself: do not pass `default`")
    if pretty:
        kwargs["indent"] = kwargs.pop("indent", 2)
    return json.dumps(_escape(obj), default=_encode_escaped, **kwargs)


def dumpd(obj: Any) -> Any:
    """``obj`` as LangChain's serialization data (what :func:`dumps` writes, parsed).

    Example:
        >>> from ragline.core import Document
        >>> dumpd(Document("x", id="7"))["kwargs"]
        {'id': '7', 'page_content': 'x', 'type': 'Document'}
    """
    return json.loads(dumps(obj))


def loads(
    text: str,
    *,
    allowed_objects: AllowedObjects = None,
    secrets_map: dict[str, str] | None = None,
    valid_namespaces: list[str] | None = None,
    secrets_from_env: bool = False,
) -> Any:
    """Read LangChain serialization text back into ragline objects.

    Args:
        text: what :func:`dumps` (ragline's or LangChain's) wrote.
        secrets_map: values for ``{"type": "secret"}`` entries, by secret name.
        allowed_objects: the classes that may be built: ``"core"``, ``"all"`` or None
            (every class above), ``"messages"`` (messages only), or a list of classes.
        valid_namespaces: accepted for LangChain's signature; it has no effect here,
            since nothing outside the fixed table is ever built.
        secrets_from_env: also look secrets up in the environment.

    Raises:
        InvalidInputError: an id that is not a Document or a plain message class, a
            class ``allowed_objects`` leaves out, keyword arguments the class does
            not take, or data nested more than 200 levels deep.
        NotImplementedError: a ``not_implemented`` entry (a value written by its repr).

    Example:
        >>> from ragline.core import AIMessage
        >>> loads(dumps([AIMessage("yo", id="run-1")]))[0].id
        'run-1'
    """
    try:
        data = json.loads(text)
    except RecursionError as err:
        raise InvalidInputError(_TOO_DEEP) from err
    return load(
        data,
        allowed_objects=allowed_objects,
        secrets_map=secrets_map,
        secrets_from_env=secrets_from_env,
    )


def load(
    obj: Any,
    *,
    allowed_objects: AllowedObjects = None,
    secrets_map: dict[str, str] | None = None,
    valid_namespaces: list[str] | None = None,
    secrets_from_env: bool = False,
) -> Any:
    """:func:`loads` for data already parsed (what :func:`dumpd` returns).

    Example:
        >>> from ragline.core import Document
        >>> load({"docs": [dumpd(Document("x"))]})
        {'docs': [Document(metadata={}, page_content='x')]}
    """
    revive = _reviver(_allowed(allowed_objects), secrets_map, secrets_from_env)

    def walk(value: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise InvalidInputError(_TOO_DEEP)
        if isinstance(value, dict):
            if len(value) == 1 and _ESCAPED in value:
                return value[_ESCAPED]  # user data written escaped: returned as it is
            return revive({key: walk(item, depth + 1) for key, item in value.items()})
        if isinstance(value, list):
            return [walk(item, depth + 1) for item in value]
        return value

    return walk(obj, 0)


def _escape(value: Any) -> Any:
    """``value`` with each plain dict that reading would take for an entry (it has an
    ``"lc"`` key, or only the escape key) wrapped as ``{"__lc_escaped__": dict}``, as
    LangChain writes user data (metadata, tool arguments ...): read back, it is that
    dict again, never an object or a secret."""
    if isinstance(value, dict):
        if "lc" in value or (len(value) == 1 and _ESCAPED in value):
            return {_ESCAPED: value}
        return {key: _escape(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_escape(item) for item in value]
    return value


def _encode_escaped(obj: Any) -> Any:
    """:func:`_encode`, with the user data in a constructor entry's keyword arguments
    escaped (what ``json.dumps`` hands the fallback is walked by it, not by this)."""
    entry = _encode(obj)
    if entry.get("type") == "constructor":
        entry["kwargs"] = {key: _escape(item) for key, item in entry["kwargs"].items()}
    return entry


def _encode(obj: Any) -> Any:
    """``json.dumps``' fallback: the constructor entry of a supported object, LangChain's
    ``not_implemented`` entry for anything else that is not ragline's."""
    kind = _written_class(type(obj))
    if kind is Document:
        return _constructor(kind, _document_kwargs(obj))
    if kind in _MESSAGE_TYPES:
        return _constructor(kind, _message_kwargs(obj))
    if kind in _PROMPTS:
        return _prompt_entry(obj)
    if kind in _RUNNABLES:
        return _runnable_entry(obj)
    if kind in _NOT_SERIALIZED:
        return _named(_not_implemented([*_NOT_SERIALIZED[kind], kind.__name__], obj), obj)
    if kind in (FewShotPromptTemplate, FewShotChatMessagePromptTemplate):
        # LangChain does not serialize these: it writes their printed form, which
        # ragline's prompts print alike, and refuses to read it back
        few_shot_id = ["langchain_core", "prompts", "few_shot", kind.__name__]
        return _not_implemented(few_shot_id, obj) | {"name": kind.__name__}
    if _says_serializable(kind):
        return _named(_own_constructor(obj), obj)
    # a ragline class LangChain writes by its printed form too (its own id, not a
    # subclass's: a subclass is named by its own module, below)
    lc_id = kind.__dict__.get("_lc_not_implemented_id")
    if lc_id is not None:
        return _named(_not_implemented(list(lc_id), obj), obj)
    if kind.__module__.split(".")[0] == "ragline":
        raise TypeError(
            "ragline.core.load writes Documents, messages, prompt templates and chains of "
            f"them; {kind.__name__} is not supported (LangChain's form for it is not "
            "reproduced here)"
        )
    # a function or a class is named by its own module and name, as LangChain does
    own_name = getattr(obj, "__name__", None)
    if isinstance(own_name, str):
        module = getattr(obj, "__module__", None) or kind.__module__
        return _not_implemented([*module.split("."), own_name], obj)
    return _named(_not_implemented([*kind.__module__.split("."), kind.__name__], obj), obj)


def _says_serializable(kind: type) -> bool:
    """Whether ``kind`` is a user's class that overrides ``is_lc_serializable`` to answer
    True (LangChain then writes it as a constructor under ``get_lc_namespace()``)."""
    if kind.__module__.split(".")[0] == "ragline":
        return False
    answer = getattr(kind, "is_lc_serializable", None)
    own = getattr(answer, "__func__", None)
    if answer is None or own is None or own.__module__.split(".")[0] == "ragline":
        return False
    return answer() is True


def _own_constructor(obj: Any) -> dict[str, Any]:
    """The constructor entry of a user's serializable class: its namespace and name, and
    LangChain's keyword arguments: the declared fields that are required, hold a truthy
    value, or differ from their defaults."""
    kind = type(obj)
    kwargs: dict[str, Any] = {}
    for name, spec in declared_fields(kind).items():
        value = getattr(obj, name, spec.default)
        default = spec.default_factory() if spec.default_factory is not None else spec.default
        if spec.required or _truthy(value) or value != default:
            kwargs[name] = value
    lc_id = [*kind.get_lc_namespace(), kind.__name__]
    return {"lc": 1, "type": "constructor", "id": lc_id, "kwargs": kwargs}


def _truthy(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:  # a value without a truth value (an array) counts as falsy there
        return False


def _named(entry: dict[str, Any], obj: Any) -> dict[str, Any]:
    """``entry`` with ``obj``'s run name where LangChain adds it: for a runnable that is a
    Serializable there (a model, a retriever), not for a RunnableLambda or a function."""
    if isinstance(obj, RunnableSerializable):
        return entry | {"name": obj.get_name()}
    return entry


def _not_implemented(lc_id: list[str], obj: Any) -> dict[str, Any]:
    """LangChain's entry for a value it does not serialize: its id and printed form."""
    return {"lc": 1, "type": "not_implemented", "id": lc_id, "repr": repr(obj)}


def _constructor(cls: type, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A constructor entry for ``cls`` (its id a copy: to_json's caller may change it)."""
    return {"lc": 1, "type": "constructor", "id": list(_IDS[cls]), "kwargs": kwargs}


def _runnable_entry(obj: Any) -> dict[str, Any]:
    """A composed runnable's entry: LangChain's keyword arguments (the set ones, in its
    order: a run name first), and its run name beside them."""
    kwargs: dict[str, Any] = {}
    if obj.name is not None:
        kwargs["name"] = obj.name
    if isinstance(obj, RunnableSequence):
        kwargs["first"] = obj.first
        if obj.middle:
            kwargs["middle"] = obj.middle
        kwargs["last"] = obj.last
    elif isinstance(obj, RunnableParallel):
        kwargs["steps__"] = obj.steps
    elif isinstance(obj, RunnableAssign):
        kwargs["mapper"] = obj.mapper
    elif isinstance(obj, RunnablePassthrough):
        if obj.func is not None:
            kwargs["func"] = obj.func
    elif isinstance(obj, RunnablePick):
        kwargs["keys"] = obj.keys
    elif isinstance(obj, RunnableEach):
        kwargs["bound"] = obj.bound
    elif isinstance(obj, RunnableWithFallbacks):
        # the exception classes always (as not_implemented entries, as LangChain's)
        kwargs["runnable"] = obj.runnable
        kwargs["fallbacks"] = obj.fallbacks
        kwargs["exceptions_to_handle"] = obj.exceptions_to_handle
        if obj.exception_key is not None:
            kwargs["exception_key"] = obj.exception_key
    elif isinstance(obj, RunnableRetry):
        # LangChain's is a binding: its (empty) config is written too; the exception
        # classes are not_implemented entries, so neither library reads it back
        kwargs["bound"] = obj.bound
        kwargs["config"] = {}
        kwargs["retry_exception_types"] = obj.retry_exception_types
        kwargs["wait_exponential_jitter"] = obj.wait_exponential_jitter
        if obj.exponential_jitter_params is not None:
            kwargs["exponential_jitter_params"] = obj.exponential_jitter_params
        kwargs["max_attempt_number"] = obj.stop_after_attempt
    elif isinstance(obj, RunnableBranch):
        kwargs["branches"] = list(obj.branches)
        kwargs["default"] = obj.default
    elif isinstance(obj, RunnableConfigurableFields):
        # LangChain's fields are named tuples, written as JSON lists in their field order
        kwargs["default"] = obj.default
        kwargs["fields"] = {key: _field_list(field) for key, field in obj.fields.items()}
        return _constructor(type(obj), kwargs) | {"name": type(obj).__name__}
    elif isinstance(obj, RunnableConfigurableAlternatives):
        kwargs["default"] = obj.default
        kwargs["which"] = _field_list(obj.which)
        kwargs["alternatives"] = obj.alternatives
        kwargs["default_key"] = obj.default_key
        kwargs["prefix_keys"] = obj.prefix_keys
        return _constructor(type(obj), kwargs) | {"name": type(obj).__name__}
    elif isinstance(obj, RunnableBinding):
        if obj.config_factories:
            raise TypeError(
                "ragline.core.load writes Documents, messages, prompt templates and chains "
                "of them; a with_listeners binding (config_factories) is not supported "
                "(LangChain's form for it is not reproduced here)"
            )
        # the bound options only when there are some; the config always, as LangChain;
        # with_types()'s types as LangChain writes them (not_implemented entries)
        kwargs["bound"] = obj.bound
        if obj.kwargs:
            kwargs["kwargs"] = obj.kwargs
        kwargs["config"] = obj.config
        if obj.custom_input_type is not None:
            kwargs["custom_input_type"] = obj.custom_input_type
        if obj.custom_output_type is not None:
            kwargs["custom_output_type"] = obj.custom_output_type
    return _constructor(_written_class(type(obj)), kwargs) | {"name": obj.get_name()}


def _field_list(field: Any) -> list[Any]:
    """A configurable field as LangChain writes its named tuple: ``[id, name,
    description, annotation, is_shared]``, or ``[id, options, default, name,
    description, is_shared]`` for the option fields (ragline's fields have no
    annotation and are not shared)."""
    if isinstance(field, ConfigurableField):
        return [field.id, field.name, field.description, None, False]
    return [
        field.id,
        dict(field.options),
        list(field.default) if isinstance(field, ConfigurableFieldMultiOption) else field.default,
        field.name,
        field.description,
        field.is_shared,
    ]


def _field_from_list(value: Any, owner: str) -> Any:
    """The configurable field a list written by :func:`_field_list` (or LangChain) holds."""
    if isinstance(value, list) and len(value) == 5 and isinstance(value[0], str):
        ident, name, description, annotation, is_shared = value
        if annotation is not None or is_shared:
            raise InvalidInputError(
                f"cannot load {owner}: a ConfigurableField with an annotation or is_shared "
                f"is not supported here, got {value!r}"
            )
        return ConfigurableField(id=ident, name=name, description=description)
    if isinstance(value, list) and len(value) == 6 and isinstance(value[1], dict):
        ident, options, default, name, description, is_shared = value
        kind = (
            ConfigurableFieldMultiOption
            if isinstance(default, list)
            else (ConfigurableFieldSingleOption)
        )
        return kind(ident, options, default, name, description, bool(is_shared))
    raise InvalidInputError(f"cannot load {owner}: {value!r} is not a configurable field")


def _document_kwargs(doc: Document) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if doc.id is not None:
        kwargs["id"] = doc.id
    if doc.metadata:
        kwargs["metadata"] = doc.metadata
    kwargs["page_content"] = doc.page_content
    kwargs["type"] = "Document"
    return kwargs


def _message_kwargs(message: BaseMessage) -> dict[str, Any]:
    """The fields LangChain writes, in its order: set ones, and those always written."""
    kwargs: dict[str, Any] = {"content": message.content}
    if message.additional_kwargs:
        kwargs["additional_kwargs"] = message.additional_kwargs
    if message.response_metadata:
        kwargs["response_metadata"] = message.response_metadata
    kwargs["type"] = _MESSAGE_TYPES[type(message)]
    if message.name is not None:
        kwargs["name"] = message.name
    if message.id is not None:
        kwargs["id"] = message.id
    if isinstance(message, AIMessage):
        kwargs.update(_ai_kwargs(message))
    elif isinstance(message, ToolMessage):
        kwargs["tool_call_id"] = message.tool_call_id
        if message.artifact is not None:
            kwargs["artifact"] = message.artifact
        kwargs["status"] = message.status
    elif isinstance(message, ChatMessage):
        kwargs["role"] = message.role
    return kwargs


def _ai_kwargs(message: AIMessage) -> dict[str, Any]:
    """Tool calls, invalid tool calls and usage (and a chunk's tool-call chunks and
    position): the ones that hold something first (in that order), then the empty
    tool-call lists, which LangChain always writes."""
    chunks = message.tool_call_chunks if isinstance(message, AIMessageChunk) else []
    values: dict[str, Any] = {
        "tool_calls": [
            {"name": c["name"], "args": c["args"], "id": c.get("id"), "type": "tool_call"}
            for c in message.tool_calls
        ],
        "invalid_tool_calls": [
            # LangChain's key order differs where a chunk's tool-call chunks made them
            _invalid_from_chunks(c) if chunks else _invalid(c)
            for c in message.invalid_tool_calls
        ],
        "usage_metadata": message.usage_metadata,
    }
    if isinstance(message, AIMessageChunk):
        values["tool_call_chunks"] = [
            {
                "name": c.get("name"),
                "args": c.get("args"),
                "id": c.get("id"),
                "index": c.get("index"),
                "type": "tool_call_chunk",
            }
            for c in chunks
        ]
        values["chunk_position"] = message.chunk_position
    filled = {key: value for key, value in values.items() if value}
    empty: dict[str, Any] = {
        key: [] for key in ("tool_calls", "invalid_tool_calls") if key not in filled
    }
    return filled | empty


def _invalid(call: Any) -> dict[str, Any]:
    keys = ("id", "name", "args", "error")
    return {"type": "invalid_tool_call"} | {key: call.get(key) for key in keys}


def _invalid_from_chunks(call: Any) -> dict[str, Any]:
    keys = ("name", "args", "id", "error")
    return {key: call.get(key) for key in keys} | {"type": "invalid_tool_call"}


def _prompt_entry(prompt: Any) -> dict[str, Any]:
    """A prompt's entry: its set fields in LangChain's order (and, for the two prompt
    templates, the run name LangChain adds beside the keyword arguments)."""
    name = type(prompt).__name__
    if isinstance(prompt, MessagesPlaceholder):
        kwargs: dict[str, Any] = {"variable_name": prompt.variable_name}
        if prompt.optional:
            kwargs["optional"] = True
        if prompt.n_messages is not None:
            kwargs["n_messages"] = prompt.n_messages
        return _constructor(type(prompt), kwargs)
    if isinstance(prompt, _ROLE_TEMPLATES):
        kwargs = {"prompt": prompt.prompt}
        if isinstance(prompt, ChatMessagePromptTemplate):
            kwargs["role"] = prompt.role
        return _constructor(type(prompt), kwargs)
    # input_types are left out, as LangChain's dumps leaves them out (they hold classes)
    optional = list(prompt.optional_variables)
    partial = dict(prompt.partial_variables)
    if isinstance(prompt, ChatPromptTemplate):
        # LangChain lists each optional placeholder as optional and gives it an empty
        # list as a partial value (so does a prompt loaded back from LangChain's text)
        placeholders = [
            m.variable_name
            for m in prompt.messages
            if isinstance(m, MessagesPlaceholder) and m.optional
        ]
        optional = list(dict.fromkeys(optional + placeholders))
        empty: dict[str, Any] = {name: [] for name in placeholders}
        partial = empty | partial
    kwargs = {"input_variables": prompt.input_variables}
    if optional:
        kwargs["optional_variables"] = optional
    if prompt.output_parser is not None:
        kwargs["output_parser"] = prompt.output_parser
    if partial:
        kwargs["partial_variables"] = partial
    if prompt.metadata is not None:
        kwargs["metadata"] = prompt.metadata
    if prompt.tags is not None:
        kwargs["tags"] = prompt.tags
    if isinstance(prompt, PromptTemplate):
        kwargs["template"] = prompt.template
        kwargs["template_format"] = prompt.template_format
        if prompt.name is not None:  # LangChain's field, first; the run name too
            kwargs = {"name": prompt.name, **kwargs}
            name = prompt.name
    else:
        kwargs["messages"] = prompt.messages
    return _constructor(type(prompt), kwargs) | {"name": name}


def _build(cls: type, kwargs: dict[str, Any]) -> Any:
    """A ragline object from an entry's keyword arguments (those derived from the others,
    such as a prompt's input variables, are left to the class to work out)."""
    if kwargs.get("template_format") == "jinja2":
        # a jinja2 template runs code from the text, whichever class would make it (a
        # chat prompt makes one per message string); LangChain refuses them all too
        raise InvalidInputError(
            f"a jinja2 {cls.__name__} is not loaded from serialized text: rebuild it "
            "in code, or use an f-string template"
        )
    if cls is PromptTemplate:
        return PromptTemplate(kwargs.pop("template"), **kwargs)
    if cls is ChatPromptTemplate:
        for derived in ("input_variables", "optional_variables"):
            kwargs.pop(derived, None)
        return ChatPromptTemplate(kwargs.pop("messages"), **kwargs)
    if cls in _RUNNABLES:
        return _build_runnable(cls, kwargs)
    return cls(**kwargs)


def _build_runnable(cls: type, kwargs: dict[str, Any]) -> Any:
    """A composed runnable from its (already built) keyword arguments; every step must be
    a runnable this module built (a dict of them for a parallel's steps)."""
    singles = ("first", "last", "bound", "mapper", "runnable", "default")
    steps = [kwargs.get(key) for key in singles if key in kwargs]
    for key in ("middle", "fallbacks", "branches"):
        many: Any = kwargs.get(key) or []
        if not isinstance(many, list):
            raise InvalidInputError(f"cannot load {cls.__name__}: {key} must be a list")
        if key == "branches":  # (condition, runnable) pairs
            if not all(isinstance(pair, list) and len(pair) == 2 for pair in many):
                raise InvalidInputError("cannot load RunnableBranch: branches must be pairs")
            many = [step for pair in many for step in pair]
        steps += many
    parallel_steps = kwargs.get("steps__")
    if isinstance(parallel_steps, dict):
        steps += list(parallel_steps.values())
    elif cls is RunnableParallel:
        raise InvalidInputError(
            f"a RunnableParallel's steps__ must be a dict, got {parallel_steps!r}"
        )
    bad = [step for step in steps if not isinstance(step, Runnable)]
    if bad:
        raise InvalidInputError(f"cannot load {cls.__name__}: {bad[0]!r} is not a runnable")
    name = kwargs.pop("name", None)
    if cls is RunnableParallel:
        built: Any = RunnableParallel(kwargs.pop("steps__"))
    elif cls is RunnableBinding:
        built = RunnableBinding(kwargs.pop("bound"), **kwargs)
        kwargs = {}
    elif cls is RunnableBranch:
        branches = [tuple(pair) for pair in kwargs.pop("branches")]
        built = RunnableBranch(*branches, kwargs.pop("default"))
    elif cls is RunnableConfigurableFields:
        fields = kwargs.pop("fields", None)
        if not isinstance(fields, dict):
            raise InvalidInputError(f"cannot load {cls.__name__}: fields must be a dict")
        built = RunnableConfigurableFields(
            kwargs.pop("default"),
            {key: _field_from_list(value, cls.__name__) for key, value in fields.items()},
        )
    elif cls is RunnableConfigurableAlternatives:
        alternatives = kwargs.pop("alternatives", None)
        if not isinstance(alternatives, dict) or not all(
            isinstance(step, Runnable) for step in alternatives.values()
        ):
            raise InvalidInputError(
                f"cannot load {cls.__name__}: alternatives must be a dict of runnables"
            )
        built = RunnableConfigurableAlternatives(
            _field_from_list(kwargs.pop("which", None), cls.__name__),
            kwargs.pop("default"),
            alternatives,
            default_key=kwargs.pop("default_key", "default"),
            prefix_keys=bool(kwargs.pop("prefix_keys", False)),
        )
    elif cls is RunnableRetry:
        if kwargs.pop("config", {}):
            raise InvalidInputError("cannot load a RunnableRetry with a config")
        if isinstance(kwargs.get("retry_exception_types"), list):
            kwargs["retry_exception_types"] = tuple(kwargs["retry_exception_types"])
        built = RunnableRetry(**kwargs)
        kwargs = {}
    elif cls is RunnableWithFallbacks and "exceptions_to_handle" in kwargs:
        handled = tuple(kwargs.pop("exceptions_to_handle"))
        built = RunnableWithFallbacks(**kwargs, exceptions_to_handle=handled)
        kwargs = {}
    else:
        built = cls(**kwargs)
        kwargs = {}
    if kwargs:
        raise TypeError(f"unexpected keyword argument(s) {', '.join(kwargs)}")
    if name is not None:
        built.name = name
    return built


def _allowed(allowed_objects: AllowedObjects) -> frozenset[type]:
    if allowed_objects is None or allowed_objects in ("core", "all"):
        return frozenset(_IDS)
    if allowed_objects == "messages":
        return frozenset(_MESSAGE_TYPES)
    if isinstance(allowed_objects, str):
        raise InvalidInputError(
            f"allowed_objects {allowed_objects!r} is not one of 'core', 'all', 'messages' "
            "or a list of classes"
        )
    return frozenset(allowed_objects)


def _reviver(
    allowed: frozenset[type], secrets_map: dict[str, str] | None, secrets_from_env: bool
) -> Callable[[dict[str, Any]], Any]:
    secrets = dict(secrets_map or {})

    def revive(entry: dict[str, Any]) -> Any:
        if entry.get("lc") != 1 or "type" not in entry or "id" not in entry:
            return entry
        kind, ident = entry["type"], entry["id"]
        if kind in ("secret", "constructor") and not (
            isinstance(ident, list) and all(isinstance(part, str) for part in ident)
        ):
            raise InvalidInputError(f"cannot load a {kind} whose id is {ident!r}")
        if kind == "secret":
            if len(ident) != 1:
                raise InvalidInputError(f"a secret's id names one secret, got {ident!r}")
            [key] = ident
            if key in secrets:
                return secrets[key]
            # an empty variable is no value (None), as LangChain's
            return (os.environ.get(key) or None) if secrets_from_env else None
        if kind == "not_implemented":
            # NotImplementedError, as LangChain raises for such an entry
            raise NotImplementedError(
                f"cannot load an object that was written without serialization: {entry}"
            )
        if kind != "constructor":
            return entry
        cls = _BY_ID.get(tuple(ident))
        if cls is None:
            known = ", ".join(".".join(lc_id) for lc_id in _IDS.values())
            raise InvalidInputError(f"cannot load {'.'.join(ident)}: ragline builds only {known}")
        if cls not in allowed:
            raise InvalidInputError(
                f"loading {'.'.join(ident)} is not allowed by allowed_objects; pass "
                "allowed_objects='core' (or a list that holds the class) to load it"
            )
        given = entry.get("kwargs", {})
        if not isinstance(given, dict):
            raise InvalidInputError(f"cannot load {cls.__name__}: kwargs must be a dict")
        kwargs = dict(given)
        kwargs.pop("type", None)
        try:
            return _build(cls, kwargs)
        except TypeError as err:
            raise InvalidInputError(f"cannot load {cls.__name__} from {kwargs}: {err}") from err

    return revive
