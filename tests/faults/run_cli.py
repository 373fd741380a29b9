"""`docbot` as a subprocess for the kill tests, embedding with HashEmbedder (the model does not matter here)."""

from __future__ import annotations

import sys

import docbot.indexing.embed
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder

if __name__ == "__main__":
    docbot.indexing.embed.embedder_from_spec = lambda spec, settings=None: HashEmbedder()  # type: ignore[assignment]
    sys.exit(main(sys.argv[1:]))
