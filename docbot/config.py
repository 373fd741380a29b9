"""Settings: command-line options, environment variables and an optional docbot.toml.

Precedence: command line > environment > docbot.toml > defaults. This module is the only one that reads
docbot's environment variables (:class:`Environment`); components receive values through :class:`Settings`.
docbot.toml is validated on load against :mod:`docbot.config_schema` (unknown keys and wrong types are refused,
one line per error, exit 2); paths in it are relative to the file's directory.

```toml
keep_reports = 20                # refreshes whose change reports are kept in <data-dir>/reports/
reference_log = "postgresql://docbot@db.example.org/docbot"   # shared by bot replicas; default: SQLite in data_dir

[[sites]]
name = "flask"
url = "http://127.0.0.1:8001/"
include = []                     # globs on the path under the start URL
exclude = ["_modules/*"]
source_types = { "api*" = "API reference", "tutorial/*" = "Tutorials" }
auth = { username = "docbot", password_env = "FLASK_DOCS_PASSWORD" }   # the password stays in the environment

[validator]
allow_hosts = ["github.com"]     # links to these hosts are kept unchecked
text_fragments = true            # false: no text directives (#id:~:text=…) on links, none kept
fresh_directives = true          # a conditional request per cited page (cached fresh_directives_ttl = 300 s):
                                 # a page changed since the crawl gets directives from its text as served now
```
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from crawlers.sitenames import map_sites
from crawlers.urls import normalize
from docbot.config_schema import (
    POSTGRES_EXAMPLE,
    ConfigFile,
    SiteTable,
    hide_password,
    parse_config,
    postgres_url_problem,
)
from docbot.errors import InvalidConfig, SiteNotFound

if TYPE_CHECKING:
    from crawlers.crawl import CrawlConfig

DEFAULT_DATA_DIR = ".docbot"
DEFAULT_ANCHOR_MAPS = "anchor_maps"
RANK_MODEL_WORDS = ("builtin", "off")  # rank_model values that are not folders
CONFIG_FILE = "docbot.toml"
KEEP_REPORTS = 20  # refreshes whose change reports stay in <data-dir>/reports/ (keep_reports, refresh --keep-reports)


@dataclass(frozen=True, slots=True)
class SiteAuth:
    """Basic credentials of a site: the user name, and the environment variable that holds the password."""

    username: str
    password_env: str


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """One documentation site docbot crawls and answers from."""

    name: str
    url: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    source_types: tuple[tuple[str, str], ...] = ()  # (glob, source type), first match wins
    max_pages: int | None = None
    concurrency: int | None = None
    max_time: float | None = None  # seconds for one whole crawl of the site
    allow_origins: tuple[str, ...] = ()  # other origins robots.txt, sitemaps and the start URL may lead to
    auth: SiteAuth | None = None
    render: str | None = None  # "auto" | "always" | "never"; None: the crawler's default ("auto")
    render_max_seconds: float | None = None  # the ceiling of a rendered page's scaled time limits
    render_max_bytes: int | None = None  # the ceiling of a rendered page's scaled size

    def credentials(self) -> tuple[str, str] | None:
        """(user, password) for the crawler, the password read from the environment now; None without ``auth``."""
        if self.auth is None:
            return None
        password = os.environ.get(self.auth.password_env)
        if not password:
            raise InvalidConfig(f"[[sites]] {self.name!r} auth.password_env names {self.auth.password_env}, which "
                                f"is not set — export {self.auth.password_env} with the site's password")
        return self.auth.username, password

    def crawl_config(self) -> CrawlConfig:
        """What the crawler takes for this site: its scope, its credentials and the limits it sets (the crawler's
        defaults for the others)."""
        from crawlers.crawl import CrawlConfig

        limits = {"max_pages": self.max_pages, "concurrency": self.concurrency, "max_time": self.max_time,
                  "render": self.render, "render_max_seconds": self.render_max_seconds,
                  "render_max_bytes": self.render_max_bytes}
        extra: dict[str, Any] = {k: v for k, v in limits.items() if v is not None}
        return CrawlConfig(site=self.name, start_url=self.url, include=self.include, exclude=self.exclude,
                           source_types=self.source_types, allow_origins=self.allow_origins, auth=self.credentials(),
                           **extra)


@dataclass(frozen=True, slots=True)
class SlackConfig:
    """docbot.toml's ``[slack]`` table; None where the file says nothing (the command line and defaults decide)."""

    command: str | None = None
    public: bool | None = None
    site: str | None = None
    port: int | None = None
    host: str | None = None
    max_connections: int | None = None  # HTTP mode: connections open at once
    request_timeout: float | None = None  # HTTP mode: seconds a request (headers and body) has to arrive


