"""The schema of docbot.toml: every key docbot reads, validated on load by pydantic.

Strict: a string is never split into a list, ``"false"`` is no boolean, ``2.5`` no page count, and an
unknown key is refused with the nearest valid name. :func:`parse_config` turns a validation failure into
one line per error that names the table and the key; :func:`schema_keys` lists every key (the README's
configuration section is checked against it).
"""

from __future__ import annotations

import difflib
import logging
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from crawlers.errors import BadSiteName
from crawlers.model import SOURCE_TYPES
from crawlers.sitenames import check_site_name
from crawlers.urls import normalize, origin, strip_userinfo

log = logging.getLogger(__name__)

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
SLASH_COMMAND = r"^/[^\s/]+$"
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")  # reference_log: the URLs of a PostgreSQL database
POSTGRES_EXAMPLE = "postgresql://USER@HOST/DATABASE"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class AuthTable(_Table):
    """``auth = { username = "…", password_env = "NAME" }``: the password is read from $NAME, never from the file."""

    username: str = Field(min_length=1)
    password_env: str = Field(pattern=ENV_NAME)


class SiteTable(_Table):
    name: str
    url: str
    include: list[str] = []
    exclude: list[str] = []
    source_types: dict[str, str] = {}
    max_pages: int | None = Field(default=None, gt=0)
    concurrency: int | None = Field(default=None, gt=0)
    max_time: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    allow_origins: list[str] = []
    auth: AuthTable | None = None
    render: Literal["auto", "always", "never"] | None = None  # which pages are read in headless Chromium
    # ceilings of a rendered page's limits, which grow with the API description it loads
    render_max_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    render_max_bytes: int | None = Field(default=None, gt=0)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _site_name(value)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        try:
            normalize(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an http(s) URL with a host") from None
        bare = strip_userinfo(value)
        if bare != value:  # the warning must not repeat the secret
            log.warning("the url %s in docbot.toml carried credentials; they are neither sent nor stored. Use "
                        'auth = { username = "…", password_env = "NAME" } and export NAME', bare)
        return bare

    @field_validator("source_types")
    @classmethod
    def _types(cls, value: dict[str, str]) -> dict[str, str]:
        for glob, kind in value.items():
            if kind not in SOURCE_TYPES:
                raise ValueError(f"{kind!r} (for {glob!r}) is not a source type: use one of "
                                 + ", ".join(repr(t.value) for t in SOURCE_TYPES))
        return value

    @field_validator("allow_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        out = []
        for item in value:
            try:
                found = origin(item)
            except ValueError:
                found = ""
            if not found or normalize(item) != found + "/index.html" or strip_userinfo(item) != item:
                raise ValueError(f"{item!r} is not an origin: write scheme://host[:port], e.g. https://cdn.example.org")
            out.append(found)
        return out


class ValidatorTable(_Table):
    allow_hosts: list[str] = []
    text_fragments: bool = True  # links land on the quoted sentence (#id:~:text=…); false for tools that strip them
    fresh_directives: bool = True  # ask the docs server whether a cited page changed before giving it a directive
    fresh_directives_ttl: float = Field(default=300.0, gt=0, allow_inf_nan=False)  # seconds an answer holds


class SlackTable(_Table):
    command: str | None = Field(default=None, pattern=SLASH_COMMAND)
    public: bool | None = None
    site: str | None = None
    port: int | None = Field(default=None, ge=0, le=65535)
    host: str | None = Field(default=None, min_length=1)
    max_connections: int | None = Field(default=None, ge=1, le=10_000)  # HTTP mode: open at once
    request_timeout: float | None = Field(default=None, gt=0, le=60)  # HTTP mode: seconds for a request to arrive

    @field_validator("site")
    @classmethod
    def _site(cls, value: str | None) -> str | None:
        return None if value is None else _site_name(value)


class LlmTable(_Table):
    """``[llm]``: the chat model that phrases answers (the environment's DOCBOT_LLM_* beat these)."""

    model: str | None = Field(default=None, min_length=1)  # a spec of docbot.providers.CHAT, e.g. "llamacpp:smollm2"
    base_url: str | None = None  # its OpenAI-compatible server, e.g. "http://127.0.0.1:8080/v1"
    context: int | None = Field(default=None, ge=256, le=10_000_000)  # the model's context window in tokens
    max_tokens: int | None = Field(default=None, gt=0, le=100_000)  # the longest answer it may write
    budget_s: float | None = Field(default=None, gt=0, le=3600, allow_inf_nan=False)  # seconds before the fallback

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return _http_url(value, "http://127.0.0.1:8000/v1")


class ConfigFile(_Table):
    data_dir: str | None = Field(default=None, min_length=1)
    anchor_maps: str | None = Field(default=None, min_length=1)
    chroma_url: str | None = None
    reference_log: str | None = None  # a PostgreSQL URL; unset: SQLite in the data directory
    embeddings: str | None = Field(default=None, pattern=r"^(local|all-MiniLM-L6-v2|openai|openai:\S+)$")
    rerank_model: str | None = Field(default=None, min_length=1)
    rank_model: str | None = Field(default=None, min_length=1)  # "builtin", "off" or a model folder
    keep_reports: int | None = Field(default=None, gt=0)
    sites: list[SiteTable] = []
    validator: ValidatorTable = ValidatorTable()
    slack: SlackTable = SlackTable()
    llm: LlmTable = LlmTable()

    @field_validator("chroma_url")
    @classmethod
    def _chroma(cls, value: str | None) -> str | None:
        return _http_url(value, "http://127.0.0.1:8000")

    @field_validator("reference_log")
    @classmethod
    def _reference_log(cls, value: str | None) -> str | None:
        problem = None if value is None else postgres_url_problem(value)
        if problem:  # the URL is shown with its password hidden
            raise ValueError(f"{hide_password(str(value))!r} {problem} — write {POSTGRES_EXAMPLE}, or remove "
                             "reference_log to keep the log in SQLite in the data directory")
        return value

    @model_validator(mode="after")
    def _distinct_sites(self) -> ConfigFile:
        names = [s.name for s in self.sites]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"[[sites]] {', '.join(repr(n) for n in twice)} listed more than once")
        return self


def _http_url(value: str | None, example: str) -> str | None:
    if value is not None:
        try:
            normalize(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an http(s) URL, e.g. {example}") from None
    return value


def postgres_url_problem(url: str) -> str | None:
    """What makes ``url`` no PostgreSQL URL docbot can use (None when it is one)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (read to check it: a port that is not a number raises)
    except ValueError:
        return "is not a URL with a numeric port"
    if parts.scheme not in POSTGRES_SCHEMES:
        return "is not a PostgreSQL URL"
    return None


def hide_password(url: str) -> str:
    """``url`` with its password (``user:password@`` or ``?password=``) shown as ``***``: what messages may print."""
    try:
        parts = urlsplit(url)
        hidden = parts.password is not None
    except ValueError:
        return re.sub(r"(//[^/@:]*):[^/@]*@", r"\1:***@", url)
    if hidden:
        user, _, host = parts.netloc.rpartition("@")
        parts = parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{host}")
    return parts._replace(query=re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)).geturl()


def _site_name(value: str) -> str:
    try:
        return check_site_name(value)
    except BadSiteName as exc:
        raise ValueError(str(exc).replace(", e.g. --site flask", "")) from None


# Where each table's keys are defined: the location of a table, list indexes left out.
TABLES: dict[tuple[str, ...], type[BaseModel]] = {
    (): ConfigFile, ("sites",): SiteTable, ("sites", "auth"): AuthTable, ("validator",): ValidatorTable,
    ("slack",): SlackTable, ("llm",): LlmTable,
}


def schema_keys() -> set[str]:
    """Every key docbot.toml may hold, tables included, dotted: ``sites``, ``sites.auth``, ``sites.auth.username``."""
    return {".".join((*where, name)) for where, model in TABLES.items() for name in model.model_fields}


def parse_config(raw: dict[str, Any], path: Path) -> tuple[ConfigFile | None, list[str]]:
    """The validated file, or None and one line per error (``docbot.toml: [[sites]] 'flask' exclude must be …``)."""
    try:
        return ConfigFile.model_validate(raw), []
    except ValidationError as exc:
        return None, [f"{path}: {_describe(err, raw)}" for err in exc.errors()]


_PROBLEMS = {
    "list_type": "must be a list in [ ], e.g. [\"…\"]",
    "string_type": "must be a string in quotes",
    "bool_type": "must be true or false, without quotes",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "finite_number": "must be a finite number",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
    "missing": "is missing",
    "too_short": "must not be empty",
    "string_too_short": "must not be empty",
}


def _describe(err: Any, raw: dict[str, Any]) -> str:
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        table = tuple(p for p in loc[:-1] if isinstance(p, str))
        valid = TABLES.get(table, ConfigFile).model_fields
        near = difflib.get_close_matches(str(loc[-1]), list(valid), n=1, cutoff=0.6)
        hint = f" — did you mean {near[0]!r}?" if near else f" — valid keys: {', '.join(valid)}"
        where = _where(loc[:-1], raw)
        return f"unknown key {loc[-1]!r}" + (f" in {where}" if where else "") + hint
    if kind in ("value_error", "assertion_error"):
        problem = str(err["msg"]).removeprefix("Value error, ")
        return f"{_where(loc, raw) or 'docbot.toml'}: {problem}" if loc else problem
    if kind == "string_pattern_mismatch":
        problem = {"command": "must start with '/' and have no spaces, e.g. /docs",
                   "password_env": "must name an environment variable, e.g. FLASK_DOCS_PASSWORD",
                   "embeddings": "must be 'local' or 'openai:<model>'"}.get(str(loc[-1]), str(err["msg"]))
    elif kind in ("greater_than", "greater_than_equal", "less_than_equal"):
        problem = {"port": "must be between 0 and 65535", "max_connections": "must be between 1 and 10000",
                   "request_timeout": "must be above 0 and at most 60 (seconds)",
                   "context": "must be a number of tokens from 256, e.g. 2048",
                   "budget_s": "must be above 0 and at most 3600 (seconds)"}.get(str(loc[-1]), "must be above 0")
    elif loc == ("sites",):
        problem = "must be [[sites]] tables, one per site"
    elif kind == "literal_error":  # one of a few words, e.g. render
        problem = f"must be {err.get('ctx', {}).get('expected', 'one of its values')}"
    else:
        problem = _PROBLEMS.get(kind, str(err["msg"]))
    shown = "" if kind == "missing" or "auth" in loc else f", not {_short(err.get('input'))}"  # no secret echoed
    return f"{_where(loc, raw)} {problem}{shown}"


def _where(loc: tuple[Any, ...], raw: dict[str, Any]) -> str:
    """``[[sites]] 'flask' auth.password_env``, ``[slack] public``, ``data_dir``: a place in the file, as written."""
    if not loc:
        return ""
    head, rest = loc[0], list(loc[1:])
    if head == "sites" and rest and isinstance(rest[0], int):
        index = rest.pop(0)
        entries = raw.get("sites")
        entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        label = f"[[sites]] {name!r}" if isinstance(name, str) else f"[[sites]] #{index + 1}"
        return f"{label} {_dotted(rest)}".rstrip()
    if head in ("validator", "slack") and rest:
        return f"[{head}] {_dotted(rest)}"
    return _dotted([head, *rest])


def _dotted(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"
