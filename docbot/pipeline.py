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
from dataclasses import dataclass, replace
from typing import Any

from crawlers.model import AnchorMap, map_path
from docbot.answer import Answer, Clarification, ClarifyOption, LinkAction, Resolution, Status
from docbot.answering import confidence as calibration
from docbot.answering.clarify import MAX_CONFIDENCE, Ambiguity, across_sites, within_site
from docbot.answering.compress import Similarity, compress
from docbot.answering.confidence import signals
from docbot.answering.extractive import ExtractiveGenerator
from docbot.answering.gate import (
    FLAG_LINE,
    FLAGGED_CONFIDENCE,
    Decision,
    Evidence,
    GateModel,
    closest_topics,
    decide,
    evidence,
)
from docbot.answering.generate import Generated, Generator, Passage, generate_or_fallback, generator_from_settings
from docbot.answering.question import Turn, cited_before, clean_question, query_of
from docbot.answering.quotes import quoted_passages
from docbot.answering.site_stats import SiteStats
from docbot.config import Settings
from docbot.errors import DocbotError, IndexMissing, SiteNotFound
from docbot.freshness import LivePages
from docbot.indexing.embed import cosines_to
from docbot.learn.linear import LinearModel
from docbot.reading import View, Views, latest_page_texts, section_text
from docbot.references.validator import ReferenceValidator, Source, Validated
from docbot.retrieval.choose import Chosen, Found, boost_keys, narrow, order
from docbot.retrieval.cross import CrossRanker, cross_ranker_from_settings
from docbot.retrieval.hybrid import Hit, Retriever, SearchIndex
from docbot.retrieval.rerank import Reranker, reranker_from_settings
from docbot.retrieval.resolve import Target

DEFAULT_K = 5  # sources handed to the generator
SNIPPET_CHARS = 240
BEST_EFFORT_SOURCES = 1  # sources of the answer given beside a clarifying question


def _error(question: str, started: float, message: str) -> Answer:
    return Answer(question=question, status=Status.ERROR, answer=message, error=message,
                  timings_ms={"total": (time.perf_counter() - started) * 1000})


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


