"""Check one URL against the anchor maps: keep it, rewrite it to the page and fragment meant, or drop it.

Pure over the maps (and, to settle ties in fragment repair, an optional reader of section texts). Each URL gets
exactly one :class:`~docbot.answer.LinkOutcome` (kept, rewritten, fragment_dropped or link_dropped, with a
reason); the repair evidence lives in :mod:`docbot.references.repair`. :class:`LinkChecker` remembers what it
checked; :class:`~docbot.references.validator.ReferenceValidator` adds whole answers on top of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple
from urllib.parse import quote, unquote, urlsplit

from crawlers.model import AnchorMap
from crawlers.urls import is_route, join, normalize, split_directive, split_fragment
from docbot.answer import LinkAction, LinkOutcome
from docbot.references.directives import Directives, Freshen, PageTexts
from docbot.references.fragments import Match, other_form, remember
from docbot.references.repair import SiteIndex, rank_on_page, repair_on_page, repair_page, transplant
from docbot.references.routes import repair_route
from docbot.references.scan import TRAILING

SectionTexts = Callable[[str, str], "str | None"]  # (site, deep URL) → the section's text, or None

CACHE_SIZE = 8192  # checked URLs remembered per validator
MAX_URL_CHARS = 4096
_FRAGMENT_SAFE = "-._~!$&*+,;=:@/?"
_REFERENCE_SAFE = _FRAGMENT_SAFE + "()'[]{}"  # a URL's fragment may hold these (WHATWG encodes none of them)
_FRAGMENT_PLAIN = re.compile(r"[A-Za-z0-9_.~\-!$&*+,;=:@/?]*")  # what quote(..., safe=_FRAGMENT_SAFE) leaves as is
_BAD_CHARS = re.compile(r"[\s\x00-\x1f\x7f]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


class Checked(NamedTuple):
    """What checking one URL found: the outcome, and the site, page and fragment it settled on."""  # a tuple: built once per checked URL, and cheaper to build than a frozen dataclass
    outcome: LinkOutcome
    site: str | None = None
    page: str | None = None
    fragment: str = ""


@dataclass(frozen=True, slots=True)
class _Target:
    """What a page URL (fragment aside) resolves to: no site (malformed when ``page`` is empty, else an
    unconfigured host), or a site's page with its canonical entry (``None`` when none is obvious)."""

    site: str | None
    page: str  # normalised page URL
    canonical: str | None = None
    why: str = ""  # how a dead page path was repaired
    dir_form: bool = False  # written as dir/ (kept that way in the output)
    host: str = ""


def format_url(page: str, fragment: str, dir_form: bool = False) -> str:
    """Page URL + '#fragment', safe to place in Markdown, Slack or plain text."""
    if dir_form and page.endswith("/index.html"):
        page = page[: -len("index.html")]
    page = page.replace("(", "%28").replace(")", "%29").replace("'", "%27")
    if fragment:
        url = f"{page}#{fragment if _FRAGMENT_PLAIN.fullmatch(fragment) else quote(fragment, safe=_FRAGMENT_SAFE)}"
    else:
        url = page
    if url[-1] in TRAILING:  # so a reader (or regex) never mistakes it for sentence punctuation
        url = url[:-1] + f"%{ord(url[-1]):02X}"
    return url


def reference_url(url: str) -> str:
    """A reference's URL with its fragment spelled as the page's id wherever a URL allows it.

    In answer text a fragment's parentheses and quotes are percent-encoded (they would end a Markdown link
    or a bare URL there); a reference is a URL on its own, so Javadoc's ``#toBoolean(java.lang.String)``
    stays as the page writes it (browsers decode either form; link checkers and readers compare the id)."""
    url, directive = split_directive(url)  # a text directive stays as encoded: its ',' and '-' are syntax
    page, sep, fragment = url.partition("#")
    if sep and "%" in fragment:
        url = f"{page}#{quote(unquote(fragment), safe=_REFERENCE_SAFE)}"
    return url if directive is None else with_directive(url, directive)


def with_directive(url: str, directive: str) -> str:
    """``url`` (without a fragment directive) with ``:~:`` and ``directive`` after its fragment (a last character that
    reads as punctuation percent-encoded, as :func:`format_url` does)."""
    out = f"{url}{'' if '#' in url else '#'}:~:{directive}"
    return out[:-1] + f"%{ord(out[-1]):02X}" if out[-1] in TRAILING else out


def _host_key(url: str) -> str:
    return urlsplit(normalize(url)).netloc


