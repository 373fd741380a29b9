"""A page's visible text as a browser's find-in-page reads it: what a text directive (``#id:~:text=…``) is checked against.

Recorded by the crawl's one parse of the page (:mod:`crawlers.visible_text`) and stored per site beside the section
texts (:func:`crawlers.model.save_page_texts`), so that checking a directive never fetches. Plain data, no parser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

OUTSIDE = -1  # the section index of text outside every section (navigation, sidebars, a page's preamble)


@dataclass(frozen=True, slots=True)
class PageText:
    """The visible text of one page, cut where a browser stops a match.

    ``text``: its runs joined with newlines (no run holds one), in document order; a run is the text of one block (a
    paragraph, a list item, a heading, a table cell…) across its inline elements, whitespace collapsed, invisible
    elements (script, style, template, ``hidden``, ``display:none``, the head) left out. A match never crosses from
    one run to the next. ``tags``: each run's section, an index into ``sections`` (:data:`OUTSIDE`: none).
    ``sections``: (level, ids) of each section of the page in document order, the same sections as the map's
    (``ids``: its anchor first, then the ids that land on the same place; empty for a section without one).
    ``ids``: every other id of the page (and ``<a name>``) → the index of the run its element starts at.
    One string a page, not one a run: it is pickled back from the parse workers, written and read as it is.
    """

    url: str
    text: str
    tags: tuple[int, ...]
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()
    ids: Mapping[str, int] = field(default_factory=dict)

    @property
    def runs(self) -> tuple[tuple[int, str], ...]:
        """(section index, text) of each run."""
        return tuple(zip(self.tags, self.text.split("\n"))) if self.tags else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "sections": [[level, list(ids)] for level, ids in self.sections],
            "tags": list(self.tags),
            "text": self.text,
            "ids": dict(sorted(self.ids.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageText:
        return cls(
            data["url"],
            str(data.get("text", "")),
            tuple(data.get("tags", ())),
            tuple((int(level), tuple(ids)) for level, ids in data.get("sections", ())),
            dict(data.get("ids", {})),
        )

    @classmethod
    def of_runs(cls, url: str, runs: Sequence[tuple[int, str]], sections: tuple[tuple[int, tuple[str, ...]], ...] = (),
                ids: Mapping[str, int] | None = None) -> PageText:
        """A page text from (section index, text) runs (tests and tools build them so)."""
        return cls(url, "\n".join(text for _, text in runs), tuple(s for s, _ in runs), sections, dict(ids or {}))
