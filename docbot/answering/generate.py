"""Step 2: phrase an answer from numbered sources with an OpenAI-compatible chat model (langchain-openai).

The model sees only the facts compression chose (:mod:`docbot.answering.compress`), under
their numbered sources, rephrases them and cites them as ``[n]``; it never
writes references (the validator strips any URL it invents anyway). Any
failure — timeout, 5xx, rate limit, a prompt over the context window, a server gone mid-answer, an empty or
marker-less reply, or no reply within the budget (:data:`LLM_BUDGET_S` unless set) in all — raises :class:`~docbot.errors.GenerationError`
so the pipeline falls back to the extractive answerer.

The chat model comes from :data:`docbot.providers.CHAT`: ``DOCBOT_LLM_MODEL`` is a model name for the
OpenAI-compatible server (``openai``, the default provider), ``ollama:<model>`` for a local Ollama, or
``llamacpp:<model>`` for llama-cpp-python's server. The prompt is fitted to the model's context window
(:mod:`docbot.answering.window`), and an answer that cites none of the sources it was shown is a failure too.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from docbot.answering.compress import Fact, facts_of
from docbot.answering.window import Messages, held_to_sources, pack, states_a_fact
from docbot.config import Settings
from docbot.errors import ConfigError, GenerationError
from docbot.providers import CHAT, NO_KEY, Spec

DEFAULT_MODEL = "gpt-4o-mini"
OLLAMA_URL = "http://127.0.0.1:11434/v1"  # Ollama's OpenAI-compatible API, when OPENAI_BASE_URL names none
LLAMACPP_URL = "http://127.0.0.1:8000/v1"  # `python -m llama_cpp.server`'s default
TIMEOUT_S = 9.0  # per HTTP request (the client's own timeout; a dripping server can outlast it)
MAX_RETRIES = 1  # one retry on 429/5xx, then the extractive fallback answers
LLM_BUDGET_S = 20.0  # the whole LLM call, retries included: the asker waits no longer
MAX_SOURCE_CHARS = 2500  # per source, so one source's facts cannot crowd out the others
MAX_TOKENS = 600
PROBE_TIMEOUT_S = 5.0  # asking the server for its context window, once
WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "n_ctx")  # in /v1/models, as servers name it
_CONTEXT_ERROR = re.compile(r"context (?:window|length)|maximum context|too many tokens|prompt is too long", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:\s*\[\d+(?:,\s*\d+)*\])*(?=\s|$)|\](?=\s*$)")
_WINDOW = re.compile(r"context (?:window|length) (?:of |is )?(\d+)", re.I)

log = logging.getLogger(__name__)

SYSTEM_PROMPT = """You answer questions about software documentation by rephrasing ONLY the numbered facts below.
Each fact was copied from a documentation source; its [n] is that source's number.
Rules:
- State only what the facts state. Do not add anything from your own knowledge, even if it seems helpful.
- Cite every statement with the number of the fact's source in square brackets, like [1] or [2][3].
- Never write URLs, links, page names or section names as references; the [n] markers are the only citations.
- If the facts do not answer the question, say that the documentation does not cover it, in one sentence.
- Be concise: a short paragraph, plus a short code example only if a fact contains one, copied unchanged."""


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered source as the generator sees it."""

    n: int
    title: str
    path: tuple[str, ...]
    text: str
    context: str = ""  # the parent section's lead, for a tiny subsection
    facts: tuple[Fact, ...] = ()  # what compression chose from this source (docbot.answering.compress)


class Generator(Protocol):
    name: str  # "llm" | "extractive"

    def generate(self, question: str, passages: Sequence[Passage]) -> str: ...


def render_sources(facts: Sequence[Fact], passages: Sequence[Passage], limit: int = MAX_SOURCE_CHARS) -> str:
    """The numbered facts of the prompt, grouped under their source's path (whole sections are never sent)."""
    blocks = []
    for p in passages:
        own = [f.text for f in facts if f.n == p.n]
        if not own:
            continue
        body = "\n".join(f"- {text}" for text in own)
        blocks.append(f"[{p.n}] {' › '.join(p.path) or p.title}\n{body[:limit]}")
    return "\n\n".join(blocks)


