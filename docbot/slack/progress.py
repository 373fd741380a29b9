"""A "writing…" state for slow answers: shown when an answer takes longer than a moment, then replaced by it.

An extractive answer comes in well under a second and goes out as before (one message). An LLM on a CPU can
take a minute: after :data:`WRITING_AFTER_S` the asker sees :data:`WRITING`, and the answer then takes its place —
``chat.update`` of the placeholder in a thread, ``replace_original`` through a slash command's ``response_url``.
Only whole, validated answers are ever shown: a half-written answer is never streamed into Slack, since its
links and ``[n]`` markers have not been checked yet.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from slack_sdk import WebClient

from docbot.slack.blocks import Message

log = logging.getLogger(__name__)

WRITING_AFTER_S = 2.0  # an answer slower than this shows the "writing…" state first
WRITING = "✍️ Writing the answer… (the model takes a moment; the sources are checked before it is shown)"


class _Delayed:
    """Calls :meth:`_show` after ``after_s`` unless :meth:`stop` came first; never both at once."""

    def __init__(self, after_s: float) -> None:
        self._lock = threading.Lock()
        self._finished = False
        self.shown = False
        self._timer = threading.Timer(after_s, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if not self._finished:
                try:
                    self.shown = self._show()
                except Exception as exc:  # noqa: BLE001 - a progress message is a courtesy; the answer still goes
                    log.warning("could not show the writing state: %s", exc)

    def stop(self) -> bool:
        """Stop the timer (waiting for a "writing…" being posted); True when one was shown."""
        self._timer.cancel()
        with self._lock:
            self._finished = True
            return self.shown

    def _show(self) -> bool:
        raise NotImplementedError


class ThreadProgress(_Delayed):
    """In a thread: a "writing…" message, then ``chat.update`` of it with the answer."""

    def __init__(self, client: WebClient, channel: str, thread_ts: str, after_s: float = WRITING_AFTER_S) -> None:
        self.client, self.channel, self.thread_ts = client, channel, thread_ts
        self.ts: str | None = None
        super().__init__(after_s)

    def _show(self) -> bool:
        reply = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=WRITING)
        self.ts = str(reply["ts"])
        return True

    def deliver(self, message: Message, **extra: Any) -> None:
        """The message in place of the "writing…" one, or posted when there was none (or it cannot be updated)."""
        if self.stop() and self.ts is not None:
            try:
                self.client.chat_update(channel=self.channel, ts=self.ts, text=message.text, blocks=message.blocks)
                return
            except Exception as exc:  # noqa: BLE001 - deleted meanwhile, or no scope: post it instead
                log.warning("could not update the writing message (%s); posting the answer", exc)
        self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=message.text,
                                     blocks=message.blocks, **extra)


class CommandProgress(_Delayed):
    """Through a slash command's ``response_url``: "writing…" in place of the private "searching…", then the answer
    in its place (a public answer is posted to the channel and the private placeholder deleted)."""

    def __init__(self, respond: Any, after_s: float = WRITING_AFTER_S) -> None:
        self.respond = respond
        super().__init__(after_s)

    def _show(self) -> bool:
        self.respond(text=WRITING, response_type="ephemeral", replace_original=True)
        return True

    def deliver(self, message: Message, response_type: str, **extra: Any) -> None:
        shown = self.stop()
        replace = shown and response_type == "ephemeral"
        self.respond(text=message.text, blocks=message.blocks, response_type=response_type,
                     **({"replace_original": True} if replace else {}), **extra)
        if shown and not replace:
            try:
                self.respond(delete_original=True)
            except Exception as exc:  # noqa: BLE001 - a stale private placeholder is untidy, not wrong
                log.warning("could not delete the writing message: %s", exc)
