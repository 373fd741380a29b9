"""SIGTERM stops the command wherever it lands: also where Python prints an exception and goes on.

The crawl forks its parse workers, and a SIGTERM that came while ``os.fork`` ran its hooks in the parent raised
:class:`docbot.commands.terminate.Terminated` inside logging's lock release, where it was printed and dropped: the crawl went on,
and a service manager's ``stop`` waited for it. Each case runs in a process of its own, with the CLI's handlers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """
import os, signal, sys, time
from docbot.commands.terminate import Terminated, catch_sigterm

def term_here():
    os.kill(os.getpid(), signal.SIGTERM)  # the handler runs at the next instruction: in this function
    return len("still here")

class Dropped:
    def __del__(self):
        term_here()

restore = catch_sigterm()
try:
    if sys.argv[1] == "fork-hook":
        os.register_at_fork(after_in_parent=term_here)
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
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


@pytest.mark.parametrize("where", ["fork-hook", "__del__"])
def test_sigterm_raised_where_python_drops_exceptions_still_stops_the_command(where: str) -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM, where], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "terminated", done.stdout + done.stderr
    assert lines[1] == "handler True hook True"  # the command's handlers are gone once it returns