def messages(question: str, passages: Sequence[Passage], facts: Sequence[Fact] | None = None) -> Messages:
    """The prompt: the rules, then ``facts`` (those compression chose, by default) under their numbered sources."""
    facts = facts_of(question, passages) if facts is None else facts
    return [
        ("system", SYSTEM_PROMPT),
        ("human", f"Facts:\n\n{render_sources(facts, passages)}\n\nQuestion: {question}\n\n"
                  "Answer by rephrasing the facts, with [n] citations:"),
    ]


class LLMGenerator:
    """An OpenAI-compatible chat model; ``chat`` may be any LangChain chat model (tests inject one).

    The prompt holds the facts that fit ``context`` tokens (configured, else the window the server reports, else
    every fact) with ``max_tokens`` kept free for the answer. The answer is read as a stream, so a call given up
    at the end of ``budget`` is closed, and the server stops writing it (llama.cpp would otherwise finish an
    answer nobody reads before it starts on the next question)."""

    name = "llm"

    def __init__(self, chat: Any, budget: float = LLM_BUDGET_S, context: int | None = None,
                 max_tokens: int = MAX_TOKENS) -> None:
        self.chat = chat
        self.budget = budget
        self.context = context
        self.max_tokens = max_tokens
        self._probed = context is not None

    def generate(self, question: str, passages: Sequence[Passage]) -> str:
        deadline = time.monotonic() + self.budget
        facts = facts_of(question, passages)
        packed = pack(lambda chosen: messages(question, passages, chosen), facts, self.window(), self.max_tokens)
        try:
            text = self._within(packed.messages, deadline)
        except _ContextExceeded as exc:  # the server's window is smaller than we were told: learn it, pack again
            if exc.window is None or exc.window == self.context or time.monotonic() >= deadline:
                raise exc
            log.warning("the LLM server's context window is %d tokens, not %s: packing to it", exc.window, self.context)
            self.context = exc.window
            packed = pack(lambda chosen: messages(question, passages, chosen), facts, exc.window, self.max_tokens)
            text = self._within(packed.messages, deadline)
        if not text.strip():
            raise GenerationError("The LLM returned an empty answer; answered extractively")
        sent = [f for f in facts if f.n in packed.sent]
        return states_a_fact(held_to_sources(text, packed.sent), sent, question)

    def window(self) -> int | None:
        """The context window: configured, else what the server reports (asked once), else None (unknown)."""
        if not self._probed:
            self._probed = True
            self.context = server_window(self.chat)
        return self.context

    def _within(self, prompt: Messages, deadline: float) -> str:
        """The answer's text, streamed within what is left of the budget; the stream is closed when it runs out."""
        box: dict[str, Any] = {"parts": []}
        stop = threading.Event()

        def call() -> None:
            try:
                stream = getattr(self.chat, "stream", None)
                if stream is not None and _streamed(stream(prompt), box, stop):
                    return
                # A bare chat model (tests) has no stream; a stream that failed before its first chunk is asked again
                # without streaming, which says why (llama-cpp-python: a 400 naming its window).
                box.pop("finish", None)
                try:
                    reply = self.chat.invoke(prompt)
                except Exception as exc:
                    if stream is None or not _connection_failure(exc):
                        raise
                    reply = self.chat.invoke(prompt)  # the broken stream's connection went back to the pool, dead
                box["parts"] = [_text(reply)]
            except Exception as exc:  # noqa: BLE001 - every failure of the edge becomes one fallback path
                box["error"] = exc

        worker = threading.Thread(target=call, name="docbot-llm", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            stop.set()
            raise GenerationError(f"The LLM gave no answer within {self.budget:g} s; answered extractively")
        if "error" in box:
            raise _failure(box["error"])
        text = "".join(box["parts"])
        if "finish" in box and box["finish"] is None:
            raise GenerationError("The LLM server stopped mid-answer (its stream closed with no finish reason); "
                                  "answered extractively")
        return _whole_sentences(text) if box.get("finish") == "length" else text


def _streamed(chunks: Iterator[Any], box: dict[str, Any], stop: threading.Event) -> int:
    """Read ``chunks`` into ``box`` (its ``parts`` and ``finish`` reason) until done or ``stop``; the number read.
    The stream is closed either way, so a server that checks for a gone client stops writing."""
    read = 0
    try:
        for chunk in chunks:
            if stop.is_set():
                break
            read += 1
            box["parts"].append(_text(chunk))
            box["finish"] = getattr(chunk, "response_metadata", {}).get("finish_reason") or box.get("finish")
        else:  # a stream cut short (the server died) may end like a whole one; only the finish reason tells
            box.setdefault("finish", None)
    except Exception as exc:
        # llama-cpp-python refuses a prompt over its window after the stream's 200: the stream breaks (or is
        # empty: langchain's "No generation chunks were returned") before its first chunk
        if read or not (_connection_failure(exc) or isinstance(exc, ValueError)):
            raise
        log.info("the LLM's stream failed before its first chunk (%s); asking again without streaming", exc)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return read


class _ContextExceeded(GenerationError):
    """The server refused the prompt as longer than its context window (``window`` when its message says)."""

    def __init__(self, message: str, window: int | None) -> None:
        super().__init__(message)
        self.window = window


def _text(reply: Any) -> str:
    content = getattr(reply, "content", reply)
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content or ())


