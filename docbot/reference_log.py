"""The reference log: every answer docbot sent, its references, feedback, and Slack event ids seen.

SQLite in the data directory (``docbot.sqlite``). Every answer's references are
kept so that ``docbot refresh`` can re-validate them after a recrawl; Slack
threads read their earlier turns from here; 👍/👎 land here too. One short
connection per call (WAL mode), so the Slack bot's threads never share a
connection.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlers.model import SourceType
from docbot.answer import Answer, Clarification, Reference, Resolution, Status

REFERENCE_LOG = "docbot.sqlite"
SCHEMA_VERSION = 1
EVENT_TTL_S = 24 * 3600  # Slack retries an event for minutes at most; a day of ids is plenty
TIMEOUT_S = 10.0  # wait this long for a locked database before giving up

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    origin TEXT NOT NULL,          -- slash_command | mention | dm | cli
    user_id TEXT,
    channel TEXT,
    thread_ts TEXT,
    question TEXT NOT NULL,
    status TEXT NOT NULL,
    answer_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS answers_thread ON answers (channel, thread_ts);
CREATE TABLE IF NOT EXISTS links (
    answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    url TEXT NOT NULL,
    PRIMARY KEY (answer_id, n)
);
CREATE TABLE IF NOT EXISTS feedback (
    answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    vote INTEGER NOT NULL,          -- +1 or -1; a user's later vote replaces the earlier one
    created_at REAL NOT NULL,
    PRIMARY KEY (answer_id, user_id)
);
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    seen_at REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """An earlier answer in a thread: what the pipeline reads as conversation context."""

    answer_id: int
    question: str
    answer: str
    references: tuple[Reference, ...]


def _reference(data: dict[str, Any]) -> Reference:
    return Reference(
        n=int(data["n"]), url=str(data["url"]), title=str(data.get("title", "")),
        path=tuple(data.get("path", ())), source_type=str(data.get("source_type", SourceType.OTHER)),
        site=str(data.get("site", "")), primary=bool(data.get("primary", False)), snippet=str(data.get("snippet", "")),
        quote=str(data.get("quote", "")),
    )


def answer_from_json(data: dict[str, Any]) -> Answer:
    """Rebuild an :class:`Answer` from its ``to_json()`` form (what the log stores)."""
    from docbot.answer import Group

    return Answer(
        question=str(data.get("question", "")), status=Status(data.get("status", Status.ANSWERED)),
        answer=str(data.get("answer", "")), confidence=float(data.get("confidence", 0.0)),
        resolution=Resolution(data.get("resolution", Resolution.NONE)), generator=str(data.get("generator", "extractive")),
        references=tuple(_reference(r) for r in data.get("references", ())),
        groups=tuple(Group(str(g["type"]), tuple(int(n) for n in g["refs"])) for g in data.get("groups", ())),
        timings_ms={str(k): float(v) for k, v in data.get("timings_ms", {}).items()},
        error=data.get("error"),
        clarification=Clarification.from_json(clarify) if isinstance(clarify := data.get("clarification"), dict) else None,
        generations={str(k): int(v) for k, v in (data.get("generations") or {}).items()},
        flagged=bool(data.get("flagged", False)), fallback=data.get("fallback"),
    )


def _option_links(answer_id: int, answer: Answer) -> list[tuple[int, int, str]]:
    """A clarifying question's option links, numbered -1, -2, … so refresh re-checks them beside the references."""
    options = answer.clarification.options if answer.clarification else ()
    return [(answer_id, -i, o.url) for i, o in enumerate(options, start=1) if o.url]


class ReferenceLog:
    """SQLite-backed log of answers, links, feedback and seen Slack events."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file: readers never wait for the writer
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> ReferenceLog:
        return cls(Path(data_dir) / REFERENCE_LOG)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=TIMEOUT_S)) as db:
            db.execute("PRAGMA foreign_keys = ON")  # per connection, unlike the journal mode
            with db:  # one transaction: committed on success, rolled back on error
                yield db

    # -- answers -----------------------------------------------------------
    def record(
        self,
        answer: Answer,
        origin: str,
        user_id: str | None = None,
        channel: str | None = None,
        thread_ts: str | None = None,
    ) -> int:
        """Store an answer and its references; returns the answer id (used by feedback and share buttons)."""
        payload = json.dumps(answer.to_json(), ensure_ascii=False)
        with self._connect() as db:
            cur = db.execute(
                "INSERT INTO answers (created_at, origin, user_id, channel, thread_ts, question, status, answer_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (time.time(), origin, user_id, channel, thread_ts, answer.question, answer.status, payload),
            )
            answer_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT OR REPLACE INTO links (answer_id, n, url) VALUES (?, ?, ?)",
                [(answer_id, ref.n, ref.url) for ref in answer.references] + _option_links(answer_id, answer),
            )
        return answer_id

    def get(self, answer_id: int) -> Answer | None:
        with self._connect() as db:
            row = db.execute("SELECT answer_json FROM answers WHERE id = ?", (answer_id,)).fetchone()
        return answer_from_json(json.loads(row[0])) if row else None

    def thread_turns(self, channel: str, thread_ts: str, limit: int = 5) -> list[StoredTurn]:
        """The last ``limit`` answers docbot gave in a thread, oldest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, answer_json FROM answers WHERE channel = ? AND thread_ts = ? ORDER BY id DESC LIMIT ?",
                (channel, thread_ts, limit),
            ).fetchall()
        turns = []
        for answer_id, payload in reversed(rows):
            answer = answer_from_json(json.loads(payload))
            turns.append(StoredTurn(int(answer_id), answer.question, answer.answer, answer.references))
        return turns

    def iter_links(self) -> list[tuple[int, str]]:
        """(answer id, url) of every link ever sent, oldest first."""
        with self._connect() as db:
            return [(int(a), str(u)) for a, u in db.execute("SELECT answer_id, url FROM links ORDER BY answer_id, n")]

    # -- feedback ----------------------------------------------------------
    def add_feedback(self, answer_id: int, user_id: str, vote: int) -> bool:
        """Record 👍 (+1) or 👎 (-1); False when the answer is unknown."""
        if vote not in (1, -1):
            raise ValueError("vote must be +1 or -1")
        with self._connect() as db:
            if db.execute("SELECT 1 FROM answers WHERE id = ?", (answer_id,)).fetchone() is None:
                return False
            db.execute(
                "INSERT INTO feedback (answer_id, user_id, vote, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (answer_id, user_id) DO UPDATE SET vote = excluded.vote, created_at = excluded.created_at",
                (answer_id, user_id, vote, time.time()),
            )
        return True

    def feedback(self, answer_id: int) -> dict[str, int]:
        with self._connect() as db:
            rows = db.execute("SELECT vote, COUNT(*) FROM feedback WHERE answer_id = ? GROUP BY vote", (answer_id,))
            counts = {int(v): int(c) for v, c in rows}
        return {"up": counts.get(1, 0), "down": counts.get(-1, 0)}

    # -- Slack event de-duplication -----------------------------------------
    def first_seen(self, event_id: str) -> bool:
        """True the first time ``event_id`` is seen (Slack retries re-send the same id)."""
        now = time.time()
        with self._connect() as db:
            db.execute("DELETE FROM events WHERE seen_at < ?", (now - EVENT_TTL_S,))
            cur = db.execute("INSERT OR IGNORE INTO events (event_id, seen_at) VALUES (?, ?)", (event_id, now))
            return cur.rowcount == 1
