"""docbot: documentation answers whose every link lands on a page and fragment that exist."""

from __future__ import annotations

from docbot.config import Settings, SiteConfig, load_settings
from docbot.errors import (
    ConfigError,
    DocbotError,
    EmbeddingMismatch,
    GenerationError,
    IndexMissing,
    SiteNotFound,
)

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "DocbotError",
    "EmbeddingMismatch",
    "GenerationError",
    "IndexMissing",
    "Settings",
    "SiteConfig",
    "SiteNotFound",
    "__version__",
    "load_settings",
]
