"""The reference log's tables, the same on SQLite and PostgreSQL, and how a database is brought to this version.

The version is a one-row table, ``docbot_schema``. A database without it is new (version 0) or, when it holds
``answers``, a file of the first version (SQLite's ``user_version`` 1, before the table existed). Opening the log
runs the missing steps of :data:`UPGRADES` in one transaction, under a lock (SQLite's write lock, a PostgreSQL
advisory lock) so that bots starting together upgrade once; a failed step leaves the database as it was. A database
newer than this docbot is refused: the steps only add, so an upgrade never needs a way back.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    Table,
    Text,
    bindparam,
    delete,
    inspect,
    select,
    text,
    update,
)

from docbot.errors import ReferenceLogUnavailable
from docbot.reference_log.codec import answer_site

SCHEMA_VERSION = 2
ADVISORY_LOCK = 0x646F63626F74  # PostgreSQL: the lock every docbot takes to create or upgrade the tables ("docbot")

metadata = MetaData()

answers = Table(
    "answers", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", Float, nullable=False),
    Column("origin", Text, nullable=False),  # slash_command | mention | dm | cli
    Column("user_id", Text),
    Column("channel", Text),
    Column("thread_ts", Text),
    Column("question", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("answer_json", Text, nullable=False),  # Answer.to_json()
    Column("site", Text),  # the site its first source is on (version 2)
    Index("answers_thread", "channel", "thread_ts"),
    sqlite_autoincrement=True,  # an id is never given again, so a vote or label never lands on another answer
)
links = Table(
    "links", metadata,
    Column("answer_id", Integer, ForeignKey("answers.id", ondelete="CASCADE"), primary_key=True),
    Column("n", Integer, primary_key=True),  # [n] of the answer; a clarifying question's options are -1, -2, …
    Column("url", Text, nullable=False),
)
feedback = Table(
    "feedback", metadata,
    Column("answer_id", Integer, ForeignKey("answers.id", ondelete="CASCADE"), primary_key=True),
    Column("user_id", Text, primary_key=True),
    Column("vote", Integer, nullable=False),  # +1 or -1; a user's later vote replaces the earlier one
    Column("created_at", Float, nullable=False),
)
events = Table(
    "events", metadata,
    Column("event_id", Text, primary_key=True),  # Slack's id of an event, kept a day to drop its retries
    Column("seen_at", Float, nullable=False),
)
labels = Table(
    "labels", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("site", Text, nullable=False),
    Column("question", Text, nullable=False),
    Column("url", Text),  # page#fragment; NULL: not covered
    Column("polarity", SmallInteger, nullable=False),  # +1 or -1
    Column("source", Text, nullable=False),  # docbot.labels.LabelSource
    Column("user_id", Text),
    Column("channel", Text),
    Column("answer_id", Integer, ForeignKey("answers.id", ondelete="SET NULL")),
    Column("weight", Float, nullable=False),
    Column("curator", Boolean, nullable=False),
    Column("created_at", Float, nullable=False),
    sqlite_autoincrement=True,
)
version = Table("docbot_schema", metadata, Column("version", Integer, nullable=False))

# Indexes of version 2, created by the upgrade on a file of version 1 as well.
NEW_INDEXES = (
    Index("answers_site", answers.c.site, answers.c.created_at),
    Index("answers_user", answers.c.user_id),
    Index("feedback_user", feedback.c.user_id),
    Index("labels_site", labels.c.site, labels.c.created_at),
    Index("labels_user", labels.c.user_id),
    Index("labels_answer", labels.c.answer_id),
)


def _labels_and_answer_sites(conn: Connection) -> None:
    """Version 2: the labels, each answer's site (filled in from its stored answer), the indexes that find a
    user's data."""
    conn.execute(text("ALTER TABLE answers ADD COLUMN site TEXT"))
    rows = conn.execute(select(answers.c.id, answers.c.answer_json)).all()
    sites = [{"row": row.id, "site": answer_site(json.loads(row.answer_json))} for row in rows]
    if sites:
        conn.execute(update(answers).where(answers.c.id == bindparam("row")).values(site=bindparam("site")), sites)
    metadata.create_all(conn, tables=[labels, version])
    for index in NEW_INDEXES:
        if index.table is not labels:
            index.create(conn)


UPGRADES: dict[int, Callable[[Connection], None]] = {2: _labels_and_answer_sites}  # version reached: the step


def found_version(conn: Connection) -> int:
    """The schema version of the database: 0 when it holds no log yet."""
    names = set(inspect(conn).get_table_names())
    if version.name in names:
        return int(conn.execute(select(version.c.version)).scalar_one())
    return 1 if answers.name in names else 0


def check_version(found: int, where: str) -> None:
    if found > SCHEMA_VERSION:
        raise ReferenceLogUnavailable(
            f"The reference log at {where} has schema version {found}, newer than this docbot's {SCHEMA_VERSION} — "
            "upgrade docbot (`pip install -U docbot`) to the version that wrote it")


def create_or_upgrade(conn: Connection, where: str) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` inside the caller's write transaction; returns the version it
    was found at."""
    if conn.dialect.name == "postgresql":  # held to the end of the transaction: one bot upgrades, the others wait
        conn.execute(select(text(f"pg_advisory_xact_lock({ADVISORY_LOCK})")))
    found = found_version(conn)
    check_version(found, where)
    if found == 0:
        metadata.create_all(conn)
        conn.execute(version.insert().values(version=SCHEMA_VERSION))
        return found
    if found < SCHEMA_VERSION:
        for step in range(found + 1, SCHEMA_VERSION + 1):
            UPGRADES[step](conn)
        conn.execute(delete(version))
        conn.execute(version.insert().values(version=SCHEMA_VERSION))
    return found
