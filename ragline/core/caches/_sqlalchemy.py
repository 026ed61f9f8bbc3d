"""SQLAlchemyCache: LLM answers cached in any database SQLAlchemy speaks to.

The rows are LangChain's: table ``full_llm_cache`` (``prompt``, ``llm``, ``idx``,
``response``), one row per generation in order, each ``response`` a generation in
LangChain's serialization format, so either library hits the answers the other stored,
and a program that reads the table through ``cache.cache_schema`` (a SQLAlchemy model)
sees the same rows. :class:`SQLiteCache` writes the same table into a SQLite file
without needing SQLAlchemy.

Loaded only when used: it imports SQLAlchemy (``pip install 'ragline[sql]'``).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from ragline.core._optional import require
from ragline.core.caches._base import (
    RETURN_VAL_TYPE,
    BaseCache,
    check_generations,
    check_key,
)
from ragline.core.caches._serialized import (
    UnreadableEntry,
    generation_from_text,
    generation_to_text,
)
from ragline.core.exceptions import InvalidInputError
from ragline.core.language_models._outputs import Generation

require("sqlalchemy", "sql", package="SQLAlchemy")

import sqlalchemy as sa  # noqa: E402  (after the check that names the extra)
from sqlalchemy import orm  # noqa: E402

__all__ = ["FullLLMCache", "SQLAlchemyCache"]


class _Tables(orm.DeclarativeBase):
    """The cache's tables, created together (``FullLLMCache.metadata.create_all``)."""


class FullLLMCache(_Tables):
    """One generation of a cached answer: a row of the ``full_llm_cache`` table.

    The default ``cache_schema`` of :class:`SQLAlchemyCache`. A schema of one's own
    (another table name, another metadata) needs the same four columns.
    """

    __tablename__ = "full_llm_cache"

    prompt: orm.Mapped[str] = orm.mapped_column(sa.String, primary_key=True)
    llm: orm.Mapped[str] = orm.mapped_column(sa.String, primary_key=True)
    idx: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    response: orm.Mapped[str | None] = orm.mapped_column(sa.String)


class _Md5Row(_Tables):
    # The table LangChain creates beside full_llm_cache (its MD5-keyed cache, which
    # neither library's SQLAlchemyCache writes): made too, so a database set up by
    # either library has the same tables, as SQLiteCache's file does.
    __tablename__ = "full_md5_llm_cache"

    id: orm.Mapped[str] = orm.mapped_column(sa.String, primary_key=True)
    prompt_md5: orm.Mapped[str | None] = orm.mapped_column(sa.String, index=True)
    llm: orm.Mapped[str | None] = orm.mapped_column(sa.String, index=True)
    idx: orm.Mapped[int | None] = orm.mapped_column(sa.Integer, index=True)
    prompt: orm.Mapped[str | None] = orm.mapped_column(sa.String)
    response: orm.Mapped[str | None] = orm.mapped_column(sa.String)


class SQLAlchemyCache(BaseCache):
    """LLM answers in a database table, through a SQLAlchemy engine.

    Args:
        engine: a SQLAlchemy ``Engine`` (``create_engine("sqlite:///cache.db")``,
            ``create_engine("postgresql+psycopg://...")``).
        cache_schema: the table's SQLAlchemy model: :class:`FullLLMCache` (LangChain's
            ``full_llm_cache``) or a model of one's own with the same columns. Its
            metadata's tables are created when missing.

    Attributes:
        engine, cache_schema: as given; a program may open ``Session(cache.engine)`` and
            write ``cache.cache_schema(prompt=..., llm=..., idx=0, response=...)`` rows.

    Raises:
        InvalidInputError: ``engine`` is not an Engine, or ``cache_schema`` not a model
            with ``prompt``, ``llm``, ``idx`` and ``response`` columns.

    A stored ``response`` that is bare text, not JSON (LangChain's first caches kept the
    answer's text so), is read as the text of a generation, as LangChain reads it; a
    JSON object that is not a generation ragline reads (another serialized object) is a
    miss with a ``UserWarning``, as in :class:`SQLiteCache`, and the model's answer then
    replaces it.

    Example:
        >>> cache = SQLAlchemyCache(sa.create_engine("sqlite://"))
        >>> cache.update("2 + 2 =", "m", [Generation("4")])
        >>> cache.lookup("2 + 2 =", "m")[0].text
        '4'
    """

    def __init__(self, engine: sa.Engine, cache_schema: type[Any] = FullLLMCache) -> None:
        if not isinstance(engine, sa.Engine):
            raise InvalidInputError(
                f"engine must be a SQLAlchemy Engine (sqlalchemy.create_engine(url)), "
                f"got {type(engine).__name__}"
            )
        table = getattr(cache_schema, "__table__", None)
        columns = set() if table is None else set(table.c.keys())
        lacking = sorted({"prompt", "llm", "idx", "response"} - columns)
        if lacking:
            raise InvalidInputError(
                f"cache_schema must be a SQLAlchemy model with the columns prompt, llm, "
                f"idx and response; {getattr(cache_schema, '__name__', cache_schema)!r} "
                f"lacks {', '.join(lacking)}"
            )
        self.engine = engine
        self.cache_schema = cache_schema
        self._table: sa.Table = cache_schema.__table__
        cache_schema.metadata.create_all(engine)

    def __repr__(self) -> str:
        return f"SQLAlchemyCache({self.engine.url!r}, table={self._table.name!r})"

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        check_key(prompt, llm_string)
        column = self._table.c
        query = (
            sa.select(column.response)
            .where(column.prompt == prompt, column.llm == llm_string)
            .order_by(column.idx)
        )
        with self.engine.connect() as connection:
            responses = list(connection.execute(query).scalars())
        if not responses:
            return None
        try:  # a hit parses each row once
            return [generation_from_text(response) for response in responses]
        except UnreadableEntry as err:
            texts = all(isinstance(response, (str, bytes)) for response in responses)
            if texts and not all(_holds_an_object(response) for response in responses):
                # LangChain's first caches stored the bare text: read as such, as LangChain
                # does (a NULL response is no text: a miss below)
                return [Generation(text=str(response)) for response in responses]
            warnings.warn(
                f"LLM cache table {self._table.name!r} holds an entry for this prompt that "
                f"ragline does not read ({err}); it is a miss, and the model's answer will "
                "replace it",
                UserWarning,
                stacklevel=2,
            )
            return None

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        check_key(prompt, llm_string)
        responses = [generation_to_text(item) for item in check_generations(return_val)]
        column = self._table.c
        with self.engine.begin() as connection:
            # the generations replace the pair's rows, as SQLiteCache's update does
            connection.execute(
                sa.delete(self._table).where(column.prompt == prompt, column.llm == llm_string)
            )
            if responses:
                connection.execute(
                    sa.insert(self._table),
                    [
                        {"prompt": prompt, "llm": llm_string, "idx": idx, "response": text}
                        for idx, text in enumerate(responses)
                    ],
                )

    def clear(self, **kwargs: Any) -> None:
        with self.engine.begin() as connection:
            connection.execute(sa.delete(self._table))


def _holds_an_object(response: object) -> bool:
    """Whether a stored response is a JSON object (a serialized generation, or something
    else serialized) rather than bare text."""
    try:
        return isinstance(json.loads(response), dict)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
