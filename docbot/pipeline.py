"""docbot's answer pipeline: resolve → retrieve → gate → compress → generate → validate.

``Pipeline.ask`` is what the CLI, the Slack bot and the report call; :meth:`Pipeline._ask` reads as the flow it
runs, one named step a line. Resolution, retrieval and the gate are system logic only; a generator then phrases
the answer from the facts compression chose; the ReferenceValidator owns every link. A question the docs answer
in clearly different places gets a clarifying question with its options beside a best-effort answer
(:mod:`docbot.answering.clarify`). Bad input never raises: it comes back as an ``error`` answer whose text says
what to do next.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from crawlers.model import AnchorMap, map_path
from docbot.answer import Answer, Clarification, ClarifyOption, LinkAction, Resolution, Status
from docbot.answering import confidence as calibration
from docbot.answering.clarify import MAX_CONFIDENCE, Ambiguity, across_sites, within_site
from docbot.answering.compress import Similarity, compress
from docbot.answering.confidence import signals
from docbot.answering.extractive import ExtractiveGenerator
from docbot.answering.gate import (FLAG_LINE, FLAGGED_CONFIDENCE, Decision, Evidence, GateModel, closest_topics, decide,
                                  evidence)
from docbot.answering.generate import Generated, Generator, Passage, generate_or_fallback, generator_from_settings
from docbot.learn.linear import LinearModel
from docbot.answering.site_stats import SiteStats
from docbot.answering.question import Turn, cited_before, clean_question, query_of
from docbot.answering.quotes import quoted_passages
from docbot.config import Settings
from docbot.errors import DocbotError
from docbot.freshness import LivePages
from docbot.indexing.chunk import embedding_text
from docbot.indexing.embed import cosines_to
from docbot.reading import View, Views, latest_page_texts, section_text
from docbot.references.validator import ReferenceValidator, Source, Validated
from docbot.retrieval.hybrid import Hit, Retrieval, Retriever, SearchIndex
from docbot.retrieval.cross import CrossRanker, cross_ranker_from_settings
from docbot.retrieval.rerank import RERANK_CHARS, Reranker, reranker_from_settings
from docbot.retrieval.resolve import Target, explicit_site

DEFAULT_K = 5  # sources handed to the generator
SNIPPET_CHARS = 240
BEST_EFFORT_SOURCES = 1  # sources of the answer given beside a clarifying question


def _error(question: str, started: float, message: str) -> Answer:
    return Answer(question=question, status=Status.ERROR, answer=message, error=message,
                  timings_ms={"total": (time.perf_counter() - started) * 1000})


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


@dataclass(slots=True)
class _Asked:
    """One question on its way through the pipeline: what each step found, and how long each took."""

    question: str
    started: float
    view: View
    timings: dict[str, float] = field(default_factory=dict)
    query: str = ""
    sites: list[str] = field(default_factory=list)
    named_site: bool = False  # asked of one site by name (not chosen among several)
    targets: list[Target] = field(default_factory=list)
    boost: list[str] = field(default_factory=list)  # deep URLs cited earlier in the conversation
    retrieval: Retrieval = field(default_factory=lambda: Retrieval(()))
    ambiguity: Ambiguity | None = None
    explicit: list[Hit] = field(default_factory=list)  # sections the question names outright
    weak: list[Hit] = field(default_factory=list)  # names that may only be mentioned in passing
    hits: list[Hit] = field(default_factory=list)  # the sections the answer draws on, best first

    @contextmanager
    def timed(self, step: str) -> Iterator[None]:
        mark = time.perf_counter()
        yield
        self.timings[step] = (time.perf_counter() - mark) * 1000

    def total(self) -> dict[str, float]:
        self.timings["total"] = (time.perf_counter() - self.started) * 1000
        return self.timings


@dataclass(frozen=True, slots=True)
class _Verdict:
    """The gate's decision and the calibrated confidence in the primary section."""

    decision: Decision
    explicit: bool
    signals: tuple[float, ...]
    confidence: float

    @property
    def resolution(self) -> Resolution:
        return Resolution.EXPLICIT if self.explicit else Resolution.SEMANTIC if self.decision.answer else Resolution.NONE


