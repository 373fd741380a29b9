"""Markdown → Slack mrkdwn, parsed by markdown-it-py, never by regexes over the whole text.

Pure functions. Every piece of text that came from docs, a question or an LLM
goes through :func:`escape`: ``&``, ``<`` and ``>`` become entities, so no
``<!channel>``, ``<@U…>`` or ``<#C…>`` can reach Slack as markup, and plain
``@here``/``@channel``/``@everyone`` get a zero-width space so they read the
same but notify nobody. Links become ``<url|text>`` only for http(s) and
mailto URLs (which the ReferenceValidator has already approved), and, when the
caller passes the ``approved`` URLs, only for those. Markdown decodes escapes
and entities (``http\\://`` and ``http&#58;//`` become ``http://``), so URL-like
text is looked for again in what the parser produced: an approved URL becomes an
explicit link, anything else is defanged (``evil[.]example``). Sent with
``verbatim`` (see :mod:`docbot.slack.blocks`), Slack then links nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

SECTION_LIMIT = 3000  # Slack's limit for a section block's text
FENCE = "```"
LINK_SCHEMES = ("http://", "https://", "mailto:")
_BROADCAST = re.compile(r"@(?=(?:channel|here|everyone)\b)", re.I)
_TRAILING = ".,;:!?*_~"  # sentence punctuation after a URL is not part of it
_URLISH = re.compile(r"(?i)(?<![\w.@])(?:[a-z][a-z0-9+.\-]{1,15}:[/\\]{2}|www\.(?=[a-z0-9-]+\.[a-z]))[^\s<>\"'`|]*")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|<>\s]+)\|([^<>]*)>")
_PARSER = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"])
_INDENT = "    "


def escape(text: str) -> str:
    """Make text inert in mrkdwn: entities for & < >, and broadcast words that cannot notify."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub("@\u200b", text)


def escape_url(url: str) -> str:
    """A URL fit for ``<url|text>``: characters that would end the link are percent-encoded."""
    return url.replace("&", "&amp;").replace("|", "%7C").replace("<", "%3C").replace(">", "%3E").replace(" ", "%20")


