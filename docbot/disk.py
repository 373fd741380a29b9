"""What a data dir holds on disk: its size and file count, as `index` and `refresh` report them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class DiskUsage:
    """Bytes and files under one folder; a file hard-linked into several generations counts once."""

    path: Path
    bytes: int
    files: int

    def to_json(self) -> dict[str, Any]:
        return {"data_dir": str(self.path), "bytes": self.bytes, "files": self.files}

    def describe(self) -> str:
        """``.docbot holds 1.9 MB (1,954,675 bytes) in 56 files``."""
        return f"{self.path} holds {_size(self.bytes)} ({self.bytes:,} bytes) in {self.files:,} files"


def disk_usage(path: Path) -> DiskUsage:
    """What ``path`` holds now (nothing when it does not exist); files vanishing meanwhile are skipped."""
    seen: dict[tuple[int, int], int] = {}
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                st = os.lstat(os.path.join(folder, name))
            except FileNotFoundError:  # a writer removed it while we walked
                continue
            seen[(st.st_dev, st.st_ino)] = st.st_size
    return DiskUsage(Path(path), sum(seen.values()), len(seen))


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} bytes"
    size, units = n / 1000, ["kB", "MB", "GB"]
    while size >= 1000 and len(units) > 1:
        size, units = size / 1000, units[1:]
    return f"{size:.1f} {units[0]}"