def _whole_sentences(text: str) -> str:
    """An answer cut at ``max_tokens`` without its unfinished last sentence (and the markers it would have had)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    return text[: ends[-1]] if ends else text


def _failure(exc: Exception) -> GenerationError:
    """The fallback's note for a failed call: a context-length refusal (with the window it names), a server gone
    mid-answer, or any other failure."""
    message = " ".join(str(exc).split())[:300]
    if _CONTEXT_ERROR.search(message):
        found = _WINDOW.search(message)
        return _ContextExceeded(f"The LLM server refused the prompt as longer than its context window ({message}); "
                                "answered extractively", int(found.group(1)) if found else None)
    kind = type(exc).__name__
    if _connection_failure(exc):
        return GenerationError(f"The LLM server could not be reached or stopped mid-answer ({kind}: {message}); "
                               "answered extractively")
    return GenerationError(f"The LLM call failed ({kind}: {message}); answered extractively")


def _connection_failure(exc: BaseException) -> bool:
    """The connection failed or broke (openai's APIConnectionError, httpx's RemoteProtocolError, ReadError…)."""
    return any(word in type(exc).__name__ for word in ("Connection", "Connect", "Protocol", "ReadError", "Timeout"))


def server_window(chat: Any) -> int | None:
    """The context window the chat model's server reports in ``/v1/models`` (vLLM's ``max_model_len``, or a
    ``context_length``/``n_ctx`` field), None when it reports none or cannot be asked. llama-cpp-python's server
    reports none: set its ``--n_ctx`` as DOCBOT_LLM_CONTEXT."""
    client = getattr(chat, "root_client", None)
    if client is None:
        return None
    try:
        models = client.with_options(timeout=PROBE_TIMEOUT_S, max_retries=0).models.list()
        for model in models:
            extra = {**(model.model_extra or {}), **((model.model_extra or {}).get("meta") or {})}
            for key in WINDOW_FIELDS:
                if isinstance(extra.get(key), int) and extra[key] > 0:
                    return int(extra[key])
    except Exception as exc:  # noqa: BLE001 - unknown is an answer: every fact is sent, as before
        log.info("the LLM server did not say its context window (%s: %s)", type(exc).__name__, exc)
    return None


def openai_chat(model: str, base_url: str | None = None, api_key: str | None = None, **client: Any) -> Any:
    """ChatOpenAI for any OpenAI-compatible server; the key is passed as a value (never put in the environment),
    ``client`` overrides the options (http_client, max_retries…)."""
    from langchain_openai import ChatOpenAI

    options: dict[str, Any] = {
        "model": model,
        "base_url": base_url,
        "api_key": api_key or NO_KEY,
        "temperature": 0,
        "timeout": TIMEOUT_S,
        "max_retries": MAX_RETRIES,
        "max_tokens": MAX_TOKENS,
    }
    return ChatOpenAI(**{**options, **client})


def _client(settings: Settings, retries: int = MAX_RETRIES, local: bool = False) -> dict[str, Any]:
    """The client's options settings decide: a request may take the whole budget when one is set (a local model
    reads a long prompt before its first token), and ``max_tokens``. langchain-openai sends that as
    ``max_completion_tokens``, which llama-cpp-python's server ignores (it then writes until its context window is
    full): a ``local`` server gets ``max_tokens`` as well."""
    limit = settings.llm_max_tokens or MAX_TOKENS
    options: dict[str, Any] = {"max_tokens": limit, "max_retries": retries}
    if local:
        options["extra_body"] = {"max_tokens": limit}
    if settings.llm_budget_s is not None:
        options["timeout"] = max(TIMEOUT_S, settings.llm_budget_s)
    return options


@CHAT.register("openai", "<model> or openai:<model> (with OPENAI_API_KEY or OPENAI_BASE_URL)")
def _openai(spec: Spec, settings: Settings) -> Any:
    """None (answer extractively) unless OPENAI_API_KEY, or a base URL for a keyless local server, is set."""
    base_url = settings.llm_base_url or settings.openai_base_url
    if not (settings.openai_api_key or base_url):
        return None
    return openai_chat(spec.name or DEFAULT_MODEL, base_url, settings.openai_api_key, **_client(settings))


@CHAT.register("ollama", "ollama:<model>")
def _ollama(spec: Spec, settings: Settings) -> Any:
    if not spec.name:
        raise ConfigError(f"DOCBOT_LLM_MODEL={spec.text!r} names no model: give the one Ollama serves, "
                          "e.g. ollama:llama3.1:8b")
    return openai_chat(spec.name, settings.llm_base_url or settings.openai_base_url or OLLAMA_URL,
                       settings.openai_api_key, **_client(settings, local=True))


@CHAT.register("llamacpp", "llamacpp:<model> (llama-cpp-python's server; set DOCBOT_LLM_CONTEXT to its --n_ctx)")
def _llamacpp(spec: Spec, settings: Settings) -> Any:
    """llama-cpp-python's server (``python -m llama_cpp.server``): keyless, on LLAMACPP_URL unless a base URL is
    set; never retried (a retry reads the whole prompt again on a slow CPU)."""
    return openai_chat(spec.name or "local", settings.llm_base_url or settings.openai_base_url or LLAMACPP_URL,
                       settings.openai_api_key, **_client(settings, retries=0, local=True))


def generator_from_settings(settings: Settings) -> Generator | None:
    """The LLM generator settings name, else None (the pipeline then answers extractively)."""
    chat = CHAT.create(settings.llm or DEFAULT_MODEL, settings)
    if chat is None:
        return None
    return LLMGenerator(chat, budget=settings.llm_budget_s or LLM_BUDGET_S, context=settings.llm_context,
                        max_tokens=settings.llm_max_tokens or MAX_TOKENS)


@dataclass(frozen=True, slots=True)
class Generated:
    """The answer's text, the generator that wrote it, and why the LLM's answer was not used (None when it was)."""

    generator: str
    text: str
    fallback: str | None = None


def generate_or_fallback(llm: Generator | None, extractive: Generator, question: str,
                         passages: Sequence[Passage]) -> Generated:
    """The LLM's answer, else the extractive one with the reason as its note: the question is never lost."""
    note = None
    if llm is not None:
        try:
            return Generated(llm.name, llm.generate(question, passages))
        except GenerationError as exc:
            note = str(exc)
            log.warning("LLM fallback: %s", exc)
    return Generated(extractive.name, extractive.generate(question, passages), note)
