"""FileChatMessageHistory's file name at the file system's limit: one byte over
NAME_MAX is refused by name (InvalidInputError), before anything is created."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragline.core import InvalidInputError
from ragline.memory import FileChatMessageHistory


def _name_max() -> int:
    try:
        return int(os.pathconf("/", "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):  # Windows has no pathconf
        return 255


def test_a_name_one_byte_over_the_limit_is_refused_by_name(tmp_path: Path) -> None:
    limit = _name_max()
    name = "c" * (limit + 1 - len(".json")) + ".json"
    assert len(os.fsencode(name)) == limit + 1
    with pytest.raises(InvalidInputError, match=f"longest name {limit + 1} bytes; at most {limit}"):
        FileChatMessageHistory(tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_the_longest_name_accepted_leaves_room_for_the_temporary_and_lock_files(
    tmp_path: Path,
) -> None:
    """Writing goes through ``.<name>.XXXXXXXX.tmp`` (14 bytes longer) and takes
    ``<name>.lock`` (5 longer): a name that fits NAME_MAX but not those siblings used to
    pass the check and then fail in add_messages with a raw OSError."""
    from ragline.core import AIMessage, HumanMessage

    limit = _name_max()
    fits = "f" * (limit - 14 - len(".json")) + ".json"
    history = FileChatMessageHistory(tmp_path / fits)
    history.add_messages([HumanMessage(content="hi"), AIMessage(content="hello")])
    assert [m.content for m in FileChatMessageHistory(tmp_path / fits).messages] == ["hi", "hello"]

    too_long = "g" * (limit - 13 - len(".json")) + ".json"
    with pytest.raises(InvalidInputError, match=f"{limit - 14} for the file.s own name"):
        FileChatMessageHistory(tmp_path / too_long)
    assert not any(p.name.startswith("g") or p.name.startswith(".g") for p in tmp_path.iterdir())
