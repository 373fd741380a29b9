"""Scheduled refresh: recrawl each site incrementally, re-index what changed, re-check the reference log.

For every site, under its writer lock: a crawl into a new generation (conditional requests, or none with
``force``; refused when the site is down or too many pages, anchors or sections were lost), then indexing and
committing that generation (only changed chunks are re-embedded; readers move to it on their next question).
Afterwards every link docbot ever sent (the reference log) is checked against the newest maps; links that no
longer hold are listed with the validator's repaired target (a text directive whose text changed is dropped, or
derived again for the passage its answer quoted). The change report is written to
``<data-dir>/reports/refresh-<timestamp>.{md,json}``; the newest ``keep_reports`` refreshes' reports are kept.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawlers.errors import CrawlerError, CrawlRefused
from crawlers.model import AnchorMap, map_path, write_atomic
from docbot.answer import LinkAction
from docbot.config import KEEP_REPORTS, Settings, SiteConfig
from docbot.disk import DiskUsage
from docbot.errors import DocbotError, SiteNotFound

if TYPE_CHECKING:
    from crawlers.crawl import CrawlConfig
    from docbot.reference_log import ReferenceLog

log = logging.getLogger(__name__)
MAX_LISTED = 50  # items listed per change kind in the Markdown report
REPORTS = "reports"
REPORT_FILE = re.compile(r"refresh-(\d{8}T\d{6}Z)(?:_(\d+))?\.(?:md|json)")
# The lists of one crawl's changes (keys of ChangeReport.to_json()), in the order and under the names that the crawl
# summary and the refresh report both give them.
CHANGE_KINDS: tuple[tuple[str, str], ...] = (
    ("pages_added", "pages added"), ("pages_removed", "pages removed"), ("stale", "stale (last-known-good kept)"),
    ("renames", "renamed anchors"), ("anchors_added", "anchors added"), ("anchors_removed", "anchors removed"),
)


@dataclass(frozen=True, slots=True)
class SiteRefresh:
    """What refreshing one site did; ``error`` is set (and ``ok`` false) when the previous map was kept."""

    site: str
    start_url: str
    ok: bool
    changes: dict[str, Any] | None = None  # ChangeReport.to_json()
    index: dict[str, Any] | None = None  # IndexStats as a dict
    error: str | None = None
    changed_shape: tuple[str, ...] = ()  # pages that lost most of their anchors or sections (a refused crawl)

    def to_json(self) -> dict[str, Any]:
        return {"site": self.site, "start_url": self.start_url, "ok": self.ok, "changes": self.changes,
                "index": self.index, "error": self.error, "changed_shape": list(self.changed_shape)}


@dataclass(frozen=True, slots=True)
class LoggedLink:
    """A link from the reference log that the new maps no longer keep as-is."""

    answer_id: int
    url: str
    action: str  # rewritten | fragment_dropped | link_dropped
    output: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"answer_id": self.answer_id, "url": self.url, "action": self.action, "output": self.output,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class RefreshReport:
    started_at: str
    sites: tuple[SiteRefresh, ...]
    links_checked: int = 0
    links: tuple[LoggedLink, ...] = ()
    disk: DiskUsage | None = None  # the data dir once the report is written (in `refresh --json`, not the file)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.sites)

    def to_json(self) -> dict[str, Any]:
        data = {"started_at": self.started_at, "ok": self.ok, "sites": [s.to_json() for s in self.sites],
                "reference_log": {"checked": self.links_checked, "changed": [link.to_json() for link in self.links]}}
        return data | ({"disk": self.disk.to_json()} if self.disk is not None else {})


def _as_dict(value: Any) -> dict[str, Any]:
    if hasattr(value, "to_json"):
        return dict(value.to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return {"value": str(value)}


def crawl_config_for(settings: Settings, site: str) -> CrawlConfig:
    """The CrawlConfig of a configured site, or one from the anchor map's base_url."""
    for cfg in settings.sites:
        if cfg.name == site:
            return cfg.crawl_config()
    path = map_path(settings.anchor_maps, site)
    if not path.is_file():
        raise SiteNotFound(f"Site {site!r} has no [[sites]] entry and no anchor map in {settings.anchor_maps} — "
                           f"add it to docbot.toml or run `docbot crawl URL --site {site}`")
    return SiteConfig(site, AnchorMap.load(path).base_url).crawl_config()


