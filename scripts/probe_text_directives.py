"""Probe which text headless Chromium searches for a text directive (``#anchor:~:text=…``), construct by construct.

    .venv/bin/python scripts/probe_text_directives.py [--json] [--only NAME ...]

For each construct a page is generated and served on 127.0.0.1: a unique sentence sits first INSIDE the construct
(after 30 filler paragraphs), then again far below in a plain ``<p>`` of a visible section ``<h2 id="target">``.
``page.html#target:~:text=<sentence>`` is loaded fresh (about:blank in between) and, once the scroll has settled
(past the fallback of a directive that is not found), the landing is classed:

- ``inside``: the construct's stretch of the page is in view — Chromium matched the text in the construct;
- ``target``: the section's sentence is in view, scrollY not the bare anchor's — it skipped the construct;
- ``fallback``: scrollY is the bare ``#target``'s — the text matched nowhere, Chromium fell back to the anchor;
- ``other``: anywhere else (``top`` when scrollY is 0).

Character cases put a variant of the sentence in the construct (and the plain one in the section); block-boundary
cases split the construct's sentence across a boundary (``range`` ones quote ``start,end`` across it).
Reads as: ``inside`` = a browser searches this text (the model must count it, or no directive may match it first).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser import BrowserUnavailable, chromium, settled_scroll
from tests.conftest import serve_directory

S = "the copper heron juggles seven quiet lanterns"  # the sentence; no filler word repeats one of its words
HEAD, TAIL = "the copper heron juggles", "seven quiet lanterns"
FILLER = "Filler paragraph {n}: plain words about nothing much, repeated to make the page long enough to scroll."
BEFORE, BETWEEN, AFTER = 30, 150, 60
MIN_WAIT_S, STILL_S, MAX_WAIT_S = 2.5, 1.0, 6.0
PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
HEADERLINK_CSS = "a.headerlink{visibility:hidden} h2:hover>a.headerlink, p:hover>a.headerlink{visibility:visible}"
SR_ONLY_CSS = ".sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}"


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    construct: str  # HTML between the "before" and "after" marker paragraphs; {s} is the sentence
    css: str = ""
    directive: str = ""  # the text directive's value; default: the sentence, exact
    group: str = "construct"


def _enc(text: str) -> str:
    return quote(text, safe="").replace("-", "%2D")


def cases() -> list[Case]:
    zw, rlo, shy, nbsp = "\u200b", "\u202e", "\u00ad", "\u00a0"
    c = [
        Case("control: plain <p>", "<p>{s}</p>"),
        Case("control: not on the page", "<p>nothing to see</p>", directive=_enc("zzqq absent sentence")),
        Case("<svg><text>", '<svg width="600" height="40"><text x="0" y="20">{s}</text></svg>'),
        Case("<svg><title>", '<svg width="60" height="40"><title>{s}</title><rect width="10" height="10"/></svg>'),
        Case("<svg><desc>", '<svg width="60" height="40"><desc>{s}</desc><rect width="10" height="10"/></svg>'),
        Case("hidden", "<div hidden>{s}</div>"),
        Case('hidden + style="display:block"', '<div hidden style="display:block">{s}</div>'),
        Case("hidden shown by a <style> rule", '<div hidden class="shown">{s}</div>', css=".shown[hidden]{display:block}"),
        Case('hidden="until-found"', '<div hidden="until-found">{s}</div>'),
        Case("inline display:none", '<div style="display:none">{s}</div>'),
        Case("display:none by a class rule", '<div class="gone">{s}</div>', css=".gone{display:none}"),
        Case("inline visibility:hidden", '<div style="visibility:hidden">{s}</div>'),
        Case("sr-only (clip, 1px, absolute)", '<span class="sr-only">{s}</span>', css=SR_ONLY_CSS),
        Case("height:0;overflow:hidden", '<div style="height:0;overflow:hidden">{s}</div>'),
        Case("<details> closed, body", "<details><summary>More</summary><p>{s}</p></details>"),
        Case("<details> closed, <summary>", "<details><summary>{s}</summary><p>body</p></details>"),
        Case("<noscript>", "<noscript><p>{s}</p></noscript>"),
        Case("<template>", "<template><p>{s}</p></template>"),
        Case("declarative shadow DOM", '<div><template shadowrootmode="open"><p>{s}</p></template></div>'),
        Case("<object> fallback (missing data)", '<object data="missing.bin" type="application/x-docbot">{s}</object>'),
        Case("<object> fallback (svg loads)", '<object data="pic.svg" type="image/svg+xml" width="40" height="40">{s}</object>'),
        Case("<iframe> fallback text", '<iframe src="about:blank" width="200" height="40">{s}</iframe>'),
        Case("<video> fallback", "<video width=\"200\" height=\"40\">{s}</video>"),
        Case("<audio> fallback", "<audio>{s}</audio>"),
        Case("<canvas> fallback", '<canvas width="200" height="40">{s}</canvas>'),
        Case("<textarea>", '<textarea cols="60">{s}</textarea>'),
        Case("<select><option>", "<select><option>{s}</option></select>"),
        Case("<button>", "<button>{s}</button>"),
        Case("<input value=…>", '<input size="60" value="{s}">'),
        Case('aria-hidden="true"', '<div aria-hidden="true">{s}</div>'),
        Case("opacity:0", '<div style="opacity:0">{s}</div>'),
        Case("content-visibility:hidden", '<div style="content-visibility:hidden">{s}</div>'),
        Case("content-visibility:auto", '<div style="content-visibility:auto">{s}</div>'),
        Case("::before generated content", '<p class="gen"></p>', css='.gen::before{content:"' + S + '"}'),
        Case("<img alt> (broken image)", '<img alt="{s}" src="missing.png">'),
        Case("<img alt> (image loads)", f'<img alt="{{s}}" src="{PIXEL}" width="20" height="20">'),
        Case("<dialog> closed", "<dialog><p>{s}</p></dialog>"),
        Case("<dialog open>", "<dialog open><p>{s}</p></dialog>"),
        Case("<math><mtext>", "<p><math><mi>x</mi><mo>=</mo><mtext>{s}</mtext></math></p>"),
        Case("<ruby><rt>", "<p><ruby>\u6f22<rt>{s}</rt></ruby></p>"),
        Case("<a class=headerlink> (theme CSS)", '<h2 id="early">Early heading<a class="headerlink" href="#early">{s}</a></h2>',
             css=HEADERLINK_CSS),
        Case("<script> (control)", "<script>var s = '{s}';</script>"),
        Case("<style> (control)", "<style>/* {s} */</style>"),
    ]
    chars = [
        Case("quote with U+200B (page has it too)", "<p>" + S.replace("heron ", "heron " + zw) + "</p>",
             directive=_enc(S.replace("heron ", "heron " + zw))),
        Case("quote with U+202E (page has it too)", "<p>" + S.replace("heron ", "heron " + rlo) + "</p>",
             directive=_enc(S.replace("heron ", "heron " + rlo))),
        Case("quote with U+00AD (page has it too)", "<p>" + S.replace("lanterns", "lan" + shy + "terns") + "</p>",
             directive=_enc(S.replace("lanterns", "lan" + shy + "terns"))),
        Case("quote with U+00A0 (page has it too)", "<p>" + S.replace("seven ", "seven" + nbsp) + "</p>",
             directive=_enc(S.replace("seven ", "seven" + nbsp))),
        Case("quote with U+200B, page plain", "<p>{s}</p>", directive=_enc(S.replace("heron ", "heron " + zw))),
        Case("quote with U+200B inside a word, page plain", "<p>{s}</p>",
             directive=_enc(S.replace("lanterns", "lan" + zw + "terns"))),
        Case("quote with U+202E, page plain", "<p>{s}</p>", directive=_enc(S.replace("heron ", "heron " + rlo))),
        Case("quote with U+00AD, page plain", "<p>{s}</p>", directive=_enc(S.replace("lanterns", "lan" + shy + "terns"))),
        Case("quote with curly quotes, page straight", "<p>" + S.replace("quiet", "'quiet'") + "</p>",
             directive=_enc(S.replace("quiet", "\u2018quiet\u2019"))),
        Case("quote with U+00A0, page a space", "<p>nothing</p>", directive=_enc(S.replace("seven ", "seven" + nbsp))),
        Case("page U+200B after a space, quote plain", "<p>" + S.replace("heron ", "heron " + zw) + "</p>"),
        Case("page U+200B inside a word, quote plain", "<p>" + S.replace("lanterns", "lan" + zw + "terns") + "</p>"),
        Case("page U+200B instead of a space, quote plain", "<p>" + S.replace("heron ", "heron" + zw) + "</p>"),
        Case("page <wbr> inside a word, quote plain", "<p>" + S.replace("lanterns", "lan<wbr>terns") + "</p>"),
        Case("page U+00AD inside a word, quote plain", "<p>" + S.replace("lanterns", "lan" + shy + "terns") + "</p>"),
        Case("page &shy; inside a word, quote plain", "<p>" + S.replace("lanterns", "lan&shy;terns") + "</p>"),
        Case("page U+00A0 between words, quote plain", "<p>" + S.replace("seven ", "seven" + nbsp) + "</p>"),
        Case("page U+202E inside, quote plain", "<p>" + S.replace("heron ", "heron " + rlo) + "</p>"),
        Case("page curly quote, quote straight", "<p>" + S.replace("quiet", "\u2018quiet\u2019") + "</p>",
             directive=_enc(S.replace("quiet", "'quiet'"))),
        Case("page upper case, quote lower", "<p>" + S.upper() + "</p>"),
    ]
    for case in chars:
        object.__setattr__(case, "group", "characters")
    blocks = []
    for label, html in (
        ('<span style="display:block">', HEAD + ' <span style="display:block">' + TAIL + "</span>"),
        ("<br>", HEAD + "<br>" + TAIL),
        ("inline <code>", HEAD + " <code>" + TAIL + "</code>"),
        ("inline <em>", HEAD + " <em>" + TAIL + "</em>"),
        ("table cells", "<table><tr><td>" + HEAD + "</td><td>" + TAIL + "</td></tr></table>"),
        ("two <p>", "<p>" + HEAD + "</p><p>" + TAIL + "</p>"),
        ("inline-block span", HEAD + ' <span style="display:inline-block">' + TAIL + "</span>"),
    ):
        wrapped = html if html.startswith(("<table", "<p>")) else "<div>" + html + "</div>"
        blocks.append(Case(f"across {label}, exact", wrapped, group="blocks"))
        blocks.append(Case(f"across {label}, range", wrapped, directive=_enc(HEAD) + "," + _enc(TAIL), group="blocks"))
    return c + chars + blocks


def page(case: Case) -> str:
    fill = lambda a, b: "\n".join(f"<p>{FILLER.format(n=n)}</p>" for n in range(a, b))  # noqa: E731
    construct = case.construct.replace("{s}", S)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>probe</title>
<style>body{{font:16px/1.5 sans-serif;margin:0 24px}} {case.css}</style></head>
<body><h1>Probe</h1>
{fill(0, BEFORE)}
<p id="before">Before the construct.</p>
{construct}
<p id="after">After the construct.</p>
{fill(BEFORE, BEFORE + BETWEEN)}
<h2 id="target">Target section</h2>
{fill(1000, 1003)}
<p id="target-text">{S}</p>
{fill(2000, 2000 + AFTER)}
</body></html>
"""


