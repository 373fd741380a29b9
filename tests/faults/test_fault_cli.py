"""The CLI's rule under bad input and broken surroundings: usage errors exit 2, other failures one line and exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from docbot.indexing.generations import Generations
from tests.faults.conftest import Cli
from tests.faults.hostile import Hostile, make_pages, serve


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("url", ["not a url", "ftp://docs.example/x", "http://127.0.0.1:99999/", "http://:80/"])
def test_a_bad_start_url_is_a_usage_error(cli: Cli, url: str) -> None:
    code, _, err = cli("crawl", url, "--site", "w")
    assert code == 2 and "not a start URL" in err and "Traceback" not in err


def test_a_site_name_given_as_the_url_is_told_to_use_site(cli: Cli) -> None:
    """`docbot crawl flask`: the user meant the site named flask in docbot.toml."""
    code, _, err = cli("crawl", "flask")
    assert code == 2 and "not a start URL" in err and "--site flask" in err


@pytest.mark.parametrize("args", [("--site", "../../x"), ("--site", "w", "--max-pages", "-1"),
                                  ("--site", "w", "--max-pages", "0"), ("--site", "w", "--max-time", "nan")])
def test_bad_options_are_usage_errors_and_write_nothing(cli: Cli, tmp_path: Path, hostile: Hostile,
                                                        args: tuple[str, ...]) -> None:
    code, _, err = cli("crawl", hostile.url, *args)
    assert code == 2 and "Traceback" not in err
    assert not (tmp_path / "maps").exists() and not (tmp_path.parent / "x.json").exists()
    assert sum(hostile.hits.values()) == 0


@pytest.mark.parametrize("command", ["ask", "index", "refresh"])
def test_a_path_as_site_name_is_refused_by_every_command(cli: Cli, command: str) -> None:
    code, _, err = cli(command, "--site", "../etc/passwd", *(["q"] if command == "ask" else []))
    assert code == 2 and "is not allowed" in err


@pytest.mark.usefixtures("hash_embeddings")
def test_ask_about_an_unknown_site_fails_on_stderr(cli: Cli, hostile: Hostile) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    code, out, err = cli("ask", "--site", "nosuch", "how do I install widget 3?")
    assert code == 1 and out == "" and one_line(err) and "'nosuch' is not indexed" in err
    code, out, _ = cli("ask", "--site", "w", "how do I install widget 3?")
    assert code == 0 and "Installing widget 3" in out


@pytest.mark.usefixtures("hash_embeddings")
def test_a_corrupt_anchor_map_is_an_error_not_not_covered(cli: Cli, hostile: Hostile, tmp_path: Path) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    current = Generations(tmp_path / "data", "w").current()
    assert current is not None
    path = current.map_file
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")  # cut short (disk fault, hand edit)
    code, out, err = cli("ask", "how do I install widget 3?")
    assert code == 1 and out == "" and one_line(err) and "map.json is not valid JSON" in err


def test_an_unwritable_data_dir_is_one_line(cli: Cli, hostile: Hostile, tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the data dir should be", encoding="utf-8")
    code, _, err = cli("crawl", hostile.url, "--site", "w")
    assert code == 1 and one_line(err) and "check that path" in err


def test_refresh_of_a_site_that_is_down_has_no_traceback(cli: Cli, tmp_path: Path) -> None:
    with serve(make_pages(3)) as gone:
        assert cli("crawl", gone.url, "--site", "w")[0] == 0
    code, _, err = cli("refresh", "--no-index")  # nothing listens on that port any more
    assert code == 1 and "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("docbot refresh: w:")] == [
        f"docbot refresh: w: crawl failed, previous map kept: Cannot reach {gone.url} — check the URL and that "
        "the site is up"]


@pytest.mark.parametrize("line", ["max_pages = -1", "max_pages = 2.5", "concurrency = 0", "max_time = -3",
                                  'max_time = "soon"'])
def test_bad_limits_in_docbot_toml_are_one_line(cli: Cli, tmp_path: Path, line: str) -> None:
    (tmp_path / "docbot.toml").write_text(f'[[sites]]\nname = "w"\nurl = "http://127.0.0.1:9/"\n{line}\n',
                                          encoding="utf-8")
    code, _, err = cli("crawl", "--site", "w")
    assert code == 2 and one_line(err) and f"[[sites]] 'w' {line.split()[0]} must be " in err


CHROMA_COMMANDS = [("ask", "how do I install widget 3?"), ("index",), ("refresh",),
                   ("report", "--questions", "q.jsonl"), ("slack", "--http")]


@pytest.mark.usefixtures("hash_embeddings")
@pytest.mark.parametrize("args", CHROMA_COMMANDS, ids=lambda a: a[0])
def test_an_unreachable_chroma_server_is_one_line_from_every_command(cli: Cli, hostile: Hostile, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     args: tuple[str, ...]) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "data").rglob("*"))
    (tmp_path / "q.jsonl").write_text("", encoding="utf-8")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("CHROMA_URL", "http://127.0.0.1:1")  # nothing listens on port 1
    code, _out, err = cli(*args)
    assert code == 1 and one_line(err), err
    assert "Cannot reach a Chroma server at http://127.0.0.1:1 (CHROMA_URL): Connection refused — " in err
    assert ("start one there with "
            "`chroma run --path DIR --port 1`, or unset it to use the embedded store in ") in err
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "data").rglob("*")) == before  # nothing lost
    monkeypatch.delenv("CHROMA_URL")
    assert cli("ask", "how do I install widget 3?")[0] == 0


@pytest.mark.usefixtures("hash_embeddings")
@pytest.mark.parametrize("command", ["ask", "index", "slack"])
@pytest.mark.parametrize("url", ["notaurl", "ftp://127.0.0.1:8000", "http://127.0.0.1:99999", "http://:80"])
def test_a_malformed_chroma_url_option_is_one_line(cli: Cli, monkeypatch: pytest.MonkeyPatch, command: str,
                                                   url: str) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    code, out, err = cli(command, "--chroma-url", url, *(["x"] if command == "ask" else []))
    assert code != 0 and one_line(err) and out == "", err
    assert f"--chroma-url {url!r} is not an http(s) URL" in err and "http://127.0.0.1:8000" in err


@pytest.mark.usefixtures("hash_embeddings")
def test_an_unreachable_chroma_url_option_names_the_option(cli: Cli) -> None:
    code, out, err = cli("ask", "--chroma-url", "http://127.0.0.1:1", "x")
    assert code == 1 and one_line(err) and out == "", err
    assert "Cannot reach a Chroma server at http://127.0.0.1:1 (--chroma-url): Connection refused — start one there " \
           "with `chroma run --path DIR --port 1`, or drop the option to use the embedded store in " in err


@pytest.mark.usefixtures("hash_embeddings")
def test_a_malformed_chroma_url_variable_stops_only_what_opens_the_index(cli: Cli, hostile: Hostile,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHROMA_URL", "notaurl")
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0  # the crawl never opens the index
    code, out, err = cli("index")
    assert code == 2 and one_line(err) and out == "", err
    assert "CHROMA_URL 'notaurl' is not an http(s) URL — pass the URL of a Chroma server such as " \
           "http://127.0.0.1:8000 (`chroma run --path DIR --port 8000` serves one), or unset it to use the embedded " \
           "store in " in err
