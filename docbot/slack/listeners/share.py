"""The "Share" button under a private answer: the logged answer posted to the channel, the private copy deleted."""

from __future__ import annotations

import logging
from typing import Any

from docbot.slack.blocks import Message, render_answer
from docbot.slack.core import Listener, answer_id_of

log = logging.getLogger(__name__)


class Share(Listener):
    """Posts a private answer to the channel, as its user asked."""

    def on_share(self, ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        ack()
        self.work.submit(self.work.io, self._share, answer_id_of(action), body.get("user", {}).get("id"), respond)

    def _share(self, answer_id: int | None, user: str | None, respond: Any) -> None:
        answer = None
        if answer_id is not None and self.work.store is not None:
            try:
                answer = self.work.store.get(answer_id)
            except Exception:
                log.exception("could not read answer %s", answer_id)
        if answer is None:
            gone = Message(text="Sorry, that answer is no longer available to share.", blocks=[])
            self.work.respond_quietly(respond, gone, response_type="ephemeral", replace_original=False)
            return
        message = render_answer(answer, answer_id, shareable=False, shared_by=user)
        try:
            respond(text=message.text, blocks=message.blocks, response_type="in_channel", replace_original=False,
                    unfurl_links=False, unfurl_media=False)
        except Exception:
            log.exception("could not share answer %s", answer_id)
            return
        self.work.respond_quietly(respond, Message(text="", blocks=[]), delete_original=True)
