"""One generation in LangChain's serialization format, as LangChain's SQL caches store it.

LangChain's ``SQLiteCache`` keeps one row per generation, whose ``response`` is the
generation's ``dumps`` text: ``{"lc": 1, "type": "constructor", "id": ["langchain",
"schema", "output", "Generation"], "kwargs": {"text": ..., "type": "Generation"}}``
(``generation_info`` when set; a ``ChatGeneration``'s message as its own entry).
:func:`generation_to_text` writes that text; :func:`generation_from_text` reads it back
and builds only the four generation classes and the plain message classes
(``ragline.core.load`` with ``allowed_objects="messages"``): any other content is
refused with the reason, never turned into another object.

Example:
    >>> text = generation_to_text(Generation("4"))
    >>> text[-46:]
    '"kwargs": {"text": "4", "type": "Generation"}}'
    >>> generation_from_text(text)
    Generation(text='4')
"""

from __future__ import annotations

import json
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    Generation,
    GenerationChunk,
)

__all__ = ["UnreadableEntry", "generation_from_text", "generation_to_text"]

# LangChain's class names, in its ``["langchain", "schema", "output", ...]`` ids, and the
# ``type`` field each one writes (a GenerationChunk writes "Generation", as LangChain's)
_TYPES: dict[type[Generation], str] = {
    Generation: "Generation",
    GenerationChunk: "Generation",
    ChatGeneration: "ChatGeneration",
    ChatGenerationChunk: "ChatGenerationChunk",
}
_BY_NAME: dict[str, type[Generation]] = {cls.__name__: cls for cls in _TYPES}
_OUTPUT_ID = ["langchain", "schema", "output"]


class UnreadableEntry(ValueError):
    """Stored text that is not one serialized generation (the reason is the message)."""


def generation_to_text(generation: Generation) -> str:
    """``generation`` as LangChain's ``dumps`` writes it.

    Raises:
        InvalidInputError: the generation holds a value JSON cannot encode.
    """
    from ragline.core.load import dumpd  # load imports the models, which import caches

    cls = type(generation) if type(generation) in _TYPES else _base_class(generation)
    kwargs: dict[str, Any] = {"text": generation.text}
    if generation.generation_info is not None:
        # user data: a dict that reading would take for an entry is escaped, as LangChain's
        kwargs["generation_info"] = dumpd(generation.generation_info)
    kwargs["type"] = _TYPES[cls]
    if isinstance(generation, ChatGeneration):
        kwargs["message"] = dumpd(generation.message)
    entry = {"lc": 1, "type": "constructor", "id": [*_OUTPUT_ID, cls.__name__], "kwargs": kwargs}
    try:
        return json.dumps(entry)  # ASCII, as LangChain writes it
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"generations cannot be cached as JSON: {err}") from err


def _base_class(generation: Generation) -> type[Generation]:
    # a subclass a program defines is written as the class it extends
    for cls in (ChatGenerationChunk, ChatGeneration, GenerationChunk):
        if isinstance(generation, cls):
            return cls
    return Generation


def generation_from_text(text: str | bytes) -> Generation:
    """The generation ``text`` (from :func:`generation_to_text` or LangChain's
    ``dumps``) holds.

    Raises:
        UnreadableEntry: the text is not one serialized generation of plain values and
            messages; the message says what it is instead.
    """
    from ragline.core.load import load  # load imports the models, which import caches

    if not isinstance(text, (str, bytes)):  # a NULL response (the column allows it)
        raise UnreadableEntry(f"not JSON but {text!r}")
    try:
        entry = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise UnreadableEntry(f"not JSON ({err})") from None
    ident = entry.get("id") if isinstance(entry, dict) else None
    name = ident[-1] if isinstance(ident, list) and ident[:-1] == _OUTPUT_ID else None
    cls = _BY_NAME.get(name) if isinstance(name, str) else None
    kwargs = entry.get("kwargs") if isinstance(entry, dict) else None
    if cls is None or entry.get("lc") != 1 or entry.get("type") != "constructor":
        raise UnreadableEntry(f"not a serialized generation: {str(text)[:80]!r}")
    if not isinstance(kwargs, dict):
        raise UnreadableEntry(f"a {name} entry whose kwargs are not a dict")
    info = kwargs.get("generation_info")
    if info is not None and not isinstance(info, dict):
        raise UnreadableEntry(f"a {name} whose generation_info is not a dict")
    try:
        info = load(info, allowed_objects="messages") if info else info
        if not issubclass(cls, ChatGeneration):
            text_value = kwargs.get("text", "")
            if not isinstance(text_value, str):
                raise UnreadableEntry(f"a {name} whose text is not a str")
            return cls(text_value, info)
        message = load(kwargs.get("message"), allowed_objects="messages")
    except UnreadableEntry:
        raise
    except (InvalidInputError, NotImplementedError) as err:
        raise UnreadableEntry(f"a {name} holding {err}") from None
    except (TypeError, AttributeError, KeyError, ValueError) as err:
        # a message class given values of the wrong shape (tool_call_chunks=[5] ...)
        raise UnreadableEntry(f"a {name} whose message cannot be built ({err!r})") from None
    from ragline.core.messages import AIMessageChunk, BaseMessage

    if cls is ChatGenerationChunk and isinstance(message, AIMessageChunk):
        return ChatGenerationChunk(message=message, generation_info=info)
    if cls is ChatGeneration and isinstance(message, BaseMessage):
        return ChatGeneration(message=message, generation_info=info)
    raise UnreadableEntry(f"a {name} whose message is {type(message).__name__}")
