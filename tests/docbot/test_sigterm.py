"""SIGTERM stops the command wherever it lands: also where Python prints an exception and goes on.

The crawl forks its parse workers, and a SIGTERM that came while ``os.fork`` ran its hooks in the parent raised
:class:`docbot.process.terminate.Terminated` inside logging's lock release, where it was printed and dropped: the crawl went on,
and a service manager's ``stop`` waited for it. Inside an event loop, raised in a future's ``add_done_callback``, it left a
task nothing would wake, and closing the loop waited for it forever. Each case runs in a process of its own, with the
CLI's handlers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """
import asyncio, os, signal, sys, time
from docbot.process import terminate
from docbot.process.terminate import Terminated, catch_sigterm

def term_here():
    os.kill(os.getpid(), signal.SIGTERM)  # the handler runs at the next instruction: in this function
    return len("still here")

class Dropped:
    def __del__(self):
        term_here()

class Held(asyncio.Future):  # a future whose add_done_callback is Python: the handler can run inside it
    def add_done_callback(self, fn, *, context=None):
        term_here()  # before the waiting task's wake-up is registered
        super().add_done_callback(fn, context=context)

async def waits():
    try:
        await Held()  # nothing ever sets it: only a cancellation ends the wait
    finally:
        print("unwound", flush=True)

async def crawl():
    await asyncio.gather(waits(), asyncio.sleep(5))

restore = catch_sigterm()
try:
    if sys.argv[1] == "fork-hook":
        os.register_at_fork(after_in_parent=term_here)
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
    elif sys.argv[1] == "event-loop":
        terminate.run(crawl())
    else:
        Dropped()
    time.sleep(5)  # without the signal sent again, the program goes on to its end
    print("went on")
except Terminated:
    print("terminated")
finally:
    restore()
print("handler", signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, "hook", sys.unraisablehook is sys.__unraisablehook__)
"""


@pytest.mark.parametrize("where", ["fork-hook", "__del__", "event-loop"])
def test_sigterm_raised_where_python_drops_exceptions_still_stops_the_command(where: str) -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM, where], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if where == "event-loop":  # the waiting task was cancelled, and ran its finally, before the command ended
        assert lines.pop(0) == "unwound", done.stdout + done.stderr
    assert lines[0] == "terminated", done.stdout + done.stderr
    assert lines[1] == "handler True hook True"  # the command's handlers are gone once it returns
