"""The fingerprint a known app's rendered page is refreshed by (crawlers.fetch.sources), over real HTTP: the same
files give the same fingerprint, a changed byte or a file that appears changes it, and a file that cannot be read
gives none (the page is then rendered on every crawl, never kept on a guess). In headless Chromium, a Redoc site
whose description is loaded by a preload link, with a script that empties the browser's list of loads, is still
rendered again when the description changes, and only then."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult, crawl, open_fetcher
from crawlers.fetch import Fetcher, FetchResult, RenderingFetcher
from crawlers.fetch.browser import Rendered
from crawlers.fetch.sources import TAG, fingerprint, loaded, ours
from tests.browser import needs_renderer
from tests.conftest import serve_directory
from tests.crawlers.rendered_sites import SITES

SHELL = b"<html><body><div id='app'></div><script src='app.js'></script></body></html>"


def of(sources: list[str], shell: bytes = SHELL) -> str | None:
    async def go() -> str | None:
        async with Fetcher(retries=0) as fetcher:
            return await fingerprint(fetcher, "http://docs.test/index.html", shell, sources, 1_000_000)
    return asyncio.run(go())


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_fingerprint_follows_every_byte_of_the_shell_and_its_files(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("render()", encoding="utf-8")
    (tmp_path / "guide.md").write_text("# Guide\n\nInstall it.\n", encoding="utf-8")
    with serve_directory(tmp_path) as base:
        files = [base + "app.js", base + "guide.md", base + "_sidebar.md"]  # the sidebar is missing: a state too
        first = of(files)
        assert first is not None and ours(first) and first.startswith(TAG) and first.endswith('"')
        assert of(files) == first
        assert of(files, SHELL.replace(b"app", b"root")) != first
        (tmp_path / "guide.md").write_text("# Guide\n\nInstall it!\n", encoding="utf-8")
        edited = of(files)
        assert edited not in (None, first)
        (tmp_path / "_sidebar.md").write_text("- [Guide](guide.md)\n", encoding="utf-8")
        assert of(files) not in (None, first, edited)


def test_a_file_that_cannot_be_read_gives_no_fingerprint(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("render()", encoding="utf-8")
    with serve_directory(tmp_path) as base:
        assert of([base + "app.js", f"http://127.0.0.1:{closed_port()}/lib.js"]) is None


def test_the_files_recorded_are_what_the_page_loaded_once_each_without_its_own_document() -> None:
    page = "http://docs.test/index.html"
    got = loaded(page + "#/guide", ["http://docs.test/guide.md#x", "http://docs.test/app.js", page,
                                    "http://docs.test/guide.md", "data:text/plain,x", "blob:http://docs.test/1"])
    assert got == ("http://docs.test/app.js", "http://docs.test/guide.md")
    assert not ours('W/"abc"') and not ours(None)


class Scripted:
    """A browser whose renders are given in order: what a real one gives under faults (a budget spent), without
    waiting for them. Every other part is real: the shell and its API description are served over HTTP."""

    def __init__(self, *renders: Rendered) -> None:
        self.renders = list(renders)
        self.starts = 1

    async def render(self, url: str, ready: str | None, *_: Any) -> Rendered:
        assert self.renders, f"{url} was rendered again"
        return self.renders.pop(0)

    async def close(self) -> None:
        pass


REDOC = "<!DOCTYPE html><html><body><redoc spec-url='openapi.json'></redoc><script src='redoc.js'></script></body></html>"
DOM = "<html><body><div data-section-id='tag/pets' id='tag/pets'><h1>Pets</h1><p>Every pet in the shop.</p></div></body></html>"


def test_a_page_read_only_in_part_keeps_no_fingerprint_and_a_whole_one_is_not_rendered_again(tmp_path: Path) -> None:
    needs_renderer()
    (tmp_path / "index.html").write_text(REDOC, encoding="utf-8")
    (tmp_path / "redoc.js").write_text("Redoc.init()", encoding="utf-8")
    (tmp_path / "openapi.json").write_text('{"openapi": "3.0.0", "paths": {}}', encoding="utf-8")
    with serve_directory(tmp_path) as base:
        files = (base + "openapi.json", base + "redoc.js")
        browser = Scripted(Rendered(DOM, out_of_time="its list was read only in part", sources=files),
                           Rendered(DOM, sources=files), Rendered(DOM, sources=files))

        async def go() -> list[FetchResult]:
            got: list[FetchResult] = []
            async with RenderingFetcher(Fetcher(), "auto", browser=lambda: browser) as fetcher:  # type: ignore[arg-type,return-value]
                got.append(await fetcher.get(base + "index.html", sources=files))  # cut short: recorded as unknown
                got.append(await fetcher.get(base + "index.html", sources=files))  # whole: its fingerprint kept
                got.append(await fetcher.get(base + "index.html", etag=got[-1].headers["etag"], sources=files))
                (tmp_path / "openapi.json").write_text('{"openapi": "3.0.1", "paths": {}}', encoding="utf-8")
                got.append(await fetcher.get(base + "index.html", etag=got[-2].headers["etag"], sources=files))
            return got

        partial, whole, unchanged, edited = asyncio.run(go())
    assert partial.rendered and partial.sources == () and "etag" not in partial.headers
    assert whole.rendered and whole.sources == files and ours(whole.headers["etag"])
    assert unchanged.not_modified and unchanged.body == b"" and unchanged.rendered is None
    assert edited.ok and edited.rendered and edited.headers["etag"] not in (None, whole.headers["etag"])
    assert browser.renders == []


def test_a_description_preloaded_and_a_list_of_loads_emptied_by_the_page_are_still_seen(tmp_path: Path) -> None:
    """What the page loads is recorded from its first script on, whatever started the load: here Redoc's API
    description comes through a preload link (a speed tweak sites make) and the page clears the browser's list of
    loads and shrinks it to one (as analytics scripts may). Unchanged, the third crawl renders nothing; the edited
    description is rendered again and its new text is in the map's texts."""
    needs_renderer()
    for name in ("openapi.json", "redoc.standalone.js"):
        if not (SITES / "redoc" / name).is_file():
            pytest.fail("build/sites/redoc is missing: run scripts/install.sh (scripts/build_rendered_sites.sh)")
        shutil.copy(SITES / "redoc" / name, tmp_path)
    shell = (SITES / "redoc" / "index.html").read_text(encoding="utf-8").replace("</head>", (
        '<link rel="preload" href="openapi.json" as="fetch" crossorigin="anonymous">'
        "<script>setInterval(() => { performance.clearResourceTimings(); "
        "performance.setResourceTimingBufferSize(1); }, 50);</script></head>"))
    (tmp_path / "index.html").write_text(shell, encoding="utf-8")
    crawls: list[tuple[CrawlResult, int]] = []
    with serve_directory(tmp_path) as base:
        config = CrawlConfig(site="docker", start_url=base + "index.html", render="auto")
        for step in range(4):
            if step == 3:
                spec = json.loads((tmp_path / "openapi.json").read_text(encoding="utf-8"))
                spec["info"]["description"] = "Quokkas answer every request of this edited description."
                (tmp_path / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
            fetcher = open_fetcher(config)
            assert isinstance(fetcher, RenderingFetcher)
            last = crawls[-1][0] if crawls else None
            crawls.append((asyncio.run(crawl(config, last.map if last else None, last.texts if last else (),
                                             fetcher=fetcher, previous_mentions=last.mentions if last else None,
                                             previous_pages=last.page_texts if last else ())), fetcher.rendered))
    page = base + "index.html"
    assert base + "openapi.json" in crawls[0][0].map.pages[page].sources
    assert [n for _, n in crawls] == [1, 1, 0, 1]
    assert crawls[2][0].stats.not_modified == 1
    assert not any("Quokkas" in t.text for t in crawls[2][0].texts)
    assert any("Quokkas" in t.text for t in crawls[3][0].texts)
