"""docbot against a real LLM server: `docbot ask --json` and the Slack HTTP endpoint, answered by SmolLM2-135M.

A 135M model is often wrong, so these tests hold docbot to what it promises whatever the model writes: valid
links, markers that map to listed sources, the output contract, and a fallback that says why.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

from docbot.answering.compress import facts_of
from docbot.answering.generate import Passage, messages
from docbot.answering.window import pack
from docbot.slack.app import SlackSettings
from docbot.slack.fake import BOT_USER, event_body, fake_slack
from docbot.slack.progress import WRITING
from tests.docbot.slack.slack_bot import JSON, start_bot
from tests.local_llm.conftest import (
    CONTEXT,
    MAX_TOKENS,
    QUESTION,
    Server,
    Site,
    ask_json,
    assert_sound,
    pipeline_for,
    use_llm,
)

pytestmark = [pytest.mark.slow, pytest.mark.local_llm]



def test_docbot_ask_json_is_answered_through_the_real_server(llama: Server, requests_site: Site,
                                                              capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    use_llm(monkeypatch, llama)
    answers = ask_json(capsys, requests_site, QUESTION, tmp=tmp_path)
    assert [a["question"] for a in answers] == [QUESTION]
    for answer in answers:
        assert answer["status"] == "answered" and answer["references"]
        assert_sound(answer)
        assert answer["timings_ms"]["generate"] > 50  # the model was asked (the extractive answer takes ~1 ms)
    assert "chat/completions" in llama.log_text()


def test_the_packed_prompt_fits_the_real_tokenizer(llama: Server, requests_site: Site,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """chars/3 errs high: the server's own count of the prompt (its chat template included) stays under ours."""
    use_llm(monkeypatch, llama)
    pipeline = pipeline_for(requests_site)
    try:
        hits = pipeline.retriever.search(QUESTION, k=5, sites=["requests"]).hits
        passages = [Passage(i, h.title, h.path, h.text, h.context) for i, h in enumerate(hits, start=1)]
        packed = pack(lambda chosen: messages(QUESTION, passages, chosen), facts_of(QUESTION, passages), CONTEXT,
                      MAX_TOKENS)
        body = {"model": "smollm2", "max_tokens": 1, "temperature": 0,
                "messages": [{"role": r if r != "human" else "user", "content": c} for r, c in packed.messages]}
        request = urllib.request.Request(llama.url + "/chat/completions", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as reply:
            used = json.load(reply)["usage"]["prompt_tokens"]
        assert used <= packed.tokens and used + MAX_TOKENS <= CONTEXT, (used, packed.tokens)
    finally:
        pipeline.index.close()


def test_a_slack_mention_shows_writing_then_the_real_models_answer(llama: Server, requests_site: Site,
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    use_llm(monkeypatch, llama)
    pipeline = pipeline_for(requests_site)
    try:
        with fake_slack() as slack:
            for bot in start_bot(tmp_path, slack, SlackSettings(site="requests", writing_after_s=0.3), pipeline):
                event = {"type": "app_mention", "user": "U0001", "channel": "C0001", "ts": "7.000100",
                         "text": f"<@{BOT_USER}> {QUESTION}"}
                assert bot.post(event_body(event, "EvLLM"), JSON).status_code == 200
                (writing,) = slack.wait_for(lambda c: c.method == "chat.postMessage", timeout=30)
                assert writing.body["text"] == WRITING
                (update,) = slack.wait_for(lambda c: c.method == "chat.update", timeout=90)
                (actions,) = [b for b in update.body["blocks"] if b["type"] == "actions"]
                sent = bot.store.get(int(actions["block_id"].removeprefix("docbot_answer_")))
        assert sent is not None and update.body["ts"] and update.body["channel"] == "C0001"
        answer = sent.to_json()
        assert_sound(answer)  # what the bot sent, as the reference log recorded it
        blocks = json.dumps(update.body["blocks"], ensure_ascii=False)
        # Slack links the validated references and nothing else (a URL inside a code sample stays code: the answer
        # falls back to the extractive one, which quotes `requests.post('https://httpbin.org/post', …)`)
        assert sorted(re.findall(r"<(https?://[^|>]+)\|", blocks)) == sorted(r["url"] for r in answer["references"])
    finally:
        pipeline.index.close()

