"""Step 2: phrase an answer from numbered sources with an OpenAI-compatible chat model (langchain-openai).

The model sees only the facts compression chose (:mod:`docbot.answering.compress`), under
their numbered sources, rephrases them and cites them as ``[n]``; it never
writes references (the validator strips any URL it invents anyway). Any
failure — timeout, 5xx, rate limit, empty reply, or no reply within
:data:`LLM_BUDGET_S` in all — raises :class:`~docbot.errors.GenerationError`
so the pipeline falls back to the extractive answerer.

The chat model comes from :data:`docbot.providers.CHAT`: ``DOCBOT_LLM_MODEL`` is a model name for the
OpenAI-compatible server (``openai``, the default provider), or ``ollama:<model>`` for a local Ollama.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from docbot.answering.compress import Fact, facts_of
from docbot.config import Settings
from docbot.errors import ConfigError, GenerationError
from docbot.providers import CHAT, NO_KEY, Spec

DEFAULT_MODEL = "gpt-4o-mini"
OLLAMA_URL = "http://127.0.0.1:11434/v1"  # Ollama's OpenAI-compatible API, when OPENAI_BASE_URL names none
TIMEOUT_S = 9.0  # per HTTP request (the client's own timeout; a dripping server can outlast it)
MAX_RETRIES = 1  # one retry on 429/5xx, then the extractive fallback answers
LLM_BUDGET_S = 20.0  # the whole LLM call, retries included: the asker waits no longer
MAX_SOURCE_CHARS = 2500  # per source, so one source's facts cannot crowd out the others
MAX_TOKENS = 600

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


def messages(question: str, passages: Sequence[Passage]) -> list[tuple[str, str]]:
    facts = facts_of(question, passages)
    return [
        ("system", SYSTEM_PROMPT),
        ("human", f"Facts:\n\n{render_sources(facts, passages)}\n\nQuestion: {question}\n\n"
                  "Answer by rephrasing the facts, with [n] citations:"),
    ]


class LLMGenerator:
    """An OpenAI-compatible chat model; ``chat`` may be any LangChain chat model (tests inject one)."""

    name = "llm"

    def __init__(self, chat: Any, budget: float = LLM_BUDGET_S) -> None:
        self.chat = chat
        self.budget = budget

    def generate(self, question: str, passages: Sequence[Passage]) -> str:
        reply = self._invoke(messages(question, passages))
        content = getattr(reply, "content", reply)
        text = content if isinstance(content, str) else "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content or ()
        )
        if not text.strip():
            raise GenerationError("The LLM returned an empty answer; answered extractively")
        return text.strip()


    def _invoke(self, prompt: list[tuple[str, str]]) -> Any:
        """``chat.invoke`` within the budget; a call still running then is left to finish in the background."""
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["reply"] = self.chat.invoke(prompt)
            except Exception as exc:  # noqa: BLE001 - every failure of the edge becomes one fallback path
                box["error"] = exc

        worker = threading.Thread(target=call, name="docbot-llm", daemon=True)
        worker.start()
        worker.join(self.budget)
        if worker.is_alive():
            raise GenerationError(f"The LLM gave no answer within {self.budget:g} s; answered extractively")
        if "error" in box:
            exc = box["error"]
            raise GenerationError(f"The LLM call failed ({type(exc).__name__}: {exc}); answered extractively") from exc
        return box["reply"]


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


@CHAT.register("openai", "<model> or openai:<model> (with OPENAI_API_KEY or OPENAI_BASE_URL)")
def _openai(spec: Spec, settings: Settings) -> Any:
    """None (answer extractively) unless OPENAI_API_KEY, or OPENAI_BASE_URL for a keyless local server, is set."""
    if not (settings.openai_api_key or settings.openai_base_url):
        return None
    return openai_chat(spec.name or DEFAULT_MODEL, settings.openai_base_url, settings.openai_api_key)


@CHAT.register("ollama", "ollama:<model>")
def _ollama(spec: Spec, settings: Settings) -> Any:
    if not spec.name:
        raise ConfigError(f"DOCBOT_LLM_MODEL={spec.text!r} names no model: give the one Ollama serves, "
                          "e.g. ollama:llama3.1:8b")
    return openai_chat(spec.name, settings.openai_base_url or OLLAMA_URL, settings.openai_api_key)


def generator_from_settings(settings: Settings) -> Generator | None:
    """The LLM generator settings name, else None (the pipeline then answers extractively)."""
    chat = CHAT.create(settings.llm or DEFAULT_MODEL, settings)
    return None if chat is None else LLMGenerator(chat)
