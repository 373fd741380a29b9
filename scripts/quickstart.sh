#!/usr/bin/env bash
# The whole job on a fresh machine, offline and without API keys:
# install, serve a real documentation site on 127.0.0.1, crawl, index,
# and answer three sample questions with validated deep links.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh

ROOT=/usr/share/doc/python-flask-doc/html
PORT="${DOCBOT_QUICKSTART_PORT:-8765}"
export DOCBOT_DATA_DIR="${DOCBOT_DATA_DIR:-.docbot}"
# a map of a server on 127.0.0.1 is none to commit: it goes beside the index, not into anchor_maps/
export DOCBOT_ANCHOR_MAPS="${DOCBOT_ANCHOR_MAPS:-.docbot/anchor_maps}"

echo "==> serving the Flask documentation ($ROOT) on http://127.0.0.1:$PORT/"
.venv/bin/python -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  .venv/bin/python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
  sleep 0.1
done

echo "==> crawling"
.venv/bin/docbot crawl "http://127.0.0.1:$PORT/" --site flask
if .venv/bin/docbot index --help >/dev/null 2>&1; then
  echo "==> indexing (offline all-MiniLM-L6-v2)"
  .venv/bin/docbot index --site flask
fi
if .venv/bin/docbot ask --help >/dev/null 2>&1; then
  for q in "How do I return JSON error responses instead of HTML pages?" \
           "How can I limit the size of uploaded files?" \
           "What does Flask.route do?"; do
    echo; echo "==> docbot ask \"$q\""
    .venv/bin/docbot ask --site flask "$q"
  done
fi

cat <<'NEXT'

Next steps
  Your own docs:  .venv/bin/docbot crawl https://docs.example.com/ --site mydocs && .venv/bin/docbot index --site mydocs
  An LLM:         export OPENAI_API_KEY=...  (and OPENAI_BASE_URL for vLLM, Ollama, Azure…; DOCBOT_LLM_MODEL)
  Slack:          see "Slack" in README.md, then .venv/bin/docbot slack
NEXT
