#!/usr/bin/env bash
# Install everything, then run the whole test suite (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
exec .venv/bin/python -m pytest "$@"
