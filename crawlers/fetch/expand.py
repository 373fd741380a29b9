"""Opening what an app renders collapsed (Swagger UI's operations): every control that expands something clicked.

The controls matching a CSS selector are clicked in one task of the page, in batches (a click each re-rendered all
that was open: 105 operations took 3-4 times as long), then again those the clicks revealed, up to
:data:`MAX_EXPAND` clicks and the page's expansion budget. The tab is driven through two callables of
:class:`crawlers.fetch.browser.Browser` (a script in it, and one that may wait on it up to the budget while the clicks
render), so this module never touches selenium.
"""

from __future__ import annotations

import logging
import time

from crawlers.fetch.virtual import Step

log = logging.getLogger(__name__)

MAX_EXPAND = 5000  # controls clicked on one page
# click, in one task of the page once this script has returned, up to arguments[1] of the controls matching arguments[0]
# (each expands something collapsed); returns how many it will click
_EXPAND_JS = """
const found = Array.from(document.querySelectorAll(arguments[0])).slice(0, arguments[1]);
if (found.length) setTimeout(() => found.forEach(e => e.click()), 0);
return found.length;
"""
_COLLAPSED_JS = "return document.querySelectorAll(arguments[0]).length;"  # run once the clicks' task has ended

async def expand_all(run: Step, run_busy: Step, url: str, selector: str, budget: float) -> str | None:
    """Click every control matching ``selector`` (``run``: a script in the tab; ``run_busy``: one answered once the
    page's task of clicks has ended, waited on up to ``budget``). Returns what was left collapsed when the budget ran
    out, a phrase for the log (the fetcher says which setting gives it more); anything else left is logged here."""
    started, clicked, left = time.monotonic(), 0, 0
    while clicked < MAX_EXPAND and time.monotonic() - started < budget:
        done = int(await run(_EXPAND_JS, selector, MAX_EXPAND - clicked))
        clicked += done
        left = int(await run_busy(_COLLAPSED_JS, selector))
        if not done or not left:
            break
    seconds = time.monotonic() - started
    log.info("%s: expanded %d in %.1f s", url, clicked, seconds)
    if not left:
        return None
    what = f"{left} controls left collapsed after {clicked} clicked in {seconds:.0f} s"
    if seconds >= budget:
        return what
    log.warning("%s: %s", url, what)
    return None