def refresh_site(settings: Settings, site: str, force: bool, client: Any, index: Any | None) -> SiteRefresh:
    """Crawl one site into a new generation and index and commit it; failures become a SiteRefresh with
    ``ok=False`` (the generation in use stays). ``force`` refetches every page; the loss guard still applies."""
    from docbot.indexing.generations import Generations
    from docbot.updating import crawl_site, index_site

    try:
        config = dataclasses.replace(crawl_config_for(settings, site), refetch=force)
    except DocbotError as exc:  # e.g. its credentials' environment variable is unset: this site fails, not all
        return SiteRefresh(site, "", False, error=str(exc))
    kept = "the generation in use is unchanged"
    try:
        with Generations(settings.data_dir, site).writing("refresh") as writer:
            try:
                result, _ = crawl_site(settings, config, writer, client=client)
            except CrawlRefused as exc:
                return SiteRefresh(site, config.start_url, False, error=f"crawl refused, previous map kept: {exc}",
                                   changed_shape=tuple(str(c) for c in exc.changed))
            except CrawlerError as exc:  # the site is down or unreachable: a known failure, no traceback
                return SiteRefresh(site, config.start_url, False, error=f"crawl failed, previous map kept: {exc}")
            changes = _as_dict(result.report)
            if index is None:
                return SiteRefresh(site, config.start_url, True, changes)
            try:
                stats = index_site(settings, index, writer)
            except DocbotError as exc:
                return SiteRefresh(site, config.start_url, False, changes, error=f"map updated but not indexed: {exc}")
            except Exception as exc:
                log.debug("re-index of %s failed", site, exc_info=True)
                return SiteRefresh(site, config.start_url, False, changes,
                                   error=f"map updated but re-index failed ({kept}): {type(exc).__name__}: {exc} — "
                                         f"run `docbot index --site {site}`")
            return SiteRefresh(site, config.start_url, True, changes, _as_dict(stats))
    except DocbotError as exc:  # another writer holds the site, or its files cannot be written
        return SiteRefresh(site, config.start_url, False, error=str(exc))
    except Exception as exc:  # one broken site must not stop the others
        log.debug("refresh of %s failed", site, exc_info=True)
        return SiteRefresh(site, config.start_url, False, error=f"crawl failed, previous map kept: {type(exc).__name__}: {exc}")


def logged_links(settings: Settings) -> Iterable[tuple[int, str]]:
    """(answer id, url) of every link docbot has sent, from the reference log the settings name."""
    from docbot.reference_log import existing_log

    logged = existing_log(settings)
    if logged is None:
        return []
    with logged:
        return logged.iter_links()


def recheck_links(settings: Settings, links: Iterable[tuple[int, str]]) -> tuple[int, list[LoggedLink]]:
    """Check logged links against the newest maps; returns (links checked, links not kept)."""
    from docbot.reading import latest_maps, latest_page_texts, stored_texts
    from docbot.reference_log import existing_log
    from docbot.references.validator import ReferenceValidator

    validator = ReferenceValidator(latest_maps(settings), allow_hosts=settings.allow_hosts,
                                   texts=stored_texts(settings), page_texts=latest_page_texts(settings))
    logged = existing_log(settings)
    quote = _logged_quotes(logged)
    checked, changed = 0, []
    try:
        for answer_id, url in links:
            checked += 1
            outcome = validator.check_url(url)
            if outcome.action == LinkAction.KEPT:
                continue
            passage = quote(answer_id, url) if "text directive dropped" in outcome.reason else ""
            again = validator.quote_link(url, passage) if passage else None
            if again is not None and again.output and ":~:" in again.output:  # the quote moved: a directive on it
                outcome = dataclasses.replace(again, action=LinkAction.REWRITTEN,
                                              reason=f"{outcome.reason}; derived again for the quoted passage")
            changed.append(LoggedLink(answer_id, url, outcome.action, outcome.output, outcome.reason))
    finally:
        if logged is not None:
            logged.close()
    return checked, changed


