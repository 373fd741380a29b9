"""The reference log, every test on both backends: SQLite in a file and PostgreSQL started for real (tests/postgres.py).

Answers and their links, votes, Slack event ids, labels, forgetting users, threads writing at once and bots starting
together; then what only one backend has: the upgrade of a version-1 SQLite file, SQLite's settings, a socket URL.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError

import docbot.reference_log.answers
from docbot.answer import Answer, Clarification, ClarifyOption, Reference, Status
from docbot.errors import ReferenceLogUnavailable
from docbot.labels import Label, LabelSource
from docbot.reference_log import SCHEMA_VERSION, ReferenceLog
from docbot.reference_log.schema import version
from tests.postgres import Cluster, Postgres

BACKENDS = ("sqlite", "postgresql")
DOCS = "http://d.test/"


@pytest.fixture(params=BACKENDS)
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a log lives: a new SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return tmp_path / "log" / "docbot.sqlite"
    server: Postgres = request.getfixturevalue("postgres")
    return server.database()


@pytest.fixture()
def log(where: str | Path) -> Iterator[ReferenceLog]:
    with ReferenceLog(where) as opened:
        yield opened


def ref(n: int, anchor: str, site: str = "docs", quote: str = "") -> Reference:
    return Reference(n, f"{DOCS}{site}.html#{anchor}", anchor.title(), ("Page", anchor.title()), "Guides", site,
                     quote=quote)


def answer(question: str, *refs: Reference, flagged: bool = False) -> Answer:
    return Answer(question, Status.ANSWERED if refs else Status.NOT_COVERED, "Do it [1].", references=refs,
                  flagged=flagged)


def label(question: str, url: str | None, user: str | None = "U1", site: str = "docs", polarity: int = 1,
          source: LabelSource = LabelSource.PICK, **extra: Any) -> Label:
    return Label(site, question, url, polarity, source, user, **extra)


# -- answers and links ---------------------------------------------------------------------------

def test_an_answer_comes_back_whole_with_its_links_and_thread(log: ReferenceLog) -> None:
    options = (ClarifyOption("Uploads", DOCS + "docs.html#uploads", "docs"),
               ClarifyOption("Limits", DOCS + "docs.html#limits", "docs"))
    first = Answer("How big may uploads be?", Status.NEEDS_CLARIFICATION, "Set it [1].",
                   references=(ref(1, "uploads", quote="Set MAX_CONTENT_LENGTH."),),
                   clarification=Clarification("Uploads or request limits?", options), generations={"docs": 3})
    first_id = log.record(first, "mention", "U1", "C1", "100.1")
    second_id = log.record(answer("And for forms?", ref(1, "forms"), ref(2, "limits")), "mention", "U1", "C1", "100.1")
    log.record(answer("Elsewhere", ref(1, "other")), "mention", "U2", "C1", "200.1")

    again = log.get(first_id)
    assert again is not None and again.question == first.question and again.references == first.references
    assert again.clarification == first.clarification and again.generations == {"docs": 3}
    assert log.get(9999) is None
    turns = log.thread_turns("C1", "100.1")
    assert [t.answer_id for t in turns] == [first_id, second_id] and turns[1].question == "And for forms?"
    assert [t.answer_id for t in log.thread_turns("C1", "100.1", limit=1)] == [second_id]
    assert log.iter_links()[:3] == [(first_id, DOCS + "docs.html#limits"), (first_id, DOCS + "docs.html#uploads"),
                                    (first_id, DOCS + "docs.html#uploads")]  # options -2, -1, then [1]
    assert len(log.iter_links()) == 6


def test_answers_since_reads_every_answer_of_a_site_in_pages(log: ReferenceLog,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docbot.reference_log.answers, "PAGE", 3)
    ids = [log.record(answer(f"q{i}", ref(1, "a", site="docs" if i % 2 else "other"), flagged=i == 3), "dm", "U1",
                      "D1", None) for i in range(8)]
    log.record(answer("nothing found"), "cli")  # no source: of no site
    docs = list(log.answers_since("docs", 0))
    assert [a.id for a in docs] == ids[1::2] and [a.question for a in docs] == ["q1", "q3", "q5", "q7"]
    assert [a.flagged for a in docs] == [False, True, False, False] and docs[0].user_id == "U1"
    assert docs[0].answer.references[0].site == "docs" and docs[0].status == Status.ANSWERED
    assert len(list(log.answers_since(None, 0))) == 9
    assert list(log.answers_since(None, docs[-1].created_at + 3600)) == []


# -- votes and events ----------------------------------------------------------------------------

def test_a_later_vote_replaces_the_earlier_one_and_unknown_answers_refuse(log: ReferenceLog) -> None:
    answer_id = log.record(answer("q", ref(1, "a")), "slash_command", "U1")
    assert log.add_feedback(answer_id, "U2", 1) and log.add_feedback(answer_id, "U3", 1)
    assert log.add_feedback(answer_id, "U2", -1)
    assert log.feedback(answer_id) == {"up": 1, "down": 1}
    assert [(v.user_id, v.vote) for v in log.votes([answer_id])] == [("U3", 1), ("U2", -1)]
    assert log.add_feedback(answer_id + 100, "U2", 1) is False
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        log.add_feedback(answer_id, "U2", 0)
    assert log.votes([]) == []


def test_an_event_is_first_seen_once_by_every_log_on_the_database(where: str | Path, log: ReferenceLog) -> None:
    assert log.first_seen("Ev1") is True and log.first_seen("Ev1") is False
    with ReferenceLog(where) as other:  # another bot, or this one after a restart
        assert other.first_seen("Ev1") is False and other.first_seen("Ev2") is True
    assert log.first_seen("Ev2") is False


# -- labels --------------------------------------------------------------------------------------

def test_labels_are_stored_all_or_none_and_read_oldest_first(log: ReferenceLog) -> None:
    answer_id = log.record(answer("q", ref(1, "a")), "dm", "U1")
    ids = log.add_labels([label("How to upload?", DOCS + "docs.html#uploads", answer_id=answer_id, created_at=20.0),
                          label("Rate limits?", None, source=LabelSource.NONE_OF_THESE, created_at=10.0),
                          label("Rate limits?", DOCS + "docs.html#a", polarity=-1, weight=0.5,
                                source=LabelSource.SHOWN_REJECTED, created_at=10.0)])
    assert len(ids) == 3 and len(set(ids)) == 3
    stored = log.labels()
    assert [s.id for s in stored] == [ids[1], ids[2], ids[0]]  # by time, then as added
    assert stored[2].label == label("How to upload?", DOCS + "docs.html#uploads", answer_id=answer_id, created_at=20.0)
    assert stored[0].label.url is None and stored[1].label.polarity == -1 and stored[1].label.weight == 0.5

    (new,) = log.add_labels([label("Now?", DOCS + "docs.html#b", user="cli:ada", curator=True,
                                   source=LabelSource.CURATOR)])
    latest = log.labels(users=["cli:ada"])[0]
    assert latest.id == new and latest.label.curator and latest.label.created_at > 1e9  # set by the store

    with pytest.raises(IntegrityError):  # no such answer: the whole batch is refused
        log.add_labels([label("kept?", DOCS + "docs.html#c"), label("bad", DOCS + "docs.html#d", answer_id=999)])
    assert len(log.labels()) == 4 and log.add_labels([]) == []


def test_labels_are_selected_by_site_user_and_time(log: ReferenceLog) -> None:
    log.add_labels([label("a", DOCS + "x#1", "U1", "docs", created_at=1.0),
                    label("b", DOCS + "x#2", "U2", "docs", created_at=2.0),
                    label("c", DOCS + "y#1", "U1", "other", created_at=3.0),
                    label("d", None, None, "other", created_at=4.0)])
    assert [s.label.question for s in log.labels(site="docs")] == ["a", "b"]
    assert [s.label.question for s in log.labels(users=["U1"])] == ["a", "c"]
    assert [s.label.question for s in log.labels(site="other", users=["U1", "U2"])] == ["c"]
    assert [s.label.question for s in log.labels(since=2.5)] == ["c", "d"]
    assert log.labels(users=[]) == []


def test_labels_are_removed_by_site_user_or_id(log: ReferenceLog) -> None:
    ids = log.add_labels([label("a", "u#1", "U1", "docs"), label("b", "u#2", "U2", "docs"),
                          label("c", "u#3", "U1", "other"), label("d", "u#4", "U2", "other")])
    assert log.remove_labels(ids=[ids[0], 12345]) == 1
    assert log.remove_labels(site="other", users=["U2"]) == 1
    assert [s.label.question for s in log.labels()] == ["b", "c"]
    assert log.remove_labels(site="docs") == 1 and log.remove_labels() == 1 and log.labels() == []


def test_relabel_follows_renames_and_drops_labels_of_sections_gone(log: ReferenceLog) -> None:
    page = DOCS + "guide.html"
    log.add_labels([label("one", page + "#old"), label("two", page + "#older"), label("three", page + "#gone"),
                    label("four", page + "#kept"), label("five", None), label("six", page + "#moved-away"),
                    label("other site", page + "#old", site="other")])
    renamed = {page + "#older": page + "#old", page + "#old": page + "#new", page + "#moved-away": page + "#gone"}
    assert log.relabel("docs", renamed, {page + "#gone"}) == (2, 2)
    urls = {s.label.question: s.label.url for s in log.labels()}
    assert urls == {"one": page + "#new", "two": page + "#new", "four": page + "#kept", "five": None,
                    "other site": page + "#old"}
    assert log.relabel("docs", {page + "#a": page + "#b", page + "#b": page + "#a"}, ()) == (0, 0)  # a cycle ends


# -- personal data -------------------------------------------------------------------------------

def test_forgetting_a_user_deletes_their_data_and_keeps_the_links(log: ReferenceLog) -> None:
    asked = log.record(answer("my secret project zeta?", ref(1, "a", quote="Quoted text.")), "dm", "U1", "D1", "5.1")
    other = log.record(answer("public question", ref(1, "b")), "mention", "U2", "C1", "6.1")
    log.add_feedback(asked, "U2", 1), log.add_feedback(other, "U1", -1), log.add_feedback(other, "U3", 1)
    log.add_labels([label("my secret project zeta?", DOCS + "a#1", "U2", answer_id=asked),  # U2's, on U1's question
                    label("what U1 taught", DOCS + "a#2", "U1"), label("public question", DOCS + "b#1", "U3")])

    report = log.forget_users(["U1", "U1"])
    assert report.to_json() == {"users": ["U1"], "labels": 2, "votes": 1, "answers": 1}
    assert [s.label.question for s in log.labels()] == ["public question"]
    assert log.feedback(other) == {"up": 1, "down": 0} and log.feedback(asked) == {"up": 1, "down": 0}
    kept = log.get(asked)
    assert kept is not None and kept.question == "" and kept.answer == "" and kept.references[0].quote == "Quoted text."
    (logged, _) = list(log.answers_since(None, 0))
    assert (logged.user_id, logged.channel, logged.thread_ts, logged.question) == (None, None, None, "")
    assert log.thread_turns("D1", "5.1") == [] and (asked, DOCS + "docs.html#a") in log.iter_links()
    assert "zeta" not in json.dumps([a.answer.to_json() for a in log.answers_since(None, 0)])
    assert log.get(other) is not None and log.get(other).question == "public question"  # type: ignore[union-attr]
    assert log.forget_users([]).to_json() == {"users": [], "labels": 0, "votes": 0, "answers": 0}


# -- threads and processes ------------------------------------------------------------------------

def test_threads_write_at_once_without_losing_a_row(log: ReferenceLog) -> None:
    def work(n: int) -> None:
        for i in range(10):
            answer_id = log.record(answer(f"t{n} q{i}", ref(1, "a")), "mention", f"U{n}", "C1", f"{n}.{i}")
            log.add_feedback(answer_id, f"U{n}", 1)
            log.add_labels([label(f"t{n} q{i}", DOCS + "a#1", f"U{n}", answer_id=answer_id)])
            log.first_seen(f"Ev{n}-{i}")
            log.thread_turns("C1", f"{n}.{i}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        for done in [pool.submit(work, n) for n in range(8)]:
            done.result()  # raises what the thread raised
    logged = list(log.answers_since(None, 0))
    assert len(logged) == 80 and len({a.id for a in logged}) == 80 and len(log.labels()) == 80
    assert len(log.votes([a.id for a in logged])) == 80


def test_bots_opening_a_new_database_together_create_it_once(where: str | Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        opening = [pool.submit(ReferenceLog, where) for _ in range(4)]
        opened = [o.result() for o in opening]
    try:
        answer_id = opened[0].record(answer("q", ref(1, "a")), "cli")
        assert all(o.get(answer_id) is not None for o in opened)
        with opened[1].engine.connect() as conn:
            assert conn.execute(select(version.c.version)).scalars().all() == [SCHEMA_VERSION]
    finally:
        for o in opened:
            o.close()


# -- SQLite only ---------------------------------------------------------------------------------

# The tables of a version-1 log, as docbot wrote them before labels.
V1_SCHEMA = """
CREATE TABLE answers (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, origin TEXT NOT NULL,
    user_id TEXT, channel TEXT, thread_ts TEXT, question TEXT NOT NULL, status TEXT NOT NULL, answer_json TEXT NOT NULL);
