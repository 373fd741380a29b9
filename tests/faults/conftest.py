"""Fixtures of the fault suite: a hostile server, the CLI run in-process, hash embeddings instead of the model."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docbot.cli import main
from docbot.indexing.embed import HashEmbedder
from tests.faults.hostile import Hostile, make_pages, serve

PAGES = 12

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture()
def hostile() -> Iterator[Hostile]:
    with serve(make_pages(PAGES)) as state:
        yield state


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries back off for milliseconds, not seconds: an all-500 site is retried just as often, sooner."""
    import crawlers.crawl

    fast = functools.partial(crawlers.crawl.CrawlConfig, backoff=0.01)
    monkeypatch.setattr("crawlers.crawl.CrawlConfig", fast)
    monkeypatch.setattr("docbot.commands.crawl.CrawlConfig", fast)


@pytest.fixture()
def hash_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command embeds with HashEmbedder (the model does not matter to faults)."""
    monkeypatch.setattr("docbot.indexing.embed.embedder_from_spec", lambda spec, settings=None: HashEmbedder())
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture()
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``cli(*args)`` → (exit code, stdout, stderr) of ``docbot --data-dir … --anchor-maps … ARGS``."""
    monkeypatch.chdir(tmp_path)  # no stray docbot.toml

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps"), *args])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run
