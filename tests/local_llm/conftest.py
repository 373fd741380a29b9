"""A real LLM on 127.0.0.1: SmolLM2-135M-Instruct served by llama-cpp-python, and Requests' docs to ask about.

Without the optional install (`scripts/install.sh --local-llm`) these tests are skipped, saying so; with
DOCBOT_REQUIRE_LOCAL_LLM=1 (as `.ci/run` sets) they fail instead, so CI cannot pass without them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from docbot.cli import main
from docbot.config import load_settings
from docbot.pipeline import Pipeline
from docbot.references.scan import outside_code
from docbot.report.live import check_links_sync
from scripts.serve_local_llm import NotInstalled, model_path, start, wait_ready
from tests.conftest import EVAL_ROOTS, serve_directory

N_CTX = 2048  # the server's window
CONTEXT = 640  # docbot's: a short prompt (a source or two) is read in seconds, not a minute, on a loaded CPU
MAX_TOKENS = 32  # short answers: the model writes 10-60 tokens a second, by the machine's load
BUDGET_S = 120.0
# One question for every test of the shared server: llama.cpp keeps the last prompt's tokens, so a prompt that
# starts the same way is read only from where it differs (the machine is loaded; reading is most of the time).
QUESTION = "How do I send a JSON body in a POST request?"
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def require_local_llm() -> None:
    """Skip, or fail under DOCBOT_REQUIRE_LOCAL_LLM=1, when the server or the model is not installed."""
    try:
        if importlib.util.find_spec("llama_cpp") is None:
            raise NotInstalled("llama-cpp-python is not installed — run scripts/install.sh --local-llm")
        model_path()
    except NotInstalled as exc:
        if os.environ.get("DOCBOT_REQUIRE_LOCAL_LLM") == "1":
            pytest.fail(f"{exc} (DOCBOT_REQUIRE_LOCAL_LLM=1: the local-LLM tests must run)", pytrace=False)
        pytest.skip(str(exc))


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str  # …/v1
    log: Path
    n_ctx: int

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def serve_model(tmp: Path, n_ctx: int = N_CTX) -> Server:
    """A fresh llama_cpp.server on a free port, once /v1/models answers (a bounded wait)."""
    require_local_llm()
    log = tmp / f"llama-{n_ctx}-{time.monotonic_ns()}.log"
    proc, url = start(n_ctx, log=log)
    try:
        wait_ready(proc, url)
    except RuntimeError as exc:
        proc.kill()
        raise AssertionError(f"{exc}; its log:\n{log.read_text(errors='replace')[-2000:]}") from None
    return Server(proc, url, log, n_ctx)


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = serve_model(tmp_path_factory.mktemp("llama"))
    yield server
    server.stop()


@dataclass
class Site:
    base: str  # the served docs' base URL
    args: list[str]  # --config/--data-dir/--anchor-maps for the docbot CLI


@pytest.fixture(scope="session")
def requests_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Requests' docs served on 127.0.0.1, crawled and indexed once. Embedded by the model-free ``hash`` embedder
    (BM25 beside it finds the sections): the LLM is under test here, and the real embedder's first run exports it
    to ONNX, two minutes on a loaded machine."""
    require_local_llm()
    tmp = tmp_path_factory.mktemp("requests-site")
    (tmp / "docbot.toml").write_text("", encoding="utf-8")
    args = ["--config", str(tmp / "docbot.toml"), "--data-dir", str(tmp / "d"), "--anchor-maps", str(tmp / "m")]
    with serve_directory(EVAL_ROOTS["requests"]) as base, pytest.MonkeyPatch.context() as patch:
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DOCBOT_LLM_MODEL"):
            patch.delenv(name, raising=False)
        patch.setenv("DOCBOT_EMBEDDINGS", "hash")
        assert main([*args, "crawl", base, "--site", "requests"]) == 0
        assert main([*args, "index"]) == 0
        yield Site(base, args)


def use_llm(monkeypatch: pytest.MonkeyPatch, server: Server, context: int | None = None,
            budget: float = BUDGET_S, max_tokens: int = MAX_TOKENS) -> None:
    """docbot's settings for ``server``, as a user sets them (environment variables read by docbot.config)."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "hash")
    monkeypatch.setenv("DOCBOT_LLM_MODEL", "llamacpp:smollm2")
    monkeypatch.setenv("DOCBOT_LLM_BASE_URL", server.url)
    monkeypatch.setenv("DOCBOT_LLM_CONTEXT", str(context or min(CONTEXT, server.n_ctx)))
    monkeypatch.setenv("DOCBOT_LLM_BUDGET", str(budget))
    monkeypatch.setenv("DOCBOT_LLM_MAX_TOKENS", str(max_tokens))


def pipeline_for(site: Site) -> Pipeline:
    """docbot's pipeline over ``site``, with the LLM the environment names (see :func:`use_llm`)."""
    settings = load_settings(config_path=site.args[1], data_dir=site.args[3], anchor_maps=site.args[5])
    return Pipeline.from_settings(settings, live_pages=None)


def markers(text: str) -> list[int]:
    return [int(n) for m in _MARKER.finditer(text) for n in m.group(1).split(",")]


def assert_sound(answer: dict, kept_reasons: tuple[str, ...] = ("cites none of its sources", "empty answer",
                                                         "says nothing its sources say")) -> None:
    """What a user may rely on whatever the model wrote: every link lands on its page and fragment, every [n] is a
    listed reference, the --json contract holds, and an answer the LLM did not write says why (one of
    ``kept_reasons``: what a small model does, not a broken path)."""
    assert {"question", "status", "answer", "confidence", "resolution", "generator", "references", "groups",
            "validation", "timings_ms"} <= set(answer), answer
    assert answer["status"] in ("answered", "needs_clarification", "not_covered"), answer
    urls = [r["url"] for r in answer["references"]]
    checks = check_links_sync(urls)
    assert all(checks[u].ok for u in urls), {u: checks[u].reason for u in urls}
    assert all(1 <= n <= len(urls) for n in markers(answer["answer"])), (answer["answer"], urls)
    assert [r["n"] for r in answer["references"]] == list(range(1, len(urls) + 1))
    prose: list[str] = []  # code is left as written (a sample's URL is code, never a link): the links are outside it
    outside_code(answer["answer"], lambda part: prose.append(part) or part)
    assert all(u in urls for u in re.findall(r"https?://\S+", "\n".join(prose))), answer["answer"]
    if answer["status"] != "not_covered" and answer["generator"] != "llm":
        assert answer["generator"] == "extractive" and any(r in answer.get("fallback", "") for r in kept_reasons), (
            answer.get("fallback"))


def ask_json(capsys: pytest.CaptureFixture[str], site: Site, *questions: str, tmp: Path) -> list[dict]:
    """`docbot ask --json --batch` over ``questions``, one answer each."""
    batch = tmp / "questions.txt"
    batch.write_text("".join(q + "\n" for q in questions), encoding="utf-8")
    capsys.readouterr()
    code = main([*site.args, "ask", "--json", "--site", "requests", "--batch", str(batch)])
    out = capsys.readouterr().out
    assert code == 0, out
    return [json.loads(line) for line in out.splitlines()]
