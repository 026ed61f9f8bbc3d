"""Messages to and from the JSON text the persistent histories store.

Every history stores one message as ``json.dumps(message_to_dict(message))`` (LangChain's
shape), so histories written by LangChain's file, SQL and Redis histories load here and
the reverse. New messages are encoded before anything is written, so a message that
cannot be stored (an ``artifact`` JSON cannot hold) leaves the history unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ragline.core import BaseMessage, InvalidInputError, PersistenceError
from ragline.core._message_dicts import message_from_dict, message_to_dict

__all__ = ["check_session_id", "decode_items", "encode_messages"]


def encode_messages(messages: Sequence[BaseMessage], *, ensure_ascii: bool = True) -> list[str]:
    """Each message as JSON text.

    Raises:
        InvalidInputError: a message holds a value JSON cannot encode (named by position).
    """
    encoded = []
    for position, message in enumerate(messages):
        try:
            encoded.append(json.dumps(message_to_dict(message), ensure_ascii=ensure_ascii))
        except (TypeError, ValueError) as err:
            raise InvalidInputError(
                f"message {position} ({type(message).__name__}) cannot be stored as JSON: "
                f"{err}; nothing was stored"
            ) from err
    return encoded


def decode_items(items: Sequence[Any], where: str) -> list[BaseMessage]:
    """Messages from stored items (JSON text, bytes, or already-parsed dicts).

    Raises:
        PersistenceError: an item is not JSON or not a message dict; names ``where``.
    """
    messages = []
    for position, item in enumerate(items):
        try:
            data = json.loads(item) if isinstance(item, (str, bytes, bytearray)) else item
            messages.append(message_from_dict(data, position=position))
        except (ValueError, UnicodeDecodeError) as err:  # JSON errors and InvalidInputError
            raise PersistenceError(
                f"{where} holds a message that cannot be read (item {position}): {err}"
            ) from err
    return messages


def check_session_id(session_id: object) -> str:
    """``session_id`` if it is a non-empty str a database or server can store.

    Raises:
        InvalidInputError: not a str, empty, or holding a lone surrogate (text that is
            not valid Unicode and cannot be encoded as UTF-8).
    """
    if not isinstance(session_id, str) or not session_id:
        raise InvalidInputError(f"session_id must be a non-empty str, got {session_id!r}")
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError as err:
        shown = session_id if len(session_id) <= 80 else session_id[:80] + "..."
        raise InvalidInputError(
            f"session_id {shown!r} holds {session_id[err.start : err.end]!r} at position "
            f"{err.start}, a lone surrogate that is not valid Unicode and cannot be stored; "
            "pass a session_id of valid text"
        ) from None
    return session_id
