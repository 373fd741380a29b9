"""The answers docbot sent and their links: what refresh re-checks, what a Slack thread reads back, what reports read."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import select

from docbot.answer import Answer, Reference, Status
from docbot.reference_log.codec import answer_from_json, answer_site
from docbot.reference_log.engine import Store
from docbot.reference_log.schema import answers, links

PAGE = 500  # answers read at a time by answers_since


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """An earlier answer in a thread: what the pipeline reads as conversation context."""

    answer_id: int
    question: str
    answer: str
    references: tuple[Reference, ...]


@dataclass(frozen=True, slots=True)
class LoggedAnswer:
    """One logged answer with where it was asked and by whom (None once the asker was forgotten)."""

    id: int
    created_at: float
    origin: str  # slash_command | mention | dm | cli
    user_id: str | None
    channel: str | None
    thread_ts: str | None
    question: str
    status: Status
    flagged: bool
    site: str | None  # the site of its first source
    answer: Answer


def _option_links(answer_id: int, answer: Answer) -> list[dict[str, object]]:
    """A clarifying question's option links, numbered -1, -2, … so refresh re-checks them beside the references."""
    options = answer.clarification.options if answer.clarification else ()
    return [{"answer_id": answer_id, "n": -i, "url": o.url} for i, o in enumerate(options, start=1) if o.url]


class AnswerLog(Store):
    """Answers and their links."""

    def record(
        self,
        answer: Answer,
        origin: str,
        user_id: str | None = None,
        channel: str | None = None,
        thread_ts: str | None = None,
    ) -> int:
        """Store an answer and its references; returns the answer id (used by feedback and share buttons)."""
        data = answer.to_json()
        row = {"created_at": time.time(), "origin": origin, "user_id": user_id, "channel": channel,
               "thread_ts": thread_ts, "question": answer.question, "status": str(answer.status),
               "answer_json": json.dumps(data, ensure_ascii=False), "site": answer_site(data)}
        with self._write() as conn:
            answer_id = int(conn.execute(answers.insert().values(row).returning(answers.c.id)).scalar_one())
            sent = [{"answer_id": answer_id, "n": ref.n, "url": ref.url} for ref in answer.references]
            sent += _option_links(answer_id, answer)
            if sent:
                insert = self._upsert(conn, links)
                conn.execute(insert.on_conflict_do_update(index_elements=["answer_id", "n"],
                                                          set_={"url": insert.excluded.url}), sent)
        return answer_id

    def get(self, answer_id: int) -> Answer | None:
        with self._read() as conn:
            payload = conn.execute(select(answers.c.answer_json).where(answers.c.id == answer_id)).scalar()
        return answer_from_json(json.loads(payload)) if payload is not None else None

    def thread_turns(self, channel: str, thread_ts: str, limit: int = 5) -> list[StoredTurn]:
        """The last ``limit`` answers docbot gave in a thread, oldest first."""
        query = (select(answers.c.id, answers.c.answer_json)
                 .where(answers.c.channel == channel, answers.c.thread_ts == thread_ts)
                 .order_by(answers.c.id.desc()).limit(limit))
        with self._read() as conn:
            rows = conn.execute(query).all()
        turns = []
        for answer_id, payload in reversed(rows):
            answer = answer_from_json(json.loads(payload))
            turns.append(StoredTurn(int(answer_id), answer.question, answer.answer, answer.references))
        return turns

    def iter_links(self) -> list[tuple[int, str]]:
        """(answer id, url) of every link ever sent, oldest first."""
        with self._read() as conn:
            rows = conn.execute(select(links.c.answer_id, links.c.url).order_by(links.c.answer_id, links.c.n)).all()
        return [(int(a), str(u)) for a, u in rows]

    def answers_since(self, site: str | None, since: float) -> Iterator[LoggedAnswer]:
        """Every answer logged at or after ``since`` (seconds since the epoch), of ``site`` or of every site, oldest
        first; read a page at a time, so no connection stays open while the caller works."""
        after = 0
        while True:
            query = select(answers).where(answers.c.id > after, answers.c.created_at >= since)
            if site is not None:
                query = query.where(answers.c.site == site)
            with self._read() as conn:
                rows = conn.execute(query.order_by(answers.c.id).limit(PAGE)).all()
            for row in rows:
                answer = answer_from_json(json.loads(row.answer_json))
                yield LoggedAnswer(int(row.id), float(row.created_at), row.origin, row.user_id, row.channel,
                                   row.thread_ts, row.question, Status(row.status), answer.flagged, row.site, answer)
            if len(rows) < PAGE:
                return
            after = int(rows[-1].id)
