"""How long a page may take to render, how large its composed page and its heap may grow: limits that scale with the
number of operations of the API description the app loads, up to a ceiling the site can raise.

Pure functions: :func:`count_operations` over the description's bytes (:mod:`crawlers.fetch.render` finds its URL in
the shell, :class:`crawlers.fetch.shell.Spec`, and fetches it), :func:`scale` over the count. Operations, not bytes:
the time and memory of both apps grow with them (Redoc renders the whole description in one long task of the page,
about 0.07 s and 1.8 MB of browser memory an operation of GitHub's; Swagger UI opens an operation in 0.2-0.5 s), and
the same description is 13 MB indented or a third of that compact. A description of up to :data:`REFERENCE_OPS`
(Docker's Engine API has 105) keeps the fixed limits; a larger one has each grown in proportion: the page limit, the
expansion budget, the composed page's size cap and the V8 heap. Times stop at the site's ``render_max_seconds``, the
page's size at its ``render_max_bytes``, the heap at :data:`HEAP_CEILING_MB`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from crawlers.fetch.static import MAX_BYTES

PAGE_TIMEOUT = 30.0  # seconds from opening a page to reading its settled DOM
EXPAND_TIMEOUT = 180.0  # seconds of expanding one page (Swagger UI, 105 operations: 19-28 s on a busy 2-core machine)
HEAP_MB = 512  # V8 heap cap per renderer process
REFERENCE_OPS = 150  # operations an API description may have and render within the fixed limits
CEILING_S = 900.0  # the most any page's limit or expansion budget grows to, unless the site raises it
CEILING_BYTES = 100_000_000  # the most a composed page grows to, unless the site raises it
PAGE_PER_OP = 48_000  # bytes of page an operation (Redoc's DOM of GitHub's: 40 KB; Swagger UI's, expanded: 12 KB)
HEAP_PER_OP_MB = 1.5  # MB of V8 heap an operation
HEAP_CEILING_MB = 4096
METHODS = frozenset(("get", "put", "post", "delete", "patch", "head", "options", "trace"))
# a method key in YAML, indented under its path: a count good enough where the description is not JSON
_YAML_METHOD = re.compile(rb"^[ \t]+(?:get|put|post|delete|patch|head|options|trace):[ \t]*(?:#.*)?\r?$", re.M)


@dataclass(frozen=True, slots=True)
class RenderLimits:
    """The limits one page renders within, and what raised them (``why``; empty when they are the fixed ones)."""

    page_timeout: float = PAGE_TIMEOUT
    expand_budget: float = EXPAND_TIMEOUT
    max_bytes: int = MAX_BYTES
    heap_mb: int = HEAP_MB
    why: str = ""
    capped: tuple[str, ...] = ()  # the limits (their field names) a ceiling held below what the description asked

    @property
    def raised(self) -> bool:
        return bool(self.why)


def count_operations(body: bytes) -> int | None:
    """The operations of an OpenAPI (or Swagger 2) description: its paths' and webhooks' methods; None when it is
    neither."""
    try:
        spec = json.loads(body)
    except ValueError:
        found = len(_YAML_METHOD.findall(body))
        return found or None
    if not isinstance(spec, dict) or not isinstance(spec.get("paths"), dict):
        return None
    # webhooks are operations too, which Redoc renders (OpenAPI 3.1's webhooks, Redoc's x-webhooks before it)
    groups = [g for g in (spec["paths"], spec.get("webhooks"), spec.get("x-webhooks")) if isinstance(g, dict)]
    return sum(1 for paths in groups for item in paths.values() if isinstance(item, dict) for key in item
               if key in METHODS)


def scale(operations: int | None, max_bytes: int, ceiling_s: float = CEILING_S,
          ceiling_bytes: int = CEILING_BYTES) -> RenderLimits:
    """The limits for a page whose app loads an API description of ``operations`` (None: unknown, the fixed limits).

    ``max_bytes`` is the site's page-size cap, kept as the floor; the ceilings are the site's."""
    base = RenderLimits(max_bytes=max_bytes)
    if operations is None or operations <= REFERENCE_OPS:
        return base
    factor = operations / REFERENCE_OPS
    capped: list[str] = []

    def bounded(name: str, want: float, floor: float, ceiling: float) -> float:
        if want > ceiling:
            capped.append(name)
        return max(floor, min(want, ceiling))

    page = bounded("page_timeout", PAGE_TIMEOUT * factor, PAGE_TIMEOUT, ceiling_s)
    expand = bounded("expand_budget", EXPAND_TIMEOUT * factor, EXPAND_TIMEOUT, ceiling_s)
    size = int(bounded("max_bytes", PAGE_PER_OP * operations, max_bytes, ceiling_bytes))
    heap = int(bounded("heap_mb", HEAP_PER_OP_MB * operations, HEAP_MB, HEAP_CEILING_MB))
    why = f"its API description has {operations} operations, {factor:.1f} times {REFERENCE_OPS}"
    return RenderLimits(page, expand, size, heap, why, tuple(capped))


def describe(limits: RenderLimits) -> str:
    """The limits in one phrase, for the log."""
    return (f"page limit {limits.page_timeout:.0f} s, expansion {limits.expand_budget:.0f} s, page size "
            f"{limits.max_bytes / 1e6:.0f} MB, heap {limits.heap_mb} MB")
