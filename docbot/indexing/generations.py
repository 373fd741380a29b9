"""A site's data as generations: its map, section texts, chunks and BM25, which readers see whole or not at all.

Under ``<data-dir>/sites/<site>/``:

- ``generations/<n>/``: one generation, written once and never changed: ``map.json`` (the anchor map),
  ``sections.jsonl`` (section texts), ``mentions.jsonl`` (what pages say about the sections they link to) and
  ``pages.jsonl`` (each page's visible text, for text directives) from a crawl, then ``bm25/``, the ranker's ``mentions/`` and ``headings/`` and ``chunks.json`` (the chunk manifest,
  naming the Chroma collection that holds the generation's vectors) from indexing. Each file is written
  before the one that marks its step done: texts before the map, BM25 before the manifest.
- ``CURRENT``: which generation readers use, and which one was current before it (readers that have not
  asked since may still be on it). Replaced atomically when an indexed generation is committed: that is the
  one moment readers move, and they move on their next question, without restart. A CURRENT that cannot be
  read, or names a generation that is not whole (deleted by hand, an old backup restored), is stood in for by
  the newest whole generation: readers answer from it (and say so), and the next writer, under the lock,
  points CURRENT at it.
- ``lock``: held by the one process writing the site (``crawl``, ``index``, ``refresh``); a second writer is
  refused with a message naming the first.

A crawl stages a new generation; indexing completes and commits it. Committing retires every generation but
the new current one, the one before it and a newer staged one, so disk use stays at about two generations.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from crawlers.model import AnchorMap, PageText, SectionText, write_atomic
from crawlers.sitenames import check_site_name
from crawlers.texts import read_page_texts, read_section_texts
from docbot.errors import SiteBusy, WriteFailed

SITES = "sites"
GENERATIONS = "generations"
CURRENT = "CURRENT"
LOCK = "lock"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Generation:
    """One generation of a site's data on disk."""

    site: str
    number: int
    path: Path

    @property
    def map_file(self) -> Path:
        return self.path / "map.json"

    @property
    def sections_file(self) -> Path:
        return self.path / "sections.jsonl"

    @property
    def mentions_file(self) -> Path:
        return self.path / "mentions.jsonl"

    @property
    def pages_file(self) -> Path:
        return self.path / "pages.jsonl"

    @property
    def chunks_file(self) -> Path:
        return self.path / "chunks.json"

    @property
    def bm25_dir(self) -> Path:
        return self.path / "bm25"

    @property
    def crawled(self) -> bool:
        """Its map is written (the crawl's last step)."""
        return self.map_file.is_file()

    @property
    def indexed(self) -> bool:
        """Its chunk manifest is written (indexing's last step)."""
        return self.chunks_file.is_file()

    @property
    def whole(self) -> bool:
        """Crawled and indexed: a generation readers can use."""
        return self.crawled and self.indexed

    def load_map(self) -> AnchorMap:
        return AnchorMap.load(self.map_file)

    def load_pages(self) -> list[PageText]:
        """Each page's visible text (what text directives are checked against)."""
        return read_page_texts(self.pages_file, self.site)

    def load_texts(self) -> list[SectionText]:
        return read_section_texts(self.sections_file, self.site)


def site_root(data_dir: Path, site: str) -> Path:
    return Path(data_dir) / SITES / check_site_name(site)


def served_sites(data_dir: Path) -> list[str]:
    """Sites with a committed generation, sorted."""
    root = Path(data_dir) / SITES
    try:
        return sorted(d.name for d in root.iterdir() if (d / CURRENT).is_file())
    except FileNotFoundError:
        return []


