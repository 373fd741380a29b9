"""Benchmark the index on the Python 3.11 docs: chunks, chunks/s, peak RSS, size on disk, no-op re-index, query latency.

    .venv/bin/python scripts/bench_index.py --max-pages 60            # quick
    .venv/bin/python scripts/bench_index.py --max-pages 0             # every page

Sections come from ``crawlers.extract.extract`` over the installed HTML files
(the same sections a crawl over 127.0.0.1 gives, without timing the crawl).
``--embedder local`` is the default local model (onnxruntime), ``local-torch``
the same model on sentence-transformers, for comparison. Targets on 2 cores:
≥ 40 chunks/s with the local model, no-op re-index < 10 s, peak RSS < 2 GB.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawlers.extract import extract  # noqa: E402
from crawlers.model import AnchorMap, Page, SectionText  # noqa: E402
from docbot.embed import Embedder, HashEmbedder, LocalMiniLM  # noqa: E402
from docbot.index import Index  # noqa: E402

DEFAULT_ROOT = Path("/usr/share/doc/python3.11-doc/html")
BASE = "http://127.0.0.1:8000/"
SKIP = ("_static", "_sources", "_images", "genindex", "search.html", "py-modindex")
QUERIES = ["how do I read a file line by line", "os.path.join", "asyncio.gather timeout", "dataclass frozen",
           "sort a list in place", "json.dumps indent", "subprocess run capture output", "f-string formatting",
           "what is a generator", "logging basicConfig"]


def load_site(root: Path, max_pages: int) -> tuple[list[SectionText], AnchorMap]:
    files = sorted(p for p in root.rglob("*.html") if not any(s in str(p.relative_to(root)) for s in SKIP))
    if max_pages:
        files = files[:max_pages]
    pages: dict[str, Page] = {}
    texts: list[SectionText] = []
    for path in files:
        url = BASE + str(path.relative_to(root))
        html = path.read_bytes()
        ex = extract(html, url)
        title, anchors = ex.title, set(ex.anchors)
        secs = [(s.anchor, s.title, s.level, s.path, s.text) for s in ex.sections]
        pages[url] = Page(url, title, "Other", anchors=tuple(sorted(anchors)))
        texts.extend(SectionText("python", url, a, t, lv, p, "Other", tx) for a, t, lv, p, tx in secs)
    return texts, AnchorMap("python", BASE, pages=pages)


def disk_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--max-pages", type=int, default=60, help="0 = every page")
    parser.add_argument("--embedder", choices=("local", "local-torch", "hash"), default="local")
    parser.add_argument("--data-dir", type=Path, help="default: a temporary directory")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench_index_"))
    t0 = time.perf_counter()
    sections, amap = load_site(args.root, args.max_pages)
    load_s = time.perf_counter() - t0
    embedder: Embedder = (LocalMiniLM(backend="torch" if args.embedder == "local-torch" else "onnx")
                          if args.embedder.startswith("local") else HashEmbedder())
    if isinstance(embedder, LocalMiniLM):
        embedder.embed_query("warm up")  # model load is not indexing throughput
    with Index.open(data_dir, embedder) as index:
        first = index.build("python", sections, amap)
    with Index.open(data_dir, embedder) as index:  # a fresh process-like open, as `docbot index` does
        noop = index.build("python", sections, amap)
        for q in QUERIES:  # warm caches
            index.dense(q, k=20), index.lexical(q, k=20)
        lat = []
        for q in QUERIES * 3:
            t = time.perf_counter()
            index.dense(q, k=20)
            index.lexical(q, k=20)
            lat.append((time.perf_counter() - t) * 1000)
    figures = {
        "pages": len(amap.pages),
        "sections": len(sections),
        "chunks": first.chunks,
        "embedded": first.embedded,
        "index_seconds": round(first.seconds, 1),
        "chunks_per_s": round(first.embedded / first.seconds, 1) if first.seconds else None,
        "noop_seconds": round(noop.seconds, 2),
        "noop_embedded": noop.embedded,
        "query_p50_ms": round(statistics.median(lat), 1),
        "query_p95_ms": round(sorted(lat)[int(0.95 * (len(lat) - 1))], 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "disk_mb": round(disk_size(data_dir) / 1e6, 1),
        "load_seconds": round(load_s, 1),
        "embedder": embedder.name + (f" ({embedder.backend})" if isinstance(embedder, LocalMiniLM) else ""),
    }
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
