"""A throw-away PostgreSQL server for the tests, started for real from Debian's ``postgresql``.

The ``postgres`` fixture (one server for the whole test run) initialises a cluster in a temporary folder, starts it
on a free port of 127.0.0.1 and on a unix socket in that folder, and stops and deletes it at the end;
:meth:`Postgres.database` gives each test a fresh database of its own; a test that stops and starts its server takes
``postgres_cluster``, a cluster of its own. PostgreSQL refuses to run as root, so as
root the cluster belongs to and runs as the ``postgres`` user the package creates. Without PostgreSQL a test that
needs it is skipped, saying why, unless ``DOCBOT_REQUIRE_POSTGRES`` is set (``.ci/run`` sets it): then it fails.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REQUIRE_POSTGRES = "DOCBOT_REQUIRE_POSTGRES"  # set (non-empty): a test that needs PostgreSQL fails without it
START_S = 60.0  # a busy machine: initdb and the first connection take seconds
SETTINGS = ("listen_addresses=127.0.0.1", "fsync=off", "synchronous_commit=off", "full_page_writes=off",
            "shared_buffers=16MB", "max_connections=200")  # a test server: durability buys nothing here


class PostgresUnavailable(RuntimeError):
    """PostgreSQL is not installed here, or its server did not start."""


@dataclass
class Postgres:
    """A running server: TCP on 127.0.0.1:``port``, a unix socket in ``socket_dir``, the superuser ``user``."""

    port: int
    socket_dir: Path
    user: str = "postgres"
    _names: Iterator[int] = field(default_factory=itertools.count)

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str) -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket_dir}&port={self.port}"

    def database(self) -> str:
        """A new, empty database; returns its URL (over TCP)."""
        import psycopg

        name = f"docbot_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def binaries() -> Path:
    """The folder of ``initdb`` and ``postgres``: on the PATH, else Debian's newest /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb")
    if found and Path(found).with_name("postgres").exists():
        return Path(found).parent
    versions = sorted((p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()),
                      key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    if not versions:
        raise PostgresUnavailable("PostgreSQL is not installed: `apt-get install postgresql` (scripts/install.sh does)")
    return versions[-1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(root: Path) -> dict[str, Any]:
    """How to run PostgreSQL's programs here: as ``postgres`` when this is root (it refuses root), else as is."""
    if os.geteuid() != 0:
        return {}
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("no `postgres` user to run PostgreSQL as (it refuses to run as root)") from None
    os.chown(root, owner.pw_uid, owner.pw_gid)
    return {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}


def _wait_ready(server: Postgres, proc: subprocess.Popen[bytes], log: Path) -> None:
    import psycopg

    deadline = time.monotonic() + START_S
    while True:
        try:
            with psycopg.connect(server.url("postgres"), connect_timeout=2):
                return
        except psycopg.OperationalError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
            raise PostgresUnavailable(f"PostgreSQL did not start within {START_S:.0f} s: {' '.join(tail)}")
        time.sleep(0.1)


class Cluster:
    """A cluster in a temporary folder, and its server process: started, stopped, started again on the same port."""

    def __init__(self, root: Path) -> None:
        self.bin_dir, self.root = binaries(), root
        self.owner = _as_owner(root)
        self.data, self.log = root / "data", root / "server.log"
        made = subprocess.run([str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                               "-E", "UTF8", "--locale=C", "--no-sync"], cwd=root, capture_output=True, text=True,
                              check=False, timeout=START_S, **self.owner)
        if made.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {(made.stderr.strip().splitlines() or ['?'])[-1]}")
        self.server = Postgres(_free_port(), root)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        options = [arg for setting in SETTINGS for arg in ("-c", setting)]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([str(self.bin_dir / "postgres"), "-D", str(self.data), "-p",
                                          str(self.server.port), "-k", str(self.root), *options], cwd=self.root,
                                         stdout=out, stderr=subprocess.STDOUT, **self.owner)
        _wait_ready(self.server, self.proc, self.log)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)  # a fast shutdown: clients are disconnected
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@contextmanager
def running_postgres() -> Iterator[Cluster]:
    """A PostgreSQL cluster in a temporary folder, its server running (``.server``), stopped and deleted on exit;
    :class:`PostgresUnavailable` when there is none to start."""
    root = Path(tempfile.mkdtemp(prefix="docbot-pg-"))
    try:
        cluster = Cluster(root)
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def no_postgres(why: str) -> None:
    """A test that needs PostgreSQL and has none: skipped, saying why, or failed when $DOCBOT_REQUIRE_POSTGRES is set."""
    if os.environ.get(REQUIRE_POSTGRES):
        pytest.fail(f"{why} (and {REQUIRE_POSTGRES} is set)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One PostgreSQL server for the test run; without one, :func:`no_postgres` decides (skip or fail)."""
    try:
        with running_postgres() as cluster:
            yield cluster.server
    except PostgresUnavailable as exc:
        no_postgres(str(exc))


@pytest.fixture()
def postgres_cluster() -> Iterator[Cluster]:
    """A server of the test's own, which it may stop and start again; without one, :func:`no_postgres` decides."""
    try:
        with running_postgres() as cluster:
            yield cluster
    except PostgresUnavailable as exc:
        no_postgres(str(exc))
