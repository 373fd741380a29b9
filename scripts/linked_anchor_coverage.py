"""Which anchors the docs link to start a section, and which do not: a page's own links against other pages'.

    .venv/bin/python scripts/linked_anchor_coverage.py [--alone] NAME=DIR [NAME=DIR ...]

Every HTML file under DIR is extracted as served from 127.0.0.1, then each page other pages link into is split
again at those anchors, as a crawl does (:func:`crawlers.crawl.cross_links.split_site`; ``--alone``: each page parsed
alone, as before that second split). Per site it counts the distinct (page, anchor) pairs a link of the docs
points at (text links only: a permalink's glyph names nothing) and, of those: linked from their own page, linked
only from other pages, and how many of each land on a section's own anchor or alias rather than inside a section.
"""

from __future__ import annotations

import sys
from pathlib import Path

from crawlers.crawl.cross_links import split_site
from crawlers.parse.extract import extract
from crawlers.urls import normalize

BASE = "http://127.0.0.1:8000/"


def coverage(root: Path, split: bool = True) -> dict[str, int]:
    starts: dict[str, set[str]] = {}
    anchors: dict[str, frozenset[str]] = {}
    links: list[tuple[str, str]] = []  # (source page, target page#anchor)
    files = {normalize(BASE + path.relative_to(root).as_posix()): path for path in sorted(root.rglob("*.html"))}
    pages = {url: extract(path.read_bytes(), url) for url, path in files.items()}
    if split:
        pages = split_site(pages, lambda url, ids: extract(files[url].read_bytes(), url, elsewhere=ids))
    for url, ex in pages.items():
        starts[url] = {i for s in ex.sections for i in (s.anchor, *s.aliases) if i}
        anchors[url] = ex.anchors
        links.extend((url, target) for target, text, _ in ex.mentions if "#" in target)
    own: set[tuple[str, str]] = set()
    other: set[tuple[str, str]] = set()
    for source, target in links:
        page, _, frag = target.partition("#")
        try:
            page = normalize(page)
        except ValueError:
            continue
        if page in anchors and frag in anchors[page]:
            (own if page == source else other).add((page, frag))
    other -= own
    return {"own": len(own), "own_start": sum(f in starts[p] for p, f in own),
            "other_only": len(other), "other_start": sum(f in starts[p] for p, f in other)}


def main() -> None:
    print("| site | linked from their page | of them starting a section | linked only from other pages "
          "| of them starting a section |")
    print("|---|---|---|---|---|")
    args = sys.argv[1:]
    split = "--alone" not in args
    for arg in (a for a in args if a != "--alone"):
        name, root = arg.split("=", 1)
        c = coverage(Path(root), split)
        print(f"| {name} | {c['own']} | {c['own_start']} | {c['other_only']} | {c['other_start']} |", flush=True)


if __name__ == "__main__":
    main()
