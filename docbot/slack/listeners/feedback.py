"""The 👍 / 👎 buttons under an answer: the vote stored in the reference log, a private thank-you."""

from __future__ import annotations

import logging
from typing import Any

from docbot.slack.blocks import ACTION_UP, Message
from docbot.slack.core import Listener, answer_id_of

log = logging.getLogger(__name__)


class Votes(Listener):
    """Stores a vote on an answer (by its id in the reference log)."""

    def on_feedback(self, ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        ack()
        answer_id, user = answer_id_of(action), body.get("user", {}).get("id", "")
        vote = 1 if action.get("action_id") == ACTION_UP else -1
        self.work.submit(self.work.io, self._store_feedback, answer_id, user, vote, respond)

    def _store_feedback(self, answer_id: int | None, user: str, vote: int, respond: Any) -> None:
        stored = False
        if answer_id is not None and self.work.store is not None:
            try:
                stored = self.work.store.add_feedback(answer_id, user, vote)
            except Exception:
                log.exception("could not store feedback for answer %s", answer_id)
        text = "Thanks for the feedback!" if stored else "Sorry, that feedback could not be saved."
        self.work.respond_quietly(respond, Message(text=text, blocks=[]), response_type="ephemeral",
                                  replace_original=False)
