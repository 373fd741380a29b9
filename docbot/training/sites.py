"""Which crawled sites a model may be trained on: those whose Debian package is on the training list.

docbot is measured on documentation sites outside ``train_sites.txt`` (``../shared/eval/``); a model trained on
any other site would make that measurement meaningless, so nothing else is read. The list's labelled sites (the
part headed "Labelled sites") carry the questions docbot is measured with and are left out unless named: a site
is reported held out only when it was not trained on. A training data dir says which package each of its sites was
crawled from in ``training_sites.json`` ({site: package}), written by ``scripts/train_crawl.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = "training_sites.json"
LIST_NAME = "train_sites.txt"
_REPO = Path(__file__).resolve().parents[2]
LIST_PLACES = (_REPO.parent / "shared" / "eval" / LIST_NAME, Path("/work/shared/eval") / LIST_NAME)


class TrainingSitesError(SystemExit):
    """A site or list that training must not use, with what to do instead."""


def default_list() -> Path:
    for place in LIST_PLACES:
        if place.is_file():
            return place
    raise TrainingSitesError(f"no {LIST_NAME} found (looked in {', '.join(map(str, LIST_PLACES))}); pass --train-sites")


def read_list(path: Path) -> tuple[set[str], set[str]]:
    """(every allowed package, the labelled ones): a package a line, '#' comments; the labelled part ends at the
    first comment line after it that does not mention labelled sites."""
    allowed: set[str] = set()
    labelled: set[str] = set()
    in_labelled = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            lower = line.lower()
            if "labelled sites" in lower and "unlabelled" not in lower:
                in_labelled = True
            elif "unlabelled" in lower:
                in_labelled = False
            continue
        package = line.split("#", 1)[0].strip()
        if package:
            allowed.add(package)
            if in_labelled:
                labelled.add(package)
    return allowed, labelled


def allowed_sites(data_dir: Path, list_path: Path | None, only: list[str], allow_labelled: list[str]) -> dict[str, str]:
    """{site: package} of the data dir that training may use; raises :class:`TrainingSitesError` otherwise."""
    try:
        manifest: dict[str, str] = json.loads((data_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TrainingSitesError(f"{data_dir / MANIFEST} is missing: crawl with scripts/train_crawl.py, which says "
                                 "which package each site comes from") from None
    allowed, labelled = read_list(list_path or default_list())
    chosen = {s: p for s, p in manifest.items() if not only or s in only}
    for site in only:
        if site not in manifest:
            raise TrainingSitesError(f"{site!r} is not in {data_dir / MANIFEST}")
    for site, package in chosen.items():
        if package not in allowed:
            raise TrainingSitesError(f"{site!r} comes from {package!r}, which is not on the training list: "
                                     "docbot is measured on sites outside it")
    dropped = [s for s, p in chosen.items() if p in labelled and s not in allow_labelled]
    if dropped:
        print(f"left out (labelled, measured held out): {', '.join(sorted(dropped))}")
    return {s: p for s, p in sorted(chosen.items()) if s not in dropped}
