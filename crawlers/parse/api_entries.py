"""How the section walk (:mod:`crawlers.parse.sections`) knows an API entry and names it the way its generator does:
Sphinx's ``dl.py`` entries, rustdoc's ``method.new``, Javadoc's overloads, GTK-Doc's symbols."""

from __future__ import annotations

import re

from lxml import etree

MAX_API_TITLE = 80
API_DL = frozenset({"py", "c", "cpp", "js", "rst", "java", "std", "http", "dj"})
CALLABLE_DL = frozenset({"function", "method", "classmethod", "staticmethod", "decorator", "decoratormethod", "coroutinefunction", "coroutinemethod"})
# rustdoc's item ids ("method.push", "impl-Debug"); Javadoc's "method-summary" and "method-detail" are not items,
# nor Javadoc 11's "method.summary" and "method.detail" (an id that spells its heading's words, :func:`_spells`)
RUSTDOC_ANCHOR = re.compile(r"^(?:(method|tymethod|structfield|variant|associatedtype|associatedconstant)\.|(impl)-)")
_ID_WORDS = re.compile(r"[\s._-]+")
NOTE_DL = frozenset({"footnote", "citation", "field-list"})
API_HEADING_CLASSES = frozenset({"code-header", "memtitle", "method", "fn", "impl"})
# Parts of one API entry that some generators title with headings (GTK-Doc: <h4>Parameters</h4>,
# <h4>Returns</h4> under each function). Under an API entry they are its text: as sections of their
# own, half of GLib's sections were one-line fragments ("TRUE if the key was found") cut off from the
# function they describe. Their ids stay valid link targets.
ENTRY_PART_TITLES = frozenset({"parameters", "returns", "return value", "return values", "members", "values",
                               "arguments", "throws", "exceptions", "raises", "yields", "since"})
# Javadoc's member ids: "toBoolean(java.lang.String)", "<init>(int,int)"
JAVA_SIGNATURE = re.compile(r"(?P<name>[\w$<>]+)\((?P<params>[\w$.,\[\]<>? ]*)\)")
# A heading that is one C-style symbol documents that symbol (GTK-Doc: "g_hash_table_new ()",
# "struct GHashTableIter", "G_N_ELEMENTS()", "G_MAXUINT"); plain CamelCase words are left as headings.
SYMBOL_HEADING = re.compile(
    r"(?:(?P<kind>struct|enum|union|typedef)\s+(?P<typed>[A-Za-z_]\w*)"
    r"|(?P<called>[A-Za-z_]\w*)\s*\(\s*\)"
    r"|(?P<const>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+))"
)
_DESCNAME = etree.XPath(".//*[contains(concat(' ', @class, ' '), ' descname ')]")
_DESCCLASSNAME = etree.XPath(".//*[contains(concat(' ', @class, ' '), ' descclassname ')]")


def _spells(anchor: str, title: str) -> bool:
    """Whether ``anchor`` is ``title``'s own words ("method.summary" for Javadoc 11's "Method Summary"): the heading's
    id, not an item's."""
    return _ID_WORDS.split(anchor.casefold()) == _ID_WORDS.split(title.strip().casefold())


def rustdoc_name(anchor: str | None, title: str = "") -> str:
    """``method.new`` → ``new()``, ``structfield.len`` → ``len``; "" for other anchors and for an anchor that spells
    the heading's ``title``."""
    m = RUSTDOC_ANCHOR.match(anchor or "")
    if not m or m.group(2) == "impl" or _spells(anchor or "", title):
        return ""
    name = anchor[m.end():] if anchor else ""
    return f"{name}()" if m.group(1) in ("method", "tymethod") else name


def entry_dl(dt: etree._Element) -> tuple[etree._Element | None, set[str]]:
    """(the list a ``dt`` is an entry of, the list's classes); no list for a footnote, citation or field list."""
    dl = dt.getparent()
    if dl is None or dl.tag != "dl":
        return None, set()
    classes = set(dl.get("class", "").split())
    if classes & NOTE_DL:
        return None, classes
    return dl, classes


def api_heading(heading: etree._Element, title: str, anchor: str | None, from_marker: bool) -> tuple[bool, str]:
    """(whether a heading documents an API entry, its title as its generator names the entry: Javadoc's overloads,
    GTK-Doc's symbols). ``anchor``: the heading's, ``from_marker`` when an id marker before it lent it."""
    cls = set(heading.get("class", "").split())
    symbol = SYMBOL_HEADING.fullmatch(title.strip())
    is_api = bool(cls & API_HEADING_CLASSES) or symbol is not None or bool(
        anchor and (("(" in anchor and (from_marker or anchor.endswith(")"))) or (RUSTDOC_ANCHOR.match(anchor) and not _spells(anchor, title)))
    )
    overload = JAVA_SIGNATURE.fullmatch(anchor or "")
    if overload and overload["name"] == title.strip():  # Javadoc: "toBoolean" ×6 → "toBoolean(String)"
        params = [p.strip().rsplit(".", 1)[-1] for p in overload["params"].split(",") if p.strip()]
        title = f"{title.strip()}({', '.join(params)})"
    if symbol is not None:  # "g_hash_table_new ()" → "g_hash_table_new()", "struct GHashTableIter" → "GHashTableIter"
        title = (symbol["typed"] or (symbol["called"] + "()" if symbol["called"] else symbol["const"]))
    return is_api, title


def entry_title(dt: etree._Element, signature: str, parent_api: str | None, classes: set[str]) -> tuple[str, str]:
    """(title, short name) of an API entry's term: Sphinx's ``descname`` after its class's short name
    (``parent_api``) or its module's ``descclassname``, "()" for a callable; else the start of its signature."""
    names = _DESCNAME(dt)
    if not names:  # a colon after the term introduces its description ("output_format:"); "std::" is a name
        title = signature[:MAX_API_TITLE].strip()
        if title.endswith(":") and not title.endswith("::"):
            title = title[:-1].rstrip()
        return title, title
    short = " ".join("".join(names[0].itertext()).split())
    if parent_api is not None:
        title = f"{parent_api}.{short}"
    else:
        prefixes = _DESCCLASSNAME(dt)
        prefix = "".join(prefixes[0].itertext()).strip() if prefixes else ""
        title = prefix + short
    if classes & CALLABLE_DL:
        title += "()"
    return title, short
