"""docbot's own re-ranker: a small transformer that reads the question and a section together and scores the pair.

Trained by ``scripts/train_ranker_model.py`` from the packaged all-MiniLM-L6-v2 weights on how documentation links
to itself (:mod:`docbot.training`), exported to ONNX and run here with onnxruntime and the ``tokenizers`` package
(no torch at answer time). A model folder holds ``model.onnx``, ``tokenizer.json`` and ``training.json`` (what it
was trained on, how, and the input length it reads). Scores are comparable within one question only.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docbot.config import Settings
from docbot.errors import ConfigError
from docbot.providers import RANK_MODELS, Spec
from docbot.retrieval.fusion import fuse

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
RECORD_FILE = "training.json"
DEFAULT_MAX_TOKENS = 128
BATCH = 16


class CrossModelError(RuntimeError):
    """The model folder is missing a file or does not load."""


class PairTokenizer:
    """Word pieces of (question, passage) pairs within ``max_tokens``: the passage is cut, and the question first
    to half the window (a pasted stack trace must not crowd the section out)."""

    def __init__(self, path: Path, max_tokens: int) -> None:
        from tokenizers import Tokenizer

        self.max_tokens = max_tokens
        self.single = Tokenizer.from_file(str(path))
        self.single.no_truncation()
        self.single.no_padding()
        self.pair = Tokenizer.from_file(str(path))
        self.pair.enable_truncation(max_tokens, strategy="only_second")
        self.pair.no_padding()

    def clip_query(self, query: str) -> str:
        limit = self.max_tokens // 2
        offsets = self.single.encode(query, add_special_tokens=False).offsets
        return query if len(offsets) <= limit else query[: offsets[limit - 1][1]]

    def encode(self, query: str, passages: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Padded ``input_ids``, ``attention_mask`` and ``token_type_ids`` of the pairs, as int64."""
        query = self.clip_query(query)
        encodings = self.pair.encode_batch([(query, p) for p in passages])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        return ids, mask, types


class CrossEncoder:
    """Scores (question, section) pairs with an exported model folder; one thread per call, calls serialised."""

    def __init__(self, model_dir: str | os.PathLike[str], threads: int = 1) -> None:
        folder = Path(model_dir)
        for name in (MODEL_FILE, TOKENIZER_FILE):
            if not (folder / name).is_file():
                raise CrossModelError(f"{folder} has no {name}: train one with scripts/train_ranker_model.py")
        try:
            record = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        self.record: dict[str, Any] = record
        self.max_tokens = int(record.get("max_tokens", DEFAULT_MAX_TOKENS))
        self.name = str(record.get("name", folder.name))
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            self.session = ort.InferenceSession(str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"])
            self.tokenizer = PairTokenizer(folder / TOKENIZER_FILE, self.max_tokens)
        except Exception as exc:  # onnxruntime and tokenizers raise their own kinds for a damaged file
            raise CrossModelError(f"the re-ranking model in {folder} does not load: {exc}") from exc
        self._lock = threading.Lock()

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """One score per passage (higher: more likely the section that answers ``query``)."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        out = []
        with self._lock:
            for start in range(0, len(passages), BATCH):
                ids, mask, types = self.tokenizer.encode(query, passages[start:start + BATCH])
                result = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
                out.append(np.asarray(result[0], dtype=np.float32).reshape(-1))
        return np.concatenate(out)


DEPTH = 20  # candidates the model re-orders (the rest keep their places)


def fused(scores: Sequence[float], weight: float | None) -> list[int]:
    """Positions of the candidates (given best first) re-ordered: by ``scores`` alone when ``weight`` is None, else
    by reciprocal rank fusion of the given order (weight 1) and the scores' order (``weight``); ties keep order."""
    n = len(scores)
    by_score = sorted(range(n), key=lambda i: (-scores[i], i))
    return by_score if weight is None else fuse(list(range(n)), by_score, weight)


class CrossRanker:
    """Re-orders the first ``depth`` candidates with a :class:`CrossEncoder`, loaded on first use. A model that does
    not load or fails on a question leaves retrieval's order (logged once)."""

    def __init__(self, model_dir: str | os.PathLike[str], depth: int = DEPTH, weight: float | None = None) -> None:
        self.model_dir = Path(model_dir)
        self.depth, self.weight = depth, weight
        self._encoder: CrossEncoder | None = None
        self._failed = False
        self._lock = threading.Lock()

    def encoder(self) -> CrossEncoder | None:
        with self._lock:
            if self._encoder is None and not self._failed:
                try:
                    self._encoder = CrossEncoder(self.model_dir)
                except CrossModelError as exc:
                    log.warning("docbot's re-ranking model is off: %s", exc)
                    self._failed = True
            return self._encoder

    def order(self, query: str, passages: Sequence[str]) -> list[int]:
        """New positions of ``passages`` (candidates best first): the first ``depth`` re-ordered, then the rest."""
        same = list(range(len(passages)))
        n = min(self.depth, len(passages))
        encoder = self.encoder() if n > 1 else None
        if encoder is None:
            return same
        try:
            scores = encoder.score(query, passages[:n])
        except Exception as exc:  # noqa: BLE001 - a fault in the model keeps retrieval's order
            log.warning("re-ranking skipped: %s", exc)
            return same
        return fused([float(s) for s in scores], self.weight) + same[n:]


BUILTIN = Path(__file__).resolve().parent / "cross_model"  # the model shipped with docbot (package data)
DEFAULT_SPEC = "builtin"


def cross_ranker_from_settings(settings: Settings) -> CrossRanker | None:
    """The re-ranking model settings name (env ``DOCBOT_RANK_MODEL``, else docbot.toml ``rank_model``), else the
    builtin one: ``builtin``, ``off`` or a model folder. None when off, or when the builtin one is not installed."""
    ranker: CrossRanker | None = RANK_MODELS.create(settings.rank_model or DEFAULT_SPEC, settings)
    return ranker


@RANK_MODELS.register("off", "off")
def _off(spec: Spec, settings: Settings) -> None:
    return None


@RANK_MODELS.register("builtin", "builtin")
def _builtin(spec: Spec, settings: Settings) -> CrossRanker | None:
    return CrossRanker(BUILTIN) if (BUILTIN / MODEL_FILE).is_file() else None


@RANK_MODELS.register("folder", "<folder written by scripts/train_ranker_model.py>")
def _folder(spec: Spec, settings: Settings) -> CrossRanker:
    if not Path(spec.text).is_dir():
        known = ", ".join(repr(u) for u in RANK_MODELS.usages())
        raise ConfigError(f"rank_model {spec.text!r} is not a model folder: give one of {known}")
    return CrossRanker(spec.text)
