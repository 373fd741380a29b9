"""docbot: documentation answers whose every link lands on a page and fragment that exist.

The house, in the order a question flows through it (a room imports only itself, rooms above it in this list,
``crawlers`` and libraries; ``tests/test_layers.py`` holds the rule):

- ``errors``, ``answer``, ``labels``, ``config``, ``config_schema``: the foundation (the error hierarchy, what an
  answer and a label are, the settings and the schema docbot.toml is validated against).
- ``text/``: words as every part compares them (tokenizer, stems, synonyms).
- ``references/``: the ReferenceValidator, fragment and page repair, grouping by type.
- ``indexing/``: chunks, embeddings, Chroma and BM25 per site.
- ``retrieval/``: explicit references, hybrid search, the opt-in re-ranker.
- ``answering/``: the gate and confidence, clarifying questions, compression, the answerers.
- ``pipeline``, ``reading``, ``updating``, ``refresh``, ``reference_log``: the flow of one question, what it reads
  (one generation of each site), writing a site's next generation (crawl, index, commit), the scheduled refresh,
  the log of every answer, link, vote and label.
- ``report/``, ``slack/``: the reference-accuracy report and the Slack bot.
- ``commands/``, ``cli``: the ``docbot`` command.

``crawlers/`` (a package of its own) crawls sites into anchor maps and never imports docbot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docbot.answer import Answer, LinkOutcome, Reference
from docbot.config import Settings, SiteConfig, load_settings
from docbot.errors import (
    ConfigError,
    DocbotError,
    EmbeddingMismatch,
    GenerationError,
    IndexMissing,
    SiteNotFound,
)

if TYPE_CHECKING:
    from docbot.pipeline import Pipeline
    from docbot.references.validator import ReferenceValidator

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "ConfigError",
    "DocbotError",
    "EmbeddingMismatch",
    "GenerationError",
    "IndexMissing",
    "LinkOutcome",
    "Pipeline",
    "Reference",
    "ReferenceValidator",
    "Settings",
    "SiteConfig",
    "SiteNotFound",
    "__version__",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    """The pipeline and the validator on first use: ``import docbot`` stays light (no numpy, index or parser)."""
    if name == "Pipeline":
        from docbot.pipeline import Pipeline

        return Pipeline
    if name == "ReferenceValidator":
        from docbot.references.validator import ReferenceValidator

        return ReferenceValidator
    raise AttributeError(f"module 'docbot' has no attribute {name!r}")
