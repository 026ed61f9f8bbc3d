"""``SQLDatabase``: a SQL database (any SQLAlchemy engine) as a model sees it.

What a model needs to write SQL is the tables' definitions with a few sample rows
(:meth:`SQLDatabase.get_table_info`); what it needs to answer is a query's rows as
short text (:meth:`SQLDatabase.run`). Both are LangChain's, text for text, on top of
SQLAlchemy (the ``sql`` extra), which reflects the tables and writes the ``CREATE
TABLE`` statements in the engine's dialect.

``read_only=True`` (ragline's own option) refuses any statement but a query, and any
text holding more than one statement (a ``;`` but at the end), before it reaches the
database, runs every statement in a transaction that is rolled back, never committed,
and on SQLite also switches the connection to ``query_only``, so a ``WITH`` query that
hides a ``DELETE`` fails too.
"""

from __future__ import annotations

import contextlib
import re
import string
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError

__all__ = ["SQLDatabase", "SQLReadOnlyError"]

_FETCH_MODES = ("all", "one", "cursor")
# The first words of statements that only read (a parenthesised query starts with "(").
_QUERY_WORDS = ("select", "with", "values", "(")
_COMMENT = re.compile(r"\s*(--[^\n]*(\n|$)|/\*.*?\*/)", re.DOTALL)
# The dialects whose column comments create_sql_query_chain(get_col_comments=True) shows.
_COMMENT_DIALECTS = ("postgresql", "mysql", "oracle")
# How a dialect is told which schema unqualified names are in.
_SCHEMA_STATEMENTS = {
    "postgresql": "SET search_path TO {schema}",
    "duckdb": "SET search_path TO {schema}",
    "snowflake": "ALTER SESSION SET search_path = {schema}",
    "trino": "USE {schema}",
    "oracle": "ALTER SESSION SET CURRENT_SCHEMA = {schema}",
    "hana": "SET SCHEMA {schema}",
}
_SAMPLE_VALUE_LENGTH = 100  # characters of each sample-row value in the table info


class SQLReadOnlyError(InvalidInputError):
    """A statement other than a query given to a read-only :class:`SQLDatabase`."""


def _sqlalchemy() -> Any:
    return require("sqlalchemy", "sql", package="SQLAlchemy")


def _shorten(value: Any, length: int) -> Any:
    """A string longer than ``length`` cut at a word boundary, ``...`` added."""
    if not isinstance(value, str) or length <= 0 or len(value) <= length:
        return value
    head = value[: length - 3]
    cut = head.rfind(" ")
    return (head[:cut] if cut >= 0 else head) + "..."


def _first_word(statement: str) -> str:
    """The statement's first word, lower-cased, past leading comments and whitespace."""
    position = 0
    while match := _COMMENT.match(statement, position):  # never empty: "--" or "/*" needed
        position = match.end()
    rest = statement[position:].lstrip()
    if rest.startswith("("):
        return "("
    word = re.match(r"[A-Za-z]+", rest)
    return word.group(0).lower() if word else ""


def _names(value: Any, argument: str) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{argument} must be a list of table names, got {value!r}")
    return set(value)


