"""Fine-tune a cross-encoder from the packaged all-MiniLM-L6-v2 weights on (query, gold, negatives) triples (torch, CPU).

The model reads "[CLS] query [SEP] Page › Section\\n\\ntext [SEP]", mean-pools the last layer and scores the pair
with one linear unit. Each step is a softmax over one gold and its hard negatives (listwise cross-entropy), so the
model learns to put the gold first among sections that look alike to BM25. The word-piece embeddings and the lowest
layers stay frozen (half of the weights, the part a few thousand queries would only bend out of shape; and each step
costs a third less). Then the model is exported to
ONNX, quantised to int8 when that keeps its order (:func:`export`), and written with its record beside it.
Imported only by the training script and its test: docbot answers with :mod:`docbot.retrieval.cross`, never torch.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from docbot.retrieval.cross import MODEL_FILE, RECORD_FILE, TOKENIZER_FILE, CrossEncoder, PairTokenizer
from docbot.training.pairs import Pair

log = logging.getLogger(__name__)

OPSET = 17
MIN_INT8_AGREEMENT = 0.9  # share of held-back queries whose top pick int8 keeps; below, the float model ships


@dataclass
class Settings:
    max_tokens: int = 128
    negatives: int = 3
    queries_per_step: int = 4
    learning_rate: float = 5e-5
    head_learning_rate: float = 1e-3  # the new linear unit starts from nothing
    frozen_layers: int = 2  # the lowest transformer layers kept as they are (with the word pieces): faster steps
    warmup: float = 0.05
    epochs: float = 1.0
    seed: int = 13
    threads: int = 2
    time_budget_s: float | None = None  # stop early (the steps done are kept) once this is spent
    extra: dict[str, Any] = field(default_factory=dict)


def _scorer(base_dir: Path) -> Any:
    import torch
    from transformers import AutoModel

    class Scorer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base_dir))
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
            torch.nn.init.normal_(self.head.weight, std=0.02)
            torch.nn.init.zeros_(self.head.bias)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return self.head(pooled).squeeze(-1)

    return Scorer()


def _progress(done: int, total: int, started: float, loss: float) -> None:
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(f"\rstep {done}/{total}  loss {loss:.3f}  {elapsed / 60:.1f} min, ETA {eta / 60:.1f} min   ")
    sys.stderr.flush()


def train(pairs: Sequence[Pair], passages: Mapping[str, str], base_dir: Path, settings: Settings,
          progress: Callable[[int, int, float, float], None] | None = _progress) -> Any:
    """The fine-tuned torch model; ``passages`` maps every key the pairs name to the text the model reads."""
    import torch

    torch.manual_seed(settings.seed)
    torch.set_num_threads(settings.threads)
    rng = random.Random(settings.seed)
    model = _scorer(base_dir)
    model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    for layer in model.encoder.encoder.layer[: settings.frozen_layers]:
        layer.requires_grad_(False)
    tokenizer = PairTokenizer(base_dir / TOKENIZER_FILE, settings.max_tokens)
    order = list(pairs)
    steps_per_epoch = max(1, math.ceil(len(order) / settings.queries_per_step))
    total = max(1, int(steps_per_epoch * settings.epochs))
    params = [p for p in model.parameters() if p.requires_grad]
    head = set(map(id, model.head.parameters()))
    optimizer = torch.optim.AdamW([{"params": [p for p in params if id(p) not in head], "lr": settings.learning_rate},
                                   {"params": list(model.head.parameters()), "lr": settings.head_learning_rate}],
                                  weight_decay=0.01)
    warm = max(1, int(total * settings.warmup))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm)))
    model.train()
    started, smooth = time.monotonic(), None
    step = 0
    queue: list[Pair] = []
    while step < total:
        if not queue:
            queue = order[:]
            rng.shuffle(queue)
        batch = [queue.pop() for _ in range(min(settings.queries_per_step, len(queue)))]
        groups = [(p.query, [passages[p.positive], *(passages[n] for n in p.negatives[: settings.negatives])])
                  for p in batch]
        losses = []
        for query, texts in groups:
            ids, mask, types = (torch.from_numpy(a) for a in tokenizer.encode(query, texts))
            scores = model(ids, mask, types)
            losses.append(torch.nn.functional.cross_entropy(scores.unsqueeze(0), torch.zeros(1, dtype=torch.long)))
        loss = torch.stack(losses).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        step += 1
        value = loss.item()
        smooth = value if smooth is None else 0.98 * smooth + 0.02 * value
        if progress is not None and (step % 10 == 0 or step == total):
            progress(step, total, started, smooth)
        if settings.time_budget_s is not None and time.monotonic() - started > settings.time_budget_s:
            log.warning("time budget spent after %d of %d steps; keeping the model as it stands", step, total)
            break
    if progress is not None:
        sys.stderr.write("\n")
    settings.extra["steps"] = step
    settings.extra["train_minutes"] = round((time.monotonic() - started) / 60, 1)
    model.eval()
    return model


def _export_float(model: Any, dest: Path, tokenizer: Any) -> None:
    import torch

    ids, mask, types = (torch.from_numpy(a) for a in tokenizer.encode("a question", ["a section", "another one"]))
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (ids, mask, types), str(dest),
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["score"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                        "score": {0: "batch"}},
                          opset_version=OPSET, dynamo=False)


def _top_agreement(a: CrossEncoder, b: CrossEncoder, checks: Sequence[tuple[str, list[str]]]) -> float:
    same = sum(int(np.argmax(a.score(q, texts)) == np.argmax(b.score(q, texts))) for q, texts in checks)
    return same / max(1, len(checks))


def export(model: Any, base_dir: Path, out_dir: Path, record: dict[str, Any],
           checks: Sequence[tuple[str, list[str]]], quantize: bool = True) -> Path:
    """Write ``out_dir`` (replaced whole, never half written): the ONNX model, the tokenizer and the record.

    The float export must give torch's scores (within 1e-3) on ``checks``; the int8 one ships only when it keeps
    the top pick of at least :data:`MIN_INT8_AGREEMENT` of them.
    """
    import torch

    tokenizer = PairTokenizer(base_dir / TOKENIZER_FILE, int(record["max_tokens"]))
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=out_dir.name + ".", dir=out_dir.parent))
    try:
        shutil.copyfile(base_dir / TOKENIZER_FILE, work / TOKENIZER_FILE)
        (work / RECORD_FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")
        _export_float(model, work / MODEL_FILE, tokenizer)
        exported = CrossEncoder(work)
        worst = 0.0
        for query, texts in checks[:20]:
            with torch.no_grad():
                want = model(*(torch.from_numpy(a) for a in tokenizer.encode(query, texts))).numpy()
            worst = max(worst, float(np.abs(exported.score(query, texts) - want).max()))
        if worst > 1e-3:
            raise RuntimeError(f"the ONNX export drifts from torch (max score difference {worst:.5f})")
        record["onnx_max_difference"] = worst
        record["int8"] = False
        if quantize:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantize_dynamic(str(work / MODEL_FILE), str(work / "int8.onnx"), weight_type=QuantType.QInt8)
            os.replace(work / MODEL_FILE, work / "float.onnx")
            os.replace(work / "int8.onnx", work / MODEL_FILE)
            agreement = _top_agreement(CrossEncoder(work), exported, checks)
            record["int8_top_agreement"] = round(agreement, 3)
            if agreement >= MIN_INT8_AGREEMENT:
                record["int8"] = True
                (work / "float.onnx").unlink()
            else:
                os.replace(work / "float.onnx", work / MODEL_FILE)
        record["size_mb"] = round((work / MODEL_FILE).stat().st_size / 1e6, 1)
        (work / RECORD_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        for path in work.iterdir():
            path.chmod(0o644)
        work.chmod(0o755)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(work, out_dir)
        return out_dir
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
