"""Shared fixtures: real documentation sites served on 127.0.0.1 and crawled once per session."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

# Fixtures that live beside their helpers and are used in more than one folder: the headless Chromium session, the
# fake OpenAI-compatible server, the throw-away PostgreSQL server and a `chroma run` server. Registered here, so a
# test names them as parameters without importing them.
pytest_plugins = ("tests.browser", "tests.docbot.answering.fake_openai", "tests.postgres", "tests.chroma")

EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval"
if not EVAL_DIR.is_dir():  # a clone elsewhere: fall back to the workplace copy
    EVAL_DIR = Path("/work/shared/eval")
EVAL_ROOTS = {
    "flask": Path("/usr/share/doc/python-flask-doc/html"),
    "requests": Path("/usr/share/doc/python-requests-doc/html"),
    "drf": Path("/usr/share/doc/python3-djangorestframework/html"),
    "sqlalchemy": Path("/usr/share/doc/python-sqlalchemy-doc/html"),
    "git": Path("/usr/share/doc/git-doc"),
}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve ``root`` over real HTTP on 127.0.0.1; yields the base URL (ending in '/')."""
    if not root.is_dir():
        raise RuntimeError(f"{root} is missing — run scripts/install.sh (it installs the Debian docs packages)")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def load_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def eval_questions() -> list[dict]:
    return load_jsonl(EVAL_DIR / "dev_questions.jsonl")


@pytest.fixture(scope="session")
def eval_cases() -> list[dict]:
    return load_jsonl(EVAL_DIR / "dev_validator_cases.jsonl")


@pytest.fixture(scope="session")
def eval_site_servers() -> Iterator[dict[str, str]]:
    """site name → base URL of that site's root served on 127.0.0.1."""
    with ExitStack() as stack:
        yield {site: stack.enter_context(serve_directory(root)) for site, root in EVAL_ROOTS.items()}


@pytest.fixture(scope="session")
def eval_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(anchor_maps dir, data dir) holding the crawled eval sites."""
    base = tmp_path_factory.mktemp("eval")
    return base / "anchor_maps", base / "data"


@pytest.fixture(scope="session")
def eval_maps(eval_site_servers: dict[str, str], eval_dirs: tuple[Path, Path]) -> dict:
    """site name → AnchorMap from a real crawl over HTTP (sections in the data dir)."""
    from crawlers.crawl import CrawlConfig
    from tests.crawling import crawl_as_cli

    maps_dir, data_dir = eval_dirs
    maps = {}
    for site, base in eval_site_servers.items():
        result, _ = crawl_as_cli(CrawlConfig(site=site, start_url=base), maps_dir, data_dir)
        maps[site] = result.map
    return maps


@pytest.fixture(scope="session")
def eval_base_urls(eval_site_servers: dict[str, str]) -> dict[str, str]:
    return dict(eval_site_servers)


def run(coro):  # small helper for tests of async code without a plugin
    return asyncio.run(coro)


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ONNX export of the local model goes to a per-run directory (inherited by subprocesses)."""
    path = tmp_path_factory.mktemp("model-cache")
    with pytest.MonkeyPatch.context() as patch:  # session-wide; restored after the run
        patch.setenv("DOCBOT_MODEL_CACHE", str(path))
        yield path
