"""The provider registry: one registration turns a spec into a chat model, an embedder or a re-ranker.

A spec is ``prefix:name`` (``openai:text-embedding-3-small``, ``ollama:llama3.1:8b``) or a bare word
(``local``, ``builtin``, a model folder). Each kind of model has one :class:`Registry`; a provider is a
factory given the parsed spec and the :class:`~docbot.config.Settings` (keys, base URLs and folders come
from there, never from the environment)::

    @EMBEDDERS.register("ollama", "ollama:<model>")
    def _ollama(spec: Spec, settings: Settings) -> Embedder: ...

after which ``DOCBOT_EMBEDDINGS=ollama:nomic-embed-text`` reaches it with no other edit. docbot's own
providers are registered next to the classes they build (``docbot.indexing.embed``, ``docbot.retrieval.rerank``,
``docbot.retrieval.cross``, ``docbot.answering.generate``); this package sits in the foundation so every room
may register.
"""

from __future__ import annotations

from typing import Any

from docbot.providers.registry import Provider, Registry, Spec, parse

__all__ = ["CHAT", "EMBEDDERS", "NO_KEY", "RANK_MODELS", "REGISTRIES", "RERANKERS", "Provider", "Registry", "Spec",
           "parse"]

NO_KEY = "unused"  # the key OpenAI clients get for a keyless OpenAI-compatible server (they insist on one)

# The chat model's object is any LangChain chat model, or None when the provider lacks what it needs (no key,
# no server): the pipeline then answers extractively. The others are checked where they are used.
CHAT: Registry[Any] = Registry("chat model", "DOCBOT_LLM_MODEL", fallback="openai")
EMBEDDERS: Registry[Any] = Registry("embeddings", "DOCBOT_EMBEDDINGS (or embeddings in docbot.toml)")
RERANKERS: Registry[Any] = Registry("re-rank model", "DOCBOT_RERANK_MODEL (or rerank_model in docbot.toml)",
                                    fallback="folder")
RANK_MODELS: Registry[Any] = Registry("rank_model", "DOCBOT_RANK_MODEL (or rank_model in docbot.toml)",
                                      fallback="folder")
REGISTRIES = {"chat": CHAT, "embeddings": EMBEDDERS, "rerank": RERANKERS, "rank": RANK_MODELS}
