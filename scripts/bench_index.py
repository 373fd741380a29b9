"""Benchmark the index on the Python 3.11 docs: chunks, chunks/s, peak RSS, size on disk, no-op re-index, query latency.

    .venv/bin/python scripts/bench_index.py --max-pages 60            # quick
    .venv/bin/python scripts/bench_index.py --max-pages 0             # every page

Sections come from ``crawlers.parse.extract.extract`` over the installed HTML files
(the same sections a crawl over 127.0.0.1 gives, without timing the crawl).
``--embedder local`` is the default local model (onnxruntime), ``local-torch``
the same model on sentence-transformers, for comparison. Targets on 2 cores:
≥ 40 chunks/s with the local model, no-op re-index < 10 s, peak RSS < 2 GB.

With the onnxruntime runner it also prints how close the embedding gets to
this CPU's own limit: tokens embedded per second times the model's
floating-point operations per token, beside the rate onnxruntime's matrix
multiply reaches on the same cores with the model's largest layer shape.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawlers.model import AnchorMap, Page, SectionText
from crawlers.parse.extract import extract
from docbot.config import load_settings
from docbot.indexing.embed import Embedder, HashEmbedder, LocalMiniLM
from docbot.indexing.index import Index
from docbot.updating import index_texts

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


def flops_per_token(config: dict[str, int], tokens: float) -> float:
    """Multiply-adds ×2 per token of a BERT encoder: the four attention projections, the feed-forward pair,
    and attention scores and mixing over ``tokens`` positions."""
    hidden, inner, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    return 2.0 * layers * (4 * hidden * hidden + 2 * hidden * inner + 2 * tokens * hidden)


def matmul_ceiling(hidden: int, inner: int, threads: int, seconds: float = 3.0) -> float:
    """GFLOP/s of onnxruntime's MatMul on a (1024 × hidden) · (hidden × inner) product, one
    single-threaded session per thread at once: the way :mod:`docbot.indexing.embed_onnx` runs the model."""
    import threading

    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rows = 1024
    weight = numpy_helper.from_array(np.random.default_rng(0).random((hidden, inner), dtype=np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])], "matmul",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [rows, hidden])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [rows, inner])], [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    x = np.random.default_rng(1).random((rows, hidden), dtype=np.float32)
    counts = [0] * threads

    def run(slot: int) -> None:
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        session.run(None, {"X": x})
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            session.run(None, {"X": x})
            counts[slot] += 1

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) * 2.0 * rows * hidden * inner / (time.perf_counter() - started) / 1e9


def efficiency(embedder: LocalMiniLM, texts: list[str], seconds: float) -> dict[str, float]:
    """Tokens/s the index run reached, the GFLOP/s that is, and the MatMul ceiling beside it."""
    runner = embedder._load_onnx()  # the benchmark looks inside on purpose
    if runner is None:  # no export: sentence-transformers ran, and the figures below are about onnxruntime
        return {}
    config = json.loads((Path(embedder._model_dir()) / "config.json").read_text())
    lengths = [len(e.ids) for e in runner.tokenizer.encode_batch(texts)]
    tokens = sum(lengths)
    mean = tokens / max(len(lengths), 1)
    rate = tokens * flops_per_token(config, mean) / seconds / 1e9
    ceiling = matmul_ceiling(config["hidden_size"], config["intermediate_size"], runner.workers)
    return {
        "tokens_mean": round(mean, 1),
        "tokens_per_s": round(tokens / seconds),
        "model_gflops": round(rate, 1),
        "matmul_ceiling_gflops": round(ceiling, 1),
        "share_of_ceiling": round(rate / ceiling, 2),
    }


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
    embedder: Embedder = (LocalMiniLM(backend="torch" if args.embedder == "local-torch" else "onnx",
                                      cache_dir=load_settings().model_cache)
                          if args.embedder.startswith("local") else HashEmbedder())
    if isinstance(embedder, LocalMiniLM):
        embedder.embed_query("warm up")  # model load is not indexing throughput
    with Index.open(data_dir, embedder) as index:
        first = index_texts(index, "python", sections, amap)
    with Index.open(data_dir, embedder) as index:  # a fresh process-like open, as `docbot index` does
        noop = index_texts(index, "python", sections, amap)
        # A refresh that changed one section in a hundred: a new generation, its other vectors copied.
        edited = [dataclasses.replace(t, text=t.text + " (edited)") if i % 100 == 0 else t for i, t in enumerate(sections)]
        changed = index_texts(index, "python", edited, amap)
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
        "one_percent_changed_seconds": round(changed.seconds, 1),
        "one_percent_changed_embedded": changed.embedded,
        "one_percent_changed_copied": changed.reused,
        "query_p50_ms": round(statistics.median(lat), 1),
        "query_p95_ms": round(sorted(lat)[int(0.95 * (len(lat) - 1))], 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "disk_mb": round(disk_size(data_dir) / 1e6, 1),
        "load_seconds": round(load_s, 1),
        "embedder": embedder.name + (f" ({embedder.backend})" if isinstance(embedder, LocalMiniLM) else ""),
    }
    if isinstance(embedder, LocalMiniLM) and embedder.backend == "onnx" and first.seconds:
        from docbot.indexing.chunk import chunk_sections

        figures.update(efficiency(embedder, [c.embed_text for c in chunk_sections(sections, amap)], first.seconds))
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
