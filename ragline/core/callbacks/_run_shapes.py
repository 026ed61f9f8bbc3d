"""What a recorded :class:`~ragline.core.callbacks.Run` holds, in LangChain's shapes.

The callback events carry values as the runnables produced them; a run record keeps
them as LangChain's tracers do, so a program that reads ``run.inputs`` or
``run.outputs`` sees the same thing on either library:

- a chain's input and output are dicts: a value that is not one is kept under
  ``"input"`` / ``"output"`` (``0`` becomes ``{"input": 0}``);
- a model's inputs are ``{"prompts": [...]}`` (or ``{"messages": [[...]]}`` where chat
  runs keep their messages) and its outputs the ``LLMResult`` as a dict, each message in
  LangChain's serialized form (``{"lc": 1, "type": "constructor", ...}``);
- a retriever's are ``{"query": ...}`` and ``{"documents": [...]}``, a tool's its
  arguments and ``{"output": ...}``;
- an error is the exception's repr followed by its traceback, as text.
"""

from __future__ import annotations

import copy
import traceback
from typing import Any

from ragline.core._message_dicts import message_fields

__all__ = [
    "chain_value",
    "empty_model_result",
    "error_text",
    "model_result",
    "serialized_message",
]

_MESSAGE_ID_PREFIX = ("langchain", "schema", "messages")
# Message types whose serialized form always lists these fields, empty or not.
_ALWAYS_LISTED = {
    "ai": ("tool_calls", "invalid_tool_calls"),
    "AIMessageChunk": ("tool_calls", "invalid_tool_calls"),
}


def chain_value(value: Any, key: str) -> dict[Any, Any]:
    """A copy of ``value`` if it is a dict, else ``{key: value}`` (a chain run's inputs or
    outputs)."""
    return dict(value) if isinstance(value, dict) else {key: value}


def error_text(error: BaseException) -> str:
    """The run's ``error``: the exception's repr, then its traceback (frames one blank
    line apart), as LangChain's tracers write it."""
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    return (repr(error) + "\n\n".join(lines)).strip()


def serialized_message(message: Any) -> dict[str, Any]:
    """``message`` as LangChain serializes it into a run: its class under
    ``["langchain", "schema", "messages"]`` and, as ``kwargs``, the content and the
    fields that are set (empty ones left out; an AI message lists its tool calls
    always)."""
    data = message_fields(message, copy_values=True)["data"]
    kwargs = {
        name: value
        for name, value in data.items()
        if value or (name == "content" and value is not None)
    }
    for name in _ALWAYS_LISTED.get(message.type, ()):
        kwargs.setdefault(name, data[name])
    if "artifact" in kwargs and "status" in kwargs:  # LangChain's field order
        kwargs["status"] = kwargs.pop("status")
    return {
        "lc": 1,
        "type": "constructor",
        "id": [*_MESSAGE_ID_PREFIX, type(message).__name__],
        "kwargs": kwargs,
    }


def _generation(generation: Any) -> dict[str, Any]:
    kind = generation.type
    data: dict[str, Any] = {
        "text": generation.text,
        "generation_info": copy.deepcopy(generation.generation_info),
        # LangChain's GenerationChunk says "Generation"; the chat kinds say their own
        "type": "Generation" if kind == "GenerationChunk" else kind,
    }
    message = getattr(generation, "message", None)
    if message is not None:
        data["message"] = serialized_message(message)
    return data


def model_result(result: Any) -> dict[Any, Any]:
    """A model run's ``outputs``: its ``LLMResult`` as a dict (``run`` is ``None``: the
    result a run ends with is made before the run's info is attached). Anything else a
    run manager was handed is kept as a chain's output is."""
    if not hasattr(result, "generations"):
        return chain_value(result, "output")
    return {
        "generations": [[_generation(one) for one in row] for row in result.generations],
        "llm_output": copy.deepcopy(result.llm_output),
        "run": None,
        "type": "LLMResult",
    }


def empty_model_result(chat: bool) -> dict[str, Any]:
    """A failed model run's ``outputs``: the empty result LangChain's models report an
    error with (one empty row for a chat model, none for an LLM)."""
    return {"generations": [[]] if chat else [], "llm_output": None, "run": None,
            "type": "LLMResult"}  # fmt: skip