class Generations:
    """One site's generations: what readers may read, and the lock writers take."""

    def __init__(self, data_dir: Path, site: str) -> None:
        self.site = site
        self.root = site_root(data_dir, site)

    def _generation(self, number: int) -> Generation:
        return Generation(self.site, number, self.root / GENERATIONS / str(number))

    def pointer(self) -> tuple[int | None, int | None]:
        """(current, previous) generation numbers; (None, None) before the first commit."""
        try:
            return _parse_pointer((self.root / CURRENT).read_bytes())
        except OSError:
            return None, None

    def current(self) -> Generation | None:
        """The generation readers use (see :meth:`resolve`)."""
        return self.resolve()[0]

    def resolve(self) -> tuple[Generation | None, str | None]:
        """(the generation readers use, what is wrong with CURRENT or None): the one CURRENT names, else — CURRENT
        unreadable, or naming a generation that is not whole — the newest whole one (None: there is none)."""
        for _ in range(2):  # CURRENT read just before a commit may name a generation retired since: read it again
            try:
                raw = (self.root / CURRENT).read_bytes()
            except FileNotFoundError:
                return None, None  # nothing committed yet
            except OSError as exc:
                return self.newest_whole(), f"cannot be read ({exc.strerror or exc})"
            number = _parse_pointer(raw)[0]
            if number is None:
                return self.newest_whole(), f"is not a generation pointer ({raw[:40].decode('utf-8', 'replace')!r})"
            named = self._generation(number)
            if named.whole:
                return named, None
        state = "not whole" if named.path.is_dir() else "missing"
        return self.newest_whole(), f"names generation {number}, which is {state}"

    def newest_whole(self) -> Generation | None:
        """The newest generation that is crawled and indexed."""
        return next((g for n in reversed(self.numbers()) if (g := self._generation(n)).whole), None)

    def advice(self, problem: str, stand_in: Generation | None) -> str:
        """What a reader says about a broken CURRENT (``problem``), answering from ``stand_in`` or nothing."""
        site = self.site
        if stand_in is not None:
            return (f"CURRENT of site {site!r} {problem}; answering from generation {stand_in.number}, the newest "
                    f"whole one — `docbot index --site {site}` points CURRENT at it")
        todo = "" if self.latest() is not None else f"`docbot crawl URL --site {site}`, then "
        return (f"CURRENT of site {site!r} {problem}, and no generation of it is whole — run {todo}"
                f"`docbot index --site {site}`")

    def numbers(self) -> list[int]:
        try:
            return sorted(int(d.name) for d in (self.root / GENERATIONS).iterdir() if d.name.isdigit())
        except FileNotFoundError:
            return []

    def latest(self) -> Generation | None:
        """The newest crawled generation, staged or committed: what the next crawl starts from."""
        for number in reversed(self.numbers()):
            generation = self._generation(number)
            if generation.crawled:
                return generation
        return None

    def staged(self) -> Generation | None:
        """The newest crawled generation newer than the current one (waiting to be indexed), if any."""
        latest, current = self.latest(), self.current()
        return latest if latest is not None and (current is None or latest.number > current.number) else None

    @contextmanager
    def writing(self, command: str) -> Iterator[GenerationWriter]:
        """Hold the site's writer lock for ``command``; raises :class:`SiteBusy` when another process holds it."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise WriteFailed(f"Cannot write site {self.site!r} in {self.root} ({exc.strerror or exc}) — check that path "
                              "and its permissions (the data dir: `--data-dir`, DOCBOT_DATA_DIR)") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
                raise SiteBusy(f"Site {self.site!r} is being written by {holder} — wait for it to finish "
                               "(writers of one site take turns), then run this again") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"`docbot {command}` (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})".encode(), 0)
            writer = GenerationWriter(self)
            writer.recover()
            yield writer
        finally:
            os.close(fd)  # releases the lock


class GenerationWriter:
    """What the holder of a site's lock may do: stage, commit, discard and retire generations."""

    def __init__(self, generations: Generations) -> None:
        self.generations = generations

    def stage(self) -> Generation:
        """A new, empty generation directory numbered after every existing one."""
        g = self.generations
        number = max([*g.numbers(), g.pointer()[0] or 0], default=0) + 1
        generation = g._generation(number)
        try:
            generation.path.mkdir(parents=True)
        except OSError as exc:
            raise WriteFailed(f"Cannot create {generation.path} ({exc.strerror or exc})") from None
        return generation

    def stage_copy(self, source: Generation) -> Generation:
        """A new generation holding ``source``'s map and section texts (linked, not copied, where possible)."""
        staged = self.stage()
        for name in (source.sections_file.name, source.mentions_file.name, source.pages_file.name,
                     source.map_file.name):  # the map last:
            if (source.path / name).is_file():  # it marks the crawl done
                link_or_copy(source.path / name, staged.path / name)
        return staged

    def commit(self, generation: Generation) -> None:
        """Make ``generation`` (crawled and indexed) the one readers use."""
        if not generation.whole:
            raise WriteFailed(f"Generation {generation.number} of {generation.site!r} is not complete; not committed")
        sync_tree(generation.path)
        previous = self.generations.current()  # what readers use now, also when it stands in for a broken CURRENT
        self._point(generation.number, previous.number if previous is not None else None)

    def _point(self, current: int, previous: int | None) -> None:
        write_atomic(self.generations.root / CURRENT, json.dumps({"current": current, "previous": previous}))

    def recover(self) -> None:
        """Point a broken CURRENT at the generation standing in for it, the newest whole one (the lock is held, so no
        writer moves CURRENT meanwhile; readers already answer from that generation, so none of them moves)."""
        g = self.generations
        stand_in, problem = g.resolve()
        if problem is None or stand_in is None:  # nothing wrong, or nothing whole to point at (indexing makes one)
            return
        older = [n for n in g.numbers() if n < stand_in.number and g._generation(n).whole]
        self._point(stand_in.number, older[-1] if older else None)
        log.warning("Recovered site %r: CURRENT %s; it now names generation %s, the newest whole one", g.site, problem,
                    stand_in.number)

    def discard(self, generation: Generation) -> None:
        shutil.rmtree(generation.path, ignore_errors=True)

    def retire(self) -> list[Generation]:
        """Delete every generation but the current one, the one before it and a newer staged one; returns the kept
        ones (whose vectors must stay)."""
        g = self.generations
        current, previous = g.pointer()
        staged = g.staged()
        keep = {n for n in (current, previous, staged.number if staged else None) if n is not None}
        for number in g.numbers():
            if number not in keep:
                shutil.rmtree(g._generation(number).path, ignore_errors=True)
        return [g._generation(n) for n in sorted(keep) if g._generation(n).path.is_dir()]


def _parse_pointer(raw: bytes) -> tuple[int | None, int | None]:
    """(current, previous) from CURRENT's bytes; (None, None) when they are not a pointer."""
    try:
        data = json.loads(raw.decode("utf-8"))
        return int(data["current"]), (int(data["previous"]) if data.get("previous") is not None else None)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, None


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` with ``source``'s bytes: a hard link when the filesystem allows it (generations share unchanged
    files), else a copy."""
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copy2(source, target)


def sync_tree(path: Path) -> None:
    """fsync every file and directory under ``path``, so a commit after it never points at unwritten data."""
    for dirpath, _, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(dirpath, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
