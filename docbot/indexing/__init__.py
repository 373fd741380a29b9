"""Indexing: sections into chunks, chunks into embeddings, Chroma (dense) and BM25 (lexical) per site.

The only package that talks to Chroma (``index.py``) or loads an embedding model. May import ``docbot.text``,
the foundation modules and ``crawlers``.
"""
