"""ragline objects to JSON and back, in the shapes LangServe puts on the wire.

The server writes every output (and the client every input) with :func:`dumpd`: a
``Document`` becomes ``{"id", "metadata", "page_content", "type": "Document"}``, a
message the flat dict LangChain's ``model_dump()`` gives (``{"content", ...,
"type": "ai", "tool_calls": [...]}``), agent actions, finishes, generations and prompt
values likewise with their LangChain ``type`` tags, pydantic models their
``model_dump(mode="json")``, dataclasses their fields. :func:`loadd` turns every dict
whose ``type`` tag it knows (and whose keys fit) back into the ragline object, at any
depth, and leaves every other value as it is; so what a ragline server sends comes back
from ``RemoteRunnable`` as the same ragline types, and LangServe's clients and servers
read and write the same JSON.

A few ragline types have no LangChain tag and get one of their own: ``AgentStep``
(``"type": "AgentStep"``) and ``GenerationChunk``. A ``ToolAgentAction`` is written as
LangChain writes it (``"AgentActionMessageLog"`` with a ``tool_call_id``) and read back
as a ``ToolAgentAction``.

Example:
    >>> from ragline.core import Document
    >>> data = dumpd([Document("Etna erupts.", metadata={"source": "etna.txt"})])
    >>> data[0]["type"], loadd(data)[0].metadata
    ('Document', {'source': 'etna.txt'})
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import uuid
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["dumpd", "dumps", "loadd", "loads"]


@cache
def _core() -> ModuleType:
    """``ragline.core``, imported on first need: a CLI that only reads Documents never
    loads the model and prompt classes."""
    import ragline.core

    return ragline.core


# ---------------------------------------------------------------- writing


def _message(message: Any) -> dict[str, Any]:
    from ragline.core._message_dicts import message_to_dict

    return dumpd(message_to_dict(message)["data"])  # type: ignore[no-any-return]


def _agent_action(action: Any) -> dict[str, Any]:
    core = _core()
    data: dict[str, Any] = {
        "tool": action.tool,
        "tool_input": dumpd(action.tool_input),
        "log": action.log,
        "type": action.type,
    }
    if isinstance(action, core.AgentActionMessageLog):
        data["message_log"] = [_message(message) for message in action.message_log]
        data["type"] = "AgentActionMessageLog"  # LangChain's tag for tool-call actions too
    if isinstance(action, core.ToolAgentAction):
        data["tool_call_id"] = action.tool_call_id
    return data


def _generation(generation: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "text": generation.text,
        "generation_info": dumpd(generation.generation_info),
        "type": type(generation).__name__,
    }
    if isinstance(generation, _core().ChatGeneration):
        data["message"] = _message(generation.message)
    return data


def _document(document: Document) -> dict[str, Any]:
    return {
        "id": document.id,
        "metadata": dumpd(document.metadata),
        "page_content": document.page_content,
        "type": "Document",
    }


def _finish(finish: Any) -> dict[str, Any]:
    return {"return_values": dumpd(finish.return_values), "log": finish.log, "type": "AgentFinish"}


def _step(step: Any) -> dict[str, Any]:
    return {"action": dumpd(step.action), "observation": dumpd(step.observation),
            "type": "AgentStep"}  # fmt: skip


@cache
def _writers() -> list[tuple[type, Callable[[Any], Any]]]:
    core = _core()
    return [
        (core.BaseMessage, _message),
        (core.AgentAction, _agent_action),
        (core.AgentFinish, _finish),
        (core.AgentStep, _step),
        (core.Generation, _generation),
        (
            core.LLMResult,
            lambda r: {
                "generations": dumpd(r.generations),
                "llm_output": dumpd(r.llm_output),
                "run": None if r.run is None else [{"run_id": str(i.run_id)} for i in r.run],
                "type": "LLMResult",
            },
        ),
        (core.StringPromptValue, lambda p: {"text": p.text, "type": "StringPromptValue"}),
        (
            core.ChatPromptValue,
            lambda p: {
                "messages": [_message(m) for m in p.messages],
                "type": "ChatPromptValueConcrete",
            },
        ),
    ]


def dumpd(obj: Any) -> Any:
    """``obj`` as JSON-ready data (dicts, lists, strings, numbers, booleans, None).

    Raises:
        InvalidInputError: ``obj`` holds a value with no JSON form (a function, bytes,
            an arbitrary object), named by its type.
    """
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    if isinstance(obj, Mapping):
        return {str(key): dumpd(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [dumpd(item) for item in obj]
    if isinstance(obj, Document):
        return _document(obj)
    if any(cls.__module__.startswith("ragline.") for cls in type(obj).__mro__):
        for cls, write in _writers():
            if isinstance(obj, cls):
                return write(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and not isinstance(obj, type):  # pydantic v2 models
        return dumpd(dump(mode="json"))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: dumpd(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if isinstance(obj, (datetime.datetime, datetime.date, datetime.time)):
        return obj.isoformat()
    if isinstance(obj, enum.Enum):
        return dumpd(obj.value)
    if isinstance(obj, BaseException):
        return {"error_type": type(obj).__name__, "message": str(obj)}
    raise InvalidInputError(f"cannot send a {type(obj).__name__} as JSON: {obj!r:.80}")


def dumps(obj: Any) -> str:
    """``obj`` as a JSON text (:func:`dumpd`, then compact JSON, non-ASCII kept)."""
    return json.dumps(dumpd(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------- reading


def _read_message(data: dict[str, Any]) -> Any:
    from ragline.core._message_dicts import message_from_dict

    return message_from_dict({"type": data["type"], "data": data})


def _messages(items: Any, what: str) -> list[Any]:
    messages = list(items or [])
    if not all(isinstance(m, _core().BaseMessage) for m in messages):
        raise TypeError(f"{what} holds something other than messages")
    return messages


def _read_action(data: dict[str, Any]) -> Any:
    core = _core()
    common = {"tool": data["tool"], "tool_input": data["tool_input"], "log": data["log"]}
    if data["type"] == "AgentAction":
        return core.AgentAction(**common)
    messages = _messages(data.get("message_log"), "message_log")
    if "tool_call_id" in data or data["type"] == "ToolAgentAction":
        return core.ToolAgentAction(
            **common, message_log=messages, tool_call_id=data.get("tool_call_id")
        )
    return core.AgentActionMessageLog(**common, message_log=messages)


def _read_generation(data: dict[str, Any]) -> Any:
    core = _core()
    info = data.get("generation_info")
    kind = data["type"]
    if kind in ("ChatGeneration", "ChatGenerationChunk"):
        if not isinstance(data["message"], core.BaseMessage):
            raise TypeError("a chat generation's message is not a message")
        chat = core.ChatGenerationChunk if kind == "ChatGenerationChunk" else core.ChatGeneration
        return chat(message=data["message"], generation_info=info)
    plain = core.GenerationChunk if kind == "GenerationChunk" else core.Generation
    return plain(text=data["text"], generation_info=info)


def _read_result(data: dict[str, Any]) -> Any:
    core = _core()
    runs = data.get("run")
    return core.LLMResult(
        generations=data["generations"],
        llm_output=data.get("llm_output"),
        run=None if runs is None else [core.RunInfo(uuid.UUID(run["run_id"])) for run in runs],
    )


def _read_step(data: dict[str, Any]) -> Any:
    core = _core()
    if not isinstance(data["action"], core.AgentAction):
        raise TypeError("an agent step's action is not an action")
    return core.AgentStep(action=data["action"], observation=data.get("observation"))


def _read_document(data: dict[str, Any]) -> Document:
    return Document(data["page_content"], metadata=data.get("metadata") or {}, id=data.get("id"))


@cache
def _readers() -> dict[str, Callable[[dict[str, Any]], Any]]:
    from ragline.core._message_dicts import _CLASSES as MESSAGE_CLASSES

    core = _core()
    chat_prompt = lambda d: core.ChatPromptValue(_messages(d["messages"], "a chat prompt"))  # noqa: E731
    return {
        "AgentAction": _read_action,
        "AgentActionMessageLog": _read_action,
        "ToolAgentAction": _read_action,
        "AgentFinish": lambda d: core.AgentFinish(return_values=d["return_values"], log=d["log"]),
        "AgentStep": _read_step,
        "Generation": _read_generation,
        "GenerationChunk": _read_generation,
        "ChatGeneration": _read_generation,
        "ChatGenerationChunk": _read_generation,
        "LLMResult": _read_result,
        "StringPromptValue": lambda d: core.StringPromptValue(d["text"]),
        "ChatPromptValue": chat_prompt,
        "ChatPromptValueConcrete": chat_prompt,
        **{tag: _read_message for tag in MESSAGE_CLASSES},
    }


def loadd(value: Any) -> Any:
    """JSON data back to ragline objects: each dict with a known ``type`` tag (and the
    keys that type needs) becomes that object, at any depth; everything else is kept.

    Example:
        >>> loadd({"answer": {"content": "Paris", "type": "ai"}})  # doctest: +NORMALIZE_WHITESPACE
        {'answer': AIMessage(content='Paris', additional_kwargs={}, response_metadata={},
         tool_calls=[], invalid_tool_calls=[])}
    """
    if isinstance(value, list):
        return [loadd(item) for item in value]
    if not isinstance(value, dict):
        return value
    loaded = {key: loadd(item) for key, item in value.items()}
    tag = loaded.get("type")
    if not isinstance(tag, str):
        return loaded
    read = _read_document if tag == "Document" else _readers().get(tag)
    if read is None:
        return loaded
    try:
        return read(loaded)
    except (KeyError, TypeError, ValueError):  # a dict that only looks like one: keep it
        return loaded


def loads(text: str | bytes) -> Any:
    """A JSON text back to ragline objects (:func:`loadd`)."""
    return loadd(json.loads(text))
