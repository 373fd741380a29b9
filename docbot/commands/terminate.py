"""SIGTERM as an exception: the command unwinds as on Ctrl-C, so worker pools stop and nothing half-written lands.

The handler raises :class:`Terminated` wherever the main thread is when the signal comes, and a few places print an
exception and go on: a ``__del__``, a weakref callback, the hooks ``os.fork`` runs in the parent (logging's lock
release, when the crawl forks its parse workers). There a crawl went on as if nothing had been sent, for as long as
its pages took. ``sys.unraisablehook`` sees such a :class:`Terminated` and has a thread send the signal again, to
the main thread, once the hook has returned: the handler then raises in the code around that place, where the
exception unwinds (or in the next such place, and the signal is sent once more).
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from collections.abc import Callable

RESEND_S = 0.01  # how long after a dropped SIGTERM it is sent again


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is so ``finally`` blocks (worker pools, temp files) run."""


class _Hook:
    running = False  # a Terminated raised in the hook would be dropped without a trace (set by a plain store: no call
    # between clearing it and the hook's return, where the interpreter would run a pending handler)


_HOOK = _Hook()


def _on_sigterm(signum: int, frame: object) -> None:
    if _HOOK.running:
        _thread.start_new_thread(_send_again, ())
        return
    raise Terminated()


def _send_again() -> None:
    time.sleep(RESEND_S)
    while _HOOK.running:
        time.sleep(RESEND_S)
    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)  # interrupts a blocking call too


def catch_sigterm() -> Callable[[], None]:
    """Turn SIGTERM into :class:`Terminated` (main thread only); returns what puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous, previous_hook = signal.getsignal(signal.SIGTERM), sys.unraisablehook

    def raise_again(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, Terminated):
            previous_hook(unraisable)
            return
        _HOOK.running = True
        _thread.start_new_thread(_send_again, ())  # never waits, as threading's start() would, for the thread
        _HOOK.running = False

    def restore() -> None:
        sys.unraisablehook = previous_hook
        if previous is not None:  # None: not set from Python, nothing to put back
            signal.signal(signal.SIGTERM, previous)

    signal.signal(signal.SIGTERM, _on_sigterm)
    sys.unraisablehook = raise_again
    return restore
