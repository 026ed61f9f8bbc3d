"""The UserWarning for a dropped constructor keyword (2848b41) names the user's line,
also when a ragline factory builds the object (StructuredTool.from_function)."""

from __future__ import annotations

import sys
import warnings

from ragline.core import FakeListChatModel
from ragline.core.tools._function import StructuredTool, Tool


def _double(x: int) -> int:
    """Double x."""
    return 2 * x


def _line() -> int:
    return sys._getframe(1).f_lineno


def test_a_factorys_dropped_keyword_is_reported_at_the_users_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = _line() + 1
        StructuredTool.from_function(_double, handle_tool_errors=True)
        second = _line() + 1
        Tool.from_function(_double, name="double", description="d", handle_tool_errors=True)
        third = _line() + 1
        FakeListChatModel(responses=["a"], temperature=0)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (UserWarning, __file__, first),
        (UserWarning, __file__, second),
        (UserWarning, __file__, third),
    ]
    assert str(caught[0].message).startswith(
        "StructuredTool() ignores 'handle_tool_errors': not among its fields ("
    )
