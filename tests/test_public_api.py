from __future__ import annotations

import crawlers
import docbot


def test_public_surface_is_small_and_importable() -> None:
    for module in (docbot, crawlers):
        for name in module.__all__:
            assert hasattr(module, name), name
    assert "DocbotError" in docbot.__all__
