"""Settings: command-line options, environment variables and an optional docbot.toml.

Precedence: command line > environment > docbot.toml > defaults.

```toml
[[sites]]
name = "flask"
url = "http://127.0.0.1:8001/"
include = []                     # globs on the path under the start URL
exclude = ["_modules/*"]
source_types = { "api*" = "API reference", "tutorial/*" = "Tutorials" }

[validator]
allow_hosts = ["github.com"]     # links to these hosts are kept unchecked
text_fragments = true            # false: no text directives (#id:~:text=…) on links, none kept
```
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docbot.errors import ConfigError, SiteNotFound

DEFAULT_DATA_DIR = ".docbot"
DEFAULT_ANCHOR_MAPS = "anchor_maps"
CONFIG_FILE = "docbot.toml"


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


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    anchor_maps: Path = Path(DEFAULT_ANCHOR_MAPS)
    sites: tuple[SiteConfig, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    chroma_url: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    text_fragments: bool = True  # [validator] text_fragments: links land on the quoted sentence (#id:~:text=…)

    def site(self, name: str) -> SiteConfig:
        for site in self.sites:
            if site.name == name:
                return site
        known = ", ".join(s.name for s in self.sites) or "none"
        raise SiteNotFound(f"Site {name!r} is not in {CONFIG_FILE} (configured: {known})")

    def site_names(self) -> list[str]:
        """Sites known from the config file or from anchor maps on disk, sorted."""
        names = {s.name for s in self.sites}
        if self.anchor_maps.is_dir():
            names.update(p.stem for p in self.anchor_maps.glob("*.json"))
        return sorted(names)


def _site_from_toml(entry: dict[str, Any], path: Path) -> SiteConfig:
    try:
        name = str(entry["name"])
        url = str(entry["url"])
    except KeyError as exc:
        raise ConfigError(f"{path}: every [[sites]] entry needs {exc.args[0]!r}") from None
    rules = entry.get("source_types", {})
    if not isinstance(rules, dict):
        raise ConfigError(f"{path}: sites.{name}.source_types must be a table of glob = \"type\"")
    return SiteConfig(
        name=name,
        url=url,
        include=tuple(entry.get("include", ())),
        exclude=tuple(entry.get("exclude", ())),
        source_types=tuple((str(k), str(v)) for k, v in rules.items()),
        max_pages=_positive(entry, "max_pages", int, path),
        concurrency=_positive(entry, "concurrency", int, path),
        max_time=_positive(entry, "max_time", float, path),
    )


def _positive(entry: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    """``entry[key]`` when it is a number above 0 (ints for ``int``), None when absent."""
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)) \
            or not 0 < value < float("inf"):
        raise ConfigError(f"{path}: sites.{entry.get('name', '?')}.{key} must be a {'whole ' if kind is int else ''}"
                          f"number above 0, not {value!r}")
    return kind(value)


def load_settings(
    data_dir: str | None = None,
    anchor_maps: str | None = None,
    config_path: str | None = None,
    chroma_url: str | None = None,
) -> Settings:
    """Build settings from options, environment and docbot.toml."""
    path = Path(config_path or os.environ.get("DOCBOT_CONFIG", CONFIG_FILE))
    raw: dict[str, Any] = {}
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    elif config_path:
        raise ConfigError(f"Config file {path} does not exist")
    sites = tuple(_site_from_toml(e, path) for e in raw.get("sites", ()))
    validator = raw.get("validator", {})
    return Settings(
        data_dir=Path(data_dir or os.environ.get("DOCBOT_DATA_DIR") or raw.get("data_dir") or DEFAULT_DATA_DIR),
        anchor_maps=Path(
            anchor_maps or os.environ.get("DOCBOT_ANCHOR_MAPS") or raw.get("anchor_maps") or DEFAULT_ANCHOR_MAPS
        ),
        sites=sites,
        allow_hosts=tuple(validator.get("allow_hosts", ())),
        chroma_url=chroma_url or os.environ.get("CHROMA_URL") or raw.get("chroma_url"),
        raw=raw,
        text_fragments=_flag(validator, "text_fragments", True, path),
    )


def _flag(table: dict[str, Any], key: str, default: bool, path: Path) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: validator.{key} must be true or false, not {value!r}")
    return value
