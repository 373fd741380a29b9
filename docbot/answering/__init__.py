"""Answering: the gate and the calibrated confidence (``docbot.learn``'s linear model), clarifying questions,
compression to facts, and the extractive and LLM answerers.

Pure but for the LLM call in ``generate.py``. May import ``docbot.retrieval``, ``docbot.indexing`` (chunk
helpers only), ``docbot.text`` and the foundation modules.
"""
