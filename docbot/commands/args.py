"""Argument types shared by the subcommands: bad input is a usage error (exit 2) that says what to pass."""

from __future__ import annotations

import argparse

from crawlers.errors import BadSiteName
from crawlers.sitenames import check_site_name
from crawlers.urls import normalize


def site_name(value: str) -> str:
    """A ``--site`` value that is a plain name, never a path (``../../x`` would write outside anchor_maps/)."""
    try:
        return check_site_name(value)
    except BadSiteName as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return number


def positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds above 0")
    return number


def start_url(value: str) -> str:
    """An http(s) URL with a host and a valid port, e.g. https://flask.palletsprojects.com/en/stable/."""
    try:
        normalize(value)
    except ValueError as exc:
        hint = "pass an http(s) URL such as https://docs.example.org/"
        if "/" not in value and "." not in value:  # a bare word: most likely the site's name ("docbot crawl flask")
            hint += f", or the site's name as --site {value} (its URL then comes from docbot.toml)"
        raise argparse.ArgumentTypeError(f"{value!r} is not a start URL ({exc}); {hint}") from None
    return value
