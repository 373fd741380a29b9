"""The offline answerer: the compressed facts of the sources, in order, each with its ``[n]`` marker.

No model: the facts come from :func:`docbot.answering.compress.compress` (attached to the passages by
the pipeline, or selected here). They are kept by source, in document order, and trimmed to
:data:`MAX_WORDS` so the answer stays readable in Slack: in the order they were picked, a fact
that no longer fits is left out and a shorter one after it may still fit.
Sources that carry no fact are listed as "see also".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docbot.answering.compress import Fact, facts_of
from docbot.answering.generate import Passage

MAX_WORDS = 250  # what reads well in a Slack message
# Section names every page of a manual may have: "See also Examples [4]" says nothing of which page's, so such a
# section is named with its parent ("See also npm-uninstall › Examples [4]")
GENERIC_TITLES = frozenset(
    "description synopsis examples example usage options notes see also overview introduction details summary "
    "parameters returns configuration".split()) | {"see also"}


def _words(text: str) -> int:
    return len(text.split())


def fit(facts: Sequence[Fact], limit: int, titles: Mapping[int, str] | None = None) -> list[Fact]:
    """The facts in the order they were picked, each kept if it still fits in ``limit`` words (the first always);
    a code fact also counts the source title that may introduce it (``titles``, by source number)."""
    kept: list[Fact] = []
    used = 0
    for fact in sorted(facts, key=lambda f: f.rank):
        words = _words(fact.text) + (_words((titles or {}).get(fact.n, "")) if fact.code else 0)
        if not kept or used + words <= limit:
            kept.append(fact)
            used += words
    return sorted(kept, key=lambda f: (f.n, f.position))


def _listed(facts: Sequence[Fact]) -> list[bool]:
    """Which facts are lines of a list: list items (or table rows) given two or more in a row from one source. A
    lone item among sentences reads as one of them."""
    out = [False] * len(facts)
    i = 0
    while i < len(facts):
        j = i
        while j < len(facts) and facts[j].item and not facts[j].code and facts[j].n == facts[i].n:
            j += 1
        out[i:j] = [j - i >= 2] * (j - i)
        i = max(j, i + 1)
    return out


def render(facts: Sequence[Fact], title: str = "") -> list[str]:
    """Paragraphs: a source's consecutive prose facts share one, each ending in its marker, and its consecutive list
    items (or table rows) are a list, a line each (run into one paragraph, "smart_quotes — True — whether to convert
    straight quotes [2] smart_angled_quotes — …" read as one sentence); code stands alone, introduced by its own
    first line of prose or else by its source's ``title`` (a signature is no "Example")."""
    parts: list[str] = []
    line: list[str] = []
    last: tuple[int, bool] | None = None
    for fact, listed in zip(facts, _listed(facts)):
        if line and ((fact.n, listed) != last or fact.code):
            parts.append(("\n" if last and last[1] else " ").join(line))
            line = []
        if fact.code and "\n" in fact.text:
            intro, sep, code = fact.text.partition("\n\n")
            if sep and not intro.lstrip().startswith(("```", "~~~")):
                parts += [f"{intro} [{fact.n}]", code]
            else:
                parts += [f"{title or 'Example'} [{fact.n}]", fact.text]  # "[n]:" would not read as a marker
        else:
            line.append(f"{'- ' if listed else ''}{fact.text} [{fact.n}]")
        last = (fact.n, listed)
    if line:
        parts.append(("\n" if last and last[1] else " ").join(line))
    return parts


def _named(passage: Passage) -> str:
    """How a "see also" line names a section: its title, with its parent's when the title is a generic one, without
    the full stop of a title written as a sentence (release notes' "Markdown class instance references.": the line
    ends in its own)."""
    title = passage.title
    if title.strip().lower() in GENERIC_TITLES and len(passage.path) >= 2 and passage.path[-2] != title:
        return f"{passage.path[-2]} › {title}"
    stripped = title.rstrip()
    return stripped[:-1] if stripped.endswith(".") and not stripped.endswith("..") else title


class ExtractiveGenerator:
    """Compose an answer from the sources' own sentences; every fact ends with its ``[n]``."""

    name = "extractive"

    def __init__(self, max_words: int = MAX_WORDS) -> None:
        self.max_words = max_words

    def generate(self, question: str, passages: Sequence[Passage]) -> str:
        if not passages:
            return "The documentation sources found do not answer this question."
        kept = facts_of(question, passages)
        for _ in range(2):  # a source whose facts did not fit is named as "see also", which takes words too
            see_also = {p.n: f"See also {_named(p)} [{p.n}]." for p in passages if all(f.n != p.n for f in kept)}
            kept = fit(kept, self.max_words - sum(_words(s) for s in see_also.values()), {p.n: p.title for p in passages})
        see_also = {p.n: f"See also {_named(p)} [{p.n}]." for p in passages if all(f.n != p.n for f in kept)}
        if not kept:  # no source has any text: name them all
            return "\n\n".join(text.replace("See also", "See", 1) if i == 0 else text
                               for i, text in enumerate(see_also.values()))
        # Sources are cited in rank order, so a source that carries no fact but ranks above one that does
        # is named in its place: the references keep the order retrieval gave them.
        last = max(f.n for f in kept)
        parts: list[str] = []
        for p in passages:
            if p.n in see_also and p.n < last:
                parts.append(see_also.pop(p.n))
            parts += render([f for f in kept if f.n == p.n], p.title)
        return "\n\n".join([*parts, *see_also.values()])
