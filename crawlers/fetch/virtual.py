"""A list the app renders only in part (virtualized), read whole by scrolling it: each item expanded and kept while
it is mounted.

Swagger UI 5.35 renders a list of 150 tags and operations or more as ``.operations-virtual``: only the items in view
and three around them are in the DOM, each numbered by ``data-index`` in the whole list, and an item that scrolls out
is unmounted (its open or shut state is kept by the app, so it comes back as it was). :func:`read_virtual` walks
such a list from its first item in steps, each one script of the page (:data:`_STEP_JS`) that answers once the page
has rendered what it did: it clicks open the collapsed controls (``expand``) of the mounted items not read yet; or,
when they are all open, it keeps their HTML and scrolls the last of them to the top of the list's view, so the next
ones mount. Items are kept in order, so a gap (an item scrolled past unread) cannot pass unseen: the step then
scrolls back toward it. The list is read when no item is left after the last one kept and the view moves no more.

The DOM stays the size of a screen of items however long the list, so reading is bounded by time
(``budget`` seconds, the page's expansion budget: :mod:`crawlers.fetch.limits`) and by :data:`MAX_ITEMS`; what a list read only in
part has left is logged. The items read replace the mounted ones in the page (:func:`crawlers.fetch.entries
.compose_entries`), in the order of their index.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

MAX_ITEMS = 20_000  # items of one virtualized list read: a guard, far above GitHub's 1,270 tags and operations
WAIT_MS = 10_000  # an opened entry's content awaited this long in a step before its item is read as it is
# controls clicked in one step: together they render in one task of the page (0.2-0.5 s an operation of GitHub's), which
# must end within the page's script limit (30 s), on a busy machine too
MAX_CLICKS = 16
MAX_STUCK = 20  # steps in a row that neither read nor click anything, and still move the view: then it gives up


@dataclass(frozen=True, slots=True)
class VirtualList:
    """Where an app's virtualized list is: present only when it virtualizes, its items numbered in the whole list."""

    root: str  # CSS selector of the list (the element holding its mounted items)
    item: str  # CSS selector, inside it, of one item
    index: str = "data-index"  # the attribute giving an item's place in the whole list, from 0
    pending: str = ":not(*)"  # CSS selector, inside an item, of an entry opened whose content has not rendered yet


@dataclass(frozen=True, slots=True)
class ReadList:
    """The items read of a virtualized list, in order (their outer HTML), and how."""

    items: tuple[str, ...]
    clicked: int  # controls clicked open
    steps: int
    seconds: float
    whole: bool  # read to its end (not stopped by the time budget, the item cap or a gap it could not close)
    out_of_time: bool = False  # stopped by the time budget: the site's render_max_seconds may let it finish

    def partial(self) -> str | None:
        """What was left unread, in a phrase for the log, when the list was read only in part."""
        if self.whole:
            return None
        return f"its virtualized list was read only in part, {len(self.items)} items in {self.seconds:.0f} s"


# One step (an async script: arguments[5] is called once the page has rendered what it did, a frame later).
# arguments: the list, an item, the index attribute, the expand selector, the lowest index not read yet.
# Returns [action, value, moved]: ["click", n], ["read", [html...], moved], ["seek", 0, moved], ["gone", 0, false].
_STEP_JS = """
const [ROOT, ITEM, INDEX, EXPAND, PENDING, WAIT_MS, CLICKS, next, done] = arguments;
const answer = r => requestAnimationFrame(() => setTimeout(() => done(r), 0));
const list = document.querySelector(ROOT);
if (!list) return done(["gone", 0, false]);
const mounted = Array.from(list.querySelectorAll(ITEM), e => [Number(e.getAttribute(INDEX)), e])
  .sort((a, b) => a[0] - b[0]);
const run = [];
for (const [i, e] of mounted) if (i === next + run.length) run.push(e);
const moved = (el, block) => {
  const before = el.getBoundingClientRect().top;
  el.scrollIntoView({block: block, behavior: "instant"});
  return Math.abs(el.getBoundingClientRect().top - before) >= 1;
};
if (!run.length) {  // the next item is not mounted: move toward it
  if (!mounted.length) return done(["seek", true, false]);
  const ahead = mounted[0][0] > next;
  return answer(["seek", ahead, ahead ? moved(mounted[0][1], "end") : moved(mounted[mounted.length - 1][1], "start")]);
}
const shut = run.flatMap(e => Array.from(e.querySelectorAll(EXPAND))).slice(0, CLICKS);
if (shut.length) {
  setTimeout(() => { shut.forEach(c => c.click()); answer(["click", shut.length, false]); }, 0);
  return;
}
const until = performance.now() + WAIT_MS;  // an opened entry's content may come later (fetched, resolved): wait
const read = () => {
  if (run.some(e => e.isConnected && e.querySelector(PENDING)) && performance.now() < until) return setTimeout(read, 20);
  const kept = [];
  for (const e of run) { if (!e.isConnected) break; kept.push(e); }  // unmounted meanwhile: read on a later step
  if (!kept.length) return answer(["seek", false, true]);
  answer(["read", kept.map(e => e.outerHTML), moved(kept[kept.length - 1], "start")]);
};
read();
"""

Step = Callable[..., Awaitable[Any]]  # runs a script in the tab (and awaits it), returns what it answered


async def read_virtual(step: Step, url: str, virtual: VirtualList, expand: str | None, budget: float) -> ReadList:
    """Every item of the virtualized list, expanded (``expand``: CSS selector of a collapsed control), in order."""
    started = time.monotonic()
    items: list[str] = []
    clicked = steps = stuck = 0
    whole = False
    while time.monotonic() - started < budget and len(items) < MAX_ITEMS and stuck < MAX_STUCK:
        steps += 1
        action, value, moved = await step(_STEP_JS, virtual.root, virtual.item, virtual.index,
                                          expand or ":not(*)", virtual.pending, WAIT_MS, MAX_CLICKS, len(items))
        if action == "click":
            clicked += int(value)
            stuck = 0
            continue
        if action == "read":
            items += [str(v) for v in value]
            stuck = 0
        else:
            stuck += 1
        if not moved:  # the view moves no more: the end of the list (read, or sought past the last), or a gap
            whole = action == "read" or (action == "seek" and not value)
            break
    seconds = time.monotonic() - started
    out_of_time = not whole and seconds >= budget
    result = ReadList(tuple(items), clicked, steps, seconds, whole, out_of_time)
    if not whole and not out_of_time:  # out of time, the fetcher says which setting would give it more
        why = "the item cap" if len(items) >= MAX_ITEMS else "an item it could not scroll to"
        log.warning("%s: the virtualized list was read only in part, stopped by %s: %d items (%d controls clicked "
                    "open) in %.0f s, %d steps; the items after them are not in the map", url, why, len(items),
                    clicked, seconds, steps)
    log.info("%s: read %d items of a virtualized list (%d controls clicked open) in %.1f s, %d steps", url,
             len(items), clicked, seconds, steps)
    return result
