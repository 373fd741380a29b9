"""Which sections an answer draws on: the one site to answer from, then the order of its sections.

Retrieval's decisions for one question, after the search itself (:mod:`docbot.retrieval.hybrid`): with several
sites, the question is answered from one (:func:`narrow`); the sections it names come first, retrieval's after
them, in the re-ranker's order when one is on (:func:`order`). Whether a question answered from the site of its
best section may mean another site as well is answering's call (:func:`docbot.answering.clarify.across_sites`);
:attr:`Found.guessed` says when it arises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from docbot.answer import LinkAction, Resolution
from docbot.indexing.chunk import embedding_text
from docbot.retrieval.hybrid import Hit, Retrieval, Retriever
from docbot.retrieval.named import named_site
from docbot.retrieval.rerank import RERANK_CHARS, Reranker
from docbot.retrieval.resolve import Target, UrlChecker, explicit_site

DocFreq = Callable[[Sequence[str]], tuple[Mapping[str, int], int]]  # sites → (token → chunks holding it, chunks)


@dataclass(frozen=True, slots=True)
class Found:
    """What retrieval found for a question in the sites it searched."""

    query: str  # what was searched: a short follow-up reads with the question before it
    sites: tuple[str, ...]
    targets: tuple[Target, ...]  # what the question names in these sites
    boost: tuple[str, ...]  # deep URLs cited earlier in the conversation
    retrieval: Retrieval
    guessed: bool = False  # narrowed to the site of the best section, not to one the question names


@dataclass(frozen=True, slots=True)
class Chosen:
    """The sections an answer draws on, best first, and which of them the question names."""

    hits: tuple[Hit, ...]
    explicit: tuple[Hit, ...] = ()  # sections the question names outright
    weak: tuple[Hit, ...] = ()  # names that may only be mentioned in passing

    @property
    def named(self) -> bool:
        """Whether the answer rests on what the question names: a section named outright, or a bare name first."""
        return bool(self.explicit or (self.weak and self.hits and self.hits[0].deep_url == self.weak[0].deep_url))


def boost_keys(checker: UrlChecker, urls: Sequence[str], sites: Sequence[str]) -> tuple[str, ...]:
    """Deep URLs cited earlier, as chunk deep URLs of the indexed sites."""
    keys: list[str] = []
    for url in urls:
        for site in sites:
            outcome = checker.check_url(url, site)
            if outcome.output and outcome.action != LinkAction.LINK_DROPPED:
                keys.append(outcome.output)
                break
    return tuple(keys)


def narrow(found: Found, question: str, retriever: Retriever, doc_freq: DocFreq, k: int) -> Found:
    """With several sites, answer from one: that of a pasted link, a full API name or the site's own name, else
    of the best section (``guessed``: other sites may answer the question as well)."""
    if len(found.sites) < 2:
        return found
    lead = (found.retrieval.leading or found.retrieval.hits)[:1]
    chosen = explicit_site(question, found.targets) or named_site(
        question, found.sites, {site: doc_freq([site]) for site in found.sites},
        (lead[0].site, lead[0].text) if lead else None)
    guessed = chosen is None and bool(found.retrieval.hits)
    if guessed:
        chosen = (found.retrieval.leading or found.retrieval.hits)[0].site  # best evidence, before ordering preferences
    if chosen is None:
        return found
    return Found(found.query, (chosen,), tuple(t for t in found.targets if t.site == chosen), found.boost,
                 retriever.search(found.query, k=k, sites=[chosen], boost=found.boost), guessed)


def order(found: Found, retriever: Retriever, reranker: Reranker | None, k: int) -> Chosen:
    """The answer's sections: what the question names first, then retrieval's order (re-ranked when on)."""
    explicit = tuple(target_hit(retriever, t) for t in found.targets if t.strong)
    weak = tuple(target_hit(retriever, t) for t in found.targets if not t.strong)
    page_only = next((t for t in found.targets if t.anchor is None), None)
    hits = list(explicit)
    if page_only is not None:  # a pasted page whose fragment was unrecoverable: its best sections first
        within = retriever.search(found.query, k=2, sites=[page_only.site], within=page_only.url)
        hits = [h for h in hits if h.deep_url != page_only.deep_url] + list(within.hits)
    for hit in reordered(reranker, found.query, found.retrieval.hits):
        if all(h.deep_url != hit.deep_url for h in hits):
            hits.append(hit)
    for hit in weak:  # a bare class name may be mentioned in passing: never ahead of the best match
        if all(h.deep_url != hit.deep_url for h in hits):
            hits.insert(min(1, len(hits)), hit)
    return Chosen(tuple(hits[:k]), explicit, weak)


def target_hit(retriever: Retriever, target: Target) -> Hit:
    """The indexed section a target names (its anchor map's entry when the index lacks it)."""
    found = retriever.section(target.site, target.deep_url, origin=Resolution.EXPLICIT)
    if found is not None:
        return found
    return Hit(target.site, target.url, target.anchor, target.deep_url, target.title, target.path,
               target.source_type, "", origin=Resolution.EXPLICIT)


def reordered(reranker: Reranker | None, query: str, hits: Sequence[Hit]) -> Sequence[Hit]:
    """Retrieval's sections in the re-ranker's fused order, when there is one. Only the answer's order moves: the
    gate and the confidence read the retrieval as it came (so refusals are the same with or without it)."""
    if reranker is None:
        return hits
    positions = reranker.order(query, [(h.deep_url, embedding_text(h.path, h.text[:RERANK_CHARS])) for h in hits])
    return [hits[i] for i in positions]
