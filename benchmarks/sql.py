"""ragline.sql against LangChain's SQL pieces (langchain_community's SQLDatabase and SQL
tools, langchain_classic's create_sql_query_chain), measured in the same run.

A SQLite file the script writes (``--tables`` tables of 8 columns, ``--rows`` rows each,
foreign keys between neighbours) is opened by both libraries; the script checks that the
outputs are equal, then prints per-call times and the ratio LangChain / ragline (above 1:
ragline is faster) for:

* import: the SQL names imported in a fresh interpreter, SQLAlchemy included for both
  (ragline's own import loads it only on first use);
* open: ``SQLDatabase.from_uri`` (every table reflected) then ``table_info``;
* table_info: ``get_table_info()`` on an open database (sample rows read each call);
* run: ``run()`` of a 200-row query, tuple form;
* run_one: ``run(fetch="one")`` of a primary-key lookup;
* tool: ``sql_db_query`` invoked with a query string (the tool run and its callbacks);
* chain: ``create_sql_query_chain`` invoked with a scripted model (the prompt filled with
  the table info of two tables, the stop word, the text stripped).

Each figure is the fastest of ``--rounds`` rounds, the two libraries alternating within
each round (``_timing.interleaved``), so load from other processes hurts both alike.
The machine's load average is printed before and after: on a shared machine read the
ratios, not the absolute figures.

Usage:
    .venv/bin/python benchmarks/sql.py [--tables 20] [--rows 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import _timing

warnings.simplefilter("ignore")  # langchain_community's sunset notice, deprecations


def make_database(path: Path, tables: int, rows: int) -> None:
    with sqlite3.connect(path) as connection:
        for t in range(tables):
            parent = f", parent_id INTEGER REFERENCES t{t - 1}(id)" if t else ""
            connection.execute(
                f"CREATE TABLE t{t} (id INTEGER PRIMARY KEY, name VARCHAR(80), "
                f"note TEXT, price REAL, amount INTEGER, created DATE, flag BOOLEAN{parent})"
            )
            values = [
                (
                    i,
                    f"name {i}",
                    "a longer note about the row " * (i % 5),
                    i * 0.25,
                    i % 97,
                    f"2024-01-{1 + i % 28:02d}",
                    i % 2,
                )
                + ((i,) if t else ())
                for i in range(rows)
            ]
            marks = ", ".join("?" * len(values[0]))
            connection.executemany(f"INSERT INTO t{t} VALUES ({marks})", values)
    connection.close()


def scripted_llm(base: Any) -> Any:
    class Scripted(base):
        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _call(self, prompt, stop=None, run_manager=None, **kwargs):
            return " SELECT count(*) FROM t1 \nSQLResult: 5"

    return Scripted()


def libraries() -> dict[str, dict[str, Any]]:
    from langchain_classic.chains import create_sql_query_chain as lc_chain
    from langchain_community.tools import QuerySQLDatabaseTool as LCQueryTool
    from langchain_community.utilities import SQLDatabase as LCSQLDatabase
    from langchain_core.language_models import LLM as LCLLM

    from ragline.core import LLM
    from ragline.sql import QuerySQLDatabaseTool, SQLDatabase, create_sql_query_chain

    return {
        "langchain": {
            "SQLDatabase": LCSQLDatabase,
            "tool": LCQueryTool,
            "chain": lc_chain,
            "llm": scripted_llm(LCLLM),
        },
        "ragline": {
            "SQLDatabase": SQLDatabase,
            "tool": QuerySQLDatabaseTool,
            "chain": create_sql_query_chain,
            "llm": scripted_llm(LLM),
        },
    }


IMPORTS = {
    "langchain": (
        "from langchain_community.utilities import SQLDatabase; "
        "from langchain_community.agent_toolkits import SQLDatabaseToolkit; "
        "from langchain_classic.chains import create_sql_query_chain"
    ),
    "ragline": (
        "import sqlalchemy; "  # ragline imports it on first use; counted here all the same
        "from ragline.sql import SQLDatabase, SQLDatabaseToolkit, create_sql_query_chain; "
        "SQLDatabase.__name__, SQLDatabaseToolkit.__name__, create_sql_query_chain.__name__"
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        make_database(path, args.tables, args.rows)
        uri = f"sqlite:///{path}"
        print(f"database: {args.tables} tables x {args.rows} rows, {path.stat().st_size} bytes")
        libs = libraries()
        dbs = {name: lib["SQLDatabase"].from_uri(uri) for name, lib in libs.items()}
        tools = {name: libs[name]["tool"](db=db) for name, db in dbs.items()}
        chains = {name: libs[name]["chain"](libs[name]["llm"], db, k=5) for name, db in dbs.items()}
        query = "SELECT id, name, note, price FROM t3 WHERE amount < 50 ORDER BY id LIMIT 200"
        question = {"question": "How many rows?", "table_names_to_use": ["t1", "t2"]}
        checks = {
            "table_info": lambda db: db.table_info,
            "run": lambda db: db.run(query),
            "run_one": lambda db: db.run("SELECT * FROM t5 WHERE id = 7", fetch="one"),
        }
        for what, check in checks.items():
            assert check(dbs["ragline"]) == check(dbs["langchain"]), what
        assert tools["ragline"].invoke(query) == tools["langchain"].invoke(query)
        assert chains["ragline"].invoke(question) == chains["langchain"].invoke(question)
        print("outputs: equal (table_info, run, run_one, tool, chain)")

        rows: list[tuple[str, dict[str, float]]] = []
        rows.append(
            ("import", {n: _timing.import_time(IMPORTS[n]) for n in ("langchain", "ragline")})
        )

        def timed(name: str, calls: int, call: Any) -> None:
            rows.append(
                (
                    name,
                    _timing.interleaved(
                        {n: (lambda i, n=n: call(n)) for n in ("langchain", "ragline")},
                        calls=calls,
                        rounds=args.rounds,
                    ),
                )
            )

        timed("open", 3, lambda n: libs[n]["SQLDatabase"].from_uri(uri).table_info)
        timed("table_info", 5, lambda n: dbs[n].table_info)
        timed("run", 50, lambda n: dbs[n].run(query))
        timed("run_one", 200, lambda n: dbs[n].run("SELECT * FROM t5 WHERE id = 7", fetch="one"))
        timed("tool", 100, lambda n: tools[n].invoke(query))
        timed("chain", 50, lambda n: chains[n].invoke(question))
    print(f"{'step':<12}{'langchain':>14}{'ragline':>14}{'ratio':>8}")
    for name, figures in rows:
        lc, rl = figures["langchain"], figures["ragline"]
        print(f"{name:<12}{lc * 1e3:>11.3f} ms{rl * 1e3:>11.3f} ms{lc / rl:>7.2f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
