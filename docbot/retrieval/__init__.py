"""Retrieval: a question's explicit references (pasted URL, API name, quoted title), hybrid search
(dense + BM25 fused by reciprocal rank, merged into sections), the opt-in re-ranker, and the choice of the site and
sections an answer draws on (``choose``).

May import ``docbot.indexing``, ``docbot.references``, ``docbot.text``, the foundation modules and ``crawlers``.
"""
