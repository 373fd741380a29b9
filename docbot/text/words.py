"""Words as docbot compares them: a tokenizer that keeps API names whole, and Snowball stems.

Every word statistic docbot computes (BM25, the gate's coverage, compression, fragment repair, the report's
facts) goes through :func:`tokenize` or :func:`stem`, so they all agree on what a word is. Pure.
"""

from __future__ import annotations

import functools
import re

import snowballstemmer

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i if in into is it its me my of on or "
    "our so that the their then there these this to was we were what when where which who why will "
    "with you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")
# Dotted or underscored names: flask.Flask.route, SESSION_COOKIE_SECURE, os.path.join, __init__
_API_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[._][A-Za-z0-9_]+)+|_[A-Za-z0-9_]+")
# A command-line option as written ("-x", "--exitfirst", "-X"): its letters alone are a stopword-like "x" or a word
# of every page ("force"). Not inside a hyphenated word ("well-known") nor a negative number.
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])")
# Bumped whenever tokenize() changes, so BM25 indexes built with an older one are rebuilt on load.
TOKENIZER = "words+stems+api-names+options/3"
# The Snowball (Porter 2) stem of a lower-case word (``connections`` → ``connect``); every stem docbot
# compares (BM25, the gate, fragment repair, the report's facts) comes from this one cached stemmer.
stem = functools.lru_cache(maxsize=200_000)(snowballstemmer.stemmer("english").stemWord)


def tokenize(text: str) -> list[str]:
    """Stems of the lowercased words minus stopwords, plus whole API names and their dotted suffixes.

    Stems (Snowball English) let a question's "ignored", "negation" and "retrying" meet the docs'
    "ignore", "negates" and "retries". Words with digits stay as written (``http2``, ``utf8``), and
    API names and command-line options (``-x``, ``--force-with-lease``) stay whole and unstemmed too: they are
    matched as names, not as words.
    """
    lowered = text.lower()
    tokens = [w if not w.isalpha() else stem(w) for w in _WORD.findall(lowered) if w not in STOPWORDS]
    for match in _API_NAME.finditer(text):
        name = match.group(0).strip("._").lower()
        if not name or _WORD.fullmatch(name):
            continue
        tokens.append(name)
        parts = name.split(".")
        tokens.extend(".".join(parts[i:]) for i in range(1, len(parts) - 1))  # Flask.route matches flask.Flask.route
    tokens.extend(_OPTION.findall(text))  # case kept: git's -x and -X are different options
    return tokens
