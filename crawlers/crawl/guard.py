"""The loss guard: whether a new crawl may replace the previous map of a site.

Pure. A crawl is refused when the site looks down (no page fetched or confirmed
unchanged), when too many pages failed and were only kept from the previous map,
or when too many of the previous pages, anchors or sections are gone. The last
catches a *soft* outage: every page answering 200 with a "Down for maintenance"
page keeps the page count but loses nearly every anchor and section.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crawlers.errors import CrawlRefused, SiteDown
from crawlers.model import AnchorMap, Rename

SHAPE_THRESHOLD = 0.5  # share of the anchors or sections a crawl may lose: "most of the site" is refused
MAX_SHAPE_LISTED = 5  # pages named in the refusal message (the exception carries them all)


@dataclass(frozen=True, slots=True)
class ShapeChange:
    """A page whose anchors or sections shrank: (old, new) counts."""

    url: str
    anchors: tuple[int, int]
    sections: tuple[int, int]

    def __str__(self) -> str:
        return (f"{self.url}: {self.anchors[0]} → {self.anchors[1]} anchors, "
                f"{self.sections[0]} → {self.sections[1]} sections")


@dataclass(frozen=True, slots=True)
class Loss:
    """Shares of the previous map that a new map no longer has (stale pages count as kept)."""

    pages: float = 0.0
    anchors: float = 0.0
    sections: float = 0.0
    stale: float = 0.0  # share of the previous pages only kept because their fetch failed
    changed: tuple[ShapeChange, ...] = ()  # pages that lost most of their anchors or sections, worst first


def measure(previous: AnchorMap | None, current: AnchorMap, renames: Iterable[Rename] = ()) -> Loss:
    """How much of ``previous`` is missing from ``current`` (a renamed anchor is not missing)."""
    if previous is None or not previous.pages:
        return Loss()
    old_anchors = old_sections = lost_anchors = lost_sections = lost_pages = stale = 0
    changed = []
    renamed = {(r.url, r.old) for r in renames}
    for url, old in previous.pages.items():
        new = current.pages.get(url)
        old_anchors += len(old.anchors)
        old_sections += len(old.sections)
        if new is None:
            lost_pages += 1
            lost_anchors += len(old.anchors)
            lost_sections += len(old.sections)
            continue
        stale += new.stale
        gone = sum(1 for a in set(old.anchors) - set(new.anchors) if (url, a) not in renamed)
        fewer = max(0, len(old.sections) - len(new.sections))
        lost_anchors += gone
        lost_sections += fewer
        if 2 * gone > len(old.anchors) or 2 * fewer > len(old.sections):
            changed.append(ShapeChange(url, (len(old.anchors), len(new.anchors)),
                                       (len(old.sections), len(new.sections))))
    changed.sort(key=lambda c: (-(c.anchors[0] - c.anchors[1]) - (c.sections[0] - c.sections[1]), c.url))
    n = len(previous.pages)
    return Loss(lost_pages / n, lost_anchors / max(old_anchors, 1), lost_sections / max(old_sections, 1),
                stale / n, tuple(changed))


def check(site: str, previous: AnchorMap | None, current: AnchorMap, reached: int, failed: int,
          threshold: float, path: str, force: bool = False, renames: Iterable[Rename] = ()) -> Loss:
    """Raise :class:`SiteDown` or :class:`CrawlRefused` when ``current`` must not replace ``previous``.

    ``reached``: pages fetched or confirmed unchanged (304); ``failed``: pages whose fetch failed.
    Pages may be lost up to ``threshold``; anchors and sections up to :data:`SHAPE_THRESHOLD`.
    A site that is down is refused even with ``force``: its map would say nothing new.
    """
    if reached == 0 and failed > 0:
        raise SiteDown(f"Every page of {site!r} failed ({failed} requests) — the site looks down; {path} was kept. "
                       "Check the site and try again later.")
    loss = measure(previous, current, renames)
    if previous is None or force:
        return loss
    if loss.stale > threshold:
        raise CrawlRefused(
            f"The crawl of {site!r} could not fetch {loss.stale:.0%} of its pages (more than {threshold:.0%}; "
            f"they failed and were only kept from the last crawl); {path} was kept. Check the site, then retry "
            f"(`docbot crawl --site {site} --force` accepts the result).", loss.changed)
    if loss.pages > threshold or max(loss.anchors, loss.sections) > SHAPE_THRESHOLD:
        shapes = "; ".join(str(c) for c in loss.changed[:MAX_SHAPE_LISTED])
        more = f" (+{len(loss.changed) - MAX_SHAPE_LISTED} more)" if len(loss.changed) > MAX_SHAPE_LISTED else ""
        changed = f" Pages that changed shape: {shapes}{more}." if shapes else ""
        raise CrawlRefused(
            f"The crawl of {site!r} lost {loss.pages:.0%} of its pages, {loss.anchors:.0%} of its anchors and "
            f"{loss.sections:.0%} of its sections (allowed: {threshold:.0%} of the pages, "
            f"{SHAPE_THRESHOLD:.0%} of the anchors or sections); {path} was kept.{changed} "
            f"Check the site, then run `docbot crawl --site {site} --force` to accept.", loss.changed)
    return loss
