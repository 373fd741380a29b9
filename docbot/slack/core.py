"""What every Slack listener shares: the bot's settings, its two worker pools, the answer pipeline, the reference log.

Every listener acknowledges at once and hands the work to docbot's own worker queue (:meth:`Work.submit`). Bolt
keeps only a few listener threads and waits for ``ack()`` in them, so a listener that ran the pipeline itself
would hold up the acknowledgements of the requests queued behind it. Storage faults never stop an answer: the
log is best effort here (:meth:`Work.record`, :meth:`Work.context`, :meth:`Work.first_seen`).
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from slack_bolt import BoltRequest, BoltResponse

from docbot.answer import Answer
from docbot.reference_log import EVENT_TTL_S, ReferenceLog
from docbot.slack.blocks import Message
from docbot.slack.progress import WRITING_AFTER_S

log = logging.getLogger(__name__)

DEFAULT_COMMAND = "/docs"
CONTEXT_TURNS = 3  # earlier answers in a thread read as conversation context
REPLAY_WINDOW_S = 300  # Bolt rejects older timestamps; within the window a seen signature is a replay
WORKING_REACTION = "eyes"
IO_WORKERS = 4  # Slack posts that are not answers (thanks, share) run here, never in Bolt's threads
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+\|([^>]*)>")
_SPECIAL = re.compile(r"<![^>]*>")
_LINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.\-]*:[^|>\s]+)(?:\|[^>]*)?>")


class Asker(Protocol):
    """What the bot needs from the answer pipeline."""

    def ask(self, question: str, site: str | None = None, context: Sequence[Any] = ()) -> Answer: ...


@dataclass(frozen=True, slots=True)
class SlackSettings:
    """The bot's behaviour; ``public`` makes slash-command answers visible to the channel by default."""

    command: str = DEFAULT_COMMAND
    public: bool = False
    site: str | None = None
    workers: int = 1  # pipeline workers; 1 keeps one model in memory and answers in order
    writing_after_s: float = WRITING_AFTER_S  # a slower answer shows "writing…" first (docbot.slack.progress)


def slack_to_text(text: str) -> str:
    """A question as the user typed it: Slack markup undone, links kept as URLs (a pasted docs URL is a reference).

    Every user mention goes (the bot's own and anyone else's): names are not words the docs contain.
    """
    text = _MENTION.sub("", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(1)}", text)
    text = _SPECIAL.sub("", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())


def answer_id_of(action: dict[str, Any]) -> int | None:
    """The reference log's id of the answer a button sits under (its value), None when it carries none."""
    try:
        return int(action.get("value", ""))
    except (TypeError, ValueError):
        return None


def new_request_id() -> str:
    """A short id a user can quote; the log has the details under it."""
    return secrets.token_hex(4)


def _header(req: BoltRequest, name: str) -> str | None:
    values = req.headers.get(name)
    if not values:
        return None
    return values[0] if isinstance(values, (list, tuple)) else str(values)


class ReplayGuard:
    """Bolt middleware: a signed request seen before is a replay (401); a Slack retry of it is acknowledged only."""

    def __init__(self, window_s: float = REPLAY_WINDOW_S) -> None:
        self.window_s = window_s
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def __call__(self, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse:  # noqa: A002
        signature = _header(req, "x-slack-signature")
        if signature:  # Socket Mode requests carry none
            now = time.monotonic()
            with self._lock:
                for old in [s for s, t in self._seen.items() if now - t > self.window_s]:
                    del self._seen[old]
                seen = signature in self._seen
                self._seen.setdefault(signature, now)
            if seen:
                if _header(req, "x-slack-retry-num"):
                    return BoltResponse(status=200, body="")
                log.warning("rejected a replayed Slack request")
                return BoltResponse(status=401, body='{"error": "replayed request"}')
        return next()


class Work:
    """The state the listeners share, and the steps they all take."""

    def __init__(self, asker: Asker, log_store: ReferenceLog | None, settings: SlackSettings | None = None) -> None:
        self.asker = asker
        self.store = log_store
        self.settings = settings or SlackSettings()
        self.jobs = ThreadPoolExecutor(max_workers=max(1, self.settings.workers), thread_name_prefix="docbot-answer")
        self.io = ThreadPoolExecutor(max_workers=IO_WORKERS, thread_name_prefix="docbot-slack-io")
        self._seen_events: dict[str, float] = {}  # used when the reference log is unavailable
        self._lock = threading.Lock()

    def shutdown(self, wait: bool = True) -> None:
        """Finish (``wait``) or drop the queued answers and stop the workers."""
        self.jobs.shutdown(wait=wait, cancel_futures=not wait)
        self.io.shutdown(wait=wait, cancel_futures=not wait)

    def submit(self, pool: ThreadPoolExecutor, fn: Callable[..., None], *args: Any) -> None:
        def run() -> None:
            try:
                fn(*args)
            except Exception:  # a worker must survive anything one request does
                log.exception("unhandled error in %s", getattr(fn, "__name__", fn))

        pool.submit(run)

    def ask(self, question: str, context: Sequence[Any] = ()) -> Answer:
        return self.asker.ask(question, site=self.settings.site, context=context)

    def record(self, answer: Answer, origin: str, user: str | None, channel: str | None,
                thread_ts: str | None) -> int | None:
        """Log the answer; on a storage fault the answer still goes out, only without buttons."""
        if self.store is None:
            return None
        try:
            return self.store.record(answer, origin, user, channel, thread_ts)
        except Exception:  # disk full, locked database…: answering matters more
            log.exception("could not write the reference log; answering without feedback buttons")
            return None

    def context(self, channel: str, thread_ts: str) -> list[Any]:
        if self.store is None:
            return []
        try:
            return list(self.store.thread_turns(channel, thread_ts, CONTEXT_TURNS))
        except Exception:
            log.exception("could not read the thread's earlier answers; answering without context")
            return []

    def first_seen(self, event_id: str | None) -> bool:
        """False for an event already handled (Slack re-sends an event when the first delivery looked lost)."""
        if not event_id:
            return True
        if self.store is not None:
            try:
                return self.store.first_seen(event_id)
            except Exception:
                log.exception("could not record the event id; de-duplicating in memory")
        now = time.time()
        with self._lock:
            for old in [e for e, t in self._seen_events.items() if now - t > EVENT_TTL_S]:
                del self._seen_events[old]
            if event_id in self._seen_events:
                return False
            self._seen_events[event_id] = now
            return True

    @staticmethod
    def respond_quietly(respond: Any, message: Message, **extra: Any) -> None:
        try:
            respond(text=message.text, blocks=message.blocks, **extra)
        except Exception:  # Slack unreachable: the log is all we have
            log.exception("could not post to the response_url")


class Listener:
    """One kind of Slack request (:mod:`docbot.slack.listeners`), over the shared :class:`Work`."""

    def __init__(self, work: Work) -> None:
        self.work = work
