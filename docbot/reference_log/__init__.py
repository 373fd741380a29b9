"""The reference log: every answer docbot sent, its links, the votes and labels it got, and Slack event ids seen.

SQLite in the data directory (``docbot.sqlite``) by default; PostgreSQL when a URL is set (``reference_log`` in
docbot.toml or ``DOCBOT_REFERENCE_LOG``), so that several bots share one log. Every answer's links are kept so that
``docbot refresh`` can re-check them after a recrawl; Slack threads read their earlier turns from here; 👍/👎 and
labels land here, and learning reads them. The same tables on both (:mod:`~docbot.reference_log.schema`, which also
says how a database is upgraded when it is opened); one SQLAlchemy engine per log (:mod:`~.engine`). The jobs:
answers and links (:mod:`~.answers`), votes and events (:mod:`~.votes`), labels (:mod:`~.labels`), forgetting users
(:mod:`~.privacy`).
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from sqlalchemy.exc import ArgumentError, DBAPIError

from docbot.config import Settings, reference_log_unreachable
from docbot.config_schema import hide_password
from docbot.errors import ReferenceLogUnavailable
from docbot.reference_log.answers import AnswerLog, LoggedAnswer, StoredTurn
from docbot.reference_log.codec import answer_from_json
from docbot.reference_log.engine import postgres_engine, sqlite_engine
from docbot.reference_log.labels import LabelStore
from docbot.reference_log.privacy import ForgetReport, Privacy
from docbot.reference_log.schema import SCHEMA_VERSION, check_version, create_or_upgrade, found_version
from docbot.reference_log.votes import EVENT_TTL_S, Vote, VoteLog

REFERENCE_LOG = "docbot.sqlite"

__all__ = ["EVENT_TTL_S", "REFERENCE_LOG", "SCHEMA_VERSION", "ForgetReport", "LoggedAnswer", "ReferenceLog",
           "StoredTurn", "Vote", "answer_from_json", "existing_log", "open_log"]


class ReferenceLog(AnswerLog, VoteLog, LabelStore, Privacy):
    """The log over SQLite (a file path) or PostgreSQL (a ``postgresql://`` URL); safe to share between threads.

    ``origin`` says where a URL was set, for messages. Opening creates the tables or upgrades them to
    :data:`SCHEMA_VERSION`; :class:`~docbot.errors.ReferenceLogUnavailable` when the database cannot be used.
    """

    def __init__(self, where: str | Path, origin: str = "", data_dir: Path | None = None) -> None:
        url = where if isinstance(where, str) and "://" in where else None
        self.path = None if url else Path(where)
        self.where = hide_password(url) if url else str(self.path)  # for messages: never the password
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.engine = sqlite_engine(self.path) if self.path is not None else postgres_engine(str(url))
            self._prepare()
        except (DBAPIError, ArgumentError) as exc:
            if hasattr(self, "engine"):
                self.engine.dispose()
            cause = getattr(exc, "orig", None) or exc
            reason = next(iter(str(cause).strip().splitlines()), type(cause).__name__)
            if url is not None:
                reason = reason.replace(url, self.where)
                raise ReferenceLogUnavailable(reference_log_unreachable(
                    url, origin or "the URL given", data_dir or Path("."), reason)) from None
            raise ReferenceLogUnavailable(f"Cannot use the reference log at {self.where}: {reason} — check that "
                                          "file, its folder and their permissions") from None

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> ReferenceLog:
        return cls(Path(data_dir) / REFERENCE_LOG)

    def _prepare(self) -> None:
        """Create or upgrade the tables when they are not at this version (a write, under the upgrade lock)."""
        with self.engine.connect() as conn:
            found = found_version(conn)
        check_version(found, self.where)
        if found < SCHEMA_VERSION:
            with self._write() as conn:
                create_or_upgrade(conn, self.where)

    def close(self) -> None:
        """Close the pooled connections (a log used again opens new ones)."""
        self.engine.dispose()

    def __enter__(self) -> ReferenceLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def open_log(settings: Settings) -> ReferenceLog:
    """The log the settings name: PostgreSQL at ``reference_log``, else SQLite in the data directory."""
    if settings.reference_log:
        return ReferenceLog(settings.reference_log, settings.reference_log_origin, settings.data_dir)
    return ReferenceLog.in_data_dir(settings.data_dir)


def existing_log(settings: Settings) -> ReferenceLog | None:
    """The log the settings name, or None when it is SQLite and its file does not exist yet (nothing was logged)."""
    if not settings.reference_log and not (Path(settings.data_dir) / REFERENCE_LOG).is_file():
        return None
    return open_log(settings)
