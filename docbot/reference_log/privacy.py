"""Forgetting users: their labels, their votes, and their words and ids in the answers they asked (docs/privacy.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, or_, select, update

from docbot.reference_log.codec import without_words
from docbot.reference_log.engine import Store
from docbot.reference_log.schema import answers, feedback, labels


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """What forgetting some users deleted or blanked."""

    users: tuple[str, ...]
    labels: int  # labels deleted: given by these users, or given by anyone on an answer they asked
    votes: int  # their votes deleted
    answers: int  # answers they asked, kept without their question, its answer's text, user id, channel and thread

    def to_json(self) -> dict[str, Any]:
        return {"users": list(self.users), "labels": self.labels, "votes": self.votes, "answers": self.answers}


class Privacy(Store):
    """Personal data: what a user asked and gave, removed on request."""

    def forget_users(self, users: Sequence[str]) -> ForgetReport:
        """Delete these users' labels and votes, and the labels on the answers they asked (those hold their question);
        blank the question, the answer's text, the user id, the channel and the thread of those answers. The
        answers' links stay, for refresh's re-check. All or nothing, in one transaction."""
        who = sorted(set(users))
        if not who:
            return ForgetReport((), 0, 0, 0)
        with self._write() as conn:
            rows = conn.execute(select(answers.c.id, answers.c.answer_json).where(answers.c.user_id.in_(who))).all()
            asked = [int(row.id) for row in rows]
            dropped = conn.execute(delete(labels).where(or_(labels.c.user_id.in_(who), labels.c.answer_id.in_(asked))))
            votes = conn.execute(delete(feedback).where(feedback.c.user_id.in_(who)))
            if rows:
                blank = [{"row": int(row.id), "kept": json.dumps(without_words(json.loads(row.answer_json)),
                                                                 ensure_ascii=False)} for row in rows]
                conn.execute(update(answers).where(answers.c.id == bindparam("row")).values(
                    question="", user_id=None, channel=None, thread_ts=None, answer_json=bindparam("kept")), blank)
        return ForgetReport(tuple(who), int(dropped.rowcount), int(votes.rowcount), len(rows))
