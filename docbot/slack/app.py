"""The Slack bot: slack-bolt listeners over the answer pipeline.

Every listener acknowledges at once and hands the work to docbot's own
worker queue. Bolt keeps only a few listener threads and waits for ``ack()``
in them, so a listener that ran the pipeline itself would hold up the
acknowledgements of the requests queued behind it. Answers go back
through ``respond()`` (slash commands and buttons) or ``chat.postMessage``
in the question's thread (mentions and direct messages).

Nothing here talks to the pipeline's internals: the bot gets an ``Asker``
(``Pipeline`` in production, anything with ``ask()`` in tests), a
:class:`~docbot.reference_log.ReferenceLog` and a Bolt ``App``.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol

from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient

from docbot.answer import Answer, Status
from docbot.slack.blocks import (
    ACTION_CLARIFY_PATTERN,
    ACTION_DOWN,
    ACTION_SHARE,
    ACTION_UP,
    SEARCHING,
    Message,
    parse_option_value,
    render_answer,
    render_error,
    render_usage,
)
from docbot.reference_log import EVENT_TTL_S, ReferenceLog

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


class DocbotSlack:
    """The bot's behaviour, registered onto a Bolt app by :meth:`register`."""

    def __init__(self, asker: Asker, log_store: ReferenceLog | None, settings: SlackSettings | None = None) -> None:
        self.asker = asker
        self.store = log_store
        self.settings = settings or SlackSettings()
        self._jobs = ThreadPoolExecutor(max_workers=max(1, self.settings.workers), thread_name_prefix="docbot-answer")
        self._io = ThreadPoolExecutor(max_workers=IO_WORKERS, thread_name_prefix="docbot-slack-io")
        self._seen_events: dict[str, float] = {}  # used when the reference log is unavailable
        self._lock = threading.Lock()

    # -- wiring ------------------------------------------------------------
    def register(self, app: App) -> App:
        app.use(ReplayGuard())
        app.command(self.settings.command)(self._on_command)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.action(ACTION_UP)(self._on_feedback)
        app.action(ACTION_DOWN)(self._on_feedback)
        app.action(ACTION_SHARE)(self._on_share)
        app.action(ACTION_CLARIFY_PATTERN)(self._on_clarify)
        return app

    def shutdown(self, wait: bool = True) -> None:
        """Finish (``wait``) or drop the queued answers and stop the workers."""
        self._jobs.shutdown(wait=wait, cancel_futures=not wait)
        self._io.shutdown(wait=wait, cancel_futures=not wait)

    def _submit(self, pool: ThreadPoolExecutor, fn: Callable[..., None], *args: Any) -> None:
        def run() -> None:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - a worker must survive anything one request does
                log.exception("unhandled error in %s", getattr(fn, "__name__", fn))

        pool.submit(run)

    # -- shared steps ------------------------------------------------------
    def _ask(self, question: str, context: Sequence[Any] = ()) -> Answer:
        return self.asker.ask(question, site=self.settings.site, context=context)

    def _record(self, answer: Answer, origin: str, user: str | None, channel: str | None,
                thread_ts: str | None) -> int | None:
        """Log the answer; on a storage fault the answer still goes out, only without buttons."""
        if self.store is None:
            return None
        try:
            return self.store.record(answer, origin, user, channel, thread_ts)
        except Exception:  # noqa: BLE001 - disk full, locked database…: answering matters more
            log.exception("could not write the reference log; answering without feedback buttons")
            return None

    def _context(self, channel: str, thread_ts: str) -> list[Any]:
        if self.store is None:
            return []
        try:
            return list(self.store.thread_turns(channel, thread_ts, CONTEXT_TURNS))
        except Exception:  # noqa: BLE001
            log.exception("could not read the thread's earlier answers; answering without context")
            return []

    def _first_seen(self, event_id: str | None) -> bool:
        """False for an event already handled (Slack re-sends an event when the first delivery looked lost)."""
        if not event_id:
            return True
        if self.store is not None:
            try:
                return self.store.first_seen(event_id)
            except Exception:  # noqa: BLE001
                log.exception("could not record the event id; de-duplicating in memory")
        now = time.time()
        with self._lock:
            for old in [e for e, t in self._seen_events.items() if now - t > EVENT_TTL_S]:
                del self._seen_events[old]
            if event_id in self._seen_events:
                return False
            self._seen_events[event_id] = now
            return True

    # -- slash command -----------------------------------------------------
    def _on_command(self, ack: Any, command: dict[str, Any], respond: Any) -> None:
        question = slack_to_text(command.get("text", ""))
        if not question:
            ack(text=render_usage(self.settings.command), response_type="ephemeral")
            return
        ack(text=SEARCHING, response_type="ephemeral")
        self._submit(self._jobs, self._answer_command, question, dict(command), respond)

    def _answer_command(self, question: str, command: dict[str, Any], respond: Any) -> None:
        try:
            answer = self._ask(question)
            answer_id = self._record(answer, "slash_command", command.get("user_id"), command.get("channel_id"), None)
            public = self.settings.public
            message = render_answer(answer, answer_id, shareable=not public and answer.status != Status.ERROR)
            respond(text=message.text, blocks=message.blocks, response_type="in_channel" if public else "ephemeral",
                    unfurl_links=False, unfurl_media=False)
        except Exception:  # noqa: BLE001
            request_id = new_request_id()
            log.exception("request %s: slash command failed for question %r", request_id, question[:200])
            self._respond_quietly(respond, render_error(request_id), response_type="ephemeral")

    @staticmethod
    def _respond_quietly(respond: Any, message: Message, **extra: Any) -> None:
        try:
            respond(text=message.text, blocks=message.blocks, **extra)
        except Exception:  # noqa: BLE001 - Slack unreachable: the log is all we have
            log.exception("could not post to the response_url")

    # -- mentions and direct messages ----------------------------------------
    def _on_mention(self, body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if str(event.get("channel", "")).startswith("D"):
            return  # direct messages are answered by the message listener
        if self._first_seen(body.get("event_id")):
            question = slack_to_text(event.get("text", ""))
            self._submit(self._jobs, self._answer_in_thread, question, dict(event), client, "mention")

    def _on_message(self, body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return  # edits, joins, bot posts (our own included) and channel chatter are not questions
        if self._first_seen(body.get("event_id")):
            question = slack_to_text(event.get("text", ""))
            self._submit(self._jobs, self._answer_in_thread, question, dict(event), client, "dm")

    def _answer_in_thread(self, question: str, event: dict[str, Any], client: WebClient, origin: str) -> None:
        channel, ts = str(event["channel"]), str(event["ts"])
        thread_ts = str(event.get("thread_ts") or ts)
        reacted = self._react(client, "reactions_add", channel, ts)
        try:
            if not question:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts,
                                        text="Ask me a question about the docs, e.g. “how do I set a cookie?”")
                return
            context = self._context(channel, thread_ts) if event.get("thread_ts") else []
            answer = self._ask(question, context)
            answer_id = self._record(answer, origin, event.get("user"), channel, thread_ts)
            message = render_answer(answer, answer_id)
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=message.text, blocks=message.blocks,
                                    unfurl_links=False, unfurl_media=False)
        except Exception:  # noqa: BLE001
            request_id = new_request_id()
            log.exception("request %s: %s in %s failed for question %r", request_id, origin, channel, question[:200])
            error = render_error(request_id)
            try:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=error.text, blocks=error.blocks)
            except Exception:  # noqa: BLE001
                log.exception("request %s: could not post the error message either", request_id)
        finally:
            if reacted:
                self._react(client, "reactions_remove", channel, ts)

    @staticmethod
    def _react(client: WebClient, method: str, channel: str, ts: str) -> bool:
        """👀 on the question while working; best effort (a missing scope must not stop the answer)."""
        try:
            getattr(client, method)(channel=channel, timestamp=ts, name=WORKING_REACTION)
            return True
        except Exception as exc:  # noqa: BLE001
            log.warning("%s failed: %s", method, exc)
            return False

    # -- buttons -----------------------------------------------------------
    @staticmethod
    def _answer_id(action: dict[str, Any]) -> int | None:
        try:
            return int(action.get("value", ""))
        except (TypeError, ValueError):
            return None

    def _on_feedback(self, ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        ack()
        answer_id, user = self._answer_id(action), body.get("user", {}).get("id", "")
        vote = 1 if action.get("action_id") == ACTION_UP else -1
        self._submit(self._io, self._store_feedback, answer_id, user, vote, respond)

    def _store_feedback(self, answer_id: int | None, user: str, vote: int, respond: Any) -> None:
        stored = False
        if answer_id is not None and self.store is not None:
            try:
                stored = self.store.add_feedback(answer_id, user, vote)
            except Exception:  # noqa: BLE001
                log.exception("could not store feedback for answer %s", answer_id)
        text = "Thanks for the feedback!" if stored else "Sorry, that feedback could not be saved."
        self._respond_quietly(respond, Message(text=text, blocks=[]), response_type="ephemeral",
                              replace_original=False)

    def _on_share(self, ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        ack()
        self._submit(self._io, self._share, self._answer_id(action), body.get("user", {}).get("id"), respond)

    def _share(self, answer_id: int | None, user: str | None, respond: Any) -> None:
        answer = None
        if answer_id is not None and self.store is not None:
            try:
                answer = self.store.get(answer_id)
            except Exception:  # noqa: BLE001
                log.exception("could not read answer %s", answer_id)
        if answer is None:
            self._respond_quietly(respond, Message(text="Sorry, that answer is no longer available to share.", blocks=[]),
                                  response_type="ephemeral", replace_original=False)
            return
        message = render_answer(answer, answer_id, shareable=False, shared_by=user)
        try:
            respond(text=message.text, blocks=message.blocks, response_type="in_channel", replace_original=False,
                    unfurl_links=False, unfurl_media=False)
        except Exception:  # noqa: BLE001
            log.exception("could not share answer %s", answer_id)
            return
        self._respond_quietly(respond, Message(text="", blocks=[]), delete_original=True)


    # -- clarifying options ----------------------------------------------------
    def _on_clarify(self, ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient,
                    respond: Any) -> None:
        ack()
        chosen = parse_option_value(str(action.get("value", "")))
        if chosen is None:
            gone = Message(text="Sorry, that option is no longer available — please ask again.", blocks=[])
            self._submit(self._io, partial(self._respond_quietly, respond, gone, response_type="ephemeral",
                                           replace_original=False))
            return
        self._submit(self._jobs, self._answer_option, chosen, dict(body), client, respond)

    def _answer_option(self, chosen: tuple[str, str, str], body: dict[str, Any], client: WebClient,
                       respond: Any) -> None:
        """Answer the reading the user picked, in the question's thread (or privately, under a private answer)."""
        question, url, site = chosen
        container = body.get("container") or {}
        message = body.get("message") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        ts = message.get("ts") or container.get("message_ts")
        thread_ts = str(message.get("thread_ts") or container.get("thread_ts") or ts or "")
        user = (body.get("user") or {}).get("id")
        in_thread = bool(channel and thread_ts and not container.get("is_ephemeral"))
        try:
            # The option's section link in the question makes it an explicit reference: the resolver puts it first.
            answer = replace(self.asker.ask(f"{question} {url}", site=site), question=question)
            answer_id = self._record(answer, "clarify", user, channel if in_thread else None,
                                     thread_ts if in_thread else None)
            reply = render_answer(answer, answer_id, shareable=not in_thread and answer.status != Status.ERROR)
            if in_thread:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=reply.text, blocks=reply.blocks,
                                        unfurl_links=False, unfurl_media=False)
            else:
                respond(text=reply.text, blocks=reply.blocks, response_type="ephemeral", replace_original=False,
                        unfurl_links=False, unfurl_media=False)
        except Exception:  # noqa: BLE001
            request_id = new_request_id()
            log.exception("request %s: answering a clarifying option failed for %r", request_id, question[:200])
            self._respond_quietly(respond, render_error(request_id), response_type="ephemeral", replace_original=False)


def web_client(token: str, api_url: str | None = None) -> WebClient:
    """A WebClient; ``api_url`` (env SLACK_API_URL) points it at a proxy or a local fake Slack API."""
    base = api_url or WebClient.BASE_URL
    return WebClient(token=token, base_url=base if base.endswith("/") else base + "/")


def build_app(bot: DocbotSlack, client: WebClient, signing_secret: str | None) -> App:
    """A Bolt app for ``bot``; requests are signature-checked whenever a signing secret is given (HTTP mode)."""
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=signing_secret is not None,
        token_verification_enabled=False,  # `docbot slack` checks the token itself, with a clearer message
        logger=logging.getLogger("docbot.slack.bolt"),
    )
    return bot.register(app)