class SQLDatabase:
    """A SQL database as text for a model: table definitions, sample rows, query results.

    Args:
        engine: a SQLAlchemy ``Engine`` (:meth:`from_uri` makes one from a URL).
        schema: the schema whose tables are read (``None``: the default one).
        metadata: a SQLAlchemy ``MetaData`` to reflect the tables into.
        ignore_tables: tables left out (not with ``include_tables``).
        include_tables: the only tables shown (not with ``ignore_tables``).
        sample_rows_in_table_info: rows shown under each table's definition (0: none).
        indexes_in_table_info: list each table's indexes too.
        custom_table_info: table name -> the text shown instead of its definition.
        view_support: views count as tables.
        max_string_length: query results' strings longer than this are cut (0: never).
        lazy_table_reflection: read a table's definition on first use, not now.
        read_only: refuse every statement but a query (ragline's option; see the module).

    Raises:
        InvalidInputError: both ``include_tables`` and ``ignore_tables``, or one of them
            names a table the database does not have (a ``ValueError``, as LangChain's).
        TypeError: ``sample_rows_in_table_info`` is not an int, ``custom_table_info``
            not a dict (as LangChain's).

    Example:
        >>> db = SQLDatabase.from_uri("sqlite://")  # an in-memory database
        >>> db.run("CREATE TABLE t (n INTEGER)"), db.run("INSERT INTO t VALUES (7)")
        ('', '')
        >>> db.run("SELECT n FROM t")
        '[(7,)]'
        >>> db.run("SELECT n FROM t", include_columns=True)
        "[{'n': 7}]"
    """

    def __init__(
        self,
        engine: Any,
        schema: str | None = None,
        metadata: Any = None,
        ignore_tables: Sequence[str] | None = None,
        include_tables: Sequence[str] | None = None,
        sample_rows_in_table_info: int = 3,
        indexes_in_table_info: bool = False,
        custom_table_info: Mapping[str, str] | None = None,
        view_support: bool = False,
        max_string_length: int = 300,
        lazy_table_reflection: bool = False,
        *,
        read_only: bool = False,
    ) -> None:
        sa = _sqlalchemy()
        if include_tables and ignore_tables:
            raise InvalidInputError("Cannot specify both include_tables and ignore_tables")
        if not isinstance(sample_rows_in_table_info, int):
            raise TypeError("sample_rows_in_table_info must be an integer")
        if sample_rows_in_table_info < 0:
            raise InvalidInputError(
                f"sample_rows_in_table_info must be 0 or more, got {sample_rows_in_table_info}"
            )
        if custom_table_info is not None and not isinstance(custom_table_info, Mapping):
            raise TypeError(
                "custom_table_info must be a dict of table name -> the text shown for it, "
                f"got {type(custom_table_info).__name__}"
            )
        self._engine = engine
        self._schema = schema
        self._read_only = bool(read_only)
        self._inspector = sa.inspect(engine)
        self._all_tables = self._table_names(view_support)
        self._include_tables = _names(include_tables, "include_tables")
        self._ignore_tables = _names(ignore_tables, "ignore_tables")
        for argument, given in (
            ("include_tables", self._include_tables),
            ("ignore_tables", self._ignore_tables),
        ):
            if given - self._all_tables:
                raise InvalidInputError(
                    f"{argument} {given - self._all_tables} not found in database"
                )
        self._usable_tables = set(self.get_usable_table_names()) or set(self._all_tables)
        self._sample_rows_in_table_info = sample_rows_in_table_info
        self._indexes_in_table_info = indexes_in_table_info
        # only the tables the database has, in the order given
        self._custom_table_info = (
            {t: text for t, text in custom_table_info.items() if t in self._all_tables}
            if custom_table_info
            else custom_table_info
        )
        self._max_string_length = max_string_length
        self._view_support = view_support
        self._metadata = metadata if metadata is not None else sa.MetaData()
        self._statements: dict[Any, str] = {}  # reflected Table -> its CREATE TABLE text
        if not lazy_table_reflection:
            self._reflect(self._usable_tables)

    @classmethod
    def from_uri(
        cls,
        database_uri: Any,
        engine_args: dict[str, Any] | None = None,
        **options: Any,
    ) -> SQLDatabase:
        """A database from a SQLAlchemy URL (``"sqlite:///Chinook.db"``).

        Args:
            database_uri: the URL, a string or a SQLAlchemy ``URL``.
            engine_args: keyword arguments for ``sqlalchemy.create_engine``.
            **options: the constructor's keyword arguments (``include_tables``,
                ``read_only`` ...); an unknown one is a ``TypeError`` naming it.
        """
        sa = _sqlalchemy()
        return cls(sa.create_engine(database_uri, **(engine_args or {})), **options)

    # ---- the tables ----
    def _table_names(self, view_support: bool) -> set[str]:
        inspector, schema = self._inspector, self._schema
        names = set(inspector.get_table_names(schema=schema))
        if view_support:
            names.update(inspector.get_view_names(schema=schema))
            with contextlib.suppress(NotImplementedError):  # SQLite and others have none
                names.update(inspector.get_materialized_view_names(schema=schema))
        return names

    def _reflect(self, tables: Iterable[str]) -> None:
        self._metadata.reflect(
            views=self._view_support, bind=self._engine, only=list(tables), schema=self._schema
        )

    @property
    def dialect(self) -> str:
        """The engine's dialect name (``"sqlite"``, ``"postgresql"`` ...)."""
        return str(self._engine.dialect.name)

    @property
    def read_only(self) -> bool:
        """Whether statements other than queries are refused."""
        return self._read_only

    def get_usable_table_names(self) -> Iterable[str]:
        """The tables shown to a model, sorted: ``include_tables``, or all but the ignored."""
        if self._include_tables:
            return sorted(self._include_tables)
        return sorted(self._all_tables - self._ignore_tables)

    def get_table_names(self) -> Iterable[str]:
        """Deprecated (as in LangChain): :meth:`get_usable_table_names`."""
        warnings.warn(
            "SQLDatabase.get_table_names is deprecated; use get_usable_table_names",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.get_usable_table_names()

    @property
    def table_info(self) -> str:
        """:meth:`get_table_info` of every usable table."""
        return self.get_table_info()

    def get_table_info(
        self, table_names: list[str] | None = None, get_col_comments: bool = False
    ) -> str:
        """Each table's ``CREATE TABLE`` statement, then its sample rows (and indexes).

        Args:
            table_names: the tables described (default: every usable table).
            get_col_comments: add the columns' comments (where the dialect keeps them).

        Raises:
            InvalidInputError: a name is not a usable table (a ``ValueError``).
        """
        wanted = list(self.get_usable_table_names())
        if table_names is not None:
            if isinstance(table_names, str):
                raise InvalidInputError(
                    f"table_names must be a list of table names, got the string {table_names!r}"
                )
            missing = set(table_names).difference(wanted)
            if missing:
                raise InvalidInputError(f"table_names {missing} not found in database")
            wanted = list(table_names)
        # metadata.tables, not sorted_tables: the texts are sorted below, and
        # sorted_tables sorts by foreign keys on every read (most of this call's time
        # for 200 tables without sample rows)
        reflected = {table.name for table in self._metadata.tables.values()}
        if set(wanted) - reflected:
            self._reflect(set(wanted) - reflected)
        keep = set(wanted)
        texts = [
            self._describe(table, get_col_comments)
            for table in self._metadata.tables.values()
            if table.name in keep
            and not (self.dialect == "sqlite" and table.name.startswith("sqlite_"))
        ]
        return "\n\n".join(sorted(texts))

    def _describe(self, table: Any, get_col_comments: bool) -> str:
        custom = self._custom_table_info
        if custom and table.name in custom:
            return str(custom[table.name])
        text = self._create_statement(table)
        if get_col_comments:
            comments = {c.name: c.comment for c in table.columns if c.comment}
            if comments:
                text += f"\n\n/*\nColumn Comments: {comments}\n*/"
        blocks = []
        if self._indexes_in_table_info:
            blocks.append(self._indexes(table))
        if self._sample_rows_in_table_info:
            blocks.append(self._sample_rows(table))
        if blocks:
            text += "\n\n/*" + "".join(f"\n{block}\n" for block in blocks) + "*/"
        return text

    def _create_statement(self, table: Any) -> str:
        """The table's ``CREATE TABLE`` text, compiled once per reflected table (a table
        reflected again is a new object, compiled again)."""
        known = self._statements.get(table)
        if known is not None:
            return known
        sa = _sqlalchemy()
        # Columns of no known type (SQLite's untyped columns, JSON on old SQLAlchemy) are
        # left out of the statement and of the sample rows.
        for column in list(table.columns):
            if type(column.type) is sa.types.NullType:
                table._columns.remove(column)
        text = str(sa.schema.CreateTable(table).compile(self._engine)).rstrip()
        self._statements[table] = text
        return text

    def _indexes(self, table: Any) -> str:
        lines = [
            f"Name: {index['name']}, Unique: {index['unique']}, Columns: {index['column_names']}"
            for index in self._inspector.get_indexes(table.name, schema=self._schema)
        ]
        return "Table Indexes:\n" + "\n".join(lines)

    def _sample_rows(self, table: Any) -> str:
        sa = _sqlalchemy()
        count = self._sample_rows_in_table_info
        header = "\t".join(column.name for column in table.columns)
        try:
            with self._engine.connect() as connection:
                rows = connection.execute(sa.select(table).limit(count)).fetchall()
        except sa.exc.ProgrammingError:  # some dialects' answer for an empty table
            rows = []
        body = "\n".join(
            "\t".join(str(value)[:_SAMPLE_VALUE_LENGTH] for value in row) for row in rows
        )
        return f"{count} rows from {table.name} table:\n{header}\n{body}"

    def get_table_info_no_throw(self, table_names: list[str] | None = None) -> str:
        """:meth:`get_table_info`, or ``"Error: ..."`` for names that are not tables."""
        try:
            return self.get_table_info(table_names)
        except ValueError as err:
            return f"Error: {err}"

    def get_context(self) -> dict[str, Any]:
        """``{"table_info": ..., "table_names": "a, b"}``, for a prompt."""
        return {
            "table_info": self.get_table_info_no_throw(),
            "table_names": ", ".join(self.get_usable_table_names()),
        }

    # ---- statements ----
    def _check_read_only(self, command: Any) -> None:
        sa = _sqlalchemy()
        if isinstance(command, str):
            shown = command.strip()
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            if _first_word(command) not in _QUERY_WORDS:
                raise SQLReadOnlyError(
                    f"this SQLDatabase is read-only (read_only=True): only queries (SELECT, "
                    f"WITH, VALUES) run, got {shown!r}"
                )
            # A driver that runs several statements from one string (psycopg2) would run
            # "SELECT 1; COMMIT; DROP TABLE t" whole, the COMMIT ending the transaction
            # that is rolled back. Any ';' but trailing ones is refused, one inside a
            # string literal too: reading literals right is each dialect's own lexing.
            if ";" in command.rstrip(string.whitespace + ";"):
                raise SQLReadOnlyError(
                    "this SQLDatabase is read-only (read_only=True): one statement at a "
                    f"time, with no ';' inside it (not even in a string), got {shown!r}"
                )
            return
        if isinstance(command, sa.sql.TextClause):
            self._check_read_only(command.text)
        elif not isinstance(command, (sa.sql.Select, sa.sql.CompoundSelect)):
            raise SQLReadOnlyError(
                "this SQLDatabase is read-only (read_only=True): only queries run, got a "
                f"{type(command).__name__} statement"
            )

    def _execute(
        self,
        command: Any,
        fetch: str,
        parameters: Mapping[str, Any] | None,
        execution_options: Mapping[str, Any] | None,
    ) -> Any:
        sa = _sqlalchemy()
        if fetch not in _FETCH_MODES:
            raise InvalidInputError(
                f"Fetch parameter must be either 'one', 'all', or 'cursor' (got {fetch!r})"
            )
        if isinstance(command, str):
            statement = sa.text(command)
        elif isinstance(command, sa.sql.expression.Executable):
            statement = command
        else:
            raise TypeError(f"Query expression has unknown type: {type(command)}")
        if self._read_only:
            self._check_read_only(command)
        options = dict(execution_options or {})
        with self._engine.connect() as connection:
            read_only_sqlite = self._read_only and self.dialect == "sqlite"
            if read_only_sqlite:
                connection.exec_driver_sql("PRAGMA query_only = ON")
            try:
                self._set_schema(connection, options)
                result = connection.execute(
                    statement, dict(parameters or {}), execution_options=options
                )
                if not result.returns_rows:
                    rows: Any = []
                elif fetch == "cursor":
                    rows = result
                elif fetch == "one":
                    first = result.fetchone()
                    rows = [] if first is None else [first]
                else:
                    rows = result.fetchall()
                if self._read_only:
                    connection.rollback()
                else:
                    connection.commit()
            finally:
                if read_only_sqlite:
                    try:
                        connection.rollback()
                        connection.exec_driver_sql("PRAGMA query_only = OFF")
                    except sa.exc.SQLAlchemyError:
                        # never hand a query_only connection back to the pool
                        connection.invalidate()
        return rows

    def _set_schema(self, connection: Any, options: dict[str, Any]) -> None:
        if self._schema is None:
            return
        form = _SCHEMA_STATEMENTS.get(self.dialect)
        if form is not None:
            if not re.fullmatch(r"[A-Za-z0-9_]+", self._schema):
                raise InvalidInputError(
                    f"schema {self._schema!r} may hold only letters, digits and underscores"
                )
            connection.exec_driver_sql(form.format(schema=self._schema), execution_options=options)

    def run(
        self,
        command: Any,
        fetch: str = "all",
        include_columns: bool = False,
        *,
        parameters: Mapping[str, Any] | None = None,
        execution_options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Run one statement and return its rows as text (LangChain's form).

        Args:
            command: SQL text, or a SQLAlchemy statement (``select(...)``, ``text(...)``).
            fetch: ``"all"`` rows, ``"one"`` (the first), or ``"cursor"``: the SQLAlchemy
                result itself, returned as it is.
            include_columns: each row as a dict of column -> value, not a tuple.
            parameters: values of the statement's ``:name`` placeholders.
            execution_options: SQLAlchemy execution options.

        Returns:
            ``str`` of the list of rows (strings past ``max_string_length`` cut), ``""``
            when the statement gives no rows; the result object for ``fetch="cursor"``.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the database refused the statement.
            SQLReadOnlyError: a read-only database given a statement that is no query.
            InvalidInputError: ``fetch`` is not one of the three modes (nothing runs).
        """
        rows = self._execute(command, fetch, parameters, execution_options)
        if fetch == "cursor":  # the result object, or [] for a statement without rows
            return rows
        if not rows:
            return ""
        limit = self._max_string_length
        if include_columns:
            shown: list[Any] = [
                {column: _shorten(value, limit) for column, value in row._mapping.items()}
                for row in rows
            ]
        else:
            shown = [tuple(_shorten(value, limit) for value in row) for row in rows]
        return str(shown)

    def run_no_throw(
        self,
        command: Any,
        fetch: str = "all",
        include_columns: bool = False,
        *,
        parameters: Mapping[str, Any] | None = None,
        execution_options: Mapping[str, Any] | None = None,
    ) -> Any:
        """:meth:`run`, or ``"Error: ..."`` when the database (or read-only mode) refuses it."""
        sa = _sqlalchemy()
        try:
            return self.run(
                command,
                fetch,
                include_columns,
                parameters=parameters,
                execution_options=execution_options,
            )
        except (sa.exc.SQLAlchemyError, SQLReadOnlyError) as err:
            return f"Error: {err}"