def _logged_quotes(logged: ReferenceLog | None) -> Callable[[int, str], str]:
    """(answer id, link) → the passage that link's answer quoted from it ("" when unknown), read from the log."""
    answers: dict[int, dict[str, str]] = {}

    def quote(answer_id: int, url: str) -> str:
        if logged is None:
            return ""
        if answer_id not in answers:
            answer = logged.get(answer_id)
            answers[answer_id] = {r.url: r.quote for r in answer.references} if answer else {}
        return answers[answer_id].get(url, "")

    return quote


def refresh(
    settings: Settings,
    sites: Sequence[str] = (),
    force: bool = False,
    client: Any = None,
    embedder: Any = None,
    reindex: bool = True,
    progress: Callable[[str], None] | None = None,
    links: Iterable[tuple[int, str]] | None = None,
) -> RefreshReport:
    """Refresh ``sites`` (default: every configured or crawled site) and re-check logged links.

    ``links`` defaults to the links of the reference log the settings name (SQLite in the data directory, or PostgreSQL).
    """
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    names = list(sites) or settings.site_names()
    if not names:
        raise SiteNotFound("No sites to refresh — add [[sites]] to docbot.toml or run `docbot crawl URL --site NAME`")
    if links is None:  # a reference log that cannot be used fails the refresh now, before any crawl
        from docbot.reference_log import existing_log

        if (logged := existing_log(settings)) is not None:
            logged.close()
    index = None
    if reindex:
        from docbot.indexing.embed import embedder_from_settings
        from docbot.indexing.index import Index

        index = Index.from_settings(settings, embedder or embedder_from_settings(settings))
    results = []
    try:
        for name in names:
            if progress:
                progress(name)
            results.append(refresh_site(settings, name, force, client, index))
    finally:
        if index is not None:
            index.close()
    checked, changed = recheck_links(settings, logged_links(settings) if links is None else links)
    return RefreshReport(started, tuple(results), checked, tuple(changed))


