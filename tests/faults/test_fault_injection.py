"""Hostile text in docs pages and LLM output: no URL-like spelling becomes a link that the validator did not approve.

A docs page served on 127.0.0.1 hides links in every spelling a renderer may turn into a URL; it is
crawled, indexed and asked about through ``docbot ask --json``, and the answer goes through the
Slack renderer. The same spellings, written by an "LLM", go through the validator directly.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, Section
from docbot.answer import Answer, Reference, Status
from docbot.references.scan import undisguise
from docbot.references.validator import ReferenceValidator, Source
from docbot.slack.blocks import render_answer
from tests.faults.conftest import Cli
from tests.faults.hostile import Hostile

# As the page's text reads them (the HTML below escapes & once more, so these survive HTML parsing).
SPELLINGS = [
    r"http\://evil.example/a1",
    "http&#58;//evil.example/a2",
    "http&#x3a;&#x2f;&#x2f;evil.example/a3",
    "http%3A%2F%2Fevil.example/a4",
    "http\uff1a\uff0f\uff0fevil.example/a5",
    "http\u2236\u2215\u2215evil.example/a6",
    "HTTP\\:\\/\\/evil.example/a7",
    "www.evil.example/a8",
    "<http&#58;//evil.example/a9>",
    r"[the portal](http\://evil.example/a10)",
    "[run it](javascript:alert(1))",
    "[open](data:text/html;base64,PHNjcmlwdD4=)",
    "https://evil.example/a13",
]
LINK = re.compile(r"<([^<>|]+)(?:\|[^<>]*)?>")  # a Slack link: <url|text>
URLISH = re.compile(r"(?i)(?:[a-z][a-z0-9+.\-]*:[/\\]{2}|www\.)[^\s<>|]*")


def injection_page() -> str:
    sentences = "".join(f"<p>To log in to the widget portal, open {s.replace('&', '&amp;').replace('<', '&lt;')} "
                        "and log in to the widget portal.</p>" for s in SPELLINGS)
    return ("<!doctype html><html><head><title>Portal</title></head><body><h1 id=\"portal\">Portal</h1>"
            f'<h2 id="log-in">Logging in to the widget portal</h2>{sentences}'
            "<pre>portal = templates[0]\nuser = argv[2]</pre></body></html>")


def assert_nothing_linkable(texts: list[str], approved: set[str]) -> None:
    for text in texts:
        for target in LINK.findall(text):
            assert target.replace("&amp;", "&") in approved, target
        unlinked = LINK.sub("", text)
        assert not [u for u in URLISH.findall(unlinked) if "evil" in u], text


@pytest.mark.usefixtures("hash_embeddings")
def test_injection_page_through_ask_json_and_the_slack_renderer(hostile: Hostile, cli: Cli) -> None:
    hostile.pages["portal.html"] = injection_page()
    hostile.pages["index.html"] += '<a href="portal.html">portal</a>'
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    code, out, _ = cli("ask", "--json", "How do I log in to the widget portal?")
    data = json.loads(out)
    assert code == 0 and data["status"] == "answered"
    # the section, without a text directive: every sentence opens alike, and the words that tell them apart spell
    # URLs, which a directive never quotes (nor text that stands more than once on the page)
    assert data["references"][0]["url"] == hostile.url + "portal.html#log-in"
    shown = data["answer"] + json.dumps(data["references"])
    assert "log in to the widget portal" in shown and "evil" not in undisguise(shown).lower()

    answer = Answer(data["question"], data["status"], data["answer"], references=tuple(
        Reference(r["n"], r["url"], r["title"], tuple(r["path"]), r["source_type"], r["site"]) for r in data["references"]))
    message = render_answer(answer, 1).to_json()
    texts = [o["text"] for b in message["blocks"] for o in ([b["text"]] if "text" in b else b.get("elements", []))
             if isinstance(o, dict) and o.get("type") == "mrkdwn"]
    assert texts and all(o.get("verbatim") is True for b in message["blocks"] if "text" in b for o in [b["text"]])
    assert_nothing_linkable([*texts, message["text"]], {r.url for r in answer.references})


def small_validator(base: str) -> ReferenceValidator:
    page = Page(base + "guide.html", "Guide", anchors=("install",), sections=(Section("install", "Install", 2, ("Guide", "Install")),))
    return ReferenceValidator({"docs": AnchorMap("docs", base, pages={page.url: page})})


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_llm_text_with_a_disguised_link_is_cleaned_and_rendered_inert(spelling: str) -> None:
    base = "https://docs.example/"
    validator = small_validator(base)
    sources = [Source(1, base + "guide.html#install", "Install", ("Guide", "Install"), "Guides", "docs")]
    text = f"Install it first [1]. Then sign in at {spelling} to finish [1]. Docs: {base}guide.html#install."
    validated = validator.validate(text, sources)
    assert "evil" not in undisguise(validated.answer).lower() and "javascript" not in validated.answer
    assert f"{base}guide.html#install" in validated.answer  # an approved link survives
    answer = Answer("q", Status.ANSWERED, validated.answer, references=validated.references, outcomes=validated.outcomes)
    message = render_answer(answer, 1).to_json()
    texts = [b["text"]["text"] for b in message["blocks"] if "text" in b and isinstance(b["text"], dict)]
    assert_nothing_linkable([*texts, message["text"]], {base + "guide.html#install"})
    assert f"<{base}guide.html#install>" in texts[0]  # a bare approved URL is an explicit link under verbatim


@pytest.mark.parametrize("question", ["is http://evil.example/login the portal?", "what about www.evil.example?",
                                      r"and http\://evil.example/x?", "or http&#58;//evil.example/y?"])
def test_the_question_echoed_in_slack_links_nothing(question: str) -> None:
    message = render_answer(Answer(question, Status.NOT_COVERED, "Not covered."), 1).to_json()
    echo = message["blocks"][0]["elements"][0]
    assert echo["verbatim"] is True and question.split()[0] in echo["text"]
    assert_nothing_linkable([echo["text"]], set())


def test_citation_markers_inside_code_are_code() -> None:
    base = "https://docs.example/"
    sources = [Source(n, base + "guide.html#install", "Install", ("Guide", "Install"), "Guides", "docs") for n in (1, 2, 3)]
    text = ("Render the first template [2].\n\n```python\nportal = templates[0]\nuser = argv[2]\n```\n\n"
            "Or inline: `argv[3]` and `templates[0]` [3].")
    validated = small_validator(base).validate(text, sources)
    assert "portal = templates[0]\nuser = argv[2]\n" in validated.answer
    assert "`argv[3]` and `templates[0]`" in validated.answer
    assert "first template [1]." in validated.answer and len(validated.references) == 1


# Anchor ids a docs page may carry (HTML allows anything in an id) that would turn Markdown into a link, an image,
# raw HTML, a broken table or an @mention if quoted in a single-backtick code span.
HOSTILE_IDS = ["x` [pwn](https://evil.example/a) `y", "x`` ![i](https://evil.example/i.png) ``y",
               "`<img src=https://evil.example/p.png>`", "a|b` @octocat ping", "```"]


def markdown_outside_code(md: str) -> tuple[str, list[str]]:
    """(the rendered HTML with every <code> element cut out, the text of each <code> element)."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable("table").render(md)
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered, flags=re.S)]
    return re.sub(r"<code>.*?</code>", "", rendered, flags=re.S), codes


def test_hostile_anchor_ids_are_quoted_inert_in_the_refresh_report(hostile: Hostile, cli: Cli, tmp_path: Path) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    ids = "".join(f'<h2 id="{html.escape(a, quote=True)}">Part {i}</h2><p>Part {i}.</p>' for i, a in enumerate(HOSTILE_IDS))
    hostile.pages["p1.html"] = hostile.pages["p1.html"].replace("</body>", ids + "</body>")
    code, out, _ = cli("refresh", "--no-index")
    assert code == 0
    [report] = (tmp_path / "data" / "reports").glob("refresh-*.md")
    assert report.read_text(encoding="utf-8") == out
    outside, codes = markdown_outside_code(out)
    assert "evil.example" not in outside and "@octocat" not in outside and "<img" not in outside
    assert "<a " not in outside and "<table" not in outside
    for anchor in HOSTILE_IDS:  # each one quoted whole, as it is
        assert any(json.dumps(anchor, ensure_ascii=False)[1:-1] in c for c in codes), anchor
