"""A site the question names: "multipart upload with requests", "throttling in DRF".

With several sites indexed, a question that names exactly one of them by its site name is answered from that
site, as if it had been asked with ``--site``. A name is read as a whole word (``rust-book`` also as "rust
book"), in any case. A name that is also an everyday word of the *other* sites' documentation ("requests" in
Flask's, where HTTP requests are everywhere) names its site only where the question uses it as a name:

- written as code: ``requests.get``, ``import requests``, in backticks;
- capitalised inside a sentence: "how does Requests retry";
- after a word that introduces a tool: "with requests", "using requests", "in requests";
- before a word that says it is one: "the requests library", "requests docs".

"How does Flask handle requests?" therefore names Flask only, and "How many requests may a client make?" names
no site (retrieval then chooses, as for any question).

A tool named in passing does not choose either: when the best section, found on another site, itself talks about
the named site's tool (Flask's "app factories" section on creating the SQLAlchemy object, for "With an app factory,
where do I create the SQLAlchemy db object?"), the question is about using that tool there, and the best section's
site answers it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docbot.text.words import tokenize

COMMON_SHARE = 0.01  # a name on more than 1 % of another site's chunks is an everyday word there
# A name on more than 5 % of the best section's site's chunks is a common noun there ("requests": 40 % of Flask's),
# not a tool its sections talk about ("SQLAlchemy": 1.4 % of Flask's).
PASSING_SHARE = 0.05
_BEFORE = r"(?:with|using|via|in|from|through|into)"
_AFTER = r"(?:library|package|module|docs|documentation|api|client|project)"


def named_site(question: str, sites: Sequence[str], doc_freq: Mapping[str, tuple[Mapping[str, int], int]],
               best: tuple[str, str] | None = None) -> str | None:
    """The one site of ``sites`` that ``question`` names, else None (none, several, or one named in passing).

    ``doc_freq`` maps each site to (token → chunks holding it, chunks): a name is an everyday word when one of
    the other sites uses it on more than :data:`COMMON_SHARE` of its chunks. ``best`` is the best section's
    (site, text): a section of another site that mentions the name, where it is no everyday word, keeps its site."""
    named = [site for site in sites if _names(question, site, _everyday(site, sites, doc_freq))]
    if len(named) != 1:
        return None
    if (best is not None and best[0] != named[0] and best[0] in sites
            and not _everyday(named[0], [best[0]], doc_freq, PASSING_SHARE) and _names(best[1], named[0], everyday=False)):
        return None  # the tool named in passing: the best section's own site talks about it
    return named[0]


def _everyday(site: str, sites: Sequence[str], doc_freq: Mapping[str, tuple[Mapping[str, int], int]],
              share: float = COMMON_SHARE) -> bool:
    tokens = tokenize(_words(site))
    for other in sites:
        if other == site or other not in doc_freq:
            continue
        freq, docs = doc_freq[other]
        if docs and any(freq.get(token, 0) / docs > share for token in tokens):
            return True
    return False


def _words(site: str) -> str:
    return " ".join(part for part in re.split(r"[-_.]+", site.lower()) if part)


def _names(question: str, site: str, everyday: bool) -> bool:
    words = _words(site)
    if not words:
        return False
    name = r"[\s_.-]+".join(re.escape(w) for w in words.split())
    pattern = re.compile(rf"(?<![\w.-])({name})(?![\w-])", re.IGNORECASE)
    return any(not everyday or _used_as_name(question, match) for match in pattern.finditer(question))


def _used_as_name(question: str, match: re.Match[str]) -> bool:
    before, after, text = question[: match.start()], question[match.end():], match.group(1)
    if re.match(r"\.[A-Za-z_]", after) or re.search(r"(?:import|from)\s+$", before):
        return True  # requests.get, import requests
    if before.endswith("`") and after.startswith("`"):
        return True
    if text[:1].isupper() and re.search(r"[\w,;:]\s+$", before):
        return True  # "Requests" inside a sentence, not its first word
    if re.search(rf"\b{_BEFORE}\s+$", before, re.IGNORECASE):
        return True
    return bool(re.match(rf"\s+{_AFTER}\b", after, re.IGNORECASE))
