"""SIGTERM as an exception: the command unwinds as on Ctrl-C, so worker pools stop and nothing half-written lands.

The handler raises :class:`Terminated` wherever the main thread is when the signal comes, and a few places print an
exception and go on: a ``__del__``, a weakref callback, the hooks ``os.fork`` runs in the parent (logging's lock
release, when the crawl forks its parse workers). There a crawl went on as if nothing had been sent, for as long as
its pages took. ``sys.unraisablehook`` sees such a :class:`Terminated` and has a thread send the signal again, to
the main thread, once the hook has returned: the handler then raises in the code around that place, where the
exception unwinds (or in the next such place, and the signal is sent once more).

Inside an event loop (:func:`run`, the crawl's) the handler raises nothing: it cancels the loop's main task, as
asyncio does for Ctrl-C, and :class:`Terminated` is raised once the loop is closed. Raised in the loop's own
bookkeeping (a future's ``add_done_callback`` between a task's yield and its wake-up being registered), it left a
task nothing would wake, and closing the loop waited for that task forever: a refresh alive 30 s after SIGTERM.
"""

from __future__ import annotations

import _thread
import asyncio
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")  # what run's coroutine returns

RESEND_S = 0.01  # how long after a dropped SIGTERM it is sent again


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is so ``finally`` blocks (worker pools, temp files) run."""


class _Hook:
    running = False  # a Terminated raised in the hook would be dropped without a trace (set by a plain store: no call
    # between clearing it and the hook's return, where the interpreter would run a pending handler)
    cancel: Callable[[], None] | None = None  # while run's event loop runs: what cancels its main task


_HOOK = _Hook()


def _on_sigterm(signum: int, frame: object) -> None:
    if _HOOK.running:
        _thread.start_new_thread(_send_again, ())
        return
    if _HOOK.cancel is not None:
        _HOOK.cancel()
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


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, where SIGTERM (with :func:`catch_sigterm`'s handler) cancels ``main`` and raises
    :class:`Terminated` once the loop has closed, even if ``main`` swallowed the cancellation and returned. From the
    call on: a SIGTERM before ``main`` starts means it never starts."""
    if threading.current_thread() is not threading.main_thread() or _HOOK.cancel is not None:
        return asyncio.run(main)
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []
    sent = False

    def cancel() -> None:
        nonlocal sent
        sent = True
        for loop, task in running:  # the handler interrupts the main thread, where the loop closes: no race
            if not loop.is_closed():
                loop.call_soon_threadsafe(task.cancel)  # a no-op once the task is done

    async def cancellable() -> T:
        task = asyncio.current_task()
        assert task is not None
        running.append((asyncio.get_running_loop(), task))
        if sent:
            main.close()
            raise asyncio.CancelledError
        return await main

    _HOOK.cancel = cancel
    try:
        result = asyncio.run(cancellable())
    except asyncio.CancelledError:
        if sent:
            raise Terminated() from None
        raise
    finally:
        _HOOK.cancel = None
    if sent:
        raise Terminated()
    return result