PIC = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#ccc"/></svg>'
GEOMETRY_JS = """
const abs = id => { const b = document.getElementById(id).getBoundingClientRect(); return [b.top + scrollY, b.bottom + scrollY]; };
const max = document.documentElement.scrollHeight - innerHeight;
return {before: abs('before')[0], after: abs('after')[1], anchor: Math.round(Math.min(abs('target')[0], max)),
        text: abs('target-text'), height: innerHeight};
"""


@dataclass(frozen=True, slots=True)
class Landing:
    name: str
    group: str
    result: str
    y: int
    construct: tuple[int, int]
    anchor: int
    text: int
    seconds: float


def classify(y: int, g: dict[str, Any]) -> str:
    bottom = y + g["height"]
    if y < g["after"] and bottom > g["before"]:
        return "inside"
    if abs(y - g["anchor"]) <= 2:
        return "fallback"
    if y <= g["text"][0] and g["text"][1] <= bottom:
        return "target"
    return "top" if y == 0 else "other"


def probe(selected: list[Case]) -> list[Landing]:
    landings = []
    with tempfile.TemporaryDirectory(prefix="docbot-probe-") as tmp, serve_directory(Path(tmp)) as base, chromium() as driver:
        (Path(tmp) / "pic.svg").write_text(PIC, encoding="utf-8")
        for i, case in enumerate(selected):
            (Path(tmp) / f"p{i}.html").write_text(page(case), encoding="utf-8")
            directive = case.directive or _enc(S)
            t0 = time.monotonic()
            y = settled_scroll(driver, f"{base}p{i}.html#target:~:text={directive}",
                               min_wait=MIN_WAIT_S, still=STILL_S, max_wait=MAX_WAIT_S)
            g = driver.execute_script(GEOMETRY_JS)
            landings.append(Landing(case.name, case.group, classify(y, g), y, (round(g["before"]), round(g["after"])),
                                    int(g["anchor"]), round(g["text"][0]), round(time.monotonic() - t0, 1)))
            print(f"  {landings[-1].result:8} {case.name}", file=sys.stderr, flush=True)
    return landings


def table(landings: list[Landing]) -> str:
    rows = [("group", "construct", "landed", "scrollY", "construct at", "anchor", "section text", "s")]
    rows += [(x.group, x.name, x.result, str(x.y), f"{x.construct[0]}–{x.construct[1]}", str(x.anchor), str(x.text),
              f"{x.seconds:.1f}") for x in landings]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the landings as JSON")
    parser.add_argument("--only", nargs="*", default=(), help="cases whose name contains one of these")
    args = parser.parse_args()
    selected = [c for c in cases() if not args.only or any(o.lower() in c.name.lower() for o in args.only)]
    try:
        landings = probe(selected)
    except BrowserUnavailable as exc:
        print(f"probe_text_directives: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([asdict(x) for x in landings], indent=1, ensure_ascii=False))
    else:
        print(table(landings))
        counts: dict[str, int] = {}
        for x in landings:
            counts[x.result] = counts.get(x.result, 0) + 1
        print("\n" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" (of {len(landings)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
