"""An answer as the reference log stores it (its ``to_json()`` form), and back."""

from __future__ import annotations

from typing import Any

from crawlers.model import SourceType
from docbot.answer import Answer, Clarification, Group, Reference, Resolution, Status


def _reference(data: dict[str, Any]) -> Reference:
    return Reference(
        n=int(data["n"]), url=str(data["url"]), title=str(data.get("title", "")),
        path=tuple(data.get("path", ())), source_type=str(data.get("source_type", SourceType.OTHER)),
        site=str(data.get("site", "")), primary=bool(data.get("primary", False)), snippet=str(data.get("snippet", "")),
        quote=str(data.get("quote", "")),
    )


def answer_from_json(data: dict[str, Any]) -> Answer:
    """Rebuild an :class:`Answer` from its ``to_json()`` form (what the log stores)."""
    return Answer(
        question=str(data.get("question", "")), status=Status(data.get("status", Status.ANSWERED)),
        answer=str(data.get("answer", "")), confidence=float(data.get("confidence", 0.0)),
        resolution=Resolution(data.get("resolution", Resolution.NONE)), generator=str(data.get("generator", "extractive")),
        references=tuple(_reference(r) for r in data.get("references", ())),
        groups=tuple(Group(str(g["type"]), tuple(int(n) for n in g["refs"])) for g in data.get("groups", ())),
        timings_ms={str(k): float(v) for k, v in data.get("timings_ms", {}).items()},
        error=data.get("error"),
        clarification=Clarification.from_json(clarify) if isinstance(clarify := data.get("clarification"), dict) else None,
        generations={str(k): int(v) for k, v in (data.get("generations") or {}).items()},
        flagged=bool(data.get("flagged", False)), fallback=data.get("fallback"),
    )


def answer_site(data: dict[str, Any]) -> str | None:
    """The site an answer (its ``to_json()`` form) is about: its first source's, else the one site it was asked of."""
    for ref in data.get("references", ()):
        if isinstance(ref, dict) and ref.get("site"):
            return str(ref["site"])
    sites = list(data.get("generations") or {})
    return str(sites[0]) if len(sites) == 1 else None


def without_words(data: dict[str, Any]) -> dict[str, Any]:
    """A stored answer with the asker's words taken out (the question, the answer's text, what it asked back); its
    links, their quotes and its figures stay, for refresh's re-check of the links sent."""
    kept = {**data, "question": "", "answer": ""}
    if isinstance(clarify := data.get("clarification"), dict):
        kept["clarification"] = {**clarify, "question": ""}
    return kept
