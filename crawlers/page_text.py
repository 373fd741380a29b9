"""A page's visible text as a browser's find-in-page reads it: what a text directive (``#id:~:text=…``) is checked against.

Recorded by the crawl's one parse of the page (:mod:`crawlers.visible_text`) and stored per site beside the section
texts (:func:`crawlers.model.save_page_texts`), so that checking a directive never fetches. Plain data, no parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OUTSIDE = -1  # the section index of text outside every section (navigation, sidebars, a page's preamble)


@dataclass(frozen=True, slots=True)
class PageText:
    """The visible text of one page, cut where a browser stops a match.

    ``runs``: (section index, text) in document order: the text of one block (a paragraph, a list item, a heading,
    a table cell…) across its inline elements, whitespace collapsed, invisible elements (script, style, template,
    ``hidden``, ``display:none``, the head) left out. A match never crosses from one run to the next.
    ``sections``: (level, ids) of each section of the page in document order, the same sections as the map's
    (``ids``: its anchor first, then the ids that land on the same place; empty for a section without one); a run's
    section index points here, :data:`OUTSIDE` for text outside every section.
    ``ids``: every other id of the page (and ``<a name>``) → the index of the run its element starts at.
    """

    url: str
    runs: tuple[tuple[int, str], ...]
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()
    ids: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "sections": [[level, list(ids)] for level, ids in self.sections],
            "runs": [[section, text] for section, text in self.runs],
            "ids": dict(sorted(self.ids.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageText:
        return cls(
            data["url"],
            tuple((int(s), str(t)) for s, t in data.get("runs", ())),
            tuple((int(level), tuple(ids)) for level, ids in data.get("sections", ())),
            {str(k): int(v) for k, v in data.get("ids", {}).items()},
        )
