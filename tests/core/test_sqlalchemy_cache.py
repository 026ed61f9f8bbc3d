"""SQLAlchemyCache: the cache contract over a real SQLite file through SQLAlchemy, the
table shared with SQLiteCache, rows a program writes through ``cache_schema``, and the
errors for what is not an engine or a schema."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
import sqlalchemy as sa
from _llm_cache_contract import LLMCacheContract, OpenCache
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from ragline.core import (
    AIMessage,
    ChatGeneration,
    Generation,
    InvalidInputError,
    SQLiteCache,
)
from ragline.core.caches import FullLLMCache, SQLAlchemyCache
from ragline.core.caches import _sqlalchemy as module

pytestmark = pytest.mark.usefixtures("no_global_cache")


class TestSQLAlchemyCache(LLMCacheContract):
    @pytest.fixture
    def open_cache(self, tmp_path: Path) -> OpenCache:
        return lambda: SQLAlchemyCache(sa.create_engine(f"sqlite:///{tmp_path / 'llm.db'}"))


def test_the_table_is_langchains_and_shared_with_sqlite_cache(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    cache = SQLAlchemyCache(sa.create_engine(f"sqlite:///{path}"))
    cache.update("p", "m", [Generation("one"), ChatGeneration(message=AIMessage("two"))])
    tables = sa.inspect(cache.engine).get_table_names()
    assert tables == ["full_llm_cache", "full_md5_llm_cache"]
    columns = [c["name"] for c in sa.inspect(cache.engine).get_columns("full_llm_cache")]
    assert columns == ["prompt", "llm", "idx", "response"]
    other = SQLiteCache(path)
    assert [g.text for g in other.lookup("p", "m") or []] == ["one", "two"]
    other.update("q", "m", [Generation("three")])
    assert [g.text for g in cache.lookup("q", "m") or []] == ["three"]
    with Session(cache.engine) as session:
        rows = session.scalars(sa.select(FullLLMCache).order_by(FullLLMCache.prompt)).all()
        assert [(r.prompt, r.llm, r.idx) for r in rows] == [
            ("p", "m", 0),
            ("p", "m", 1),
            ("q", "m", 0),
        ]


def test_an_update_replaces_the_pairs_rows_and_clear_empties_the_table() -> None:
    cache = SQLAlchemyCache(sa.create_engine("sqlite://"))
    cache.update("p", "m", [Generation("a"), Generation("b")])
    cache.update("p", "m", [Generation("c")])
    assert [g.text for g in cache.lookup("p", "m") or []] == ["c"]
    cache.clear()
    assert cache.lookup("p", "m") is None


def test_a_row_written_as_bare_text_is_read_as_its_text() -> None:
    cache = SQLAlchemyCache(sa.create_engine("sqlite://"))
    with Session(cache.engine) as session, session.begin():
        for idx, text in enumerate(["plain answer", "42"]):
            session.merge(cache.cache_schema(prompt="p", llm="m", idx=idx, response=text))
    assert cache.lookup("p", "m") == [Generation(text="plain answer"), Generation(text="42")]


def test_a_serialized_object_that_is_not_a_generation_is_a_miss_with_a_warning() -> None:
    cache = SQLAlchemyCache(sa.create_engine("sqlite://"))
    secret = '{"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {}}'
    with Session(cache.engine) as session, session.begin():
        session.merge(cache.cache_schema(prompt="p", llm="m", idx=0, response=secret))
    with pytest.warns(UserWarning, match="ragline does not read"):
        assert cache.lookup("p", "m") is None
    cache.update("p", "m", [Generation("fresh")])
    assert cache.lookup("p", "m") == [Generation(text="fresh")]


def test_a_null_response_is_a_miss_with_a_warning_not_the_text_none() -> None:
    # the column allows NULL; it read back as Generation(text="None") before
    cache = SQLAlchemyCache(sa.create_engine("sqlite://"))
    with Session(cache.engine) as session, session.begin():
        session.merge(cache.cache_schema(prompt="p", llm="m", idx=0, response="plain"))
        session.merge(cache.cache_schema(prompt="p", llm="m", idx=1, response=None))
    with pytest.warns(UserWarning, match="ragline does not read"):
        assert cache.lookup("p", "m") is None


class _OwnBase(DeclarativeBase):
    pass


class _OwnTable(_OwnBase):
    __tablename__ = "answers"
    prompt: Mapped[str] = mapped_column(primary_key=True)
    llm: Mapped[str] = mapped_column(primary_key=True)
    idx: Mapped[int] = mapped_column(primary_key=True)
    response: Mapped[str | None]


class _NoResponse(_OwnBase):
    __tablename__ = "no_response"
    prompt: Mapped[str] = mapped_column(primary_key=True)
    llm: Mapped[str] = mapped_column(primary_key=True)


def test_a_schema_of_ones_own_names_the_table() -> None:
    engine = sa.create_engine("sqlite://")
    cache = SQLAlchemyCache(engine, cache_schema=_OwnTable)
    cache.update("p", "m", [Generation("x")])
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT prompt, idx FROM answers")).all() == [("p", 0)]


def test_what_is_not_an_engine_or_a_schema_is_refused() -> None:
    with pytest.raises(InvalidInputError, match=r"engine must be a SQLAlchemy Engine .* got str"):
        SQLAlchemyCache("sqlite://")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="'_NoResponse' lacks idx, response"):
        SQLAlchemyCache(sa.create_engine("sqlite://"), cache_schema=_NoResponse)


def test_docstring_examples_run() -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
