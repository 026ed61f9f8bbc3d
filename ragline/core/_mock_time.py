"""``mock_now``: hold the clock still for a block, as LangChain's test helper does.

Inside the block ``datetime.datetime`` is a subclass whose ``now()`` returns the given
moment, so every ``datetime.datetime.now()`` read through the module (the
time-weighted retriever's, a program's own) sees it.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator
from typing import Any

__all__ = ["mock_now"]

_REAL_DATETIME = datetime.datetime  # read at import: a nested mock_now subclasses the real one


@contextlib.contextmanager
def mock_now(dt_value: datetime.datetime) -> Iterator[type[datetime.datetime]]:
    """Make ``datetime.datetime.now()`` return ``dt_value`` inside the ``with`` block.

    Yields the stand-in class, which is ``datetime.datetime`` until the block ends;
    ``now(tz)`` ignores ``tz`` (the moment is ``dt_value``'s, tzinfo included), and
    ``utcnow()`` is the real clock, as with LangChain's ``mock_now``. Not thread-safe: it
    replaces the module attribute for everyone while the block runs.

    Example:
        >>> import datetime
        >>> with mock_now(datetime.datetime(2024, 2, 3, 10, 11)):
        ...     datetime.datetime.now()
        MockDateTime(2024, 2, 3, 10, 11)
    """
    real = datetime.datetime

    class MockDateTime(_REAL_DATETIME):
        @classmethod
        def now(cls, tz: Any = None) -> MockDateTime:
            # a fresh instance of this class at the moment (fold left at 0, as LangChain's)
            return cls.combine(dt_value.date(), dt_value.timetz().replace(fold=0))

    datetime.datetime = MockDateTime  # type: ignore[misc]
    try:
        yield MockDateTime
    finally:
        datetime.datetime = real  # type: ignore[misc]