class Pipeline:
    """Everything injectable: index, anchor maps, validator, generator (None → extractive only).

    Over a live :class:`~docbot.indexing.index.Index` (one with ``view()``), every question reads the generation of
    each site current when it was asked, and the next question after a commit moves to the new one: a long-running
    bot never needs a restart. ``maps`` then only adds sites that are crawled but not indexed, and ``validator``
    is the template of each generation's validator (its allowed hosts and section-text reader)."""

    def __init__(
        self,
        index: SearchIndex,
        maps: Mapping[str, AnchorMap],
        validator: ReferenceValidator,
        generator: Generator | None = None,
        k: int = DEFAULT_K,
        extractive: Generator | None = None,
        gate: GateModel | None = None,
        calibrator: LinearModel | None = None,
        reranker: Reranker | None = None,
        live_pages: LivePages | None = None,
        cross: CrossRanker | None = None,
    ) -> None:
        self.index = index
        self.generator = generator
        self.extractive = extractive or ExtractiveGenerator()
        self.k = k
        self.reranker = reranker  # a stronger model's second opinion on the order of the sections found (opt-in)
        self.gate = gate or GateModel.load()
        self.calibrator = calibrator or calibration.load()
        self.views = Views(index, maps, validator, k, live_pages, cross)

    # What the current view holds, for callers outside a question (scripts, the report, tests).
    @property
    def maps(self) -> Mapping[str, AnchorMap]:
        return self.views.current().maps

    @property
    def validator(self) -> ReferenceValidator:
        return self.views.current().validator

    @property
    def retriever(self) -> Retriever:
        return self.views.current().retriever

    @property
    def stats(self) -> SiteStats:
        return self.views.current().stats

    @classmethod
    def from_settings(cls, settings: Settings, generator: Generator | None = None, **kwargs: Any) -> Pipeline:
        """Open the index and anchor maps named by ``settings``, and the models they name (docbot.providers)."""
        from docbot.indexing.embed import embedder_from_settings
        from docbot.indexing.index import Index

        index = Index.from_settings(settings, embedder_from_settings(settings))
        served = set(index.sites())
        maps: dict[str, AnchorMap] = {}  # crawled but not indexed: their links are still checked
        for site in settings.site_names():
            path = map_path(settings.anchor_maps, site)
            if site not in served and path.is_file():
                maps[site] = AnchorMap.load(path)  # a corrupt map is an error, never silently "not covered"
        validator = ReferenceValidator(maps, allow_hosts=settings.allow_hosts, page_texts=latest_page_texts(settings))
        kwargs.setdefault("reranker", reranker_from_settings(settings))
        kwargs.setdefault("cross", cross_ranker_from_settings(settings))
        if settings.text_fragments and settings.fresh_directives:
            kwargs.setdefault("live_pages", LivePages(ttl_s=settings.fresh_directives_ttl))
        return cls(index, maps, validator, generator if generator is not None else generator_from_settings(settings), **kwargs)

    # -- the pipeline ----------------------------------------------------
    def ask(self, question: str, site: str | None = None, context: Sequence[Turn] = (), k: int | None = None) -> Answer:
        """Answer ``question`` (optionally only from ``site``, favouring sections cited in ``context``)."""
        started = time.perf_counter()
        text, problem = clean_question(question)
        if problem:
            return _error(text, started, problem)  # echoed cleaned, as accepted questions are
        try:
            return self._ask(_Asked(text, started, self.views.current()), site, context, k or self.k)
        except DocbotError as exc:
            return _error(text, started, str(exc))

    def _ask(self, q: _Asked, site: str | None, context: Sequence[Turn], k: int) -> Answer:
        problem = self._choose_sites(q, site)
        if problem:
            return _error(q.question, q.started, problem)
        with q.timed("resolve"):
            q.targets = q.view.resolver.resolve(q.question, q.sites)
        with q.timed("retrieve"):
            self._retrieve(q, context, k)
            self._narrow_to_one_site(q, k)
            self._order(q, k)
        verdict = self._judge(q)
        if not verdict.explicit and not verdict.decision.answer:
            return self._not_covered(q, verdict)
        clarification = self._clarify(q, verdict, context)
        sources = [self._source(i, h) for i, h in enumerate(q.hits, start=1)]
        with q.timed("compress"):
            passages = self._compress(q)
        with q.timed("generate"):
            made = generate_or_fallback(self.generator, self.extractive, q.question, passages)
        quoted = quoted_passages(made.text, {p.n: p.facts for p in passages})  # links land on what the answer quotes
        sources = [replace(s, passage=quoted.get(s.n, "")) for s in sources]
        with q.timed("validate"):
            validated = q.view.validator.validate(made.text, sources)
        return self._answer(q, verdict, made, validated, clarification)

    # -- the steps, in order ---------------------------------------------
    def _choose_sites(self, q: _Asked, site: str | None) -> str | None:
        """The sites to search (all indexed ones, or the one named); a message when there is none to ask."""
        indexed = q.view.index.sites()
        if not indexed:
            return "No index yet — run `docbot crawl URL --site NAME` and then `docbot index`."
        if site is not None and site not in indexed:
            return (f"Site {site!r} is not indexed (indexed: {', '.join(indexed)}) — "
                    f"run `docbot crawl URL --site {site}` and `docbot index --site {site}`, or pick another --site.")
        q.sites = indexed if site is None else [site]
        q.named_site = len(q.sites) == 1
        return None

    def _retrieve(self, q: _Asked, context: Sequence[Turn], k: int) -> None:
        """Hybrid retrieval for the question (with a short follow-up read together with the question before it)."""
        q.query = query_of(q.question, context)
        q.boost = self._boost_keys(q.view, cited_before(context), q.sites)
        q.retrieval = q.view.retriever.search(q.query, k=k, sites=q.sites, boost=q.boost)

    def _narrow_to_one_site(self, q: _Asked, k: int) -> None:
        """With several sites, answer from one: that of a pasted link or full API name, else of the best section
        (then noting whether other sites answer the question as well: it may be ambiguous)."""
        if len(q.sites) < 2:
            return
        chosen = explicit_site(q.question, q.targets)
        if chosen is None and q.retrieval.hits:
            chosen = (q.retrieval.leading or q.retrieval.hits)[0].site  # best evidence, before ordering preferences
            q.ambiguity = across_sites(q.question, q.retrieval.hits, *q.view.stats.doc_freq(q.sites))
        if chosen is not None:
            q.sites = [chosen]
            q.targets = [t for t in q.targets if t.site == chosen]
            q.retrieval = q.view.retriever.search(q.query, k=k, sites=q.sites, boost=q.boost)

    def _order(self, q: _Asked, k: int) -> None:
        """The answer's sections: what the question names first, then retrieval's order (re-ranked when on)."""
        q.explicit = [self._target_hit(q.view, t) for t in q.targets if t.strong]
        q.weak = [self._target_hit(q.view, t) for t in q.targets if not t.strong]
        page_only = next((t for t in q.targets if t.anchor is None), None)
        hits = list(q.explicit)
        if page_only is not None:  # a pasted page whose fragment was unrecoverable: its best sections first
            within = q.view.retriever.search(q.query, k=2, sites=[page_only.site], within=page_only.url)
            hits = [h for h in hits if h.deep_url != page_only.deep_url] + list(within.hits)
        for hit in self._reordered(q.query, q.retrieval.hits):
            if all(h.deep_url != hit.deep_url for h in hits):
                hits.append(hit)
        for hit in q.weak:  # a bare class name may be mentioned in passing: never ahead of the best match
            if all(h.deep_url != hit.deep_url for h in hits):
                hits.insert(min(1, len(hits)), hit)
        q.hits = hits[:k]

    def _judge(self, q: _Asked) -> _Verdict:
        """The gate's decision on retrieval's evidence and the confidence in the primary section."""
        freq, docs = q.view.stats.doc_freq(q.sites)
        # One site by now whenever anything was retrieved (several only when nothing was: no hits, refused).
        decision = decide(q.query, q.retrieval, freq, docs, q.view.stats.baseline(q.sites[0]), self.gate)
        explicit = bool(q.explicit or (q.weak and q.hits and q.hits[0].deep_url == q.weak[0].deep_url))
        evidence_of = signals(decision.relevance, explicit, [h.score for h in q.retrieval.hits])
        return _Verdict(decision, explicit, evidence_of, self.calibrator.probability(evidence_of))

    def _clarify(self, q: _Asked, verdict: _Verdict, context: Sequence[Turn]) -> Clarification | None:
        """A clarifying question when the docs answer this in clearly different places; the best-effort answer
        beside it then draws on the best section only."""
        if q.ambiguity is None and not q.targets and not context:
            freq, docs = q.view.stats.doc_freq(q.sites)
            q.ambiguity = within_site(q.question, q.hits, freq, docs, with_site=not q.named_site)
        if q.ambiguity is None or verdict.explicit or verdict.confidence >= MAX_CONFIDENCE:
            return None
        clarification = self._clarification(q.view, q.ambiguity)
        if clarification is not None:
            q.hits = q.hits[:BEST_EFFORT_SOURCES]
        return clarification

    def _compress(self, q: _Asked) -> list[Passage]:
        """Retrieval's last step: the facts of the sections that answer this question (generators see only them)."""
        passages = [Passage(i, q.view.stats.display_title(h), h.path, h.text, h.context) for i, h in enumerate(q.hits, start=1)]
        facts = compress(q.question, passages, similarity=self._similarity(q.view, q.question))
        return [replace(p, facts=tuple(f for f in facts if f.n == p.n)) for p in passages]

    def _answer(self, q: _Asked, verdict: _Verdict, made: Generated, validated: Validated,
                clarification: Clarification | None) -> Answer:
        status = Status.ANSWERED if validated.references else Status.NOT_COVERED
        if status == Status.ANSWERED and clarification is not None:
            status = Status.NEEDS_CLARIFICATION
        else:
            clarification = None
        flagged = status != Status.NOT_COVERED and verdict.decision.flagged and not verdict.explicit  # may not be covered
        text = f"{FLAG_LINE}\n\n{validated.answer}" if flagged else validated.answer
        return Answer(
            question=q.question, status=status, answer=text,
            confidence=min(verdict.confidence, FLAGGED_CONFIDENCE) if flagged else verdict.confidence,
            resolution=verdict.resolution, generator=made.generator, references=validated.references,
            groups=validated.groups, outcomes=validated.outcomes, timings_ms=q.total(), signals=verdict.signals,
            clarification=clarification, generations=q.view.generations, flagged=flagged, fallback=made.fallback,
        )

    def _not_covered(self, q: _Asked, verdict: _Verdict) -> Answer:
        """"Not covered", with the closest topics the docs do cover as references."""
        topics = closest_topics(q.retrieval.hits)
        sources = [self._source(i, h) for i, h in enumerate(topics, start=1)]
        markers = ", ".join(f"{q.view.stats.display_title(h)} [{i}]" for i, h in enumerate(topics, start=1))
        body = "This does not seem to be covered in the documentation."
        if markers:
            body += f" The closest topics are: {markers}."
        q.timings["generate"] = 0.0
        with q.timed("validate"):
            validated = q.view.validator.validate(body, sources)
        return Answer(
            question=q.question, status=Status.NOT_COVERED, answer=validated.answer, confidence=verdict.confidence,
            resolution=Resolution.NONE, generator="extractive", references=validated.references,
            groups=validated.groups, outcomes=validated.outcomes, timings_ms=q.total(), signals=verdict.signals,
            generations=q.view.generations,
        )

    # -- what the steps use ------------------------------------------------
    @staticmethod
    def _target_hit(view: View, target: Target) -> Hit:
        found = view.retriever.section(target.site, target.deep_url, origin=Resolution.EXPLICIT)
        if found is not None:
            return found
        return Hit(target.site, target.url, target.anchor, target.deep_url, target.title, target.path,
                   target.source_type, "", origin=Resolution.EXPLICIT)

    @staticmethod
    def _boost_keys(view: View, urls: Sequence[str], sites: Sequence[str]) -> list[str]:
        """Deep URLs cited earlier, as chunk deep URLs of the indexed sites."""
        keys: list[str] = []
        for url in urls:
            for site in sites:
                outcome = view.validator.check_url(url, site)
                if outcome.output and outcome.action != LinkAction.LINK_DROPPED:
                    keys.append(outcome.output)
                    break
        return keys

    def _reordered(self, query: str, hits: Sequence[Hit]) -> Sequence[Hit]:
        """Retrieval's sections in the re-ranker's fused order, when there is one. Only the answer's order moves: the
        gate and the confidence read the retrieval as it came (so refusals are the same with or without it)."""
        if self.reranker is None:
            return hits
        order = self.reranker.order(query, [(h.deep_url, embedding_text(h.path, h.text[:RERANK_CHARS])) for h in hits])
        return [hits[i] for i in order]

    @staticmethod
    def _clarification(view: View, ambiguity: Ambiguity) -> Clarification | None:
        """The clarifying question with the validator's URL for each option; None when fewer than two survive."""
        options: list[ClarifyOption] = []
        for option in ambiguity.options:
            outcome = view.validator.check_url(option.hit.deep_url, option.hit.site)
            if outcome.output and outcome.action != LinkAction.LINK_DROPPED and all(o.url != outcome.output for o in options):
                options.append(ClarifyOption(option.label, outcome.output, option.hit.site))
        return Clarification(ambiguity.question, tuple(options)) if len(options) > 1 else None

    @staticmethod
    def _similarity(view: View, question: str) -> Similarity | None:
        """Cosines of texts to ``question`` by the index's embedding model (what compression weighs besides words);
        None when the index has no model of its own."""
        embedder = getattr(view.index, "embedder", None)
        if embedder is None:
            return None
        query_vector = getattr(view.index, "query_vector", embedder.embed_query)  # retrieval has embedded it already
        return cosines_to(lambda: query_vector(question), embedder)

    @staticmethod
    def _source(n: int, hit: Hit) -> Source:
        return Source(n, hit.deep_url, hit.title, hit.path, hit.source_type, hit.site, _snippet(hit.text or hit.context))

    # -- site statistics (for fitting the gate, and for fragment repair's ties) ------------
    def evidence(self, question: str, site: str) -> Evidence:
        """The site-scaled evidence the gate weighs for ``question`` asked of ``site`` (for fitting the gate)."""
        text, problem = clean_question(question)
        if problem:
            raise DocbotError(problem)
        view = self.views.current()
        freq, docs = view.stats.doc_freq([site])
        raw = evidence(text, view.retriever.search(text, k=self.k, sites=[site]), freq, docs)
        return raw.minus(view.stats.baseline(site))

    def section_text(self, site: str, deep_url: str) -> str | None:
        """The indexed text of one section (``None`` when the site or section is not indexed)."""
        return section_text(self.views.current().retriever, site, deep_url)

