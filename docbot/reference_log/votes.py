"""👍 and 👎 on answers, and the Slack event ids already handled (shared by every bot on the same log)."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import delete, func, select

from docbot.reference_log.engine import Store
from docbot.reference_log.schema import answers, events, feedback

EVENT_TTL_S = 24 * 3600  # Slack retries an event for minutes at most; a day of ids is plenty


@dataclass(frozen=True, slots=True)
class Vote:
    """One user's vote on one answer: +1 (👍) or -1 (👎); a later vote replaced an earlier one."""

    answer_id: int
    user_id: str
    vote: int
    created_at: float


class VoteLog(Store):
    """Votes, and the de-duplication of Slack's event retries."""

    def add_feedback(self, answer_id: int, user_id: str, vote: int) -> bool:
        """Record 👍 (+1) or 👎 (-1); False when the answer is unknown."""
        if vote not in (1, -1):
            raise ValueError("vote must be +1 or -1")
        with self._write() as conn:
            if conn.execute(select(answers.c.id).where(answers.c.id == answer_id)).first() is None:
                return False
            insert = self._upsert(conn, feedback).values(answer_id=answer_id, user_id=user_id, vote=vote,
                                                         created_at=time.time())
            conn.execute(insert.on_conflict_do_update(
                index_elements=["answer_id", "user_id"],
                set_={"vote": insert.excluded.vote, "created_at": insert.excluded.created_at}))
        return True

    def feedback(self, answer_id: int) -> dict[str, int]:
        query = select(feedback.c.vote, func.count()).where(feedback.c.answer_id == answer_id).group_by(feedback.c.vote)
        with self._read() as conn:
            counts = {int(v): int(c) for v, c in conn.execute(query)}
        return {"up": counts.get(1, 0), "down": counts.get(-1, 0)}

    def votes(self, answer_ids: Collection[int]) -> list[Vote]:
        """Every vote on these answers, by answer, then oldest first."""
        if not answer_ids:
            return []
        query = (select(feedback).where(feedback.c.answer_id.in_(sorted(set(answer_ids))))
                 .order_by(feedback.c.answer_id, feedback.c.created_at))
        with self._read() as conn:
            rows = conn.execute(query).all()
        return [Vote(int(r.answer_id), str(r.user_id), int(r.vote), float(r.created_at)) for r in rows]

    def first_seen(self, event_id: str) -> bool:
        """True the first time ``event_id`` is seen (Slack retries re-send the same id)."""
        now = time.time()
        with self._write() as conn:
            conn.execute(delete(events).where(events.c.seen_at < now - EVENT_TTL_S))
            insert = self._upsert(conn, events).values(event_id=event_id, seen_at=now)
            added = insert.on_conflict_do_nothing(index_elements=["event_id"]).returning(events.c.event_id)
            return conn.execute(added).first() is not None
