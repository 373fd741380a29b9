"""A crawl's counts and its result: the new anchor map, its change report, texts and mentions.

:class:`Tally` counts what the crawl did (requests, pages fetched, unchanged, failed…) and keeps a few URLs of each
kind of error; :func:`crawl_result` assembles the :class:`~crawlers.crawl.types.CrawlResult` from the pages the loop
kept (:mod:`crawlers.crawl.kept_pages`). The result never depends on completion order: pages, anchors and texts are sorted
before they leave.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from crawlers.crawl.diff import ChangeReport, diff_maps, merge_renames
from crawlers.crawl.issues import CrawlIssue, ErrorKind
from crawlers.crawl.kept_pages import KeptPages
from crawlers.crawl.pages import aggregate_pages
from crawlers.crawl.types import CrawlConfig, CrawlResult, CrawlStats
from crawlers.model import AnchorMap, SectionText, SourceType
from crawlers.parse.extract import EXTRACTOR_VERSION

MAX_ERROR_SAMPLES = 5


class Tally:
    """What one crawl did, counted: its statistics, its errors by kind and a few URLs of each."""

    def __init__(self) -> None:
        self.errors: Counter[ErrorKind] = Counter()
        self.samples: dict[ErrorKind, list[str]] = {}
        self.stats = Counter[str]()

    def error(self, kind: ErrorKind, url: str) -> None:
        self.errors[kind] += 1
        samples = self.samples.setdefault(kind, [])
        if len(samples) < MAX_ERROR_SAMPLES:
            samples.append(url)


def crawl_result(config: CrawlConfig, previous: AnchorMap | None, kept: KeptPages, tally: Tally,
                 rejected: Counter[CrawlIssue], crawled_at: str, duration: float,
                 previous_texts: Sequence[SectionText]) -> CrawlResult:
    """The crawl's result: ``kept`` as a new anchor map against ``previous``, with the frontier's ``rejected`` URLs
    counted among the errors."""
    texts = [t for url in sorted(kept.pages) for t in kept.texts.get(url, ())]
    copies = aggregate_pages(texts)  # all-in-one copies of other pages: valid anchors, no texts to index
    texts = [t for t in texts if t.url not in copies]
    pages = {url: dataclasses.replace(page, source_type=SourceType.OTHER) if url in copies else page
             for url, page in kept.merged_pages().items()}
    new_map = AnchorMap(site=config.site, base_url=config.start_url,
                        crawled_at=crawled_at, pages=pages, extractor=EXTRACTOR_VERSION)
    d = diff_maps(previous, new_map, previous_texts, texts)
    new_map.renames = merge_renames(previous, d.renames)
    report = ChangeReport(
        pages=len(pages),
        anchors=new_map.anchor_count(),
        sections=new_map.section_count(),
        pages_added=d.pages_added,
        pages_removed=d.pages_removed,
        anchors_added=d.anchors_added,
        anchors_removed=d.anchors_removed,
        renames=d.renames,
        stale=tuple(sorted(u for u, p in pages.items() if p.stale)),
        errors={str(k): n for k, n in sorted((tally.errors + Counter[ErrorKind](rejected)).items())},
        error_samples={str(k): tuple(sorted(v)) for k, v in sorted(tally.samples.items())},
        duration=duration,
    )
    stats = CrawlStats(**{k: tally.stats[k] for k in ("requests", "fetched", "not_modified", "failed",
                                                      "skipped", "bytes")})
    visible = [kept.page_texts[u] for u in sorted(kept.pages) if u in kept.page_texts and u not in copies]
    return CrawlResult(new_map, texts, report, stats, kept.resolved_mentions(new_map), visible)
