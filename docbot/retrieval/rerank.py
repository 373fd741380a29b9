"""A second opinion on the first few sections: a stronger sentence model, when one is installed (opt-in).

The index's own model (all-MiniLM-L6-v2) and BM25 choose the candidates. A larger
sentence-transformers model (all-mpnet-base-v2 is the one measured) then reads the question
and the start of each of the first :data:`TOP` sections, and its order is fused with the
retrieval's by reciprocal rank, with equal weight. Neither opinion overrules the other: a
section both put first stays first.

It costs a forward pass of the larger model per section not seen before (sections are
cached), so it is off unless ``rerank_model`` (docbot.toml) or ``DOCBOT_RERANK_MODEL`` names
a model directory (the ``folder`` provider of :data:`docbot.providers.RERANKERS`). Any fault loading or
running the model leaves the retrieval's order.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from docbot.config import Settings, offline_models
from docbot.errors import ConfigError
from docbot.providers import RERANKERS, Spec
from docbot.retrieval.fusion import fuse

log = logging.getLogger(__name__)

TOP = 5  # sections re-ordered; the rest keep their places
WEIGHT = 1.0  # the model's order against the retrieval's, in the fusion
MAX_TOKENS = 384  # how much of each section the model reads: all-mpnet-base-v2's window (128 lost half the gain)
CACHE = 4096  # section vectors kept
RERANK_CHARS = 4000  # of a section's text passed on: well past MAX_TOKENS word pieces, so a huge one costs no more



class Reranker:
    """Re-orders the first ``top`` of a list of (key, text) by a sentence model's cosine to the question."""

    def __init__(self, model_dir: str | Path, top: int = TOP, weight: float = WEIGHT, max_tokens: int = MAX_TOKENS,
                 loader: Callable[[str], Any] | None = None) -> None:
        self.model_dir = str(model_dir)
        self.top, self.weight, self.max_tokens = top, weight, max_tokens
        self._loader = loader
        self._model: Any = None
        self._failed = False
        self._cache: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()  # loading
        self._work = threading.Lock()  # the model and the cache: one question at a time (the Slack bot has threads)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None and not self._failed:
                try:
                    self._model = (self._loader or _sentence_transformer)(self.model_dir)
                    if hasattr(self._model, "max_seq_length"):
                        self._model.max_seq_length = self.max_tokens
                except Exception as exc:  # noqa: BLE001 - a missing or broken model must not stop answers
                    log.warning("re-ranking is off: the model in %s does not load (%s)", self.model_dir, exc)
                    self._failed = True
            return self._model

    def _vectors(self, model: Any, items: Sequence[tuple[str, str]]) -> list[Any]:
        missing = [it for it in items if it not in self._cache]
        if missing:
            encoded = model.encode([text for _, text in missing], normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)
            for item, vector in zip(missing, encoded):
                self._cache[item] = vector
        out = []
        for item in items:
            self._cache.move_to_end(item)
            out.append(self._cache[item])
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)
        return out

    def order(self, question: str, items: Sequence[tuple[str, str]]) -> list[int]:
        """New order (positions into ``items``): the first ``top`` fused with the model's order, then the rest."""
        n = min(self.top, len(items))
        same = list(range(len(items)))
        if n < 2:
            return same
        model = self._load()
        if model is None:
            return same
        try:
            with self._work:
                query = model.encode([question], normalize_embeddings=True, convert_to_numpy=True,
                                     show_progress_bar=False)[0]
                vectors = self._vectors(model, items[:n])
        except Exception as exc:  # noqa: BLE001 - a fault in the model keeps the retrieval's order
            log.warning("re-ranking skipped: %s", exc)
            return same
        cosine = [float(query @ v) for v in vectors]
        by_model = sorted(range(n), key=lambda i: -cosine[i])
        return fuse(list(range(n)), by_model, self.weight) + same[n:]


def _sentence_transformer(model_dir: str) -> Any:
    if not Path(model_dir).is_dir():
        raise ConfigError(f"re-rank model directory {model_dir} does not exist: install one with "
                          "scripts/install_reranker.py, or unset DOCBOT_RERANK_MODEL / rerank_model")
    offline_models()
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" on every start is noise in a CLI's output

    return SentenceTransformer(model_dir, device="cpu")


def reranker_from_settings(settings: Settings) -> Reranker | None:
    """The re-ranker settings name (env ``DOCBOT_RERANK_MODEL``, else docbot.toml ``rerank_model``); None when
    neither (off by default)."""
    if not settings.rerank_model:
        return None
    reranker: Reranker | None = RERANKERS.create(settings.rerank_model, settings)
    return reranker


@RERANKERS.register("folder", "<folder of a sentence-transformers model>")
def _folder(spec: Spec, settings: Settings) -> Reranker:
    return Reranker(spec.text)  # loaded on first use; a missing folder is logged then, and the retrieval's order kept
