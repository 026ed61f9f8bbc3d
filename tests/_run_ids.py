"""Replies carry an id made from their run (``lc_run--<run id>``, ``-0`` for a generated
reply, as LangChain's). Tests that compare whole replies with a literal expected
message check that id's form here, then compare everything else."""

from __future__ import annotations

import copy
import re
from typing import Any

from ragline.core import AIMessage, BaseMessage

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
STREAMED_RUN_ID = re.compile(f"lc_run--{_UUID}")  # a streamed piece's (and their sum's)
RUN_ID = re.compile(f"lc_run--{_UUID}(-0)?")  # either form


def no_run_ids(value: Any) -> Any:
    """``value`` with every AI message's run-made id checked and then cleared (in copies)."""
    if isinstance(value, list):
        return [no_run_ids(item) for item in value]
    if isinstance(value, tuple):
        return tuple(no_run_ids(item) for item in value)
    if isinstance(value, dict):
        return {key: no_run_ids(item) for key, item in value.items()}
    if isinstance(value, AIMessage):  # a reply (or a piece of one): it must have one
        assert value.id is not None and RUN_ID.fullmatch(value.id), value.id
        cleared = copy.copy(value)
        cleared.id = None
        return cleared
    message = getattr(value, "message", None)
    if isinstance(message, BaseMessage):
        cleared = copy.copy(value)
        cleared.message = no_run_ids(message)
        return cleared
    return value
