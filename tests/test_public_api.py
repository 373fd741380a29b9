"""The public surface: what `import docbot` and `import crawlers` promise. Growing it is a decision, made here."""

from __future__ import annotations

import subprocess
import sys

import crawlers
import docbot

DOCBOT = {
    "Answer", "ConfigError", "DocbotError", "EmbeddingMismatch", "GenerationError", "IndexMissing", "LinkOutcome",
    "Pipeline", "Reference", "ReferenceValidator", "Settings", "SiteConfig", "SiteNotFound", "__version__",
    "load_settings",
}
CRAWLERS = {"AnchorMap", "AnchorMapError", "CrawlRefused", "CrawlerError", "Page", "Rename", "Section", "SectionText",
            "StartURLError"}


def test_public_surface_is_small_and_importable() -> None:
    assert set(docbot.__all__) == DOCBOT and set(crawlers.__all__) == CRAWLERS
    for module in (docbot, crawlers):
        for name in module.__all__:
            assert getattr(module, name) is not None, name
    assert issubclass(docbot.IndexMissing, docbot.DocbotError)


def test_importing_docbot_loads_no_index_model_or_parser() -> None:
    code = "import docbot, sys; print(sorted(m for m in ('numpy', 'chromadb', 'lxml', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
