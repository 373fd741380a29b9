"""What a label is: a question paired with the section that answers it, or with "not covered", and who said so.

Pure data, no I/O. The reference log stores labels (:mod:`docbot.reference_log`); learning reads them.
:func:`label_row` is the JSON Lines row of ``docbot labels export``, the same form a curator's file takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class LabelSource(StrEnum):
    """Where a label came from."""

    VOTE_UP = "vote_up"  # 👍 on an answer: confirms its first source
    PICK = "pick"  # after 👎, the voter picked this section among the candidates shown
    NONE_OF_THESE = "none_of_these"  # after 👎, "None of these": not covered (url None) ...
    SHOWN_REJECTED = "shown_rejected"  # ... and a negative for every section shown (polarity -1, url set)
    REPHRASE = "rephrase"  # a rephrase in the same thread after a 👎: a weak negative for the first answer's source
    CURATOR = "curator"  # a curator's file or Slack action


@dataclass(frozen=True, slots=True)
class Label:
    """A (question, section) pair, or (question, not covered) when ``url`` is None, with who, where and when."""

    site: str
    question: str
    url: str | None  # the deep URL (page#fragment) as the site's anchor map knows it; None: not covered
    polarity: int  # +1 the section answers the question; -1 it does not
    source: LabelSource
    user_id: str | None  # the Slack user id, or the curator's name ("cli:<login>" from the command line)
    channel: str | None = None
    answer_id: int | None = None  # the logged answer the label was given on, when any
    weight: float = 1.0  # 1 for strong evidence; less for weak (a rephrase)
    curator: bool = False  # given by a curator: counts without agreement
    created_at: float = 0.0  # seconds since the epoch; the store sets it when 0

    def __post_init__(self) -> None:
        if self.polarity not in (1, -1):
            raise ValueError(f"a label's polarity is +1 or -1, not {self.polarity!r}")
        if not self.weight > 0:
            raise ValueError(f"a label's weight is above 0, not {self.weight!r}")


@dataclass(frozen=True, slots=True)
class StoredLabel:
    """A label as the store keeps it, with its id (what ``docbot labels remove --id`` names)."""

    id: int
    label: Label


def label_row(label: Label) -> dict[str, Any]:
    """The JSON Lines row of a label: ``question``, ``url`` (``page#fragment`` or null for not covered), ``polarity``
    (+1 or -1: a negative row says the section does not answer), ``site``, ``user``, ``source``, ``weight`` and
    ``created_at`` (ISO 8601, UTC)."""
    when = datetime.fromtimestamp(label.created_at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"question": label.question, "url": label.url, "polarity": label.polarity, "site": label.site,
            "user": label.user_id, "source": str(label.source), "weight": label.weight, "created_at": when}
