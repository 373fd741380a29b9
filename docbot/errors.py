"""Errors of the docbot package.

DocbotError
├── ConfigError        docbot.toml or an option is invalid
│   └── InvalidConfig  docbot.toml breaks its schema (or names an unset variable): a usage error, exit 2
├── SiteNotFound       a site is named that is not configured or not crawled
├── IndexMissing       no index for a site: run `docbot index`
├── StoreUnreachable   the Chroma server named by --chroma-url, CHROMA_URL or docbot.toml does not answer
├── ReferenceLogUnavailable  the reference log's database cannot be opened (PostgreSQL down, a newer schema)
├── EmbeddingMismatch  the index was built with another embedding model
├── SiteBusy           another docbot process is writing the site (crawl, index, refresh)
├── WriteFailed        a file of a new generation could not be written; the previous one stays in force
└── GenerationError    the LLM failed (the pipeline falls back to extractive)

Messages say what to do next, e.g. "No index for site 'flask' in .docbot/ —
run `docbot index --site flask`".
"""

from __future__ import annotations


class DocbotError(Exception):
    """Base class for docbot errors; the message says what to do next."""

    exit_code = 1  # what the CLI exits with


class ConfigError(DocbotError):
    """docbot.toml or a command-line option is invalid."""


class InvalidConfig(ConfigError):
    """docbot.toml does not match its schema, or names an environment variable that is not set.

    A usage error: the CLI prints one line per problem (``str(exc)`` holds one a line) and exits 2.
    """

    exit_code = 2


class UsageError(DocbotError):
    """The command line leaves a choice docbot cannot make (which site to crawl): exit 2, as argparse's errors."""

    exit_code = 2


class SiteNotFound(DocbotError):
    """A site was named that is not configured or has no anchor map."""


class IndexMissing(DocbotError):
    """No index exists for a site."""


class StoreUnreachable(DocbotError):
    """The Chroma server the settings name cannot be reached (nothing listens there, or it is not Chroma)."""


class ReferenceLogUnavailable(DocbotError):
    """The reference log cannot be opened: its PostgreSQL server does not answer or refuses docbot, its SQLite file
    cannot be read or written, or a newer docbot wrote it."""


class EmbeddingMismatch(DocbotError):
    """The index was built with a different embedding model than the one asked for."""


class SiteBusy(DocbotError):
    """Another process holds the site's writer lock."""


class WriteFailed(DocbotError):
    """Writing part of a new generation failed (disk full, read-only, ...); nothing was committed."""


class GenerationError(DocbotError):
    """The LLM call failed; callers fall back to the extractive answerer."""
