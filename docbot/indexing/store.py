"""The Chroma client docbot talks to: a server named by URL, or the embedded store in the data dir.

Opening it is the one place a bad or unreachable URL is turned into one line that says what to check
(:class:`~docbot.errors.StoreUnreachable`), and where a read-only data dir gets a private copy of its store.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from docbot.config import chroma_endpoint, chroma_unreachable
from docbot.errors import StoreUnreachable

log = logging.getLogger(__name__)


def make_client(data_dir: Path, chroma_url: str | None = None, origin: str = "--chroma-url") -> Any:
    """An HttpClient for ``chroma_url`` (set by ``origin``, named when it does not answer), else a PersistentClient in
    ``data_dir/chroma``; telemetry off.

    A data dir this process may not write gets a private copy of the store (Chroma writes on open)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        host, port, ssl = chroma_endpoint(chroma_url, origin, data_dir)
        try:
            return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
        except Exception as exc:  # ValueError for a refused connection; a server that is not Chroma, others
            log.debug("no Chroma server at %s", chroma_url, exc_info=True)
            raise StoreUnreachable(chroma_unreachable(chroma_url, origin, data_dir, _root_cause(exc))) from None
    store = data_dir / "chroma"
    if store.is_dir() and not os.access(store, os.W_OK | os.X_OK):
        copy = Path(tempfile.mkdtemp(prefix="docbot-chroma-"))
        atexit.register(shutil.rmtree, copy, ignore_errors=True)  # the copy lives as long as the process
        shutil.copytree(store, copy, dirs_exist_ok=True)
        log.info("%s is read-only: reading a private copy of its vector store in %s", data_dir, copy)
        store = copy
    else:
        store.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(store), settings=settings)


def _root_cause(exc: BaseException) -> str:
    """The first error in ``exc``'s chain (a refused connection, an unknown host), in a few words."""
    for _ in range(10):  # chains are short; a loop of contexts must not hang
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    return re.sub(r"^\[Errno -?\d+\] ", "", (str(exc).splitlines() or [""])[0])[:120]
