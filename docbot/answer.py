"""What an answer is, as it passes from the pipeline to every output (CLI, JSON, Slack, report).

``Answer.to_json()`` is the `docbot ask --json` contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from crawlers.model import SourceType


class Status(StrEnum):
    """What became of a question."""

    ANSWERED = "answered"
    NEEDS_CLARIFICATION = "needs_clarification"  # a clarifying question, with a best-effort answer
    NOT_COVERED = "not_covered"
    ERROR = "error"


class Resolution(StrEnum):
    """How the sources were found: a reference the question named, retrieval, or nothing."""

    EXPLICIT = "explicit"
    SEMANTIC = "semantic"
    NONE = "none"


class LinkAction(StrEnum):
    """What the ReferenceValidator did to one URL."""

    KEPT = "kept"
    REWRITTEN = "rewritten"
    FRAGMENT_DROPPED = "fragment_dropped"
    LINK_DROPPED = "link_dropped"


STATUSES = tuple(Status)
ANSWERING = (Status.ANSWERED, Status.NEEDS_CLARIFICATION)  # statuses that carry an answer
RESOLUTIONS = tuple(Resolution)
DROPPED = (LinkAction.FRAGMENT_DROPPED, LinkAction.LINK_DROPPED)
GROUP_ORDER: tuple[SourceType, ...] = tuple(SourceType)  # the order every output lists references in


@dataclass(frozen=True, slots=True)
class Reference:
    """A validated deep link the answer cites as ``[n]``."""

    n: int
    url: str  # page URL + '#fragment' (omitted when it targets the page), with ':~:text=…' when it quotes a passage
    title: str
    path: tuple[str, ...]  # ("Page", "Section", "Subsection")
    source_type: str
    site: str
    primary: bool = False
    snippet: str = ""
    quote: str = ""  # the passage of the source the answer quotes (its url's text directive, if any, lands on it)

    @property
    def path_label(self) -> str:
        return " › ".join(self.path) if self.path else self.title

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "url": self.url,
            "title": self.title,
            "path": list(self.path),
            "source_type": self.source_type,
            "site": self.site,
            "primary": self.primary,
            "snippet": self.snippet,
            "quote": self.quote,
        }


@dataclass(frozen=True, slots=True)
class Group:
    type: str
    refs: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "refs": list(self.refs)}


@dataclass(frozen=True, slots=True)
class LinkOutcome:
    """What the ReferenceValidator did to one URL."""

    input: str
    output: str | None
    action: LinkAction
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"input": self.input, "output": self.output, "action": self.action, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ClarifyOption:
    """One reading a clarifying question offers: its label, the validated URL of its section, the site."""

    label: str
    url: str
    site: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "url": self.url, "site": self.site}


@dataclass(frozen=True, slots=True)
class Clarification:
    """What a ``needs_clarification`` answer asks back, with the readings it offers."""

    question: str
    options: tuple[ClarifyOption, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "options": [o.to_json() for o in self.options]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Clarification:
        options = (o for o in data.get("options", ()) if isinstance(o, dict))
        return cls(str(data.get("question", "")), tuple(
            ClarifyOption(str(o.get("label", "")), str(o.get("url", "")), str(o.get("site", ""))) for o in options))


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    status: Status
    answer: str
    confidence: float = 0.0
    resolution: Resolution = Resolution.NONE
    generator: str = "extractive"
    references: tuple[Reference, ...] = ()
    groups: tuple[Group, ...] = ()
    outcomes: tuple[LinkOutcome, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    signals: tuple[float, ...] = ()  # what confidence was computed from (docbot.answering.confidence.SIGNALS); not in JSON
    clarification: Clarification | None = None  # needs_clarification only; option URLs are validated
    generations: dict[str, int] = field(default_factory=dict)  # site → the generation of its data that answered
    flagged: bool = False  # answered, but the docs may not cover it: the answer's first line says so
    fallback: str | None = None  # why the configured LLM's answer was not used (the answer is then extractive)

    def validation_json(self) -> dict[str, Any]:
        kept = sum(1 for o in self.outcomes if o.action == LinkAction.KEPT)
        rewritten = [{"from": o.input, "to": o.output, "reason": o.reason} for o in self.outcomes
                     if o.action == LinkAction.REWRITTEN]
        dropped = [{"url": o.input, "reason": o.reason, "action": o.action} for o in self.outcomes if o.action in DROPPED]
        return {"kept": kept, "rewritten": rewritten, "dropped": dropped}

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "question": self.question,
            "status": self.status,
            "answer": self.answer,
            "confidence": round(self.confidence, 4),
            "resolution": self.resolution,
            "generator": self.generator,
            "references": [r.to_json() for r in self.references],
            "groups": [g.to_json() for g in self.groups],
            "validation": self.validation_json(),
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }
        if self.flagged:
            data["flagged"] = True
        if self.fallback:
            data["fallback"] = self.fallback
        if self.clarification is not None:
            data["clarification"] = self.clarification.to_json()
        if self.generations:
            data["generations"] = dict(self.generations)
        if self.error:
            data["error"] = self.error
        return data
