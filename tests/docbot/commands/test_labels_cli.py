"""`docbot labels list|export|remove` run for real (``docbot.cli.main``) on SQLite and on PostgreSQL, and the
``reference_log`` setting's errors: a URL that is not PostgreSQL's, a server that does not answer."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from docbot.answer import Answer, Reference, Status
from docbot.cli import main
from docbot.labels import Label, LabelSource
from docbot.reference_log import ReferenceLog
from tests.postgres import Postgres

PAGE = "http://d.test/guide.html"


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("DOCBOT_REFERENCE_LOG", "DOCBOT_CONFIG", "DOCBOT_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def docbot(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    config = tmp_path / "docbot.toml"
    if not config.exists():
        config.write_text("", encoding="utf-8")
    try:
        code = main(["--config", str(config), "--data-dir", str(tmp_path / "data"), *args])
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=["sqlite", "postgresql"])
def logged(request: pytest.FixtureRequest, tmp_path: Path, env: pytest.MonkeyPatch) -> ReferenceLog:
    """A log holding two users' answers, votes and labels: SQLite in the data dir, or PostgreSQL named in
    docbot.toml."""
    if request.param == "sqlite":
        log = ReferenceLog.in_data_dir(tmp_path / "data")
    else:
        url = request.getfixturevalue("postgres").database()
        (tmp_path / "docbot.toml").write_text(f'reference_log = "{url}"\n', encoding="utf-8")
        log = ReferenceLog(url)
    ref = Reference(1, PAGE + "#uploads", "Uploads", ("Guide", "Uploads"), "Guides", "flask")
    asked = log.record(Answer("How do I limit uploads?", Status.ANSWERED, "Set it [1].", references=(ref,)), "dm",
                       "U1", "D1", "1.1")
    log.add_feedback(asked, "U2", 1)
    log.add_labels([
        Label("flask", "How do I limit uploads?", PAGE + "#uploads", 1, LabelSource.VOTE_UP, "U2", "D1", asked,
              created_at=1_800_000_000.0),
        Label("flask", "Rate limiting per route?", None, 1, LabelSource.NONE_OF_THESE, "U1", created_at=1_800_000_060.0),
        Label("requests", "Retries on timeouts?", PAGE + "#retries", -1, LabelSource.SHOWN_REJECTED, "U3",
              weight=0.5, created_at=1_800_000_120.0),
    ])
    request.addfinalizer(log.close)
    return log


def test_list_prints_a_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      logged: ReferenceLog) -> None:
    code, out, _ = docbot(tmp_path, capsys, "labels", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4 and lines[0].split()[:3] == ["id", "given", "site"]
    assert "2027-01-15 08:00" in lines[1] and "How do I limit uploads?" in lines[1] and lines[1].endswith("#uploads")
    assert "(not covered)" in lines[2] and " - " in lines[3]

    code, out, _ = docbot(tmp_path, capsys, "labels", "list", "--site", "flask", "--json")
    rows = json.loads(out)
    assert code == 0 and [r["question"] for r in rows] == ["How do I limit uploads?", "Rate limiting per route?"]
    assert rows[0] | {"id": 0} == {
        "id": 0, "question": "How do I limit uploads?", "url": PAGE + "#uploads", "polarity": 1, "site": "flask",
        "user": "U2", "source": "vote_up", "weight": 1.0, "created_at": "2027-01-15T08:00:00Z", "channel": "D1",
        "answer_id": 1, "curator": False}
    code, out, _ = docbot(tmp_path, capsys, "labels", "list", "--user", "U1", "U3", "--json")
    assert [r["user"] for r in json.loads(out)] == ["U1", "U3"]


def test_export_writes_json_lines_a_curator_file_takes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       logged: ReferenceLog) -> None:
    code, out, _ = docbot(tmp_path, capsys, "labels", "export")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 3
    assert {tuple(r) for r in rows} == {("question", "url", "polarity", "site", "user", "source", "weight",
                                         "created_at")}
    assert rows[1]["url"] is None and rows[2]["polarity"] == -1 and rows[2]["weight"] == 0.5


def test_remove_by_site_or_id_and_forget_a_user(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                logged: ReferenceLog) -> None:
    ids = [s.id for s in logged.labels()]
    code, out, _ = docbot(tmp_path, capsys, "labels", "remove", "--id", str(ids[2]))
    assert (code, out) == (0, "removed 1 label(s)\n")

    code, out, _ = docbot(tmp_path, capsys, "labels", "remove", "--user", "U1", "--json")
    assert code == 0 and json.loads(out) == {"users": ["U1"], "labels": 2, "votes": 0, "answers": 1}
    assert logged.labels() == [] and logged.feedback(1) == {"up": 1, "down": 0}  # U2's vote stays
    assert logged.get(1).question == ""  # type: ignore[union-attr]

    logged.add_labels([Label("flask", "q", PAGE + "#a", 1, LabelSource.CURATOR, "cli:ada", curator=True)])
    code, out, _ = docbot(tmp_path, capsys, "labels", "remove", "--site", "flask")
    assert (code, out) == (0, "removed 1 label(s)\n") and logged.labels() == []

    code, out, _ = docbot(tmp_path, capsys, "labels", "remove", "--user", "U2")
    assert code == 0 and out.startswith("forgot U2: 0 label(s) and 1 vote(s) deleted; 0 answer(s)")


@pytest.mark.parametrize("args", [(), ("--user", "U1", "--site", "flask"), ("--user", "U1", "--id", "1")])
def test_remove_without_a_clear_selection_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           env: pytest.MonkeyPatch, args: tuple[str, ...]) -> None:
    ReferenceLog.in_data_dir(tmp_path / "data").add_labels([Label("flask", "q", None, 1, LabelSource.PICK, "U1")])
    code, out, err = docbot(tmp_path, capsys, "labels", "remove", *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert len(ReferenceLog.in_data_dir(tmp_path / "data").labels()) == 1


def test_without_a_log_there_are_no_labels_and_no_file_is_made(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                env: pytest.MonkeyPatch) -> None:
    assert docbot(tmp_path, capsys, "labels", "list", "--json")[:2] == (0, "[]\n")
    assert docbot(tmp_path, capsys, "labels", "export")[:2] == (0, "")
    assert docbot(tmp_path, capsys, "labels", "remove", "--all")[:2] == (0, "removed 0 label(s)\n")
    assert not (tmp_path / "data").exists()


# -- the setting's errors ----------------------------------------------------------------------------------------

def test_a_url_that_is_not_postgresql_is_one_line_without_its_password(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], env: pytest.MonkeyPatch) -> None:
    config = tmp_path / "docbot.toml"
    config.write_text('reference_log = "mysql://docbot:s3cret@db.example.org/docbot"\n', encoding="utf-8")
    code, out, err = docbot(tmp_path, capsys, "labels", "list")
    assert code == 2 and out == "" and err == (
        f"docbot: {config}: reference_log: 'mysql://docbot:***@db.example.org/docbot' is not a PostgreSQL URL — "
        "write postgresql://USER@HOST/DATABASE, or remove reference_log to keep the log in SQLite in the data "
        "directory\n")

    env.setenv("DOCBOT_REFERENCE_LOG", "postgresql://docbot:s3cret@db.example.org:port/docbot")
    config.write_text("", encoding="utf-8")
    code, out, err = docbot(tmp_path, capsys, "labels", "list")
    assert code == 2 and "s3cret" not in err and err == (
        "docbot: DOCBOT_REFERENCE_LOG='postgresql://docbot:***@db.example.org:port/docbot' is not a URL with a "
        "numeric port — set it to postgresql://USER@HOST/DATABASE, or unset it to keep the log in SQLite in the "
        "data directory\n")


def test_a_server_that_does_not_answer_is_named_with_where_it_was_set(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], env: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://docbot:s3cret@127.0.0.1:{port}/docbot"
    config = tmp_path / "docbot.toml"
    config.write_text(f'reference_log = "{url}"\n', encoding="utf-8")
    code, out, err = docbot(tmp_path, capsys, "labels", "list")
    hidden = url.replace("s3cret", "***")
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and "s3cret" not in err
    assert err.startswith(f"docbot: Cannot use the reference log at {hidden} (reference_log in {config}): ")
    assert "Connection refused" in err and "remove it to keep the log in SQLite in" in err

    env.setenv("DOCBOT_REFERENCE_LOG", url)  # the environment beats the file, and says so
    code, _, err = docbot(tmp_path, capsys, "labels", "list")
    assert code == 1 and f"{hidden} (DOCBOT_REFERENCE_LOG): " in err and "unset it" in err


def test_the_environment_names_the_log_docbot_toml_would(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          env: pytest.MonkeyPatch, postgres: Postgres) -> None:
    url = postgres.database()
    with ReferenceLog(url) as log:
        log.add_labels([Label("flask", "from the environment", None, 1, LabelSource.PICK, "U1")])
    env.setenv("DOCBOT_REFERENCE_LOG", url)
    code, out, _ = docbot(tmp_path, capsys, "labels", "list", "--json")
    assert code == 0 and [r["question"] for r in json.loads(out)] == ["from the environment"]
    assert not (tmp_path / "data").exists()  # nothing in SQLite


def test_the_password_stays_out_of_the_settings_repr(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    from docbot.config import Environment, load_settings

    url = "postgresql://docbot:s3cret@db.example.org/docbot"
    (tmp_path / "docbot.toml").write_text('reference_log = "postgresql://file@db.example.org/docbot"\n',
                                          encoding="utf-8")
    env.setenv("DOCBOT_REFERENCE_LOG", url)
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert (settings.reference_log, settings.reference_log_origin) == (url, "DOCBOT_REFERENCE_LOG")
    assert "s3cret" not in repr(settings) and "s3cret" not in repr(Environment.read())
    env.delenv("DOCBOT_REFERENCE_LOG")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert settings.reference_log_origin == f"reference_log in {tmp_path / 'docbot.toml'}"
