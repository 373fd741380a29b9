"""docbot's answer pipeline: resolve → retrieve → gate → generate → validate.

``Pipeline.ask`` is what the CLI, the Slack bot and the report call. Step 1
(resolve, retrieve, gate) is system logic only; step 2 lets a generator phrase
the answer from the chosen sections; the ReferenceValidator then owns every
link. A question the docs answer in clearly different places gets a clarifying
question with its options beside a best-effort answer (:mod:`docbot.answering.clarify`). Bad input never raises: it comes back as an ``error`` answer whose text
says what to do next.
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from crawlers.model import AnchorMap, map_path
from docbot.answer import Answer, Reference
from docbot.indexing.chunk import embedding_text
from docbot.answering.clarify import MAX_CONFIDENCE, Clarification, across_sites, within_site
from docbot.answering.clarify import to_json as clarification_json
from docbot.answering.compress import Similarity, compress
from docbot.answering import confidence as calibration
from docbot.answering.confidence import signals
from docbot.config import Settings
from docbot.errors import DocbotError, GenerationError
from docbot.answering.extractive import ExtractiveGenerator
from docbot.answering.gate import PROBES, Evidence, GateModel, closest_topics, decide, evidence
from docbot.answering.logistic import LogisticModel
from docbot.answering.generate import Generator, Passage, generator_from_env
from docbot.text.words import tokenize
from docbot.retrieval.rerank import RERANK_CHARS, Reranker, reranker_from_settings
from docbot.retrieval.resolve import Resolver, Target
from docbot.retrieval.hybrid import Hit, Retriever, SearchIndex
from docbot.references.validator import ReferenceValidator, Source

log = logging.getLogger(__name__)

DEFAULT_K = 5  # sources handed to the generator
MAX_QUESTION_CHARS = 2000  # longer questions are truncated (embedding models read ~256 tokens anyway)
MIN_PRINTABLE = 0.85  # below this share of printable characters a question is treated as binary junk
FOLLOW_UP_WORDS = 12  # a question this short in a conversation is read together with the previous one
SNIPPET_CHARS = 240
BEST_EFFORT_SOURCES = 1  # sources of the answer given beside a clarifying question


class Turn(Protocol):
    question: str
    answer: str
    references: Sequence[Reference]


def clean_question(question: str) -> tuple[str, str | None]:
    """(cleaned question, error message or None): strips, truncates, rejects empty and binary input."""
    text = question if isinstance(question, str) else str(question)
    if not text.strip():
        return "", "The question is empty — ask something like: docbot ask \"How do I set a cookie?\""
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    if printable / len(text) < MIN_PRINTABLE or "\x00" in text:
        return "", "The question looks like binary data, not text — ask in plain words."
    text = "".join(c if unicodedata.category(c)[0] != "C" or c in "\n\t" else " " for c in text)
    text = " ".join(text.split())
    return text[:MAX_QUESTION_CHARS], None


def _count_doc_freq(chunks: Sequence[Any]) -> tuple[dict[str, int], int]:
    freq: dict[str, int] = {}
    for chunk in chunks:
        for token in set(tokenize(chunk.embed_text)):
            freq[token] = freq.get(token, 0) + 1
    return freq, len(chunks)


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


class Pipeline:
    """Everything injectable: index, anchor maps, validator, generator (None → extractive only)."""

    def __init__(
        self,
        index: SearchIndex,
        maps: Mapping[str, AnchorMap],
        validator: ReferenceValidator,
        generator: Generator | None = None,
        k: int = DEFAULT_K,
        extractive: Generator | None = None,
        gate: GateModel | None = None,
        calibrator: LogisticModel | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.index = index
        self.maps = dict(maps)
        self.validator = validator
        self.generator = generator
        self.extractive = extractive or ExtractiveGenerator()
        self.k = k
        self.retriever = Retriever(index)
        self.reranker = reranker  # a stronger model's second opinion on the order of the sections found (opt-in)
        if validator.texts is None:  # the index holds every section's text: it settles ties in fragment repair
            validator.texts = self.section_text
        self.resolver = Resolver(self.maps, validator)
        self._df: dict[str, tuple[dict[str, int], int]] = {}
        self.gate = gate or GateModel.load()
        self.calibrator = calibrator or calibration.load()
        self._baselines: dict[str, Evidence] = {}
        self._title_pages: dict[str, dict[str, int]] = {}  # per site: section title → pages that carry it

    def _similarity(self, question: str) -> Similarity | None:
        """Cosines of texts to ``question`` by the index's embedding model (what compression weighs besides words);
        None when the index has no model of its own."""
        embedder = getattr(self.index, "embedder", None)
        if embedder is None:
            return None
        query_vector = getattr(self.index, "query_vector", embedder.embed_query)  # retrieval has embedded it already

        def cosines(texts: Sequence[str]) -> list[float]:
            if not texts:
                return []
            q = np.asarray(query_vector(question), dtype=np.float32)
            m = np.asarray(embedder.embed_documents(list(texts)), dtype=np.float32)
            norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(q) or 1.0)
            return [float(c) for c in (m @ q) / np.where(norms > 0, norms, 1.0)]

        return cosines

    @classmethod
    def from_settings(cls, settings: Settings, generator: Generator | None = None, **kwargs: Any) -> Pipeline:
        """Open the index and anchor maps named by ``settings``; the LLM comes from the environment when set."""
        from docbot.indexing.embed import embedder_from_settings
        from docbot.indexing.index import Index

        index = Index.open(settings.data_dir, embedder_from_settings(settings), settings.chroma_url)
        maps: dict[str, AnchorMap] = {}
        for site in settings.site_names():
            path = map_path(settings.anchor_maps, site)
            if path.is_file():  # configured but never crawled: asking about it says so
                maps[site] = AnchorMap.load(path)  # a corrupt map is an error, never silently "not covered"
        validator = ReferenceValidator(maps, allow_hosts=settings.allow_hosts)
        kwargs.setdefault("reranker", reranker_from_settings(settings.raw))
        return cls(index, maps, validator, generator if generator is not None else generator_from_env(), **kwargs)

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

    def section_text(self, site: str, deep_url: str) -> str | None:
        """The indexed text of one section (``None`` when the site or section is not indexed)."""
        try:
            hit = self.retriever.section(site, deep_url)
        except Exception as exc:  # noqa: BLE001 - a tie-break is optional; without it the fragment is dropped
            log.warning("could not read section text of %s (%s)", deep_url, exc)
            return None
        return hit.text if hit is not None else None

    # -- helpers -----------------------------------------------------------
    def _doc_freq(self, sites: Sequence[str]) -> tuple[dict[str, int], int]:
        key = "\x1f".join(sorted(sites))
        if key not in self._df:
            freq: dict[str, int] = {}
            docs = 0
            for site in sites:
                if hasattr(self.index, "doc_freq"):  # the BM25 index has counted them already
                    site_freq, site_docs = self.index.doc_freq(site)
                else:
                    site_freq, site_docs = _count_doc_freq(self.index.chunks(site))
                docs += site_docs
                for token, n in site_freq.items():
                    freq[token] = freq.get(token, 0) + n
            self._df[key] = (freq, docs)
        return self._df[key]

    def _reordered(self, query: str, hits: Sequence[Hit]) -> Sequence[Hit]:
        """Retrieval's sections in the re-ranker's fused order, when there is one. Only the answer's order moves: the
        gate and the confidence read the retrieval as it came (so refusals are the same with or without it)."""
        if self.reranker is None:
            return hits
        order = self.reranker.order(query, [(h.deep_url, embedding_text(h.path, h.text[:RERANK_CHARS])) for h in hits])
        return [hits[i] for i in order]

    def baseline(self, site: str) -> Evidence:
        """The gate's evidence for everyday off-topic questions on ``site``: its own noise floor (cached)."""
        if site not in self._baselines:
            freq, docs = self._doc_freq([site])
            self._baselines[site] = Evidence.mean([
                evidence(probe, self.retriever.search(probe, k=self.k, sites=[site]), freq, docs) for probe in PROBES
            ])
        return self._baselines[site]

    def evidence(self, question: str, site: str) -> Evidence:
        """The site-scaled evidence the gate weighs for ``question`` asked of ``site`` (for fitting the gate)."""
        text, problem = clean_question(question)
        if problem:
            raise DocbotError(problem)
        freq, docs = self._doc_freq([site])
        raw = evidence(text, self.retriever.search(text, k=self.k, sites=[site]), freq, docs)
        return raw.minus(self.baseline(site))

    def _error(self, question: str, message: str, started: float, status: str = "error") -> Answer:
        return Answer(question=question, status=status, answer=message, error=message if status == "error" else None,
                      timings_ms={"total": (time.perf_counter() - started) * 1000})

    def _target_hit(self, target: Target) -> Hit:
        found = self.retriever.section(target.site, target.deep_url, origin="explicit")
        if found is not None:
            return found
        return Hit(target.site, target.url, target.anchor, target.deep_url, target.title, target.path,
                   target.source_type, "", origin="explicit")

    def _sites(self, site: str | None) -> tuple[list[str], str | None]:
        indexed = self.index.sites()
        if not indexed:
            return [], "No index yet — run `docbot crawl URL --site NAME` and then `docbot index`."
        if site is None:
            return indexed, None
        if site not in indexed:
            return [], (f"Site {site!r} is not indexed (indexed: {', '.join(indexed)}) — "
                        f"run `docbot crawl URL --site {site}` and `docbot index --site {site}`, or pick another --site.")
        return [site], None

    # -- the pipeline ----------------------------------------------------
    def ask(self, question: str, site: str | None = None, context: Sequence[Turn] = (), k: int | None = None) -> Answer:
        """Answer ``question`` (optionally only from ``site``, favouring sections cited in ``context``)."""
        started = time.perf_counter()
        k = k or self.k
        text, problem = clean_question(question)
        if problem:
            return self._error(question if isinstance(question, str) else "", problem, started)
        try:
            return self._ask(text, site, context, k, started)
        except DocbotError as exc:
            return self._error(text, str(exc), started)

    def _ask(self, question: str, site: str | None, context: Sequence[Turn], k: int, started: float) -> Answer:
        timings: dict[str, float] = {}
        sites, problem = self._sites(site)
        if problem:
            return self._error(question, problem, started)
        mark = time.perf_counter()
        targets = self.resolver.resolve(question, sites)
        timings["resolve"] = (time.perf_counter() - mark) * 1000

        mark = time.perf_counter()
        query = question
        if context and len(question.split()) < FOLLOW_UP_WORDS:
            query = f"{context[-1].question} {question}"
        boost = [r.url for turn in context for r in turn.references]
        boost_keys = self._boost_keys(boost, sites)
        retrieval = self.retriever.search(query, k=k, sites=sites, boost=boost_keys)
        ambiguity: Clarification | None = None
        named_site = len(sites) == 1
        if len(sites) > 1:
            chosen = self._explicit_site(question, targets)
            if chosen is None and retrieval.hits:
                chosen = (retrieval.leading or retrieval.hits)[0].site  # best evidence, before ordering preferences
                ambiguity = across_sites(question, retrieval.hits, *self._doc_freq(sites))
            if chosen is not None:
                sites = [chosen]
                targets = [t for t in targets if t.site == chosen]
                retrieval = self.retriever.search(query, k=k, sites=sites, boost=boost_keys)
        explicit = [self._target_hit(t) for t in targets if t.strong]
        weak = [self._target_hit(t) for t in targets if not t.strong]
        page_only = next((t for t in targets if t.anchor is None), None)
        hits = list(explicit)
        if page_only is not None:  # a pasted page whose fragment was unrecoverable: its best sections first
            within = self.retriever.search(query, k=2, sites=[page_only.site], within=page_only.url)
            hits = [h for h in hits if h.deep_url != page_only.deep_url] + list(within.hits)
        for hit in self._reordered(query, retrieval.hits):
            if all(h.deep_url != hit.deep_url for h in hits):
                hits.append(hit)
        for hit in weak:  # a bare class name may be mentioned in passing: never ahead of the best match
            if all(h.deep_url != hit.deep_url for h in hits):
                hits.insert(min(1, len(hits)), hit)
        hits = hits[:k]
        timings["retrieve"] = (time.perf_counter() - mark) * 1000

        freq, docs = self._doc_freq(sites)
        # One site by now whenever anything was retrieved (several only when nothing was: no hits, refused).
        decision = decide(query, retrieval, freq, docs, self.baseline(sites[0]), self.gate)
        is_explicit = bool(explicit or (weak and hits and hits[0].deep_url == weak[0].deep_url))
        evidence_of = signals(decision.relevance, is_explicit, [h.score for h in retrieval.hits])
        confidence = self.calibrator.probability(evidence_of)
        if ambiguity is None and not targets and not context:
            ambiguity = within_site(question, hits, freq, docs, with_site=not named_site)
        if is_explicit:
            resolution = "explicit"
        elif decision.answer:
            resolution = "semantic"
        else:
            return self._not_covered(question, retrieval.hits, confidence, timings, started, evidence_of)

        clarification = None
        if ambiguity is not None and not is_explicit and confidence < MAX_CONFIDENCE:
            clarification = self._clarification(ambiguity)
            if clarification is not None:  # the best-effort answer is minimal: the best section only
                hits = hits[:BEST_EFFORT_SOURCES]
        sources = [self._source(i, h) for i, h in enumerate(hits, start=1)]
        passages = [Passage(i, self.display_title(h), h.path, h.text, h.context) for i, h in enumerate(hits, start=1)]
        mark = time.perf_counter()
        # retrieval's last step: generators see these facts, not sections
        facts = compress(question, passages, similarity=self._similarity(question))
        passages = [replace(p, facts=tuple(f for f in facts if f.n == p.n)) for p in passages]
        timings["compress"] = (time.perf_counter() - mark) * 1000
        mark = time.perf_counter()
        generator_name, body = self._generate(question, passages)
        timings["generate"] = (time.perf_counter() - mark) * 1000

        mark = time.perf_counter()
        validated = self.validator.validate(body, sources)
        timings["validate"] = (time.perf_counter() - mark) * 1000
        status = "answered" if validated.references else "not_covered"
        if status == "answered" and clarification is not None:
            status = "needs_clarification"
        else:
            clarification = None
        timings["total"] = (time.perf_counter() - started) * 1000
        return Answer(
            question=question, status=status,
            answer=validated.answer, confidence=confidence, resolution=resolution, generator=generator_name,
            references=validated.references, groups=validated.groups, outcomes=validated.outcomes, timings_ms=timings,
            signals=evidence_of, clarification=clarification,
        )

    def _clarification(self, ambiguity: Clarification) -> dict[str, Any] | None:
        """The clarifying question with the validator's URL for each option; None when fewer than two survive."""
        options: list[tuple[str, str, str]] = []
        for option in ambiguity.options:
            outcome = self.validator.check_url(option.hit.deep_url, option.hit.site)
            if outcome.output and outcome.action != "link_dropped" and all(u != outcome.output for _, u, _ in options):
                options.append((option.label, outcome.output, option.hit.site))
        return clarification_json(ambiguity.question, options) if len(options) > 1 else None

    @staticmethod
    def _explicit_site(question: str, targets: Sequence[Target]) -> str | None:
        """With several sites, the one to answer from: that of a pasted link or of an API name written out
        in full (``flask.Flask.route``); None leaves it to the best section (and the question may be ambiguous).

        The rest of the pipeline then works as for one site, with that site's own rankings and word
        statistics: BM25 scores of different sites' indexes are not comparable, the gate was calibrated
        one site at a time, and an answer drawn from one documentation set stays coherent. A name that
        only ends another site's symbol (``json.dumps`` in ``flask.json.dumps``) does not choose.
        """
        for target in targets:
            if target.how == "url":
                return target.site
        for target in targets:
            if target.how == "symbol" and target.anchor and "." in target.anchor and target.anchor in question:
                return target.site
        return None

    def _boost_keys(self, urls: Sequence[str], sites: Sequence[str]) -> list[str]:
        """Deep URLs cited earlier, as chunk deep URLs of the indexed sites."""
        keys: list[str] = []
        for url in urls:
            for site in sites:
                outcome = self.validator.check_url(url, site)
                if outcome.output and outcome.action != "link_dropped":
                    keys.append(outcome.output)
                    break
        return keys

    def _generate(self, question: str, passages: Sequence[Passage]) -> tuple[str, str]:
        if self.generator is not None:
            try:
                return self.generator.name, self.generator.generate(question, passages)
            except GenerationError as exc:  # the question is never lost: answer extractively
                log.warning("LLM fallback: %s", exc)
        return self.extractive.name, self.extractive.generate(question, passages)

    @staticmethod
    def _source(n: int, hit: Hit) -> Source:
        return Source(n, hit.deep_url, hit.title, hit.path, hit.source_type, hit.site, _snippet(hit.text or hit.context))

    def _not_covered(
        self, question: str, hits: Sequence[Hit], confidence: float, timings: dict[str, float], started: float,
        evidence_of: tuple[float, ...] = (),
    ) -> Answer:
        topics = closest_topics(hits)
        sources = [self._source(i, h) for i, h in enumerate(topics, start=1)]
        markers = ", ".join(f"{self.display_title(h)} [{i}]" for i, h in enumerate(topics, start=1))
        body = "This does not seem to be covered in the documentation."
        if markers:
            body += f" The closest topics are: {markers}."
        mark = time.perf_counter()
        validated = self.validator.validate(body, sources)
        timings["generate"] = 0.0
        timings["validate"] = (time.perf_counter() - mark) * 1000
        timings["total"] = (time.perf_counter() - started) * 1000
        return Answer(
            question=question, status="not_covered", answer=validated.answer, confidence=confidence,
            resolution="none", generator="extractive", references=validated.references,
            groups=validated.groups, outcomes=validated.outcomes, timings_ms=timings, signals=evidence_of,
        )