class _Clock:
    """How long each step of one question took, in ms: the answer's ``timings_ms``."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.timings: dict[str, float] = {}

    @contextmanager
    def timed(self, step: str) -> Iterator[None]:
        mark = time.perf_counter()
        yield
        self.timings[step] = (time.perf_counter() - mark) * 1000

    def total(self) -> dict[str, float]:
        self.timings["total"] = (time.perf_counter() - self.started) * 1000
        return self.timings


@dataclass(frozen=True, slots=True)
class _Asked:
    """One question as asked: its text, the view it reads, the conversation before it, and its clock."""

    question: str
    view: View
    context: Sequence[Turn]
    k: int
    clock: _Clock


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
            return self._ask(_Asked(text, self.views.current(), context, k or self.k, _Clock(started)), site)
        except DocbotError as exc:
            return _error(text, started, str(exc))

    def _ask(self, q: _Asked, site: str | None) -> Answer:
        sites = self._sites(q.view, site)
        with q.clock.timed("resolve"):
            targets = q.view.resolver.resolve(q.question, sites)
        with q.clock.timed("retrieve"):
            searched = self._retrieve(q, sites, targets)
            found = narrow(searched, q.question, q.view.retriever, q.view.stats.doc_freq, q.k)
            ambiguity = self._across_sites(q, searched, found)
            chosen = order(found, q.view.retriever, self.reranker, q.k)
        verdict = self._judge(q, found, chosen)
        if not verdict.explicit and not verdict.decision.answer:
            return self._not_covered(q, found, verdict)
        clarification = self._clarify(q, searched, found, chosen, verdict, ambiguity)
        hits = chosen.hits if clarification is None else chosen.hits[:BEST_EFFORT_SOURCES]
        with q.clock.timed("compress"):
            passages = self._compress(q, hits)
        with q.clock.timed("generate"):
            made = generate_or_fallback(self.generator, self.extractive, q.question, passages)
        sources = self._sources(hits, passages, made.text)
        with q.clock.timed("validate"):
            validated = q.view.validator.validate(made.text, sources)
        return self._answer(q, verdict, made, validated, clarification)

    # -- the steps, in order ---------------------------------------------
    @staticmethod
    def _sites(view: View, site: str | None) -> tuple[str, ...]:
        """The sites to search: all indexed ones, or the one named (an error answer says what to run when there is
        none to ask)."""
        indexed = view.index.sites()
        if not indexed:
            raise IndexMissing("No index yet — run `docbot crawl URL --site NAME` and then `docbot index`.")
        if site is not None and site not in indexed:
            raise SiteNotFound(
                f"Site {site!r} is not indexed (indexed: {', '.join(indexed)}) — "
                f"run `docbot crawl URL --site {site}` and `docbot index --site {site}`, or pick another --site.")
        return tuple(indexed) if site is None else (site,)

    @staticmethod
    def _retrieve(q: _Asked, sites: tuple[str, ...], targets: Sequence[Target]) -> Found:
        """Hybrid retrieval for the question (with a short follow-up read together with the question before it)."""
        query = query_of(q.question, q.context)
        boost = boost_keys(q.view.validator, cited_before(q.context), sites)
        retrieval = q.view.retriever.search(query, k=q.k, sites=sites, boost=boost)
        return Found(query, sites, tuple(targets), boost, retrieval)

    @staticmethod
    def _across_sites(q: _Asked, searched: Found, found: Found) -> Ambiguity | None:
        """Whether sites other than the one of the best section answer the question as well."""
        if not found.guessed:
            return None
        return across_sites(q.question, searched.retrieval.hits, *q.view.stats.doc_freq(searched.sites))

    def _judge(self, q: _Asked, found: Found, chosen: Chosen) -> _Verdict:
        """The gate's decision on retrieval's evidence and the confidence in the primary section."""
        freq, docs = q.view.stats.doc_freq(found.sites)
        # One site by now whenever anything was retrieved (several only when nothing was: no hits, refused).
        decision = decide(found.query, found.retrieval, freq, docs, q.view.stats.baseline(found.sites[0], found.query),
                          self.gate)
        evidence_of = signals(decision.relevance, chosen.named, [h.score for h in found.retrieval.hits])
        return _Verdict(decision, chosen.named, evidence_of, self.calibrator.probability(evidence_of))

    def _clarify(self, q: _Asked, searched: Found, found: Found, chosen: Chosen, verdict: _Verdict,
                 ambiguity: Ambiguity | None) -> Clarification | None:
        """A clarifying question when the docs answer this in clearly different places: other sites (``ambiguity``),
        else unrelated pages of one site, for a question that names nothing and follows nothing."""
        if ambiguity is None and not found.targets and not q.context:
            freq, docs = q.view.stats.doc_freq(found.sites)
            ambiguity = within_site(q.question, chosen.hits, freq, docs, with_site=len(searched.sites) > 1)
        if ambiguity is None or verdict.explicit or verdict.confidence >= MAX_CONFIDENCE:
            return None
        return self._clarification(q.view, ambiguity)

    def _compress(self, q: _Asked, hits: Sequence[Hit]) -> list[Passage]:
        """Retrieval's last step: the facts of the sections that answer this question (generators see only them)."""
        passages = [Passage(i, q.view.stats.display_title(h), h.path, h.text, h.context) for i, h in enumerate(hits, start=1)]
        facts = compress(q.question, passages, similarity=self._similarity(q.view, q.question))
        return [replace(p, facts=tuple(f for f in facts if f.n == p.n)) for p in passages]

    def _sources(self, hits: Sequence[Hit], passages: Sequence[Passage], body: str) -> list[Source]:
        """The answer's sources for the validator, each with the passage the answer quotes (where its link lands)."""
        quoted = quoted_passages(body, {p.n: p.facts for p in passages})
        return [replace(self._source(i, h), passage=quoted.get(i, "")) for i, h in enumerate(hits, start=1)]

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
            groups=validated.groups, outcomes=validated.outcomes, timings_ms=q.clock.total(), signals=verdict.signals,
            clarification=clarification, generations=q.view.generations, flagged=flagged, fallback=made.fallback,
        )

    def _not_covered(self, q: _Asked, found: Found, verdict: _Verdict) -> Answer:
        """"Not covered", with the closest topics the docs do cover as references."""
        topics = closest_topics(found.retrieval.hits)
        sources = [self._source(i, h) for i, h in enumerate(topics, start=1)]
        markers = ", ".join(f"{q.view.stats.display_title(h)} [{i}]" for i, h in enumerate(topics, start=1))
        body = "This does not seem to be covered in the documentation."
        if markers:
            body += f" The closest topics are: {markers}."
        q.clock.timings["generate"] = 0.0
        with q.clock.timed("validate"):
            validated = q.view.validator.validate(body, sources)
        return Answer(
            question=q.question, status=Status.NOT_COVERED, answer=validated.answer, confidence=verdict.confidence,
            resolution=Resolution.NONE, generator="extractive", references=validated.references,
            groups=validated.groups, outcomes=validated.outcomes, timings_ms=q.clock.total(), signals=verdict.signals,
            generations=q.view.generations,
        )

    # -- what the steps use ------------------------------------------------
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
        return raw.minus(view.stats.baseline(site, text))

    def section_text(self, site: str, deep_url: str) -> str | None:
        """The indexed text of one section (``None`` when the site or section is not indexed)."""
        return section_text(self.views.current().retriever, site, deep_url)

