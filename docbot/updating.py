"""Writing a site: crawl it into a new generation, index that generation, commit it. One writer at a time.

Every step runs under the site's lock (:meth:`~docbot.indexing.generations.Generations.writing`). A crawl starts
from the newest crawled generation (its map and texts make the crawl incremental), stages a new one (section
texts, then the map) and publishes the map to ``anchor_maps/`` (the diffable record of the last crawl, which the
scheduled refresh commits). Indexing completes the newest staged generation and commits it; only then do
readers move to it. Any failure discards what was staged, names the file and the reason, and leaves the
generation readers use as it was.

This is the one writer of a site: `docbot crawl`, `index` and `refresh` run it, and so do the tests and benchmarks
(:func:`update_site` crawls as the CLI does, :func:`index_texts` writes given texts). A data dir from before
generations is adopted on its next indexing (:mod:`docbot.indexing.legacy`).
"""

from __future__ import annotations

import errno
import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from crawlers.crawl import CrawlConfig, CrawlResult, check_loss, crawl
from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap, Mention, PageText, SectionText, map_path
from crawlers.texts import read_mentions, write_mentions, write_page_texts, write_section_texts
from docbot.config import Settings
from docbot.errors import WriteFailed
from docbot.indexing import legacy
from docbot.indexing.build import IndexStats, index_generation
from docbot.indexing.generations import CURRENT, Generation, Generations, GenerationWriter, link_or_copy
from docbot.indexing.index import Index, Manifest, Progress
from docbot.process import terminate

log = logging.getLogger(__name__)

T = TypeVar("T")  # what a write step returns


def update_site(settings: Settings, config: CrawlConfig, index: Index | None = None, *, force: bool = False,
                client: Any = None, progress: Callable[[int, int], None] | None = None) -> tuple[CrawlResult, Generation]:
    """Crawl ``config``'s site into its next generation under the site's lock, as `docbot crawl` does; with ``index``,
    then index and commit that generation, as `docbot index` does. Returns the crawl and its generation."""
    with Generations(settings.data_dir, config.site).writing("crawl") as writer:
        result, generation = crawl_site(settings, config, writer, force=force, client=client, progress=progress)
        if index is not None:
            index_site(settings, index, writer)
    return result, generation


def previous_crawl(settings: Settings, writer: GenerationWriter) -> tuple[AnchorMap | None, list[SectionText],
                                                                            Generation | None]:
    """What a crawl starts from: the newest crawled generation's map and texts; else the published map alone
    (a data dir new to an existing map: every page is fetched in full); else nothing (a first crawl)."""
    site = writer.generations.site
    latest = writer.generations.latest()
    if latest is not None:
        try:
            return latest.load_map(), latest.load_texts(), latest
        except AnchorMapError as exc:
            log.warning("generation %s of %s is unreadable (%s); crawling from the published map", latest.number,
                        site, exc)
    published = map_path(settings.anchor_maps, site)
    if published.is_file():
        return AnchorMap.load(published), [], None
    return None, [], None


def crawl_site(settings: Settings, config: CrawlConfig, writer: GenerationWriter, *, force: bool = False,
               client: Any = None, progress: Callable[[int, int], None] | None = None) -> tuple[CrawlResult, Generation]:
    """Crawl ``config``'s site into a new staged generation and publish its map (the loss guard may refuse it)."""
    previous, previous_texts, source = previous_crawl(settings, writer)
    # What pages said about the sections they link to, as the last crawl kept it (None: every page is parsed again)
    previous_mentions = read_mentions(source.mentions_file) if source is not None else None if previous else []
    previous_pages = _pages(source)  # pages' visible texts, kept for the pages that did not change
    result = terminate.run(crawl(config, previous, previous_texts, client=client, progress=progress,
                               previous_mentions=previous_mentions, previous_pages=previous_pages))
    published = map_path(settings.anchor_maps, config.site)
    check_loss(config, previous, result, published, force)
    staged = writer.stage()
    try:
        # What did not change is shared with the generation it came from (a hard link), the rest written anew.
        _keep_or_write(source, staged, "sections_file", result.texts == previous_texts,
                       lambda path: write_section_texts(path, result.texts))
        _keep_or_write(source, staged, "pages_file", result.page_texts == previous_pages,
                       lambda path: write_page_texts(path, result.page_texts))
        _keep_or_write(source, staged, "mentions_file", result.mentions == previous_mentions,
                       lambda path: write_mentions(path, result.mentions))
        _write(staged.map_file, lambda: result.map.save(staged.map_file))
        _write(published, lambda: result.map.save(published))
    except BaseException:
        writer.discard(staged)
        raise
    return result, staged


