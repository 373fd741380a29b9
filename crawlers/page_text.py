"""A page's visible text as a browser's find-in-page reads it: what a text directive (``#id:~:text=…``) is checked against.

Recorded by the crawl's one parse of the page (:mod:`crawlers.parse.visible_text`) and stored per site beside the section
texts (:func:`crawlers.texts.write_page_texts`), so that checking a directive never fetches. Plain data, no parser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    ``hidden``: the text the runs leave out that a browser might still search (an SVG's text, a ``hidden`` element a
    style sheet may show, form controls…), each as (the run it stands in or before, its offset in that run, its text);
    None when it is not known (a page text recorded by an older crawl, or too much of it): then no directive is safe.
    ``styles``: the style sheets the page links for the screen; ``lazy_here``: its own styles set
    ``content-visibility: auto``; ``lazy``: some style of it does (:mod:`crawlers.parse.styles`), judged by the crawl
    once its sheets are read (:mod:`crawlers.crawl.styles`); None when not known: then no directive is safe either.
    One string a page, not one a run: it is pickled back from the parse workers, written and read as it is.
    """

    url: str
    text: str
    tags: tuple[int, ...]
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()
    ids: Mapping[str, int] = field(default_factory=dict)
    hidden: tuple[tuple[int, int, str], ...] | None = ()
    styles: tuple[str, ...] = ()
    lazy_here: bool = False
    lazy: bool | None = False

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
            "hidden": None if self.hidden is None else [list(piece) for piece in self.hidden],
            "styles": list(self.styles),
            "lazy_here": self.lazy_here,
            "lazy": self.lazy,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageText:
        return cls(
            data["url"],
            str(data.get("text", "")),
            tuple(data.get("tags", ())),
            tuple((int(level), tuple(ids)) for level, ids in data.get("sections", ())),
            dict(data.get("ids", {})),
            _hidden(data.get("hidden")),
            tuple(data.get("styles", ())),
            bool(data.get("lazy_here", False)),
            data.get("lazy"),  # none recorded (an older crawl): not known
        )

    def laid_out_as(self, before: PageText) -> PageText:
        """This page text (read again from the page as served now, its sheets not read) with what ``before`` (the
        crawl's text of the page) knew of its sheets: lazy when its own styles are, as before when it links the same
        sheets and its own styles did not decide before, else not known."""
        if self.lazy_here:
            lazy: bool | None = True
        else:
            lazy = before.lazy if self.styles == before.styles and not before.lazy_here else None
        return self if lazy is self.lazy else replace(self, lazy=lazy)

    def with_text(self) -> str:
        """The runs and the text left out, in document order, on one line (blocks joined by spaces): every place a
        browser may find a directive's text, whatever a style sheet shows (a piece is put where it stands)."""
        if not self.hidden:
            return self.text.replace("\n", " ")
        pieces: dict[int, list[tuple[int, str]]] = {}
        for index, offset, text in self.hidden:
            pieces.setdefault(index, []).append((offset, text))
        runs = self.text.split("\n") if self.tags else []
        out: list[str] = []
        for index in range(max(len(runs), max(pieces) + 1)):
            run = runs[index] if index < len(runs) else ""
            at = 0
            for offset, text in pieces.get(index, ()):
                out.append(run[at:offset])
                out.append(text)
                at = max(at, offset)
            out.append(run[at:])
        return " ".join(part.strip() for part in out if part.strip())

    @classmethod
    def of_runs(cls, url: str, runs: Sequence[tuple[int, str]], sections: tuple[tuple[int, tuple[str, ...]], ...] = (),
                ids: Mapping[str, int] | None = None, hidden: tuple[tuple[int, int, str], ...] = ()) -> PageText:
        """A page text from (section index, text) runs (tests and tools build them so)."""
        return cls(url, "\n".join(text for _, text in runs), tuple(s for s, _ in runs), sections, dict(ids or {}),
                   hidden)


def _hidden(data: Any) -> tuple[tuple[int, int, str], ...] | None:
    """The stored pieces of left-out text; None when the page text was recorded without them (or with too many)."""
    if data is None:
        return None
    return tuple((int(run), int(offset), str(text)) for run, offset, text in data)
