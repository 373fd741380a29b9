#!/usr/bin/env bash
# The dev report answered by the local model (issue 34), beside the extractive one on the same questions: serve
# SITES of ../shared/eval on 127.0.0.1, crawl and index them, start SmolLM2-135M-Instruct on llama-cpp-python's
# server (scripts/serve_local_llm.py), then `docbot report --llm` and `docbot report` (extractive) on those sites'
# questions. Needs `scripts/install.sh --local-llm`. Not part of .ci/run: one LLM answer takes 5-30 s on a CPU.
# Env: SITES (default "flask requests"), REPORT_OUT (default report/llm), N_CTX (2048), MAX_TOKENS (200),
#      BUDGET (90 s), EVAL_DIR (default ../shared/eval, else /work/shared/eval).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
DOCBOT="${DOCBOT:-$PY -m docbot.cli}"
SITES="${SITES:-flask requests}"
OUT="${REPORT_OUT:-report/llm}"
N_CTX="${N_CTX:-2048}"
EVAL_DIR="${EVAL_DIR:-../shared/eval}"
[[ -d $EVAL_DIR ]] || EVAL_DIR=/work/shared/eval
$PY scripts/serve_local_llm.py --check >/dev/null || exit 1
declare -A ROOTS=([flask]=/usr/share/doc/python-flask-doc/html [requests]=/usr/share/doc/python-requests-doc/html
                  [drf]=/usr/share/doc/python3-djangorestframework/html
                  [sqlalchemy]=/usr/share/doc/python-sqlalchemy-doc/html [git]=/usr/share/doc/git-doc)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/docbot-llm-report.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

args=()
for site in $SITES; do args+=(--site "$site=${ROOTS[$site]}"); done
$PY scripts/serve_docs.py "${args[@]}" >"$WORK/servers.json" &
PIDS+=($!)
PORT=$($PY -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
$PY scripts/serve_local_llm.py --port "$PORT" --n-ctx "$N_CTX" >"$WORK/llm.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [[ -s $WORK/servers.json ]] && break; sleep 0.1; done
export DOCBOT_CONFIG="$WORK/docbot.toml" DOCBOT_DATA_DIR="$WORK/data" DOCBOT_ANCHOR_MAPS="$WORK/anchor_maps"
$PY - "$WORK" "$EVAL_DIR/dev_questions.jsonl" "$SITES" <<'PYEOF'
import json, sys
work, questions, sites = sys.argv[1], sys.argv[2], sys.argv[3].split()
urls = json.load(open(f"{work}/servers.json"))
with open(f"{work}/docbot.toml", "w") as fh:
    fh.write(f'data_dir = "{work}/data"\nanchor_maps = "{work}/anchor_maps"\n')
    for site, url in urls.items():
        fh.write(f'\n[[sites]]\nname = "{site}"\nurl = "{url}"\n')
with open(f"{work}/questions.jsonl", "w") as out:
    out.writelines(line for line in open(questions) if line.strip() and json.loads(line)["site"] in sites)
PYEOF
for site in $SITES; do
  t=$(date +%s)
  $DOCBOT crawl --site "$site" >/dev/null
  $DOCBOT index --site "$site" >/dev/null
  echo "llm_report: crawled and indexed $site in $(( $(date +%s) - t ))s"
done
for _ in $(seq 600); do grep -q "^serving" "$WORK/llm.log" && break; sleep 0.5; done
grep -q "^serving" "$WORK/llm.log" || { cat "$WORK/llm.log" >&2; echo "llm_report: the local LLM did not start" >&2; exit 1; }
echo "llm_report: $(head -1 "$WORK/llm.log"); $(wc -l <"$WORK/questions.jsonl") questions of $SITES"

t=$(date +%s)
$DOCBOT report --questions "$WORK/questions.jsonl" --out "$OUT/extractive" --no-held-out >/dev/null || true
echo "llm_report: extractive report in $(( $(date +%s) - t ))s: $OUT/extractive/report.md"
t=$(date +%s)
DOCBOT_LLM_MODEL=llamacpp:smollm2 DOCBOT_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" DOCBOT_LLM_CONTEXT="$N_CTX" \
  DOCBOT_LLM_MAX_TOKENS="${MAX_TOKENS:-200}" DOCBOT_LLM_BUDGET="${BUDGET:-90}" \
  $DOCBOT report --llm --questions "$WORK/questions.jsonl" --out "$OUT" >/dev/null || true
echo "llm_report: LLM report in $(( $(date +%s) - t ))s: $OUT/report.md, $OUT/llm.json (answers in report.json)"
