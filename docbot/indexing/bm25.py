"""BM25 over chunk texts (bm25s), tokenized by :func:`docbot.text.words.tokenize`.

Persisted per site in ``<data-dir>/bm25/<site>/``: the bm25s index files plus
``docbot.json`` (chunk ids in index order and the chunk-set hash it was built
from), so it is rebuilt only when the site's chunks changed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s

from docbot.indexing.chunk import Chunk
from docbot.text.words import TOKENIZER, tokenize

# bm25s sets its own logger to DEBUG when imported, which printed "DEBUG bm25s: Building index
# from tokens" on every `docbot index`; it now follows docbot's level (the root logger's).
logging.getLogger("bm25s").setLevel(logging.NOTSET)

META_FILE = "docbot.json"


def chunk_set_hash(pairs: Sequence[tuple[str, str]]) -> str:
    """Hash of (chunk id, content hash) pairs in order: equal iff the BM25 corpus is the same."""
    h = hashlib.sha256()
    for cid, chash in pairs:
        h.update(f"{cid}:{chash}\n".encode())
    return h.hexdigest()


def chunks_hash(chunks: Sequence[Chunk]) -> str:
    """:func:`chunk_set_hash` of ``chunks``: equal iff their BM25 corpus is the same."""
    return chunk_set_hash([(c.id, c.content_hash) for c in chunks])


def build_lexical(chunks: Sequence[Chunk]) -> Lexical:
    """A BM25 index of ``chunks``' embedded texts, in memory."""
    return Lexical.build([c.id for c in chunks], [c.embed_text for c in chunks], chunks_hash(chunks))


def replace_dir(directory: Path, write: Callable[[Path], None]) -> None:
    """Fill a sibling temp dir with ``write``, then swap it in for ``directory``: a crash never leaves half of one."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = directory.with_name(f".{directory.name}.{secrets.token_hex(6)}")
    tmp.mkdir()  # the umask's mode, as the folder it replaces had (mkdtemp would make it private)
    try:
        write(tmp)
    except BaseException:  # disk full, killed: no half-written temp folder is left behind
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = directory.with_name(f".{directory.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if directory.exists():
        os.replace(directory, old)
    os.replace(tmp, directory)
    shutil.rmtree(old, ignore_errors=True)


class Lexical:
    """A loaded BM25 index of one site: ids in corpus order and the bm25s retriever."""

    def __init__(self, ids: list[str], set_hash: str, retriever: bm25s.BM25 | None) -> None:
        self.ids = ids
        self.set_hash = set_hash
        self.retriever = retriever
        self._vocab = set(retriever.vocab_dict) if retriever is not None else set()
        self._position: dict[str, int] | None = None

    @classmethod
    def build(cls, ids: list[str], texts: list[str], set_hash: str) -> Lexical:
        if not ids:
            return cls([], set_hash, None)
        retriever = bm25s.BM25()
        retriever.index([tokenize(t) or [""] for t in texts], show_progress=False)
        return cls(list(ids), set_hash, retriever)

    def doc_freq(self) -> tuple[dict[str, int], int]:
        """(token → number of chunks holding it, number of chunks), read off the index's sparse matrix."""
        if self.retriever is None:
            return {}, len(self.ids)
        indptr = self.retriever.scores["indptr"]
        last = len(indptr) - 1
        freq = {token: int(indptr[i + 1] - indptr[i]) for token, i in self.retriever.vocab_dict.items() if i < last and token}
        return freq, len(self.ids)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) best first; only documents that share a term with the query."""
        if self.retriever is None or k <= 0:
            return []
        tokens = [t for t in tokenize(query) if t in self._vocab]
        if not tokens:
            return []
        docs, scores = self.retriever.retrieve([tokens], k=min(k, len(self.ids)), show_progress=False)
        return [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def scores(self, query: str) -> Any:
        """Every document's BM25 score for ``query`` (a numpy array in corpus order); None when nothing matches."""
        if self.retriever is None:
            return None
        tokens = [t for t in tokenize(query) if t in self._vocab]
        return self.retriever.get_scores(tokens) if tokens else None

    def scores_of(self, query: str, ids: Sequence[str]) -> list[float]:
        """The BM25 score of each of ``ids`` for ``query`` (0 for an id not in the index)."""
        every = self.scores(query)
        if every is None:
            return [0.0] * len(ids)
        if self._position is None:
            self._position = {cid: i for i, cid in enumerate(self.ids)}
        return [float(every[self._position[i]]) if i in self._position else 0.0 for i in ids]

    def save(self, directory: Path) -> None:
        """Write to a sibling temp dir, then swap it in, so a crash never leaves a half index."""
        def write(tmp: Path) -> None:
            if self.retriever is not None:
                self.retriever.save(str(tmp), show_progress=False)
            meta = {"ids": self.ids, "set_hash": self.set_hash, "tokenizer": TOKENIZER}
            (tmp / META_FILE).write_text(json.dumps(meta), encoding="utf-8")

        replace_dir(directory, write)

    @staticmethod
    def _meta(directory: Path) -> dict[str, Any] | None:
        """The saved index's record, when it is readable and this tokenizer built it."""
        try:
            meta: dict[str, Any] = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return meta if meta.get("tokenizer") == TOKENIZER else None

    @classmethod
    def usable(cls, directory: Path) -> bool:
        """Whether :meth:`load` would read the index in ``directory`` (without reading it)."""
        return cls._meta(directory) is not None

    @classmethod
    def load(cls, directory: Path) -> Lexical | None:
        """The saved index, or None when there is none, it is unreadable or another tokenizer built it."""
        meta = cls._meta(directory)
        if meta is None:
            return None
        retriever = bm25s.BM25.load(str(directory)) if meta["ids"] else None
        return cls(list(meta["ids"]), str(meta["set_hash"]), retriever)
