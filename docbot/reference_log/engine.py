"""The reference log's way to its database: one SQLAlchemy engine, SQLite in a file or PostgreSQL at a URL.

The engine keeps a pool of connections and lends each to one thread at a time, so the Slack bot's threads never
share one. SQLite keeps its journal in WAL mode (readers never wait for the writer), enforces foreign keys on every
connection and waits up to :data:`TIMEOUT_S` for a lock. docbot emits SQLite's BEGIN itself (the sqlite3 module's own
handling would commit a CREATE or ALTER at once, outside the upgrade's transaction), and a write begins IMMEDIATE:
it takes the write lock first, so a transaction that reads and then writes never fails because another process
wrote in between. PostgreSQL is reached through psycopg 3, and a pooled connection is checked before it is lent
(a restarted server costs no request). Neither engine ever logs a statement's values: they hold questions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Connection, Engine, Table, create_engine, event, make_url
from sqlalchemy.dialects import postgresql, sqlite

TIMEOUT_S = 10.0  # wait this long for a locked SQLite file, or for a PostgreSQL server to answer
WRITE = "docbot_write"  # the execution option that makes SQLite's BEGIN an IMMEDIATE one


def sqlite_engine(path: Path) -> Engine:
    """An engine over the SQLite file at ``path``."""
    engine = create_engine(URL.create("sqlite+pysqlite", database=str(path)), hide_parameters=True,
                           connect_args={"timeout": TIMEOUT_S})
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connected(dbapi_connection: Any, record: Any) -> None:
    dbapi_connection.isolation_level = None  # no BEGIN of the sqlite3 module's own: _sqlite_begin emits it
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode = WAL")  # kept in the file; a no-op once it is set
        cursor.execute("PRAGMA foreign_keys = ON")  # per connection, unlike the journal mode
    finally:
        cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE) else "BEGIN")


def postgres_engine(url: str) -> Engine:
    """An engine over the PostgreSQL database at ``url`` (``postgresql://``, ``postgres://`` or
    ``postgresql+psycopg://``), through psycopg 3."""
    target = make_url(url.replace("postgres://", "postgresql://", 1)).set(drivername="postgresql+psycopg")
    return create_engine(target, hide_parameters=True, pool_pre_ping=True,
                         connect_args={"connect_timeout": int(TIMEOUT_S), "application_name": "docbot"})


class Store:
    """What every part of the log stands on: the engine, and a transaction to read or to write in."""

    engine: Engine

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back when it raises."""
        with self.engine.connect() as conn:
            conn.execution_options(**{WRITE: True})
            with conn.begin():
                yield conn

    @staticmethod
    def _upsert(conn: Connection, table: Table) -> Any:
        """``INSERT`` with ``ON CONFLICT`` in the connection's dialect (both dialects spell it alike)."""
        return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