def default_model_cache() -> Path:
    """Where the local model's ONNX export is kept when no setting says: ``~/.cache/docbot``."""
    return Path.home() / ".cache" / "docbot"


@dataclass(frozen=True, slots=True)
class Environment:
    """docbot's environment variables, read once: ``Environment.read()`` (None where unset or empty)."""

    config: str | None = None  # DOCBOT_CONFIG
    data_dir: str | None = None  # DOCBOT_DATA_DIR
    anchor_maps: str | None = None  # DOCBOT_ANCHOR_MAPS
    chroma_url: str | None = None  # CHROMA_URL
    reference_log: str | None = field(default=None, repr=False)  # DOCBOT_REFERENCE_LOG (a URL may hold a password)
    embeddings: str | None = None  # DOCBOT_EMBEDDINGS
    rerank_model: str | None = None  # DOCBOT_RERANK_MODEL
    rank_model: str | None = None  # DOCBOT_RANK_MODEL
    local_backend: str | None = None  # DOCBOT_LOCAL_BACKEND
    model_cache: Path = field(default_factory=default_model_cache)  # DOCBOT_MODEL_CACHE, else $XDG_CACHE_HOME/docbot
    llm_model: str | None = None  # DOCBOT_LLM_MODEL
    llm_base_url: str | None = None  # DOCBOT_LLM_BASE_URL: the chat model's server only (OPENAI_BASE_URL: both)
    llm_context: str | None = None  # DOCBOT_LLM_CONTEXT: its context window in tokens
    llm_max_tokens: str | None = None  # DOCBOT_LLM_MAX_TOKENS
    llm_budget: str | None = None  # DOCBOT_LLM_BUDGET: seconds before the extractive answer goes out instead
    openai_base_url: str | None = None  # OPENAI_BASE_URL
    openai_api_key: str | None = field(default=None, repr=False)  # OPENAI_API_KEY
    slack_bot_token: str | None = field(default=None, repr=False)  # SLACK_BOT_TOKEN
    slack_app_token: str | None = field(default=None, repr=False)  # SLACK_APP_TOKEN (Socket Mode)
    slack_signing_secret: str | None = field(default=None, repr=False)  # SLACK_SIGNING_SECRET (HTTP mode)
    slack_api_url: str | None = None  # SLACK_API_URL (a local fake Web API in tests)
    port: str | None = None  # PORT (HTTP mode; checked by the slack command)
    github_step_summary: str | None = None  # GITHUB_STEP_SUMMARY: CI's job summary, where the report is appended

    @classmethod
    def read(cls, env: Mapping[str, str] | None = None) -> Environment:
        values = os.environ if env is None else env

        def get(name: str) -> str | None:
            return values.get(name) or None

        cache = get("DOCBOT_MODEL_CACHE")
        return cls(
            config=get("DOCBOT_CONFIG"), data_dir=get("DOCBOT_DATA_DIR"), anchor_maps=get("DOCBOT_ANCHOR_MAPS"),
            chroma_url=get("CHROMA_URL"), reference_log=get("DOCBOT_REFERENCE_LOG"),
            embeddings=get("DOCBOT_EMBEDDINGS"), rerank_model=get("DOCBOT_RERANK_MODEL"),
            rank_model=get("DOCBOT_RANK_MODEL"), local_backend=get("DOCBOT_LOCAL_BACKEND"),
            model_cache=Path(cache).expanduser() if cache
            else Path(get("XDG_CACHE_HOME") or Path.home() / ".cache") / "docbot",
            llm_model=get("DOCBOT_LLM_MODEL"), llm_base_url=get("DOCBOT_LLM_BASE_URL"),
            llm_context=get("DOCBOT_LLM_CONTEXT"), llm_max_tokens=get("DOCBOT_LLM_MAX_TOKENS"),
            llm_budget=get("DOCBOT_LLM_BUDGET"), openai_base_url=get("OPENAI_BASE_URL"),
            openai_api_key=get("OPENAI_API_KEY"), slack_bot_token=get("SLACK_BOT_TOKEN"),
            slack_app_token=get("SLACK_APP_TOKEN"), slack_signing_secret=get("SLACK_SIGNING_SECRET"),
            slack_api_url=get("SLACK_API_URL"), port=get("PORT"), github_step_summary=get("GITHUB_STEP_SUMMARY"),
        )


