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
