#!/usr/bin/env python3
"""Cut an OpenAPI description to N operations, evenly spaced through its paths, for a rendered test site.

The operations kept are every (total/N)th of the description's own order (path by path, method by method); every
component no kept operation reaches (through any chain of ``$ref``) is pruned, and the webhooks are dropped
(``x-webhooks``, ``webhooks``: Redoc renders them, Swagger UI does not for OpenAPI 3.0), so the cut is what a real
API of that size looks like. Used by scripts/build_rendered_sites.sh; only the standard library.

Usage: python3 scripts/cut_openapi.py SPEC.json N OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def cut(spec: dict[str, Any], keep: int) -> dict[str, Any]:
    """``spec`` with ``keep`` of its operations, evenly spaced, and only the components they reach."""
    ops = [(path, method) for path, item in spec["paths"].items() for method in item if method in METHODS]
    chosen = {ops[i * len(ops) // keep] for i in range(min(keep, len(ops)))}
    paths: dict[str, Any] = {}
    for path, item in spec["paths"].items():
        kept = {k: v for k, v in item.items() if k not in METHODS or (path, k) in chosen}
        if any(k in METHODS for k in kept):
            paths[path] = kept
    out = {k: v for k, v in spec.items() if k not in ("paths", "components", "x-webhooks", "webhooks")}
    out["paths"] = paths
    components = spec.get("components", {})
    reached = _reached(paths, components)
    out["components"] = {kind: {name: value for name, value in entries.items()
                                if kind == "securitySchemes" or (kind, name) in reached}
                         for kind, entries in components.items()}
    used = {tag for item in paths.values() for k, op in item.items() if k in METHODS for tag in op.get("tags", [])}
    if "tags" in out:
        out["tags"] = [t for t in out["tags"] if t.get("name") in used]
    return out


def _reached(root: Any, components: dict[str, Any]) -> set[tuple[str, str]]:
    """The (kind, name) of every component a ``$ref`` reaches from ``root``, through components too."""
    seen: set[tuple[str, str]] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/"):
                kind, _, name = ref.removeprefix("#/components/").partition("/")
                if (kind, name) not in seen and name in components.get(kind, {}):
                    seen.add((kind, name))
                    todo.append(components[kind][name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return seen


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    Path(argv[2]).write_text(json.dumps(cut(spec, int(argv[1]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
