"""What the answer steps know about each site as a whole: word statistics, the gate's noise floor, shared titles.

Computed from the index and the anchor maps on first use and cached: document frequencies (the gate's coverage
and the clarify rule weigh words by them), the gate's evidence for everyday off-topic questions asked of the
site (:data:`~docbot.answering.gate.PROBES`, its own noise floor), and which section titles several pages share
(an answer names such a section with its nearest distinctive parent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from statistics import fmean

from crawlers.model import AnchorMap
from docbot.answering.gate import PROBES, Evidence, evidence
from docbot.retrieval.hybrid import Hit, Retriever, site_doc_freq
from docbot.text.words import tokenize


def terms(text: str) -> int:
    """How many distinct words of ``text`` retrieval searches with (stop words left out)."""
    return len(dict.fromkeys(tokenize(text)))


def _words(probe: str) -> list[str]:
    """The probe's words that retrieval searches with, as written ("bake", "sourdough", "bread", "home")."""
    return [w for w in probe.split() if tokenize(w)]


class SiteStats:
    """Per-site statistics over one index and its anchor maps (cached; a new index needs a new instance)."""

    def __init__(self, retriever: Retriever, maps: Mapping[str, AnchorMap], k: int) -> None:
        self.retriever = retriever
        self.maps = maps
        self.k = k  # sections each probe retrieves, as a question does
        self._df: dict[str, tuple[dict[str, int], int]] = {}
        self._baselines: dict[str, Evidence] = {}
        self._probes: dict[str, list[Evidence]] = {}
        self._floors: dict[tuple[str, int], float] = {}
        self._title_pages: dict[str, dict[str, int]] = {}  # per site: section title → pages that carry it

    def doc_freq(self, sites: Sequence[str]) -> tuple[dict[str, int], int]:
        """(token → chunks holding it, chunks) over ``sites`` together."""
        key = "\x1f".join(sorted(sites))
        if key not in self._df:
            freq: dict[str, int] = {}
            docs = 0
            for site in sites:
                site_freq, site_docs = site_doc_freq(self.retriever.index, site)
                docs += site_docs
                for token, n in site_freq.items():
                    freq[token] = freq.get(token, 0) + n
            self._df[key] = (freq, docs)
        return self._df[key]

    def baseline(self, site: str, question: str | None = None) -> Evidence:
        """The gate's evidence for everyday off-topic questions on ``site``: its own noise floor. For a
        ``question`` of fewer words than a probe, its BM25 floor is that of the probes cut to as many words
        (:meth:`lexical_floor`)."""
        if site not in self._baselines:
            freq, docs = self.doc_freq([site])
            self._probes[site] = [evidence(probe, self.retriever.search(probe, k=self.k, sites=[site]), freq, docs)
                                  for probe in PROBES]
            self._baselines[site] = Evidence.mean(self._probes[site])
        base = self._baselines[site]
        if question is None:
            return base
        return replace(base, lexical=self.lexical_floor(site, terms(question)))

    def lexical_floor(self, site: str, n: int) -> float:
        """The probes' mean best BM25 score on ``site``, each probe of more than ``n`` words cut to ``n`` of them
        (the mean over every choice of ``n``). A BM25 score is a sum over the query's words: a question of two
        words ("How do I retry a task?") scores less than one of five on any site, and against the probes' whole
        four or five words, it read as off topic (Requests' "How do I use sessions?" was refused with Session Objects
        first). A question at least as long as every probe meets the probes' own mean, as before."""
        self.baseline(site)
        key = (site, n)
        if key not in self._floors:
            scores: list[float] = []
            for probe, seen in zip(PROBES, self._probes[site]):
                words = _words(probe)
                if n <= 0 or terms(probe) <= n:
                    scores.append(seen.lexical)
                else:
                    scores.append(fmean(self.retriever.top_lexical(" ".join(part), site)
                                        for part in combinations(words, min(n, len(words)))))
            self._floors[key] = fmean(scores)
        return self._floors[key]

    def display_title(self, hit: Hit) -> str:
        """A section's title as the answer names it: with the nearest enclosing title that tells it apart when the
        title alone is ambiguous on its site, that is, when sections of two or more pages carry it ("Examples",
        "Notes", "Options")."""
        counts = self._title_pages.get(hit.site)
        if counts is None:
            counts = {}
            amap = self.maps.get(hit.site)
            for page in amap.pages.values() if amap is not None else ():
                for title in {s.title.casefold() for s in page.sections} | {page.title.casefold()}:
                    counts[title] = counts.get(title, 0) + 1
            self._title_pages[hit.site] = counts
        if counts.get(hit.title.casefold(), 0) < 2:
            return hit.title
        # the nearest enclosing title that is not itself shared (a site-wide "Django documentation" is not)
        parent = next((t for t in reversed(hit.path[:-1]) if t != hit.title and counts.get(t.casefold(), 0) < 2), None)
        return f"{parent} › {hit.title}" if parent else hit.title