def offline_models() -> None:
    """Keep Hugging Face libraries offline and quiet; called before they are imported (they read these once)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    anchor_maps: Path = Path(DEFAULT_ANCHOR_MAPS)
    sites: tuple[SiteConfig, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    chroma_url: str | None = None
    chroma_origin: str = "--chroma-url"  # what set chroma_url: the option, CHROMA_URL or docbot.toml (for messages)
    reference_log: str | None = field(default=None, repr=False)  # a PostgreSQL URL: env DOCBOT_REFERENCE_LOG, else
    # docbot.toml's; None: SQLite in <data-dir>/docbot.sqlite
    reference_log_origin: str = "DOCBOT_REFERENCE_LOG"  # what set reference_log (for messages)
    embeddings: str | None = None  # a spec (docbot.providers.EMBEDDERS): env DOCBOT_EMBEDDINGS, else docbot.toml's
    rerank_model: str | None = None  # env DOCBOT_RERANK_MODEL, else docbot.toml's (docbot.providers.RERANKERS)
    rank_model: str | None = None  # "builtin", "off" or a folder: env DOCBOT_RANK_MODEL, else docbot.toml's
    llm: str | None = None  # the chat model's spec (docbot.providers.CHAT): env DOCBOT_LLM_MODEL, else [llm] model
    llm_base_url: str | None = None  # env DOCBOT_LLM_BASE_URL, else [llm] base_url; else openai_base_url serves chat
    llm_context: int | None = None  # env DOCBOT_LLM_CONTEXT, else [llm] context; None: asked of the server if it says
    llm_max_tokens: int | None = None  # env DOCBOT_LLM_MAX_TOKENS, else [llm] max_tokens
    llm_budget_s: float | None = None  # env DOCBOT_LLM_BUDGET, else [llm] budget_s: seconds the LLM may take in all
    openai_base_url: str | None = None  # env OPENAI_BASE_URL: any OpenAI-compatible server, for chat and embeddings
    openai_api_key: str | None = field(default=None, repr=False)  # env OPENAI_API_KEY, passed to clients as a value
    local_backend: str | None = None  # env DOCBOT_LOCAL_BACKEND: the local embedder's "onnx" (default) or "torch"
    model_cache: Path | None = None  # env DOCBOT_MODEL_CACHE: where the local model's ONNX export is kept
    slack: SlackConfig = field(default_factory=SlackConfig)
    slack_bot_token: str | None = field(default=None, repr=False)  # env SLACK_BOT_TOKEN
    slack_app_token: str | None = field(default=None, repr=False)  # env SLACK_APP_TOKEN (Socket Mode)
    slack_signing_secret: str | None = field(default=None, repr=False)  # env SLACK_SIGNING_SECRET (HTTP mode)
    slack_api_url: str | None = None  # env SLACK_API_URL (a local fake Web API in tests)
    port: str | None = None  # env PORT as given: only the slack command reads it, so only it says when it is no port
    github_step_summary: str | None = None  # env GITHUB_STEP_SUMMARY: CI's job summary, where the report is appended
    text_fragments: bool = True  # [validator] text_fragments: links land on the quoted sentence (#id:~:text=…)
    fresh_directives: bool = True  # [validator] fresh_directives: check a cited page is unchanged (docbot.freshness)
    fresh_directives_ttl: float = 300.0  # [validator] fresh_directives_ttl: seconds a page's check holds
    keep_reports: int = KEEP_REPORTS  # the newest refreshes' reports kept; older ones are deleted

    def site(self, name: str) -> SiteConfig:
        for site in self.sites:
            if site.name == name:
                return site
        known = ", ".join(s.name for s in self.sites) or "none"
        raise SiteNotFound(f"Site {name!r} is not in {CONFIG_FILE} (configured: {known})")

    def site_names(self) -> list[str]:
        """Sites known from the config file or from anchor maps on disk, sorted (stray files skipped)."""
        return sorted({s.name for s in self.sites} | set(map_sites(self.anchor_maps)))


def _site(table: SiteTable) -> SiteConfig:
    return SiteConfig(
        name=table.name, url=table.url, include=tuple(table.include), exclude=tuple(table.exclude),
        source_types=tuple(table.source_types.items()), max_pages=table.max_pages, concurrency=table.concurrency,
        max_time=table.max_time, allow_origins=tuple(table.allow_origins),
        auth=SiteAuth(table.auth.username, table.auth.password_env) if table.auth else None, render=table.render,
        render_max_seconds=table.render_max_seconds, render_max_bytes=table.render_max_bytes,
    )


def read_config(path: Path, required: bool) -> ConfigFile:
    """The validated docbot.toml at ``path`` (an empty one when it does not exist and is not ``required``)."""
    if not path.is_file():
        if required:
            raise InvalidConfig(f"Config file {path} does not exist — pass an existing file to --config")
        return ConfigFile()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InvalidConfig(f"{path} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise InvalidConfig(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    parsed, problems = parse_config(raw, path)
    if parsed is None:
        raise InvalidConfig("\n".join(problems))
    return parsed


def load_settings(
    data_dir: str | None = None,
    anchor_maps: str | None = None,
    config_path: str | None = None,
    chroma_url: str | None = None,
) -> Settings:
    """Build settings from options, environment and docbot.toml (paths in the file are relative to it)."""
    env = Environment.read()
    path = Path(config_path or env.config or CONFIG_FILE)
    file = read_config(path, required=bool(config_path))
    here = path.parent

    def beside(value: str | None) -> str | None:
        return None if value is None else str(here / Path(value).expanduser())

    slack = file.slack
    chroma = [(v, origin) for v, origin in ((chroma_url, "--chroma-url"), (env.chroma_url, "CHROMA_URL"),
                                            (file.chroma_url, f"chroma_url in {path}")) if v]
    if env.reference_log and (problem := postgres_url_problem(env.reference_log)):
        raise InvalidConfig(f"DOCBOT_REFERENCE_LOG={hide_password(env.reference_log)!r} {problem} — set it to "
                            f"{POSTGRES_EXAMPLE}, or unset it to keep the log in SQLite in the data directory")
    logs = [(v, origin) for v, origin in ((env.reference_log, "DOCBOT_REFERENCE_LOG"),
                                          (file.reference_log, f"reference_log in {path}")) if v]
    settings = Settings(
        data_dir=Path(data_dir or env.data_dir or beside(file.data_dir) or DEFAULT_DATA_DIR),
        anchor_maps=Path(anchor_maps or env.anchor_maps or beside(file.anchor_maps)
                         or DEFAULT_ANCHOR_MAPS),
        sites=tuple(_site(t) for t in file.sites),
        allow_hosts=tuple(file.validator.allow_hosts),
        chroma_url=chroma[0][0] if chroma else None,
        chroma_origin=chroma[0][1] if chroma else "--chroma-url",
        reference_log=logs[0][0] if logs else None,
        reference_log_origin=logs[0][1] if logs else "DOCBOT_REFERENCE_LOG",
        embeddings=env.embeddings or file.embeddings,
        rerank_model=env.rerank_model or beside(file.rerank_model),
        rank_model=env.rank_model or (file.rank_model if file.rank_model in (None, *RANK_MODEL_WORDS)
                                      else beside(file.rank_model)),
        llm=env.llm_model or file.llm.model,
        llm_base_url=env.llm_base_url or file.llm.base_url,
        llm_context=_number(env.llm_context, "DOCBOT_LLM_CONTEXT", int, "a number of tokens, e.g. 2048")
        or file.llm.context,
        llm_max_tokens=_number(env.llm_max_tokens, "DOCBOT_LLM_MAX_TOKENS", int, "a number of tokens, e.g. 300")
        or file.llm.max_tokens,
        llm_budget_s=_number(env.llm_budget, "DOCBOT_LLM_BUDGET", float, "seconds, e.g. 90") or file.llm.budget_s,
        openai_base_url=env.openai_base_url,
        openai_api_key=env.openai_api_key,
        local_backend=env.local_backend,
        model_cache=env.model_cache,
        slack=SlackConfig(slack.command, slack.public, slack.site, slack.port, slack.host, slack.max_connections,
                          slack.request_timeout),
        slack_bot_token=env.slack_bot_token, slack_app_token=env.slack_app_token,
        slack_signing_secret=env.slack_signing_secret, slack_api_url=env.slack_api_url, port=env.port,
        github_step_summary=env.github_step_summary,
        text_fragments=file.validator.text_fragments,
        fresh_directives=file.validator.fresh_directives,
        fresh_directives_ttl=file.validator.fresh_directives_ttl,
        keep_reports=file.keep_reports or KEEP_REPORTS,
    )
    if chroma_url:  # the option fails before any work; CHROMA_URL when the index is opened (crawl never reads it)
        chroma_endpoint(chroma_url, "--chroma-url", settings.data_dir)
    return settings


def _number(value: str | None, name: str, kind: type[int] | type[float], example: str) -> Any:
    """An environment variable read as a number above 0 (None when unset); :class:`InvalidConfig` otherwise."""
    if value is None:
        return None
    try:
        number = kind(value)
    except ValueError:
        number = 0
    if not number > 0 or number != number or number == float("inf"):
        raise InvalidConfig(f"{name}={value!r} is not {example} — set a number above 0, or unset it")
    return number


def _without_chroma(origin: str, data_dir: Path) -> str:
    """How to go back to the embedded store, for the setting ``origin``."""
    drop = {"--chroma-url": "drop the option", "CHROMA_URL": "unset it"}.get(origin, "remove it")
    return f"{drop} to use the embedded store in {Path(data_dir) / 'chroma'}"


def chroma_endpoint(url: str, origin: str, data_dir: Path) -> tuple[str, int, bool]:
    """(host, port, https) of the Chroma server at ``url``; raises :class:`InvalidConfig` when it is not an http(s)
    URL with a host."""
    try:
        normalize(url)
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 8000)
    except ValueError as exc:
        reason = "" if str(exc).startswith("not an http(s) URL") else f" ({exc})"
        raise InvalidConfig(f"{origin} {url!r} is not an http(s) URL{reason} — pass the URL of a Chroma server such "
                            f"as http://127.0.0.1:8000 (`chroma run --path DIR --port 8000` serves one), or "
                            f"{_without_chroma(origin, data_dir)}") from None
    return parts.hostname or "127.0.0.1", port, parts.scheme == "https"


def chroma_unreachable(url: str, origin: str, data_dir: Path, reason: str) -> str:
    """What to check when no Chroma server answers at ``url``."""
    port = chroma_endpoint(url, origin, data_dir)[1]
    return (f"Cannot reach a Chroma server at {url} ({origin}){reason and ': ' + reason} — start one there with "
            f"`chroma run --path DIR --port {port}`, or {_without_chroma(origin, data_dir)}")


def reference_log_unreachable(url: str, origin: str, data_dir: Path, reason: str) -> str:
    """What to check when the PostgreSQL server of the reference log at ``url`` cannot be used (password hidden)."""
    drop = "unset it" if origin == "DOCBOT_REFERENCE_LOG" else "remove it"
    return (f"Cannot use the reference log at {hide_password(url)} ({origin}){reason and ': ' + reason} — start "
            f"PostgreSQL there or correct the URL ({POSTGRES_EXAMPLE}), or {drop} to keep the log in SQLite in "
            f"{Path(data_dir) / 'docbot.sqlite'}")