def defang(url: str) -> str:
    """URL-like text no reader or client turns into a link: ``http[:]//evil[.]example/login``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    host, slash, path = rest.partition("/")
    return (scheme + "[:]//" if sep else "") + host.replace(".", "[.]") + slash + path


def inert(text: str) -> str:
    """:func:`escape` with every URL-like piece defanged: for text that may never hold a link (questions)."""
    return _text(text, frozenset())


def _text(content: str, approved: Collection[str] | None) -> str:
    """Escaped text whose URL-like pieces become links when approved, else defanged."""
    if ":" not in content and "www." not in content.lower():
        return escape(content)
    out: list[str] = []
    last = 0
    for m in _URLISH.finditer(content):
        url = m.group(0).rstrip(_TRAILING)
        out.append(escape(content[last : m.start()]))
        if approved and url in approved and url.lower().startswith(("http://", "https://")):
            out.append(link(url, ""))
        else:
            out.append(escape(defang(url)))
        last = m.start() + len(url)
    out.append(escape(content[last:]))
    return "".join(out)


def link(url: str, text: str) -> str:
    """``<url|text>`` with both parts made safe (text loses the ``|`` that would split it)."""
    label = " ".join(text.replace("|", "/").split())
    return f"<{escape_url(url)}|{escape(label)}>" if label else f"<{escape_url(url)}>"


def _code(text: str) -> str:
    # Slack has no way to escape a backtick inside code: show a look-alike instead.
    return escape(text).replace("`", "\u02cb")


def _plain(node: SyntaxTreeNode) -> str:
    if node.type in ("text", "code_inline", "html_inline"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    if node.type == "image":
        return str(node.attrs.get("alt", "")) or "".join(_plain(c) for c in node.children)
    return "".join(_plain(c) for c in node.children)


def _inline(nodes: Iterable[SyntaxTreeNode], approved: Collection[str] | None) -> str:
    out: list[str] = []
    for node in nodes:
        kind = node.type
        if kind == "text":
            out.append(_text(node.content, approved))
        elif kind == "code_inline":
            out.append(f"`{_code(node.content)}`")
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "strong":
            out.append(f"*{_inline(node.children, approved)}*")
        elif kind == "em":
            out.append(f"_{_inline(node.children, approved)}_")
        elif kind == "s":
            out.append(f"~{_inline(node.children, approved)}~")
        elif kind in ("link", "image"):
            href = str(node.attrs.get("href" if kind == "link" else "src", ""))
            label = _plain(node)
            if href.lower().startswith(LINK_SCHEMES) and (approved is None or href in approved):
                out.append(link(href, "" if label == href else label))
            else:
                out.append(_text(label, approved))
        elif kind == "html_inline":
            out.append(_text(node.content, frozenset()))
        else:
            out.append(_inline(node.children, approved))
    return "".join(out)


def _fence(code: str) -> str:
    body = _code(code.rstrip("\n")) if code.strip() else ""
    return f"{FENCE}\n{body}\n{FENCE}"


def _table(node: SyntaxTreeNode) -> str:
    rows = [[" ".join(_plain(cell).split()) for cell in tr.children] for section in node.children for tr in section.children]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(len(r) for r in rows))]
    lines = [" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
    if len(lines) > 1:
        lines.insert(1, "-+-".join("-" * w for w in widths))
    return _fence("\n".join(lines))


def _prefixed(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [(rest + line) if line else line for line in lines[1:]])


def _block(node: SyntaxTreeNode, approved: Collection[str] | None) -> str:
    kind = node.type
    if kind == "paragraph":
        return _inline(node.children[0].children, approved) if node.children else ""
    if kind == "heading":
        return f"*{_inline(node.children[0].children, approved)}*" if node.children else ""
    if kind in ("fence", "code_block"):
        return _fence(node.content)
    if kind in ("bullet_list", "ordered_list"):
        start = int(node.attrs.get("start", 1) or 1)
        items = []
        for i, item in enumerate(node.children):
            marker = f"{start + i}. " if kind == "ordered_list" else "• "
            body = "\n".join(b for b in (_block(c, approved) for c in item.children) if b)
            items.append(_prefixed(body, marker, _INDENT))
        return "\n".join(items)
    if kind == "blockquote":
        inner = "\n".join(b for b in (_block(c, approved) for c in node.children) if b)
        return "\n".join("> " + line if line else ">" for line in inner.split("\n"))
    if kind == "hr":
        return "───"
    if kind == "html_block":
        return _text(node.content.strip(), frozenset())
    if kind == "table":
        return _table(node)
    return "\n".join(b for b in (_block(c, approved) for c in node.children) if b)


def to_mrkdwn_parts(markdown: str, approved: Collection[str] | None = None) -> list[str]:
    """The answer's top-level blocks (paragraphs, lists, code…) as mrkdwn strings.

    ``approved``: the URLs the validator let through; only they become links (None: every http(s) link).
    """
    source = _SLACK_LINK.sub(lambda m: f"[{m.group(2)}]({m.group(1)})", markdown)
    root = SyntaxTreeNode(_PARSER.parse(source))
    return [part for part in (_block(child, approved) for child in root.children) if part.strip()]


def to_mrkdwn(markdown: str, approved: Collection[str] | None = None) -> str:
    """The whole Markdown text as one mrkdwn string."""
    return "\n\n".join(to_mrkdwn_parts(markdown, approved))


def _hard_split(line: str, limit: int) -> list[str]:
    pieces = []
    while len(line) > limit:
        cut = line.rfind(" ", 0, limit)
        cut = cut if cut > limit // 2 else limit
        pieces.append(line[:cut])
        line = line[cut:].lstrip(" ")
    return [*pieces, line]


def _split_part(part: str, limit: int) -> list[str]:
    """Split one oversized part at line boundaries; a cut inside a code block closes and reopens it."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    in_fence = False
    reserve = len(FENCE) + 1  # room to close a fence that is cut
    for raw in part.split("\n"):
        for line in _hard_split(raw, limit - 2 * reserve):
            closing = in_fence and line.strip() == FENCE  # always fits: the reserve is kept for it
            if current and not closing and size + len(line) + 1 > limit - reserve:
                if in_fence and current[-1].strip() == FENCE:
                    current.pop()  # a fence opened with nothing in it yet: open it in the next chunk instead
                elif in_fence:
                    current.append(FENCE)
                if current:
                    chunks.append("\n".join(current))
                current, size = ([FENCE] if in_fence else []), (reserve if in_fence else 0)
            current.append(line)
            size += len(line) + 1
            if line.strip() == FENCE:
                in_fence = not in_fence
    if current:
        chunks.append("\n".join(current))
    return chunks


def split_sections(parts: Iterable[str], limit: int = SECTION_LIMIT) -> list[str]:
    """Pack parts into texts of at most ``limit`` characters, cutting between parts where possible."""
    texts: list[str] = []
    current = ""
    for part in parts:
        pieces = [part] if len(part) <= limit else _split_part(part, limit)
        for piece in pieces:
            if current and len(current) + 2 + len(piece) <= limit:
                current += "\n\n" + piece
            else:
                if current:
                    texts.append(current)
                current = piece
    if current:
        texts.append(current)
    return texts