class LinkChecker:
    """Check and repair URLs against the anchor maps of the configured sites, remembering each outcome.

    A URL with a text directive (``#id:~:text=…``) is checked as its fragment is, then the directive: kept when its
    first match in the page lies in the cited section, else dropped with the anchor kept (:mod:`.directives`;
    ``page_texts`` reads the pages' visible texts: without it every directive is dropped).
    """

    def __init__(self, maps: Mapping[str, AnchorMap], allow_hosts: Iterable[str] = (),
                 texts: SectionTexts | None = None, page_texts: PageTexts | None = None,
                 freshen: Freshen | None = None) -> None:
        self.maps = dict(maps)
        # A section's text by (site, deep URL), when an index is at hand: it settles a tie between two headings
        # that a paraphrased fragment matches equally well. Without it such a fragment is dropped.
        self.texts = texts
        self.directives = Directives(page_texts, freshen)
        self.allow_hosts = tuple(h.lower().strip().lstrip(".") for h in allow_hosts if h.strip())
        self._indexes: dict[str, SiteIndex] = {}
        self._cache: dict[tuple[str, str | None], Checked] = {}
        self._targets: dict[tuple[str, str | None], _Target] = {}
        self._hosts: dict[str, list[tuple[str, str]]] = {}
        self._schemes = {site: urlsplit(m.base_url).scheme.lower() for site, m in self.maps.items()}
        for site, amap in self.maps.items():
            try:
                key = _host_key(amap.base_url)
            except ValueError:
                continue
            self._hosts.setdefault(key, []).append((urlsplit(amap.base_url).path or "/", site))
        for entries in self._hosts.values():
            entries.sort(key=lambda e: -len(e[0]))

    # -- one URL ----------------------------------------------------------
    def check_url(self, url: str, site: str | None = None) -> LinkOutcome:
        """Outcome for one URL; relative URLs are resolved against ``maps[site].base_url``."""
        return self._checked(url, site).outcome

    def _checked(self, url: str, site: str | None) -> Checked:
        key = (url, site)
        hit = self._cache.get(key)
        if hit is None:
            try:
                base, directive = split_directive(url)
                hit = self._check(url, site) if directive is None else self._with_directive(
                    url, self._checked(base, site), directive)
            except Exception as exc:  # noqa: BLE001 - never crash on hostile input; drop the link instead
                hit = Checked(LinkOutcome(url, None, LinkAction.LINK_DROPPED, f"could not check URL ({type(exc).__name__})"))
            remember(self._cache, key, hit, CACHE_SIZE)
        return hit

    def _with_directive(self, url: str, checked: Checked, directive: str) -> Checked:
        """The outcome of ``url`` (its part before ``:~:`` checked as ``checked``) with its directive judged."""
        outcome = checked.outcome
        if outcome.output is None or outcome.action == LinkAction.LINK_DROPPED:
            return checked._replace(outcome=LinkOutcome(url, None, outcome.action, outcome.reason))
        if checked.site is None:  # an allowlisted host, kept unchecked
            return checked._replace(outcome=replace(outcome, input=url, output=with_directive(outcome.output, directive)))
        if outcome.action == LinkAction.FRAGMENT_DROPPED:
            kept, why = "", "the section it was to land in is gone"
        else:
            kept, why = self.directives.judge(checked.site, checked.page or "", checked.fragment, directive)
        if kept:
            action, output = outcome.action, with_directive(outcome.output, kept)
            reason = _join(outcome.reason, f"text directive lands in {'#' + checked.fragment if checked.fragment else 'the page'}")
            if why:
                action, reason = (LinkAction.REWRITTEN if action == LinkAction.KEPT else action), _join(reason, why)
        else:
            action, output = (LinkAction.REWRITTEN if outcome.action == LinkAction.KEPT else outcome.action), outcome.output
            reason = _join(outcome.reason, f"text directive dropped: {why} (anchor kept)")
        return checked._replace(outcome=LinkOutcome(url, output, action, reason))

    def _index(self, site: str) -> SiteIndex:
        index = self._indexes.get(site)
        if index is None:
            index = self._indexes[site] = SiteIndex(self.maps[site])
        return index

    def _site_for(self, netloc: str, path: str, site: str | None) -> str | None:
        entries = self._hosts.get(netloc)
        if not entries:
            return None
        if site is not None and any(s == site for _, s in entries):
            return site
        for base_path, name in entries:
            if path.startswith(base_path):
                return name
        return entries[-1][1]

    def _allowed(self, host: str) -> bool:
        return any(host == h or host.endswith("." + h) for h in self.allow_hosts)

    def _check(self, url: str, site: str | None) -> Checked:
        def drop(reason: str) -> Checked:
            return Checked(LinkOutcome(url, None, LinkAction.LINK_DROPPED, reason))

        raw = url.strip()
        if not raw:
            return drop("empty URL")
        if len(raw) > MAX_URL_CHARS:
            return drop(f"URL longer than {MAX_URL_CHARS} characters")
        plain = raw.isascii() and raw.isprintable() and " " not in raw  # then no _BAD_CHARS (fast check)
        if not plain and _BAD_CHARS.search(raw):
            return drop("malformed URL (contains spaces or control characters)")
        has_scheme = _SCHEME.match(raw)
        scheme = has_scheme.group(1).lower() if has_scheme else ""
        if not scheme:
            if raw.startswith("//"):
                raw = "https:" + raw
            elif site is None:
                return drop("relative URL and no site to resolve it against")
            elif site not in self.maps:
                return drop(f"no anchor map for site {site!r} — run `docbot crawl URL --site {site}`")
            else:
                raw = join(self.maps[site].base_url, raw)
        elif scheme not in ("http", "https"):
            return drop(f"not an http(s) link ({scheme}:)")
        page_part, fragment = split_fragment(raw, routes=True)
        target = self._target(page_part, site)
        if target.site is None:
            if not target.page:
                return drop("malformed URL")
            if self._allowed(target.host):
                return Checked(LinkOutcome(url, format_url(target.page, fragment), LinkAction.KEPT,
                                            f"host {target.host} is on the allowlist (kept unchecked)"))
            return drop(f"host {target.host or '?'} is not a configured site")
        return self._check_on_site(url, target.site, target, fragment)

    def _target(self, page_part: str, site: str | None) -> _Target:
        """What a page URL resolves to, remembered per page: links to the same pages recur."""
        key = (page_part, site)
        target = self._targets.get(key)
        if target is None:
            target = self._resolve(page_part, site)
            remember(self._targets, key, target, CACHE_SIZE)
        return target

    def _resolve(self, page_part: str, site: str | None) -> _Target:
        try:
            page_norm = normalize(page_part)
        except ValueError:
            return _Target(None, "")
        parts = urlsplit(page_norm)
        name = self._site_for(parts.netloc, parts.path, site)
        if name is None:
            return _Target(None, page_norm, host=(parts.hostname or "").lower())
        base_scheme = self._schemes[name]
        if parts.scheme != base_scheme:  # http vs https of the same host is the same page
            page_norm = base_scheme + page_norm[len(parts.scheme):]
        index = self._index(name)
        canonical = index.canonical(page_norm)
        if canonical is not None:
            return _Target(name, page_norm, canonical, dir_form=page_part.partition("?")[0].endswith("/"))
        repaired = repair_page(index, page_norm)
        return _Target(name, page_norm, *repaired) if repaired else _Target(name, page_norm)

    def _check_on_site(self, url: str, name: str, target: _Target, fragment: str) -> Checked:
        canonical, why_page, dir_form = target.canonical, target.why, target.dir_form
        index = self._index(name)
        if canonical is None:
            moved = transplant(index, None, fragment)
            if moved:
                return self._result(url, name, moved, LinkAction.REWRITTEN, f"page not in anchor map; {moved.reason}")
            return Checked(LinkOutcome(url, None, LinkAction.LINK_DROPPED, "page not in anchor map"), name)
        if is_route(fragment) and not index.amap.pages[canonical].routes:
            moved = other_form(index.page(canonical), fragment)  # Swagger UI's route on a Redoc page
            if moved:
                return self._result(url, name, moved, LinkAction.REWRITTEN, _join(why_page, moved.reason), dir_form)
            fragment = ""  # a hash route on a page whose map records no routes: the page itself
        match = repair_on_page(index, canonical, fragment)
        if match is not None and match.reason == "exists" and not why_page:
            return self._result(url, name, match, LinkAction.KEPT, "page and fragment exist" if fragment else "page exists", dir_form)
        if match is None and is_route(fragment):
            match = repair_route(index.amap.pages[canonical], fragment)
        if match is None:
            texts = self.texts
            opening = None if texts is None else (lambda page, anchor: texts(name, f"{page}#{anchor}"))
            moved = transplant(index, canonical, fragment) or rank_on_page(index, canonical, fragment, opening)
            if moved:
                return self._result(url, name, moved, LinkAction.REWRITTEN, _join(why_page, moved.reason))
            return self._result(url, name, Match(canonical, "", ""), LinkAction.FRAGMENT_DROPPED,
                                _join(why_page, f"no such fragment on page (#{fragment})"), dir_form)
        reason = why_page if match.reason == "exists" else _join(why_page, match.reason)
        return self._result(url, name, match, LinkAction.REWRITTEN, reason, dir_form)

    def _result(self, url: str, site: str, match: Match, action: LinkAction, reason: str, dir_form: bool = False) -> Checked:
        out = format_url(match.page, match.fragment, dir_form)
        return Checked(LinkOutcome(url, out, action, reason), site, match.page, match.fragment)


def normalize_out(url: str) -> str:
    """Comparison key of an output URL: normalised page + decoded fragment."""
    page, frag = split_fragment(url, routes=True)
    try:
        page = normalize(page)
    except ValueError:
        pass
    return f"{page}#{frag}" if frag and frag != "top" else page


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if first and second else first or second
