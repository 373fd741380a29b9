"""The house's rooms and which way imports run: lower rooms never import higher ones, crawlers never import docbot,
and the pure middle never touches the network, Chroma or Slack. Imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A module may import its own room, lower rooms, crawlers and libraries.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("docbot.errors", "docbot.answer", "docbot.config", "docbot.config_schema", "docbot.disk",
     "docbot.providers", "docbot.process", "docbot.labels"),  # the foundation every room may use
    ("docbot.learn",),  # one linear model and its fitting (the ranker, the gate, the confidence)
    ("docbot.text",),
    ("docbot.references",),
    ("docbot.indexing",),
    ("docbot.retrieval",),
    ("docbot.training",),  # builds the re-ranking model's pairs and trains it (scripts only; docbot never imports it)
    ("docbot.answering",),
    ("docbot.pipeline", "docbot.reading", "docbot.reference_log", "docbot.refresh", "docbot.updating",
     "docbot.freshness"),
    ("docbot.report", "docbot.slack"),
    ("docbot.commands", "docbot.cli", "docbot"),
)
# Pure: plain data in and out (validation, repair, chunking, grouping, the gate, compression, the words).
PURE = ("docbot.learn", "docbot.text", "docbot.references", "docbot.indexing.chunk", "docbot.answering")
IMPURE_LIBRARIES = ("httpx", "chromadb", "slack_bolt", "slack_sdk")
IMPURE_ALLOWED = {"docbot.answering.generate"}  # the LLM call (through langchain-openai, not httpx directly)
# crawlers/ lowest first: the floor every room uses (the anchor map, urls, errors…), parsing a page, fetching
# (which reads rendered pages with the parser's lxml), and the crawl loop that runs them all.
CRAWLER_ROOMS = ("crawlers", "crawlers.parse", "crawlers.fetch", "crawlers.crawl")


def modules() -> dict[str, Path]:
    found = {}
    for base in ("docbot", "crawlers"):
        for path in sorted((ROOT / base).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def layer_of(module: str) -> int:
    best = (-1, -1)  # (length of the matching prefix, layer)
    for level, rooms in enumerate(LAYERS):
        for room in rooms:
            if (module == room or module.startswith(room + ".")) and len(room) > best[0]:
                best = (len(room), level)
    return best[1]


MODULES = modules()


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("docbot")))
def test_a_docbot_module_imports_only_its_own_room_and_lower_ones(name: str) -> None:
    mine = layer_of(name)
    assert mine >= 0, f"{name} is in no room: add it to LAYERS"
    upward = sorted(i for i in imports(MODULES[name]) if i in MODULES and i.startswith("docbot") and layer_of(i) > mine)
    assert not upward, f"{name} (layer {mine}) imports higher rooms: {upward}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("crawlers")))
def test_crawlers_never_import_docbot(name: str) -> None:
    assert not [i for i in imports(MODULES[name]) if i == "docbot" or i.startswith("docbot.")]


def crawler_room(module: str) -> int:
    return max(level for level, room in enumerate(CRAWLER_ROOMS) if module == room or module.startswith(room + "."))


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("crawlers")))
def test_a_crawlers_module_imports_only_its_own_room_and_lower_ones(name: str) -> None:
    mine = crawler_room(name)
    upward = sorted(i for i in imports(MODULES[name])
                    if i in MODULES and i.startswith("crawlers") and crawler_room(i) > mine)
    assert not upward, f"{name} ({CRAWLER_ROOMS[mine]}) imports higher rooms: {upward}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(PURE) and n not in IMPURE_ALLOWED))
def test_the_pure_middle_touches_no_network_index_or_slack(name: str) -> None:
    bad = sorted(i for i in imports(MODULES[name]) if i.split(".")[0] in IMPURE_LIBRARIES)
    assert not bad, f"{name} imports {bad}"


def test_no_import_circle_among_modules() -> None:
    graph = {name: {i for i in imports(path) if i in MODULES and i != name and not name.startswith(i + ".")}
             for name, path in MODULES.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                pytest.fail("import circle: " + " -> ".join([*trail[trail.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