def stage_texts(writer: GenerationWriter, sections: Sequence[SectionText], amap: AnchorMap, *,
                mentions: Sequence[Mention] | None = None, pages: Sequence[PageText] | None = None) -> Generation:
    """A new staged generation holding ``sections`` of ``amap`` (and what pages say about them, ``mentions``, and the
    pages' visible texts, ``pages``, when given), as a crawl leaves one."""
    staged = writer.stage()
    try:
        write_section_texts(staged.sections_file, sections)
        if mentions is not None:
            write_mentions(staged.mentions_file, mentions)
        if pages is not None:
            write_page_texts(staged.pages_file, pages)
        amap.save(staged.map_file)  # the map last: it marks the generation crawled
    except BaseException:
        writer.discard(staged)
        raise
    return staged


def index_texts(index: Index, site: str, sections: Sequence[SectionText], amap: AnchorMap,
                progress: Progress | None = None, *, rebuild: bool = False, mentions: Sequence[Mention] | None = None,
                pages: Sequence[PageText] | None = None) -> IndexStats:
    """Stage ``sections`` of ``amap`` as a new generation of ``site`` (:func:`stage_texts`), index it and commit it,
    under the site's lock: a crawl's output written without the crawl (benchmarks, tests)."""
    with Generations(index.data_dir, site).writing("index") as writer:
        staged = stage_texts(writer, sections, amap, mentions=mentions, pages=pages)
        try:
            stats = index_generation(index, staged, writer.generations.current(), progress, rebuild=rebuild)
            writer.commit(staged)
        except BaseException:
            writer.discard(staged)
            raise
        index.prune(site, writer.retire())
        return stats


def _keep_or_write(source: Generation | None, staged: Generation, name: str, unchanged: bool,
                   write: Callable[[Path], None]) -> None:
    """The staged generation's file ``name`` (a :class:`Generation` property): linked to ``source``'s when the crawl
    left it ``unchanged`` and ``source`` has one, else written."""
    target: Path = getattr(staged, name)
    kept: Path | None = getattr(source, name) if source is not None else None
    if unchanged and kept is not None and kept.is_file():
        _write(target, lambda: link_or_copy(kept, target))
    else:
        _write(target, lambda: write(target))


def _pages(source: Generation | None) -> list[PageText]:
    if source is None or not source.pages_file.is_file():
        return []
    try:
        return source.load_pages()
    except (AnchorMapError, ValueError) as exc:
        log.warning("the page texts of generation %s are unreadable (%s); pages are parsed again", source.number, exc)
        return []


def index_site(settings: Settings, index: Index, writer: GenerationWriter, *, rebuild: bool = False,
               progress: Progress | None = None) -> IndexStats:
    """Index the site's newest staged generation and commit it; with nothing staged, re-index the current one only
    for ``rebuild`` (else report it as it is)."""
    generations = writer.generations
    site = generations.site
    current, staged, old = generations.current(), generations.staged(), None
    crawled = staged is not None  # a crawl waiting for its index stays staged if indexing fails
    if staged is None and current is None:
        staged, old = legacy.adopt(settings, writer)
    elif staged is None and current is not None:
        manifest = Manifest.read(current)
        if manifest is not None and not rebuild:
            index.check_model(site, manifest.model)
            return IndexStats(site, len(manifest.chunks), 0, 0, 0.0, current.number, len(manifest.chunks))
        staged = writer.stage_copy(current)
    assert staged is not None
    try:
        stats = _write(staged.chunks_file,
                       lambda: index_generation(index, staged, current, progress, rebuild=rebuild, old=old))
        _write(generations.root / CURRENT, lambda: writer.commit(staged))
    except BaseException:
        if crawled:
            _discard_index_parts(staged)
        else:
            writer.discard(staged)
        raise
    retire(index, writer)
    if old is not None:
        legacy.remove(settings, site)
    return stats


def retire(index: Index, writer: GenerationWriter) -> None:
    """After a commit: delete the generations no reader needs any more, and their vectors (a failure here only
    leaves them for the next commit)."""
    try:
        index.prune(writer.generations.site, writer.retire())
    except Exception as exc:  # noqa: BLE001 - the commit stands; cleaning up is retried next time
        log.warning("could not delete old generations of %s (%s); the next commit tries again",
                    writer.generations.site, exc)


def _discard_index_parts(generation: Generation) -> None:
    shutil.rmtree(generation.bm25_dir, ignore_errors=True)
    generation.chunks_file.unlink(missing_ok=True)


def _write(path: Path, step: Callable[[], T]) -> T:
    """Run a step that writes ``path``; a full disk, a read-only file system or a failing store becomes one
    :class:`WriteFailed` naming the file and the reason (nothing of the step is committed)."""
    try:
        return step()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOSPC:
            reason = "no space left on the device"
        raise WriteFailed(f"Could not write {path} ({reason}); nothing was committed — the generation in use is "
                          "unchanged. Free space or fix permissions, then run the command again") from None
    except Exception as exc:
        if type(exc).__module__.startswith("chromadb"):  # the vector store's own errors: "database or disk is full"
            raise WriteFailed(f"Could not write the vectors for {path.parent} ({exc}); nothing was committed — the "
                              "generation in use is unchanged. Free space, then run the command again") from None
        raise
