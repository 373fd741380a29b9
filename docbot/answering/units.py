"""What a section's text is made of for answering: sentences, list items and code blocks, and which may be facts.

Pure. :func:`units` cuts a section into units in document order (a definition list's terms open their
description's first sentence; a JSON or YAML sample is a code block, :mod:`docbot.answering.samples`);
:func:`answerable` says which prose can never be a fact (a question, a heading echo, navigation, a bare signature,
a label, a version note, a URL the answer would lose, a data sample); :func:`lead` is a section's
opening, the fact of last resort.
:mod:`docbot.answering.compress` scores and picks among them.
"""

from __future__ import annotations

import re
from typing import Protocol

from docbot.answering.samples import fence_samples, is_sample
from docbot.indexing.chunk import split_blocks

MAX_UNIT_CHARS = 400  # a longer sentence is clipped at a word
MAX_CODE_LINES = 12
LEAD_WORDS = 60  # the fallback fact: this much of a section's lead
TERM_WORDS = 4  # a paragraph this short, without a sentence's end, names what the next paragraph describes
TERM_CHARS = 60
INTRO_WORDS = 5  # a shorter line without punctuation before code is a label or a term ("Example"), not a sentence
LABEL_WORDS = 2  # "Returns:", "Return type:": a field's label, read with the paragraph after it
MAX_TERMS = 3  # "-u", "--include-untracked", "--no-include-untracked"; more in a row are a table's cells
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_DANGLING = re.compile(r"\s+[–—-]$")  # "- options –": a field list's name whose description is the next paragraph
_SIGNATURE = re.compile(r"^[\w.\[\]]+\s*\(.*\)\s*(->.*)?$")
_NAVIGATION = re.compile(
    r"^(next|previous|prev|back|up|home|contents|table of contents|index|navigation|quick search|"
    r"show source|edit on github|this page|related topics|go to|skip to|jump to|on this page)\b", re.I)
_NAV_MARKS = re.compile(r"[«»←→↑]|\s\|\s")
# A URL in prose is removed from the answer by the ReferenceValidator unless it is a page of an indexed site, which
# documentation spells as a link, not as text: "…, like https://example.com/myapp/." would reach the user as "…, like ."
_PROSE_URL = re.compile(r"\b(?:https?|ftp)://|\bwww\.\w", re.I)
_VERSION_NOTE = re.compile(r"^(new|changed|added|deprecated|removed)( in| since)? (version|release) [\w.]+\.?$", re.I)
# A row of a version history, keyed by the releases it names ("v12.8.0, v10.17.0 — The maxmem value can now be any
# safe integer."): it says what changed in a release, not what the thing does, unless the question asks about changes.
_RELEASE = r"(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+)(?:-\w+)?"
_HISTORY_ROW = re.compile(rf"^{_RELEASE}(?:\s*,\s*{_RELEASE})* — ")
_ASKS_HISTORY = re.compile(r"\b(versions?|releases?|released|history|changelog|deprecat\w*|introduced|since|upgrad\w*)\b",
                           re.I)


