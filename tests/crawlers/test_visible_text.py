"""A page's visible text as browsers search it: block-level runs, each with its section, from the crawl's one parse."""

from __future__ import annotations

from crawlers.crawl.pages import page_text
from crawlers.page_text import OUTSIDE, PageText
from crawlers.parse.extract import extract

URL = "http://h/p.html"


def _page(body: str) -> str:
    return f"<html><head><title>P</title><style>p {{ color: red }}</style></head><body>{body}</body></html>"


def runs_of(body: str) -> list[tuple[int, str]]:
    ex = extract(_page(body), URL)
    return list(zip(ex.run_tags, ex.run_text.split("\n"))) if ex.run_tags else []


def test_runs_are_blocks_with_inline_text_joined_and_whitespace_collapsed() -> None:
    runs = runs_of('<div role="main"><p>If <em>typed</em>   is set\n to <code>True</code>, calls differ.</p>'
                   "<ul><li>one<li>two <b>bold</b></ul><table><tr><td>cell a</td><td>cell b</td></tr></table></div>")
    assert [text for _, text in runs] == ["If typed is set to True, calls differ.", "one", "two bold", "cell a", "cell b"]


def test_invisible_elements_are_left_out_and_do_not_break_a_run() -> None:
    body = ('<div role="main"><p>Keep <script>var x = "hidden words";</script>this <span hidden>not this</span>'
            '<span style="display: none">nor this</span><span style="visibility:hidden">nor that</span>'
            'text<noscript>no</noscript><template>tpl</template> together.</p>'
            '<h2 id="s">Title<a class="headerlink" href="#s">¶</a></h2><p>a\xa0b soft\xadhyphen</p></div>')
    texts = [text for _, text in runs_of(body)]
    assert texts == ["Keep this text together.", "Title", "a b softhyphen"]


def test_each_run_carries_its_section_and_text_outside_the_main_region_none() -> None:
    body = ('<div class="sphinxsidebar"><p>Sidebar: Usage</p></div>'
            '<div role="main"><h1 id="top">Guide</h1><p>Intro.</p>'
            '<section id="usage"><h2>Usage</h2><p>Call it.</p>'
            '<dl class="py function"><dt class="sig" id="mod.f">f(x)</dt><dd><p>Does f.</p></dd></dl>'
            "<p>After the entry.</p></section></div><div class=\"footer\"><p>Footer</p></div>")
    anchors = [s.anchor for s in extract(_page(body), URL).sections]
    tagged = {text: (anchors[i] if i != OUTSIDE else None) for i, text in runs_of(body)}
    assert tagged == {"Sidebar: Usage": None, "Guide": "top", "Intro.": "top", "Usage": "usage", "Call it.": "usage",
                      "f(x)": "mod.f", "Does f.": "mod.f", "After the entry.": "usage", "Footer": None}


def test_page_text_keeps_section_ids_and_levels_and_the_other_ids_by_run() -> None:
    body = ('<div role="main"><h1 id="top">Guide</h1><span id="label"></span><h2 id="install">Install</h2>'
            '<p>Run <span id="inline">pip</span>.</p></div>')
    pt = page_text(URL, extract(_page(body), URL))
    assert pt is not None
    assert pt.sections == ((1, ("top",)), (2, ("install", "label")))
    assert pt.ids == {"inline": 2}
    assert pt.runs[2] == (1, "Run pip.")


def test_navigation_pages_record_no_text() -> None:
    links = "".join(f'<li><a href="p{i}.html">Chapter {i} of the long guide</a></li>' for i in range(30))
    ex = extract(_page(f'<div role="main"><ul>{links}</ul></div>'), URL)
    assert ex.navigation and ex.run_tags == () and page_text(URL, ex) is None


def _hidden(body: str) -> tuple[tuple[int, int, str], ...] | None:
    return extract(_page(body), URL).run_hidden


def test_text_left_out_that_a_browser_may_search_is_kept_aside_with_where_it_stands() -> None:
    body = ('<div role="main"><p>Intro.</p>'
            '<svg><title>Logo</title><text x="0">Set the timeout</text><text>twice</text></svg>'
            '<div hidden style="display:block">A shown hidden sentence.</div>'
            '<p>Keep <span style="display:none">this aside</span>reading.</p>'
            '<textarea>Typed text</textarea><input value="An input value"><input type="hidden" value="token">'
            '<select><option>v1</option><option>v2</option></select></div>')
    # Chromium searches an SVG's text (not its title), a shown hidden element, a textarea and an input's value; never a
    # select's options (scripts/probe_text_directives.py)
    assert _hidden(body) == ((1, 0, "Set the timeout twice"), (1, 0, "A shown hidden sentence."), (1, 4, "this aside"),
                             (2, 0, "Typed text"), (2, 0, "An input value"))


def test_a_line_break_ends_a_run_as_it_ends_an_exact_match_in_chromium() -> None:
    assert [text for _, text in runs_of('<div role="main"><p>First line<br>second line</p></div>')] == [
        "First line", "second line"]


def test_what_a_browser_never_searches_is_not_kept_aside_but_a_declared_shadow_root_is() -> None:
    body = ('<div role="main"><script>var s = "script words";</script><style>p { color: blue }</style>'
            '<template><p>plain template</p></template><h2 id="s">Title<a class="headerlink" href="#s">¶</a></h2>'
            '<div><template shadowrootmode="open"><p>Shadow text</p></template></div>'
            '<div hidden><script>x = 1</script>Hidden words</div></div>')
    assert [text for _, _, text in _hidden(body) or ()] == ["Shadow text", "Hidden words"]


def test_with_text_puts_the_text_left_out_where_it_stands() -> None:
    body = '<div role="main"><p>One.</p><p>Keep <span hidden>aside</span>reading.</p><svg><text>Last</text></svg></div>'
    pt = page_text(URL, extract(_page(body), URL))
    assert pt is not None
    assert pt.with_text() == "One. Keep aside reading. Last"
    assert PageText.from_json(pt.to_json()) == pt
    old = pt.to_json()
    del old["hidden"]  # recorded by a crawl before the text left out was kept: not known
    assert PageText.from_json(old).hidden is None
