"""Load every link with a text directive from a report's JSON in headless Chromium: does each land in its section?

The report (``docbot report``, ``scripts/ci_report.sh``) checked each directive three ways by reading HTML; this
asks the browser. The sites are served again on 127.0.0.1 (the report's ports are gone: each link's origin is
replaced by its site's new one). A link lands when, after the settled wait (past the fallback of a directive that
is not found), the directive's opening words are in view inside the cited section (the element with the
fragment's id, or the section element around it), or the page sits where the bare ``#fragment`` puts it.

Usage: python scripts/browse_report_links.py report/report.json [--site NAME=ROOT ...] [--max N]
Defaults to the five dev sites of ``scripts/ci_report.sh``.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crawlers.urls import split_directive
from docbot.references.textfrag import parse
from tests.browser import STILL_S, TEXT_MAP_JS, chromium, settled_scroll
from tests.conftest import serve_directory

SITES = {
    "flask": "/usr/share/doc/python-flask-doc/html",
    "requests": "/usr/share/doc/python-requests-doc/html",
    "drf": "/usr/share/doc/python3-djangorestframework/html",
    "sqlalchemy": "/usr/share/doc/python-sqlalchemy-doc/html",
    "git": "/usr/share/doc/git-doc",
}
# Is the first place of ``arguments[0]`` (folded like find-in-page) that is in the viewport inside the section of the
# element with id ``arguments[1]``: below that element's top (an empty marker opening a <dd>: its terms' top), and
# above the end of its section (the element's own bottom for a <section>/<div> wrapper; for an API entry's <dt>, the
# end of its <dd>; for a heading, the next heading as high or higher in document order; for an empty marker, none)?
ON_QUOTE_JS = """
const root = document.body;
""" + TEXT_MAP_JS + """
const needle = fold(arguments[0]).replace(/\\s+/g, ' ').trim();
let el = arguments[1] ? (document.getElementById(arguments[1]) || document.getElementsByName(arguments[1])[0])
                      : document.body;
if (el && el.tagName === 'A' && el.closest('h1,h2,h3,h4,h5,h6')) el = el.closest('h1,h2,h3,h4,h5,h6');  // DocBook's
if (!el || !needle) return false;
const marker = el.getBoundingClientRect().height < 5 || (!el.children.length && !el.textContent.trim());  // empty
let first = el;  // an empty marker opening a definition (Doxygen's <dd><a id>): its section starts at the terms
const dd = marker ? el.closest('dd') : null;
if (dd) {
  const before = document.createRange();
  before.setStart(dd, 0);
  before.setEndBefore(el);
  if (!before.toString().trim()) {
    for (let t = dd.previousElementSibling; t && t.tagName === 'DT'; t = t.previousElementSibling) first = t;
  }
}
const top = first.getBoundingClientRect().top + window.scrollY - 2;
let end = Infinity;
const level = /^H[1-6]$/.test(el.tagName) ? +el.tagName[1] : 0;
if (level) {
  const sel = Array.from({length: level}, (_, i) => 'h' + (i + 1)).join(',');
  for (const h of document.querySelectorAll(sel)) {  // the next one in document order (not a sticky menu's title)
    if (h !== el && (el.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING) && h.offsetHeight > 0) {
      end = h.getBoundingClientRect().top + window.scrollY;
      break;
    }
  }
} else if (el.tagName === 'DT') {  // an API entry: the term and its description
  let last = el;
  while (last.nextElementSibling && /^D[DT]$/.test(last.nextElementSibling.tagName)) last = last.nextElementSibling;
  end = last.getBoundingClientRect().bottom + window.scrollY + 2;
} else if (el !== document.body && el.getBoundingClientRect().height > 0) {
  end = el.getBoundingClientRect().bottom + window.scrollY + 2;
  if (marker) { end = Infinity; }  // an empty marker: what follows it
}
for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
  const range = document.createRange();
  range.setStart(nodes[i], offsets[i]);
  range.setEnd(nodes[i + needle.length - 1], offsets[i + needle.length - 1] + 1);
  const box = range.getBoundingClientRect();
  if (box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight) {
    const at = box.top + window.scrollY;
    return at >= top && at < end;
  }
}
return false;
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path)
    parser.add_argument("--site", action="append", default=[], help="NAME=ROOT (default: the five dev sites)")
    parser.add_argument("--max", type=int, default=0, help="at most this many links (0: all)")
    args = parser.parse_args()
    roots = dict(item.split("=", 1) for item in args.site) if args.site else SITES
    report = json.loads(args.report.read_text(encoding="utf-8"))
    links = [(q["site"], link["url"]) for q in report["questions"] for link in q.get("links", ())
             if ":~:" in link["url"] and q["site"] in roots]
    links = list(dict.fromkeys(links))[: args.max or None]
    landed = fell_back = 0
    outside: list[str] = []
    with ExitStack() as stack:
        bases = {site: stack.enter_context(serve_directory(Path(root))) for site, root in roots.items()}
        driver: Any = stack.enter_context(chromium())
        for i, (site, url) in enumerate(links, 1):
            parts = urlsplit(url)
            url = bases[site] + url[len(f"{parts.scheme}://{parts.netloc}/"):]
            bare, directive = split_directive(url)
            fragment = bare.partition("#")[2]
            found, _ = parse(directive or "")
            start = found[0].start if found and found[0] is not None else ""
            anchor_y = settled_scroll(driver, bare, min_wait=STILL_S)

            def on_quote(d: Any, y: int, start: str = start, fragment: str = fragment) -> bool:
                return bool(d.execute_script(ON_QUOTE_JS, start, fragment or None))

            # settled once on the quote inside its section; else waited out (past any fallback, up to 10 s)
            y = settled_scroll(driver, url, lambda d, y, anchor_y=anchor_y, on_quote=on_quote: y == anchor_y or on_quote(d, y), min_wait=STILL_S)
            if on_quote(driver, y):
                landed += 1
            elif y == anchor_y:
                fell_back += 1
            else:
                outside.append(f"{url} settled at {y} (anchor {anchor_y})")
                print(f"\noutside: {outside[-1]}", file=sys.stderr)
            print(f"\r{i}/{len(links)} links: {landed} on the quote, {fell_back} at the anchor, {len(outside)} "
                  "outside", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(json.dumps({"links": len(links), "on_the_quote": landed, "at_the_anchor": fell_back,
                      "outside": outside}, indent=2))
    return 1 if outside else 0


if __name__ == "__main__":
    raise SystemExit(main())
