"""Benchmark the ReferenceValidator on the Python 3.11 docs (~25k anchors): map load time and p50/p99 per 20-link answer.

    .venv/bin/python scripts/bench_validate.py [--root /usr/share/doc/python3.11-doc/html] [--answers 300]

Builds the anchor map with the crawler over 127.0.0.1 when it is available,
otherwise with ``crawlers.parse.extract.extract`` on the files, otherwise from ids
and headings read with lxml; saves it; times ``AnchorMap.load``; then validates
20-link answers (valid, case/slug, transplanted, paraphrased and dead-page
links). Targets: p99 < 1 ms per answer after warm-up, load < 300 ms; when one link needs its page's
headings ranked (a paraphrased or embellished fragment), p99 < 20 ms even on a page ranked for the first time.
With the crawler's page texts: 20-link answers whose every link carries a text directive (``#id:~:text=…``), each
checked afresh, and answers that quote 20 sources, each directive derived afresh: p99 < 5 ms per answer.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawlers.model import AnchorMap, Page, Section
from docbot.references.validator import ReferenceValidator, Source

DEFAULT_ROOT = Path("/usr/share/doc/python3.11-doc/html")
BASE = "http://127.0.0.1:9/"


def _crawl(root: Path, out: Path) -> AnchorMap | None:
    try:
        from crawlers.crawl import CrawlConfig
        from docbot.config import Settings
        from docbot.updating import update_site
        from tests.conftest import serve_directory
    except ImportError:
        return None
    try:
        with serve_directory(root) as base:
            settings = Settings(data_dir=out / "data", anchor_maps=out / "maps")
            return update_site(settings, CrawlConfig(site="python", start_url=base))[0].map
    except NotImplementedError:
        return None


def _page_from_files(path: Path, url: str) -> Page:
    data = path.read_bytes()
    try:
        from crawlers.parse.extract import extract

        ex = extract(data, url)
        sections = tuple(Section(s.anchor, s.title, s.level, s.path, s.kind) for s in ex.sections)
        return Page(url=url, title=ex.title, anchors=tuple(sorted(ex.anchors)), sections=sections)
    except NotImplementedError:
        pass
    from lxml import html as lxml_html  # fallback while the extractor is not built

    doc = lxml_html.fromstring(data)
    anchors = set(doc.xpath("//@id")) | set(doc.xpath("//a/@name"))
    title = (doc.findtext(".//title") or "").strip()
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    for el in doc.iter("h1", "h2", "h3", "h4", "dt"):
        if el.tag == "dt":
            if el.get("id"):
                sections.append(Section(el.get("id"), el.get("id"), 9, (*(t for _, t in stack), el.get("id")), "api"))
            continue
        level, text = int(el.tag[1]), el.text_content().replace("¶", "").strip()
        anchor = el.get("id") or (el.getparent().get("id") if el.getparent() is not None else None)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        sections.append(Section(anchor, text, level, tuple(t for _, t in stack)))
    return Page(url=url, title=title, anchors=tuple(sorted(anchors)), sections=tuple(sections))


def build_map(root: Path, out: Path) -> tuple[AnchorMap, str]:
    crawled = _crawl(root, out)
    if crawled is not None:
        return crawled, "crawler over 127.0.0.1"
    pages = {}
    for path in sorted(root.rglob("*.html")):
        url = BASE + path.relative_to(root).as_posix()
        pages[url] = _page_from_files(path, url)
    return AnchorMap(site="python", base_url=BASE, pages=pages), "files"


def make_answers(amap: AnchorMap, count: int, seed: int = 7, paraphrased: int = 3, embellished: int = 0) -> list[str]:
    """20-link answers: valid links, 3 case/slug, 2 transplanted, ``paraphrased`` (a heading word left out),
    ``embellished`` (a word added to a heading id: repaired by ranking the page's headings), 2 dead pages."""
    rng = random.Random(seed)
    pages = [p for p in amap.pages.values() if len(p.anchors) > 3]
    headings = [(p, s) for p in pages for s in p.sections if s.anchor and s.kind == "heading" and "-" in s.anchor]
    answers = []
    for _ in range(count):
        links = []
        for _ in range(13 - paraphrased - embellished):
            p = rng.choice(pages)
            links.append(f"{p.url}#{rng.choice(p.anchors)}")
        for _ in range(3):
            p, s = rng.choice(headings)
            links.append(f"{p.url}#{s.anchor.replace('-', '_').upper() if rng.random() < 0.5 else s.anchor.title()}")
        for _ in range(2):
            p, s = rng.choice(headings)
            links.append(f"{rng.choice(pages).url}#{s.anchor}")
        for _ in range(paraphrased):
            p, s = rng.choice(headings)
            words = s.anchor.split("-")
            links.append(f"{p.url}#{'-'.join(words[1:] or words)}")
        for _ in range(embellished):
            p, s = rng.choice(headings)
            links.append(f"{p.url}#{s.anchor}-{rng.choice(('overview', 'explained', 'walkthrough'))}")
        for _ in range(2):
            p = rng.choice(pages)
            links.append(p.url.replace(".html", "/") + "#" + rng.choice(p.anchors))
        answers.append(" ".join(f"[{i}]({u}) text [{i % 5 + 1}]." for i, u in enumerate(links)))
    return answers


def _quotes(amap: AnchorMap, data_dir: Path, rng: random.Random) -> tuple[dict[str, object], list[tuple[str, str, str]]]:
    """The crawl's page texts, and (deep URL, quoted sentence, URL with its text directive) for sentences of sections."""
    from docbot.answering.units import units
    from docbot.indexing.generations import Generations

    crawled = Generations(data_dir, "python").latest()
    assert crawled is not None, f"no crawl of python in {data_dir}"
    pages: dict[str, object] = {p.url: p for p in crawled.load_pages()}
    texts = [t for t in crawled.load_texts() if t.anchor and t.url in pages]
    maker = ReferenceValidator({"python": amap}, page_texts=lambda site, page: pages.get(page))  # type: ignore[arg-type, return-value]
    quoted = []
    for t in rng.sample(texts, min(3000, len(texts))):
        sentences = [u for u, code, _ in units(t.text) if not code and len(u.split()) >= 6]
        if sentences:
            url, passage = f"{t.url}#{t.anchor}", rng.choice(sentences)
            refs = maker.validate("x [1]", [Source(1, url, "t", ("t",), "Guides", "python", passage=passage)]).references
            if refs and ":~:" in refs[0].url:
                quoted.append((url, passage, refs[0].url))
    print(f"text directives derived for {len(quoted)} of the sampled sections' sentences")
    return pages, quoted


def bench_directives(amap: AnchorMap, data_dir: Path, count: int) -> None:
    """20-link answers whose links carry text directives (each checked afresh), and answers quoting 20 sources (each
    directive derived afresh): once every page has been seen (as a running bot has seen the pages it links to), and
    with every page's visible text folded for the first time."""
    rng = random.Random(11)
    try:
        pages, quoted = _quotes(amap, data_dir, rng)
    except Exception as exc:  # noqa: BLE001 - a map built from files has no page texts
        print(f"text directives not measured ({type(exc).__name__}: {exc})")
        return
    batches = [rng.sample(quoted, 20) for _ in range(count)]
    bodies = [" ".join(f"[{i}]({link}) text [{i}]." for i, (_, _, link) in enumerate(b, 1)) for b in batches]
    quoting = [[Source(i, url, "t", ("t",), "Guides", "python", passage=passage) for i, (url, passage, _) in enumerate(b, 1)]
               for b in batches]
    facts = " ".join(f"Fact [{i}]." for i in range(1, 21))
    for label, fresh in (("every page seen before", False), ("every page's text folded afresh", True)):
        validator = ReferenceValidator({"python": amap}, page_texts=lambda site, page: pages.get(page))  # type: ignore[arg-type, return-value]
        for _, _, link in quoted:
            validator.check_url(link)  # what a running bot has built: each page's folded text and fragment index
        checked: list[float] = []
        derived: list[float] = []
        kept = made = 0
        gc.collect()
        for body, sources in zip(bodies, quoting):
            for run, sink in ((partial(validator.validate, body, []), checked), (partial(validator.validate, facts, sources), derived)):
                validator._cache.clear()
                validator.directives._derived.clear()
                if fresh:  # the pages' texts folded again (the site's anchor index stays, as in a running bot)
                    validator.directives._pages.clear()
                t0 = time.perf_counter()
                out = run()
                sink.append((time.perf_counter() - t0) * 1000)
                kept += sum(":~:" in (o.output or "") for o in out.outcomes if ":~:" in o.input)
                made += sum(":~:" in r.url for r in out.references) if sink is derived else 0
        for what, times in (("20 links with text directives, each checked", checked),
                            ("20 quoted sources, each directive derived", derived)):
            print(f"validate an answer of {what} ({label}): p50 {percentile(times, 0.5):.3f} ms, "
                  f"p99 {percentile(times, 0.99):.3f} ms")
        print(f"  directives kept {kept}/{20 * len(bodies)}, derived {made}/{20 * len(bodies)}")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--answers", type=int, default=300)
    args = parser.parse_args()
    if not args.root.is_dir():
        print(f"{args.root} is missing — install python3.11-doc (scripts/install.sh)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        amap, how = build_map(args.root, Path(tmp))
        print(f"built map via {how}: {len(amap.pages)} pages, {amap.anchor_count()} anchors, "
              f"{amap.section_count()} sections in {time.perf_counter() - t0:.1f} s")
        path = Path(tmp) / "python.json"
        amap.save(path)
        loads = []
        for _ in range(5):
            t0 = time.perf_counter()
            amap = AnchorMap.load(path)
            loads.append((time.perf_counter() - t0) * 1000)
        print(f"AnchorMap.load: {statistics.median(loads):.0f} ms median of 5 ({path.stat().st_size / 1e6:.1f} MB)")
        bench_directives(amap, Path(tmp) / "data", args.answers)

    answers = make_answers(amap, args.answers)
    sources = [Source(i, u, "t", ("t",), "Guides", "python") for i, u in enumerate([BASE + "library/functions.html"], 1)]
    validator = ReferenceValidator({"python": amap})
    t0 = time.perf_counter()
    for answer in answers:  # warm-up: builds the lazy per-page and site-wide indexes
        validator.validate(answer, sources)
    print(f"warm-up (index build over {args.answers} answers): {(time.perf_counter() - t0) * 1000:.0f} ms")
    for label, clear in (("cold URL cache: every link checked", True), ("warm URL cache: repeated links", False)):
        times = []
        for answer in answers:
            if clear:
                validator._cache.clear()
            else:
                validator.validate(answer, sources)
            t0 = time.perf_counter()
            validator.validate(answer, sources)
            times.append((time.perf_counter() - t0) * 1000)
        print(f"validate 20-link answer ({label}): p50 {percentile(times, 0.5):.3f} ms, p99 {percentile(times, 0.99):.3f} ms")
    # Answers where no link needs the heading ranking, and answers where one does on a page ranked for the
    # first time (its ranker built inside the timing), each with every link checked afresh.
    plain = make_answers(amap, args.answers, seed=8, paraphrased=0)
    one = make_answers(amap, args.answers, seed=9, paraphrased=0, embellished=1)
    for label, batch, fresh_ranker in (("no link needs a heading ranking", plain, False),
                                       ("one link needs a heading ranking, page ranked afresh", one, True)):
        for answer in batch:
            validator.validate(answer, sources)  # warm the other lookups, as a running bot has them
        times = []
        for answer in batch:
            validator._cache.clear()
            if fresh_ranker:
                validator._index("python")._rankers.clear()
            t0 = time.perf_counter()
            validator.validate(answer, sources)
            times.append((time.perf_counter() - t0) * 1000)
        print(f"validate 20-link answer ({label}): p50 {percentile(times, 0.5):.3f} ms, p99 {percentile(times, 0.99):.3f} ms")
    rewritten = [o for a in one[:50] for o in validator.validate(a, sources).outcomes if "paraphrase" in o.reason]
    print(f"embellished links rewritten by heading ranking in 50 answers: {len(rewritten)}")
    actions: dict[str, int] = {}
    for o in validator.validate(answers[0], sources).outcomes:
        actions[o.action] = actions.get(o.action, 0) + 1
    print(f"outcomes of one answer: {actions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
