"""Property: whatever the answer text, every URL that comes out as a link exists in the anchor map and was approved;
code comes out exactly as it went in (a sample's URL is part of the code, and code is never a link)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlers.model import AnchorMap, Page, Section
from docbot.answer import LinkAction
from docbot.references.scan import outside_code
from docbot.references.validator import ReferenceValidator, Source

BASE = "http://docs.test/"
PAGES = {
    "a.html": ("intro", "alpha-beta", "Gamma_Delta", "pkg.Mod.func"),
    "dir/index.html": ("setup", "café"),
}
AMAP = AnchorMap(
    site="docs",
    base_url=BASE,
    pages={
        BASE + path: Page(
            url=BASE + path,
            title=path,
            aliases=(BASE + "dir/",) if path.startswith("dir/") else (),
            anchors=anchors,
            sections=tuple(Section(a, a.replace("-", " "), 2, (path, a)) for a in anchors),
        )
        for path, anchors in PAGES.items()
    },
)
VALIDATOR = ReferenceValidator({"docs": AMAP})
URL_PIECES = st.sampled_from(
    [
        BASE + "a.html#alpha-beta", BASE + "a.html#alpha_beta", BASE + "a.html#gamma-delta", BASE + "a.html#nope",
        BASE + "a.html#pkg.mod.func", BASE + "dir/#setup", BASE + "dir.html#caf%C3%A9", BASE + "missing.html#x",
        "https://evil.example/p?q=1#f", "http://docs.test:notaport/x", "HTTP://DOCS.TEST/a.html#intro",
        "a.html#alpha-beta", "https://", "http://[::1/x", "mailto:someone@example.com",
    ]
)
WRAPPERS = st.sampled_from(["{u}", "[text]({u})", "<{u}>", "<{u}|label>", "[x]: {u}", "({u})", "[{u}]({u})", "{u}{u}"])
CHUNKS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["[1]", "[2]", "[7]", "[1, 2]", "(", ")", "<", ">", "|", "[", "]", "\n", " ", "#", "http://", ".",
                     "`", "\n```\n"]),
    st.builds(lambda w, u: w.format(u=u), WRAPPERS, URL_PIECES),
)
FOUND = re.compile(r"(?i:https?)://[^\s<>()\[\]{}|\"'`\\]+")


def urls_in(text: str) -> list[str]:
    return [u.rstrip(".,;:!?*_~") for u in FOUND.findall(text)]


def prose(text: str) -> str:
    """The text outside code blocks and code spans."""
    parts: list[str] = []
    outside_code(text, lambda part: parts.append(part) or part)
    return "\n".join(parts)


def code(text: str) -> list[str]:
    """The code blocks and code spans, in order."""
    return [c for c in outside_code(text, lambda part: "\0").split("\0") if c]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CHUNKS, max_size=25).map("".join), st.lists(URL_PIECES, max_size=3))
def test_every_output_url_exists_and_was_approved(answer: str, source_urls: list[str]) -> None:
    sources = [Source(i + 1, u, "t", ("t",), "Guides", "docs") for i, u in enumerate(source_urls)]
    result = VALIDATOR.validate(answer, sources)
    approved = {o.output for o in result.outcomes if o.output and o.action != LinkAction.LINK_DROPPED}
    for url in urls_in(prose(result.answer)) + [r.url for r in result.references]:
        assert AMAP.has_anchor(url), (url, result.answer)
        assert url in approved, (url, result.answer)
    assert code(result.answer) == code(answer), (answer, result.answer)