def _code(text: object, cell: bool = False) -> str:
    """``text`` as one Markdown code span, inert whatever it holds: fenced by more backticks than its longest run,
    on one line, with ``|`` escaped in a table ``cell``. Anchor ids, URLs and titles come from the docs sites, and
    the report becomes a pull request's body: nothing in them may turn into a link, an image or an @mention."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]+", " ", str(text))
    fence = "`" * (1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    pad = " " if not text.strip(" ") or text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|') if cell else text}{pad}{fence}"


def listed(heading: str, items: Sequence[str], limit: int, prefix: str, more: str) -> list[str]:
    """One list of a change report as lines, in the crawl summary and in the refresh report alike: ``heading``, the
    first ``limit`` items each after ``prefix``, then how many more there are and where they are (``more``)."""
    lines = [heading, *(prefix + item for item in items[:limit])]
    if len(items) > limit:
        lines.append(f"{prefix}… {len(items) - limit} more ({more})")
    return lines


def change_lists(changes: Mapping[str, Any], code: Callable[[str], str] = str) -> list[tuple[str, list[str]]]:
    """The lists of one crawl's changes (``ChangeReport.to_json()``) that are not empty, titled by
    :data:`CHANGE_KINDS` and worded alike wherever they are shown: a page as its URL, an anchor as ``URL#id``, a
    rename as ``URL#old → #new``, each part through ``code`` (inert code in Markdown). A first crawl adds every
    page: its added pages are counted, not listed."""
    out = []
    for key, title in CHANGE_KINDS:
        items = list(changes.get(key) or ())
        if items and not (key == "pages_added" and len(items) == changes.get("pages")):
            out.append((title, [_change(item, code) for item in items]))
    return out


def _change(item: Any, code: Callable[[str], str]) -> str:
    """One item of a change list (a page, a (page, anchor) pair or a rename), its parts through ``code``."""
    if isinstance(item, Mapping) and {"url", "old", "new"} <= item.keys():
        return f"{code(str(item['url']) + '#' + str(item['old']))} → {code('#' + str(item['new']))}"
    if isinstance(item, (list, tuple)) and len(item) == 2:
        return code(f"{item[0]}#{item[1]}")
    return code(item if isinstance(item, str) else json.dumps(item, ensure_ascii=False))


def _summary(changes: dict[str, Any]) -> list[str]:
    """A site's changes in Markdown: its counts, the change lists as the crawl summary gives them, then any other
    list (errors by kind, their sample URLs)."""
    counts, others = [], []
    for key, value in changes.items():
        if key in dict(CHANGE_KINDS):
            continue
        if isinstance(value, (list, tuple, dict)):
            items = list(value.items()) if isinstance(value, dict) else list(value)
            if items:
                others += listed(f"- **{key}**: {len(items)}",
                                 [_code(i if isinstance(i, str) else json.dumps(i, ensure_ascii=False)) for i in items],
                                 MAX_LISTED, "  - ", "see the JSON report")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if value:
                counts.append(f"- **{key}**: {value}")
        elif value not in (None, ""):
            counts.append(f"- **{key}**: {_code(value)}")
    changed = [line for title, items in change_lists(changes, _code)
               for line in listed(f"- **{title}**: {len(items)}", items, MAX_LISTED, "  - ", "see the JSON report")]
    return counts + changed + others


def render_markdown(report: RefreshReport) -> str:
    """The change report as Markdown (also used as the body of the refresh pull request)."""
    verdict = "all sites refreshed" if report.ok else "some sites FAILED (their previous maps were kept)"
    lines = [f"# Anchor-map refresh {report.started_at} — {verdict}", ""]
    for s in report.sites:
        lines.append(f"## {s.site} ({_code(s.start_url)}) — {'ok' if s.ok else 'failed'}")
        if s.error:
            lines.append(f"\n**Error:** {_code(s.error)}")
        if s.changed_shape:
            lines += ["", "Pages that changed shape:", *(f"- {_code(c)}" for c in s.changed_shape[:MAX_LISTED])]
        if s.changes:
            lines += ["", *_summary(s.changes)]
        if s.index:
            lines += ["", "Index: " + ", ".join(f"{k} {v}" for k, v in s.index.items())]
        lines.append("")
    lines.append(f"## Reference log: {report.links_checked} links checked, {len(report.links)} no longer valid")
    if report.links:
        lines += ["", "| answer | link | action | repaired target |", "|---|---|---|---|"]
        for link in report.links:
            lines.append(f"| {link.answer_id} | {_code(link.url, cell=True)} | {link.action} | "
                         f"{_code(link.output, cell=True) if link.output else '—'} |")
    return "\n".join(lines) + "\n"


def write_report(report: RefreshReport, data_dir: str | Path, keep: int = KEEP_REPORTS) -> tuple[Path, Path]:
    """Write refresh-<timestamp>.md and .json under ``<data-dir>/reports`` (``_2``, ``_3``… for more refreshes in
    the same second: names sort in the order written), then delete every report but the newest ``keep``
    refreshes'."""
    folder = Path(data_dir) / REPORTS
    base = _claim(folder, report.started_at.replace("-", "").replace(":", ""))
    md, js = base.with_suffix(".md"), base.with_suffix(".json")
    write_atomic(md, render_markdown(report))
    write_atomic(js, json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n")
    prune_reports(folder, keep)
    return md, js


def _claim(folder: Path, stamp: str) -> Path:
    """A report name no other refresh has taken (its .md created empty, so a concurrent refresh takes the next)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in itertools.count(1):
        base = folder / (f"refresh-{stamp}" if n == 1 else f"refresh-{stamp}_{n}")
        try:
            os.close(os.open(base.with_suffix(".md"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return base
    raise AssertionError("unreachable")


def prune_reports(folder: Path, keep: int) -> list[Path]:
    """Delete the refresh reports in ``folder`` but the newest ``keep`` refreshes' (by their names' timestamps);
    other files are left alone. Returns the files deleted."""
    refreshes: dict[tuple[str, int], list[Path]] = {}
    for path in folder.iterdir() if folder.is_dir() else ():
        found = REPORT_FILE.fullmatch(path.name)
        if found:
            refreshes.setdefault((found.group(1), int(found.group(2) or 1)), []).append(path)
    old = [path for key in sorted(refreshes)[:-max(keep, 1)] for path in refreshes[key]]
    for path in old:
        path.unlink(missing_ok=True)
    return old