class Source(Protocol):
    @property
    def n(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def path(self) -> tuple[str, ...]: ...
    @property
    def text(self) -> str: ...


def _term(block: str) -> bool:
    """A paragraph that only names what the next one describes: a definition list's term ("-u",
    "--include-untracked", "SESSION_COOKIE_SECURE"), an admonition's title ("Note")."""
    flat = " ".join(block.split())
    if _SIGNATURE.match(flat) or ": " in flat:  # an API entry's signature, a "label: value" line ("Source code:
        return False  # Lib/json/__init__.py"): what follows stands on its own
    return 0 < len(flat) <= TERM_CHARS and len(flat.split()) <= TERM_WORDS and not flat.endswith((".", "!", "?", ":", ";", ","))


def _named_item(line: str) -> str | None:
    """The name a list item gives when it is only a name and a dangling dash ("- options –"): what the next paragraph
    describes."""
    if not (_ITEM.match(line) and _DANGLING.search(line)):
        return None
    named = _DANGLING.sub("", _ITEM.sub("", line).strip())
    return named if named and len(named) <= TERM_CHARS and len(named.split()) <= TERM_WORDS else None


def _runs_into_code(text: str, code: bool, item: bool) -> bool:
    """Whether a sentence right before a code block ends without its punctuation, in a word ("…, you can return the
    working tree to the last committed state with"): the code finishes it, so it introduces the code as a colon does."""
    return not code and not item and len(text.split()) >= INTRO_WORDS and text[-1:].isalnum()


def units(text: str) -> list[tuple[str, bool, bool]]:
    """(text, is_code, is_list_item) in document order. The terms a description follows (a definition list's
    "-u" and "--include-untracked") open its first sentence ("-u, --include-untracked: When used with…"): cut
    off from them, the description does not say what it describes; so does a field's label ("Returns:") open the
    paragraph after it. A sentence the code after it finishes ends in ':', as an introduction does, so that it is
    given with its code or not at all."""
    out: list[tuple[str, bool, bool]] = []
    terms: list[str] = []

    def spill() -> None:  # short lines that introduce no description stay units of their own
        out.extend((t, False, False) for t in terms)
        terms.clear()

    for block in fence_samples(split_blocks(text)):  # a JSON or YAML sample is code, wherever the page put it
        if _FENCE.match(block):
            if not terms and out and _runs_into_code(*out[-1]):  # "… to the last committed state with" + the command
                out[-1] = (out[-1][0] + ":", False, False)
            spill()
            out.append((block, True, False))
            continue
        lines = [line for line in block.splitlines() if line.strip()]
        if any(_ITEM.match(line) for line in lines):
            spill()
            named = _named_item(lines[-1])  # Sphinx's "- load –", its description the next paragraph
            out.extend((_ITEM.sub("", line).strip(), False, bool(_ITEM.match(line)))
                       for line in (lines[:-1] if named else lines))
            if named:
                terms.append(named)
            continue
        flat = " ".join(block.split())
        introduced = bool(out) and not out[-1][1] and out[-1][0].endswith(":")  # what a colon introduces is no term
        if _term(flat) and not (introduced and not terms):
            terms.append(flat)
            continue
        sentences = [s.strip() for s in _SENTENCE.split(flat) if s.strip()]
        if terms and sentences and len(terms) <= MAX_TERMS:  # more short lines in a row are a table's cells
            sentences[0] = f"{', '.join(terms)}: {sentences[0]}"
            terms.clear()
        spill()
        if sentences and out and _field_label(*out[-1]):  # "Returns:" + "the matching element, or null if none."
            sentences[0] = f"{out.pop()[0]} {sentences[0]}"
        out.extend((s, False, False) for s in sentences)
    spill()
    return out


def _field_label(text: str, code: bool, item: bool) -> bool:
    """A field's label ("Returns:", "Throws:", "Return type:"): alone, what follows it reads as a stray fragment ("if
    pretty printing is enabled.")."""
    return not code and not item and text.endswith(":") and len(text.split()) <= LABEL_WORDS


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def answerable(text: str, source: Source, question: str = "") -> bool:
    """False for a question, a heading echo, navigation, a bare signature or label, a URL, a data sample:
    never a fact."""
    return not never_a_fact(text, source, question) and not is_label(text)


def never_a_fact(text: str, source: Source, question: str = "") -> bool:
    """A question, a heading echo, navigation, a bare signature, a URL, a data sample, a version note or history row
    (unless the question asks about versions): never a fact, alone or read
    with what comes before it (a label may be: a list's bare name, with the introduction of its list)."""
    words = text.split()
    if not words or not any(c.isalpha() for c in text):
        return True
    if text.rstrip().endswith("?") and norm(text) not in norm(question):
        return True
    if norm(text) in {norm(h) for h in (source.title, *source.path) if h}:
        return True
    if len(words) <= 8 and (_NAVIGATION.match(text) or _NAV_MARKS.search(text)):
        return True
    if _SIGNATURE.match(text) and not text.endswith("."):
        return True
    if _VERSION_NOTE.match(text) and "version" not in question.lower():
        return True
    if _HISTORY_ROW.match(text) and not _ASKS_HISTORY.search(question):
        return True
    return bool(_PROSE_URL.search(text)) or is_sample(text)  # a sample inside prose ("Example response: {"Id": …}")


def is_label(text: str) -> bool:
    """A line too short to say anything alone: "Parameters:", "Return type:", a list's bare name ("flaky")."""
    return len(text.split()) <= 4 and not text.rstrip().endswith((".", "!"))


def clip(text: str) -> str:
    if len(text) <= MAX_UNIT_CHARS:
        return text
    return text[:MAX_UNIT_CHARS].rsplit(" ", 1)[0] + " …"


def trim_code(block: str) -> str:
    lines = block.splitlines()
    if len(lines) <= MAX_CODE_LINES + 2:
        return block
    return "\n".join([*lines[: MAX_CODE_LINES + 1], "...", lines[-1]])


def lead(source: Source) -> str:
    """A section's first paragraph (or code block), shortened: the fact of last resort."""
    blocks = fence_samples(split_blocks(source.text))
    if not blocks:
        return ""
    first = blocks[0]
    if _FENCE.match(first):
        return trim_code(first)
    words = first.split()
    return " ".join(words[:LEAD_WORDS]) + (" …" if len(words) > LEAD_WORDS else "")
