"""Compare the section trees two checkouts of docbot extract from the same documentation sites.

    .venv/bin/python scripts/compare_sections.py --old /work/main [--new .] [SITE=DIR ...]

Each checkout's ``crawlers.parse.extract.extract`` (``crawlers.extract`` before crawlers/ had rooms) parses every
HTML file under each site's root (the bytes a server on 127.0.0.1 would send, under the URL it would send them from)
in a subprocess with that checkout on ``PYTHONPATH``, then, where the checkout has :func:`crawlers.crawl.cross_links.split_site`, parses again each page other pages link into.
Per site it prints: sections before and after, anchor sections added and dropped (matched by anchor), sections where
a heading (or an API entry) exists
that changed (anchor, title, level, path, kind; and text separately, and of those how many had text and have none:
an added section took all of it), sections lost, and the smallest added ones.
Without SITE=DIR it compares the five dev sites.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DEV_SITES = {
    "flask": "/usr/share/doc/python-flask-doc/html",
    "requests": "/usr/share/doc/python-requests-doc/html",
    "drf": "/usr/share/doc/python3-djangorestframework/html",
    "sqlalchemy": "/usr/share/doc/python-sqlalchemy-doc/html",
    "git": "/usr/share/doc/git-doc",
}
BASE = "http://127.0.0.1:8000/"
SMALLEST_SHOWN = 3
EXAMPLES_SHOWN = 12

_DUMP = """
import importlib, json, sys
from pathlib import Path
def first(modules, name):  # a checkout from before crawlers/ had rooms (parse/, crawl/) has the flat module
    for module in modules:
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            pass
    return None
extract = first(("crawlers.parse.extract", "crawlers.extract"), "extract")
root, base = Path(sys.argv[1]), sys.argv[2]
files = {base + path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*.html"))}
pages = {url: extract(path.read_bytes(), url) for url, path in files.items()}
# a checkout that splits pages at the anchors other pages link to does so as its crawl does
split_site = first(("crawlers.crawl.cross_links", "crawlers.cross_links"), "split_site")
if split_site is not None:
    pages = split_site(pages, lambda url, anchors: extract(files[url].read_bytes(), url, elsewhere=anchors))
for url, ex in pages.items():
    for s in ex.sections:
        print(json.dumps([url, s.anchor, s.title, s.level, list(s.path), s.kind, s.text]))
"""


def dump(checkout: Path, root: str) -> dict[str, list[list]]:
    """page URL → its sections as [url, anchor, title, level, path, kind, text], extracted by ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    out = subprocess.run([sys.executable, "-c", _DUMP, root, BASE], env=env, check=True, capture_output=True,
                         text=True, cwd=checkout).stdout
    pages: dict[str, list[list]] = {}
    for line in out.splitlines():
        row = json.loads(line)
        pages.setdefault(row[0], []).append(row)
    return pages


def compare(old: dict[str, list[list]], new: dict[str, list[list]]) -> dict:
    """Counts for one site; a section of the old tree is matched to the new one of the same page, kind and anchor."""
    before = sum(len(v) for v in old.values())
    after = sum(len(v) for v in new.values())
    added: list[list] = []
    changed = text_changed = emptied = lost = dropped = 0
    examples: list[str] = []
    for url in sorted(set(old) | set(new)):
        # an anchor section either side is matched by its anchor; the others in order
        before_anchors = {s[1] for s in old.get(url, []) if s[5] == "anchor"}
        after_anchors = {s[1] for s in new.get(url, []) if s[5] == "anchor"}
        olds = [s for s in old.get(url, []) if s[5] != "anchor"]
        news = new.get(url, [])
        kept = [s for s in news if s[5] != "anchor"]
        added.extend(s for s in news if s[5] == "anchor" and s[1] not in before_anchors)
        dropped += len(before_anchors - after_anchors)
        examples.extend(f"{url}#{a}: anchor section dropped" for a in sorted(before_anchors - after_anchors))
        if len(kept) != len(olds):
            lost += abs(len(olds) - len(kept))
            examples.append(f"{url}: {len(olds)} sections before, {len(kept)} not added after")
            continue
        for o, n in zip(olds, kept):
            if o[1:6] != n[1:6]:
                changed += 1
                examples.append(f"{url}#{o[1]}: {o[2:6]} → {n[2:6]}")
            elif o[6] != n[6]:
                text_changed += 1
                emptied += bool(o[6]) and not n[6]
                examples.append(f"{url}#{o[1]}: text {len(o[6])} → {len(n[6])} chars")
    smallest = [f"{s[0].removeprefix(BASE)}#{s[1]} {s[2]!r} ({len(s[6])} chars)"
                for s in sorted(added, key=lambda s: len(s[6]))[:SMALLEST_SHOWN]]
    return {"before": before, "after": after, "added": len(added), "dropped": dropped, "changed": changed,
            "text_changed": text_changed, "emptied": emptied, "lost": lost, "smallest": smallest,
            "examples": examples[:EXAMPLES_SHOWN]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True, help="checkout extracting the sections before")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("sites", nargs="*", help="NAME=DIR (default: the five dev sites)")
    args = parser.parse_args()
    sites = dict(s.split("=", 1) for s in args.sites) if args.sites else DEV_SITES
    print("| site | before | after | added | anchor sections dropped | changed where a heading exists | "
          "its text changed | of them emptied | lost | smallest added |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, root in sites.items():
        r = compare(dump(args.old, root), dump(args.new, root))
        print(f"| {name} | {r['before']} | {r['after']} | {r['added']} | {r['dropped']} | {r['changed']} | "
              f"{r['text_changed']} | "
              f"{r['emptied']} | {r['lost']} | {'; '.join(r['smallest']) or '–'} |", flush=True)
        for line in r["examples"]:
            print(f"    {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