CREATE INDEX answers_thread ON answers (channel, thread_ts);
CREATE TABLE links (answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE, n INTEGER NOT NULL,
    url TEXT NOT NULL, PRIMARY KEY (answer_id, n));
CREATE TABLE feedback (answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE, user_id TEXT NOT NULL,
    vote INTEGER NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (answer_id, user_id));
CREATE TABLE events (event_id TEXT PRIMARY KEY, seen_at REAL NOT NULL);
PRAGMA user_version = 1;
"""


def test_a_version_1_file_is_upgraded_in_place_and_keeps_its_answers(tmp_path: Path) -> None:
    path = tmp_path / "docbot.sqlite"
    old = answer("an old question", ref(1, "a", site="flask"))
    with sqlite3.connect(path) as db:
        db.executescript(V1_SCHEMA)
        db.execute("INSERT INTO answers VALUES (1, 5.0, 'dm', 'U1', 'D1', '1.1', ?, 'answered', ?)",
                   (old.question, json.dumps(old.to_json())))
        db.execute("INSERT INTO links VALUES (1, 1, ?)", (old.references[0].url,))
        db.execute("INSERT INTO feedback VALUES (1, 'U2', 1, 6.0)")
    db.close()

    with ReferenceLog(path) as log:
        assert log.get(1) == old and log.feedback(1) == {"up": 1, "down": 0}
        assert [a.site for a in log.answers_since("flask", 0)] == ["flask"]  # filled in from the stored answer
        assert log.add_labels([label("an old question", old.references[0].url, answer_id=1)]) == [1]
        assert log.record(answer("new", ref(1, "b")), "cli") == 2
    with ReferenceLog(path) as again:  # opened again: nothing to upgrade, nothing lost
        assert len(again.labels()) == 1 and again.thread_turns("D1", "1.1")[0].question == "an old question"
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM docbot_schema").fetchall() == [(SCHEMA_VERSION,)]
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_a_log_newer_than_this_docbot_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "docbot.sqlite"
    ReferenceLog(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE docbot_schema SET version = 99")
    db.close()
    with pytest.raises(ReferenceLogUnavailable, match=r"schema version 99, newer than this docbot's \d+ — upgrade"):
        ReferenceLog(path)


def test_sqlite_runs_in_wal_with_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    with ReferenceLog(tmp_path / "docbot.sqlite") as log, log.engine.connect() as conn:
        pragmas = [conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in
                   ("journal_mode", "foreign_keys", "busy_timeout")]
    assert pragmas == ["wal", 1, 10_000]


def test_a_writer_waits_for_a_lock_another_process_holds(tmp_path: Path) -> None:
    path = tmp_path / "docbot.sqlite"
    with ReferenceLog(path) as log:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process writing
        done = threading.Event()
        writer = threading.Thread(target=lambda: (log.record(answer("waits", ref(1, "a")), "cli"), done.set()))
        writer.start()
        assert not done.wait(0.5)  # held back by the lock, not failed
        holder.execute("COMMIT")
        holder.close()
        writer.join(timeout=30)
        assert done.is_set() and log.get(1) is not None


# -- PostgreSQL only -----------------------------------------------------------------------------

def test_a_unix_socket_url_reaches_the_same_database(postgres: Postgres) -> None:
    url = postgres.database()
    with ReferenceLog(url) as tcp:
        answer_id = tcp.record(answer("over tcp", ref(1, "a")), "cli")
    with ReferenceLog(postgres.socket_url(url.rsplit("/", 1)[1])) as socket:
        assert socket.get(answer_id) is not None


def test_an_unreachable_server_is_one_line_without_the_password(postgres: Postgres) -> None:
    url = f"postgresql://docbot:s3cret@127.0.0.1:{postgres.port}/no_such_database"
    with pytest.raises(ReferenceLogUnavailable) as raised:
        ReferenceLog(url, "DOCBOT_REFERENCE_LOG", Path("/srv/docbot"))
    message = str(raised.value)
    assert "s3cret" not in message and "\n" not in message
    assert message.startswith(f"Cannot use the reference log at postgresql://docbot:***@127.0.0.1:{postgres.port}/"
                              "no_such_database (DOCBOT_REFERENCE_LOG): ")
    assert 'role "docbot" does not exist' in message  # the server's reason
    assert message.endswith("or unset it to keep the log in SQLite in /srv/docbot/docbot.sqlite")


def test_a_restarted_server_costs_no_request(postgres_cluster: Cluster) -> None:
    with ReferenceLog(postgres_cluster.server.database()) as log:
        before = log.record(answer("before", ref(1, "a")), "cli")
        postgres_cluster.stop()
        with pytest.raises(OperationalError):  # the Slack bot answers meanwhile, without buttons
            log.record(answer("while down", ref(1, "a")), "cli")
        postgres_cluster.start()
        after = log.record(answer("after", ref(1, "a")), "cli")  # the pooled connection was checked and replaced
        assert [a.question for a in log.answers_since(None, 0)] == ["before", "after"] and after > before
