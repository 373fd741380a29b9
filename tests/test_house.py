"""The house's bars that a count can hold: every function has a caller, no class over 250 lines, no function over 80.

A class that grows past the bar is split by job (the house style), not trimmed to fit it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vulture

ROOT = Path(__file__).resolve().parent.parent
WHITELIST = Path(__file__).with_name("vulture_whitelist.py")  # used all the same, each with why

# Functions registered by a decorator are called through what they registered with.
IGNORE_DECORATORS = [
    "@*.register",  # a provider's factory in its kind's registry (docbot/providers/): chosen by spec
    "@field_validator",  # pydantic runs the validators of docbot.toml's schema
    "@model_validator",
]
UNREFERENCED = ("function", "method", "property", "class")

MAX_CLASS_LINES = 250
MAX_FUNCTION_LINES = 80


def test_every_function_has_a_caller() -> None:
    finder = vulture.Vulture(ignore_decorators=IGNORE_DECORATORS)
    finder.scavenge([str(ROOT / "docbot"), str(ROOT / "crawlers"), str(ROOT / "scripts"), str(WHITELIST)])
    unused = [f"{Path(item.filename).relative_to(ROOT)}:{item.first_lineno} {item.typ} {item.name}"
              for item in finder.get_unused_code() if item.typ in UNREFERENCED]
    assert not unused, ("never called (delete it, with any test that tests only it; or, when Python or a library "
                        "calls it, say so in tests/vulture_whitelist.py):\n" + "\n".join(unused))


def _sizes(*kinds: type[ast.AST]) -> list[tuple[int, str]]:
    """(lines, where) of every node of ``kinds`` (nested ones included) in docbot/ and crawlers/."""
    found = []
    for path in sorted([*(ROOT / "docbot").rglob("*.py"), *(ROOT / "crawlers").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, kinds):
                assert isinstance(node, ast.stmt) and node.end_lineno is not None
                name = getattr(node, "name", "?")
                found.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(ROOT)}:{node.lineno} {name}"))
    return found


def test_no_class_is_over_250_lines() -> None:
    over = [f"{where}: {lines} lines" for lines, where in _sizes(ast.ClassDef) if lines > MAX_CLASS_LINES]
    assert not over, f"classes over {MAX_CLASS_LINES} lines (split by job):\n" + "\n".join(over)


def test_no_function_is_over_80_lines() -> None:
    over = [f"{where}: {lines} lines" for lines, where in _sizes(ast.FunctionDef, ast.AsyncFunctionDef)
            if lines > MAX_FUNCTION_LINES]
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines (split by job):\n" + "\n".join(over)
