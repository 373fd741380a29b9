"""docbot.toml: one schema, validated on load; one line per error naming the key; exit 2; paths beside the file.

The CLI runs for real (``docbot.cli.main``) on real files; the README's configuration is checked against
the schema.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docbot.cli import main
from docbot.config import Environment, load_settings
from docbot.config_schema import schema_keys
from tests.faults.hostile import make_pages, serve

README = Path(__file__).resolve().parents[2] / "README.md"
SITE = '[[sites]]\nname = "w"\nurl = "http://127.0.0.1:9/"\n'


def docbot(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(["--config", str(tmp_path / "docbot.toml"), "--data-dir", str(tmp_path / "data"),
                     "--anchor-maps", str(tmp_path / "maps"), *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("toml", "line"), [
    ('sites = "x"', "sites must be [[sites]] tables, one per site, not 'x'"),
    ('[sites]\nname = "w"', "sites must be [[sites]] tables, one per site"),
    ('validator = "x"', "validator must be a table, not 'x'"),
    ("data_dir = 5", "data_dir must be a string in quotes, not 5"),
    ('[slack]\nport = "abc"', "[slack] port must be a whole number, not 'abc'"),
    ("[[sites]]\nname = \"w\"\nurl = 8080", "[[sites]] 'w' url must be a string in quotes, not 8080"),
    (SITE + 'exclude = "_modules/*"', "[[sites]] 'w' exclude must be a list in [ ]"),
    (SITE + 'include = "tutorial/*"', "[[sites]] 'w' include must be a list in [ ]"),
    ('[validator]\nallow_hosts = "github.com"', "[validator] allow_hosts must be a list in [ ]"),
    ('[slack]\npublic = "false"', "[slack] public must be true or false, without quotes, not 'false'"),
    (SITE + 'source_types = { "api.html" = "API" }', "[[sites]] 'w' source_types: 'API' (for 'api.html') is not a "
                                                     "source type: use one of 'API reference', 'Guides'"),
    (SITE + 'exlude = ["x/*"]', "unknown key 'exlude' in [[sites]] 'w' — did you mean 'exclude'?"),
    (SITE + "max_page = 5", "unknown key 'max_page' in [[sites]] 'w' — did you mean 'max_pages'?"),
    ('[validatr]\nallow_hosts = ["github.com"]', "unknown key 'validatr' — did you mean 'validator'?"),
    (SITE + "max_pages = -1", "[[sites]] 'w' max_pages must be above 0, not -1"),
    (SITE + "max_pages = 2.5", "[[sites]] 'w' max_pages must be a whole number, not 2.5"),
    (SITE + 'max_time = "soon"', "[[sites]] 'w' max_time must be a number, not 'soon'"),
    (SITE + "allow_origins = [\"https://cdn.example.org/sitemaps/\"]", "is not an origin"),
    (SITE + 'render = "sometimes"', "[[sites]] 'w' render must be 'auto', 'always' or 'never', not 'sometimes'"),
    (SITE + "render = true", "[[sites]] 'w' render must be 'auto', 'always' or 'never', not True"),
    (SITE + 'auth = { username = "bot", password_env = "W_PW", password = "hunter2" }',
     "unknown key 'password' in [[sites]] 'w' auth — did you mean 'password_env'?"),
    (SITE + 'auth = "bot:hunter2"', "[[sites]] 'w' auth must be a table\n"),  # the value is not repeated
    ('[[sites]]\nname = "../x"\nurl = "http://127.0.0.1:9/"', "[[sites]] '../x' name: Site name '../x' is not allowed"),
    (SITE + SITE, "[[sites]] 'w' listed more than once"),
    ('[slack]\ncommand = "docs"', "[slack] command must start with '/' and have no spaces, e.g. /docs, not 'docs'"),
    ("[slack]\nmax_connections = 0", "[slack] max_connections must be between 1 and 10000, not 0"),
    ("[slack]\nrequest_timeout = 600", "[slack] request_timeout must be above 0 and at most 60 (seconds), not 600"),
    ('[slack]\nrequest_timeout = "5s"', "[slack] request_timeout must be a number, not '5s'"),
])
def test_a_config_error_is_one_line_naming_the_key_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             toml: str, line: str) -> None:
    (tmp_path / "docbot.toml").write_text(toml + "\n", encoding="utf-8")
    for command in (("crawl", "--site", "w"), ("index",), ("ask", "hello?"), ("refresh",), ("slack", "--print-manifest")):
        code, out, err = docbot(tmp_path, capsys, *command)
        assert code == 2 and out == "" and "Traceback" not in err, (command, err)
        assert err.startswith(f"docbot: {tmp_path / 'docbot.toml'}: ") and line in err, err
        assert len(err.splitlines()) == 1 and "hunter2" not in err, err


def test_every_error_gets_its_own_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docbot.toml").write_text(SITE + 'exclude = "a"\nmax_pages = 0\n[slack]\npublic = "yes"\n',
                                          encoding="utf-8")
    code, _, err = docbot(tmp_path, capsys, "index")
    assert code == 2 and len(err.splitlines()) == 3
    assert all(line.startswith("docbot: ") for line in err.splitlines())


def test_a_bad_source_type_is_refused_before_anything_is_crawled(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with serve(make_pages(3)) as site:
        (tmp_path / "docbot.toml").write_text(f'[[sites]]\nname = "w"\nurl = "{site.url}"\n'
                                              'source_types = { "p*" = "Guide" }\n', encoding="utf-8")
        code, _, err = docbot(tmp_path, capsys, "crawl", "--site", "w")
        assert code == 2 and "'Guide' (for 'p*') is not a source type" in err
        assert sum(site.hits.values()) == 0 and not (tmp_path / "maps").exists()


def test_paths_in_the_file_are_relative_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DOCBOT_DATA_DIR", "DOCBOT_ANCHOR_MAPS", "DOCBOT_CONFIG", "DOCBOT_RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "docbot.toml").write_text('data_dir = "state"\nanchor_maps = "maps"\nrerank_model = "models/m"\n'
                                      '[slack]\npublic = true\nport = 0\nmax_connections = 64\n'
                                      'request_timeout = 2\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    settings = load_settings(config_path=str(conf / "docbot.toml"))
    assert settings.data_dir == conf / "state" and settings.anchor_maps == conf / "maps"
    assert settings.rerank_model == str(conf / "models" / "m")
    assert settings.slack.public is True and settings.slack.port == 0
    assert settings.slack.max_connections == 64 and settings.slack.request_timeout == 2
    assert load_settings(data_dir="here", config_path=str(conf / "docbot.toml")).data_dir == Path("here")


def test_the_environment_is_read_here_once_and_beats_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docbot.toml").write_text('embeddings = "local"\nrerank_model = "m"\nrank_model = "off"\n')
    for name, value in (("DOCBOT_EMBEDDINGS", "openai:text-embedding-3-large"), ("DOCBOT_RERANK_MODEL", "/r"),
                        ("DOCBOT_RANK_MODEL", "builtin"), ("DOCBOT_LLM_MODEL", "ollama:llama3.1:8b"),
                        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"), ("OPENAI_API_KEY", "sk-secret"),
                        ("DOCBOT_LOCAL_BACKEND", "torch"), ("DOCBOT_MODEL_CACHE", str(tmp_path / "cache")),
                        ("SLACK_BOT_TOKEN", "xoxb-secret"), ("SLACK_APP_TOKEN", "xapp-secret"),
                        ("SLACK_SIGNING_SECRET", "sign-secret"), ("SLACK_API_URL", "http://127.0.0.1:9/api/"),
                        ("PORT", "not a port"), ("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))):
        monkeypatch.setenv(name, value)
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert (settings.embeddings, settings.rerank_model, settings.rank_model, settings.llm) == (
        "openai:text-embedding-3-large", "/r", "builtin", "ollama:llama3.1:8b")
    assert (settings.openai_base_url, settings.openai_api_key) == ("http://127.0.0.1:9/v1", "sk-secret")
    assert settings.local_backend == "torch" and settings.model_cache == tmp_path / "cache"
    assert (settings.slack_bot_token, settings.slack_app_token, settings.slack_signing_secret, settings.slack_api_url) == (
        "xoxb-secret", "xapp-secret", "sign-secret", "http://127.0.0.1:9/api/")
    assert settings.port == "not a port"  # loaded as given: only `docbot slack` says it is no port number
    assert settings.github_step_summary == str(tmp_path / "summary.md")
    assert not any(secret in repr(settings) for secret in ("sk-secret", "xoxb-secret", "xapp-secret", "sign-secret"))
    env = Environment.read({"XDG_CACHE_HOME": "/xdg", "SLACK_BOT_TOKEN": "xoxb-1", "PORT": ""})
    assert env.model_cache == Path("/xdg/docbot") and env.port is None and "xoxb-1" not in repr(env)


def test_credentials_in_a_configured_url_are_dropped_with_a_warning(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "docbot.toml").write_text('[[sites]]\nname = "w"\nurl = "https://bot:hunter2@docs.example.org/"\n',
                                          encoding="utf-8")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert settings.sites[0].url == "https://docs.example.org/"
    assert "credentials" in caplog.text and "password_env" in caplog.text and "hunter2" not in caplog.text


def test_a_password_variable_that_is_not_set_is_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("W_DOCS_PASSWORD", raising=False)
    (tmp_path / "docbot.toml").write_text(SITE + 'auth = { username = "bot", password_env = "W_DOCS_PASSWORD" }\n',
                                          encoding="utf-8")
    code, _, err = docbot(tmp_path, capsys, "crawl", "--site", "w")
    assert code == 2 and "W_DOCS_PASSWORD" in err and "is not set" in err and len(err.splitlines()) == 1


def readme_keys() -> set[str]:
    """Keys the README shows as ``key =`` in its toml blocks (commented-out ones too), dotted by their table."""
    keys = set()
    for block in re.findall(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        table: tuple[str, ...] = ()
        for line in block.splitlines():
            header = re.match(r"\s*\[\[?([a-z_]+)\]\]?", line)
            if header:
                table = (header.group(1),)
                keys.add(header.group(1))
                continue
            line = re.sub(r'"[^"]*"', '""', line.lstrip("# "))  # quoted globs and values are no keys
            for inline, inner in re.findall(r"([a-z_]+)\s*=\s*\{([^}]*)\}", line):
                keys.add(".".join((*table, inline)))
                keys.update(".".join((*table, inline, k)) for k in re.findall(r"([a-z_]+)\s*=", inner))
            line = re.sub(r"\{[^}]*\}", "{}", line)
            keys.update(".".join((*table, k)) for k in re.findall(r"([a-z_]+)\s*=", line))
    return keys


def test_the_readme_documents_every_key_of_the_schema_and_no_other() -> None:
    keys, schema = readme_keys(), schema_keys()
    assert not schema - keys, f"keys missing from the README's configuration: {sorted(schema - keys)}"
    assert not keys - schema, f"the README names keys docbot.toml does not have: {sorted(keys - schema)}"


def test_the_slack_server_limits_come_from_the_file_or_the_defaults(tmp_path: Path) -> None:
    import argparse

    from docbot.commands.slack import slack_options
    from docbot.slack.server import MAX_CONNECTIONS, REQUEST_TIMEOUT_S

    args = argparse.Namespace(command=None, public=None, site=None, port=None, host=None)
    (tmp_path / "docbot.toml").write_text("[slack]\nmax_connections = 64\nrequest_timeout = 2.5\n", encoding="utf-8")
    opts = slack_options(args, load_settings(config_path=str(tmp_path / "docbot.toml")))
    assert opts["max_connections"] == 64 and opts["request_timeout"] == 2.5
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    opts = slack_options(args, load_settings(config_path=str(tmp_path / "docbot.toml")))
    assert opts["max_connections"] == MAX_CONNECTIONS and opts["request_timeout"] == REQUEST_TIMEOUT_S


def test_the_llm_settings_come_from_llm_in_the_file_and_the_environment_beats_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DOCBOT_LLM_MODEL", "DOCBOT_LLM_BASE_URL", "DOCBOT_LLM_CONTEXT", "DOCBOT_LLM_MAX_TOKENS",
                 "DOCBOT_LLM_BUDGET"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "docbot.toml").write_text('[llm]\nmodel = "llamacpp:smollm2"\nbase_url = "http://127.0.0.1:8000/v1"\n'
                                          'context = 2048\nmax_tokens = 300\nbudget_s = 90\n', encoding="utf-8")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert (settings.llm, settings.llm_base_url, settings.llm_context, settings.llm_max_tokens,
            settings.llm_budget_s) == ("llamacpp:smollm2", "http://127.0.0.1:8000/v1", 2048, 300, 90)
    monkeypatch.setenv("DOCBOT_LLM_CONTEXT", "4096")
    monkeypatch.setenv("DOCBOT_LLM_BUDGET", "2.5")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    assert (settings.llm_context, settings.llm_budget_s) == (4096, 2.5)


@pytest.mark.parametrize(("name", "value"), [("DOCBOT_LLM_CONTEXT", "2k"), ("DOCBOT_LLM_BUDGET", "-1"),
                                             ("DOCBOT_LLM_MAX_TOKENS", "0"), ("DOCBOT_LLM_BUDGET", "nan")])
def test_a_bad_llm_number_in_the_environment_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    code, out, err = docbot(tmp_path, capsys, "ask", "hello?")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"{name}={value!r} is not" in err and "set a number above 0, or unset it" in err


def test_render_comes_from_the_command_line_over_the_file_over_the_default(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from docbot.commands.crawl import config_from_args, register

    monkeypatch.delenv("DOCBOT_CONFIG", raising=False)
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    (tmp_path / "docbot.toml").write_text(SITE + 'render = "always"\n[[sites]]\nname = "v"\nurl = "http://127.0.0.1:9/"\n',
                                          encoding="utf-8")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    modes = [config_from_args(parser.parse_args(["crawl", "--site", site, *extra]), settings).render
             for site, extra in (("w", []), ("w", ["--render", "never"]), ("v", []), ("v", ["--render", "always"]))]
    assert modes == ["always", "never", "auto", "always"]


def test_a_sites_render_ceilings_reach_its_crawl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from crawlers.fetch.limits import CEILING_BYTES, CEILING_S

    monkeypatch.delenv("DOCBOT_CONFIG", raising=False)
    (tmp_path / "docbot.toml").write_text(SITE + "render_max_seconds = 1800\nrender_max_bytes = 200000000\n"
                                          '[[sites]]\nname = "v"\nurl = "http://127.0.0.1:9/"\n', encoding="utf-8")
    settings = load_settings(config_path=str(tmp_path / "docbot.toml"))
    raised, default = (settings.site(name).crawl_config() for name in ("w", "v"))
    assert (raised.render_max_seconds, raised.render_max_bytes) == (1800, 200_000_000)
    assert (default.render_max_seconds, default.render_max_bytes) == (CEILING_S, CEILING_BYTES)
