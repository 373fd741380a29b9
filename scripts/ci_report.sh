#!/usr/bin/env bash
# Reference-accuracy report in CI: serve the five eval doc sites on 127.0.0.1, crawl, index,
# run `docbot report` on ../shared/eval/ with thresholds, write report/{report.md,json,html}; then the
# questions again across all sites at once (--all-sites), written to report/all-sites/.
# Installs nothing: run scripts/install.sh first. Usage: scripts/ci_report.sh [extra `docbot report` args]
# Env: EVAL_DIR (default ../shared/eval, else /work/shared/eval), REPORT_OUT (default report),
#      MIN_LINK_VALIDITY MIN_HIT3 MIN_HIT1 MIN_REFUSAL MAX_FALSE_REFUSAL MIN_FLAGGED MAX_FALSE_FLAG MIN_REPAIR
#      MIN_FACTS MIN_DIRECTIVES MIN_DIRECTIVE_VALIDITY (percentages), MAX_ECE (0-1).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
PY=.venv/bin/python
DOCBOT=.venv/bin/docbot
[[ -x $DOCBOT ]] || { echo "ci_report: .venv/bin/docbot missing — run scripts/install.sh first" >&2; exit 2; }

EVAL_DIR="${EVAL_DIR:-../shared/eval}"
[[ -d $EVAL_DIR ]] || EVAL_DIR=/work/shared/eval
OUT="${REPORT_OUT:-report}"
# Thresholds sit just under the measured values (2026-11-25, fifth session, five sites, all-MiniLM-L6-v2,
# extractive; a refused question counts as a miss). Every question figure must hold both in sample and held
# out (each site's questions answered by a gate fitted on the other sites: the four other dev sites plus our
# own questions on three large sites outside the dev set, docbot/gate_examples.jsonl, as the shipped gate
# is). In sample and held out alike: hit@3 89.4 % (84/94), hit@1 74.5 % (70/94), out-of-scope refused
# 61.5 % (8/13), answerable refused 1.1 % (1/94); calibration error 0.05-0.06 held out (0.06-0.07 in sample: the
# calibrator is fitted on all eight sites). Link repair 98.7 % (77/78). The gate refuses at most 2 % of the
# answerable questions it is fitted on, which leaves near-topic out-of-scope questions answered: the
# "The gate" in docs/quality.md says why. Each threshold leaves room for one question or case to flip (CPU float
# differences can reorder near-ties); links stay 100 % valid.
# 2026-11-25, seventh session (issue 26: the learned ranker on; refuse almost never, flag instead): in sample and
# held out hit@3 89.4 % (84/94), hit@1 74.5 % (70/94), answerable refused 0/94; out of scope refused 6/13 (46.2 %),
# refused or flagged 9/13 in sample and 8/13 held out (61.5 %); answerable flagged 1/94 (1.1 %).
MIN_LINK_VALIDITY="${MIN_LINK_VALIDITY:-100}"
MIN_HIT3="${MIN_HIT3:-86}"
MIN_HIT1="${MIN_HIT1:-72}"
MIN_REFUSAL="${MIN_REFUSAL:-38}"
MAX_FALSE_REFUSAL="${MAX_FALSE_REFUSAL:-2.5}"
MIN_FLAGGED="${MIN_FLAGGED:-53}"
MAX_FALSE_FLAG="${MAX_FALSE_FLAG:-4}"
MIN_REPAIR="${MIN_REPAIR:-97}"
MAX_ECE="${MAX_ECE:-0.1}"
# Required facts the extractive answers cover (the crude word rule of docbot/report/facts.py): 79.9 %
# (139/174) measured 2026-11-25, fifth session, in sample and held out; a question holds 1-3 facts.
MIN_FACTS="${MIN_FACTS:-76}"
# Text directives (#id:~:text=…, issue 27): the share of the sources an answer quotes whose link lands on the quoted
# passage, and the share of those directives valid by docbot's check and by the report's independent one (the served
# HTML re-read with BeautifulSoup, matched by regex); a directive landing outside its section is invalid.
MIN_DIRECTIVES="${MIN_DIRECTIVES:-80}"
MIN_DIRECTIVE_VALIDITY="${MIN_DIRECTIVE_VALIDITY:-100}"
# The same questions asked across all five sites at once (--all-sites), as the Slack bot does when
# no site is set; measured 2026-11-25, fifth session: hit@3 85.1 %, hit@1 73.4 %, out-of-scope refused 5 of 13
# (most of the others are answered from another indexed site that covers them: Alembic from SQLAlchemy's
# docs, per-IP throttling from DRF's), answerable refused 2 of 94 (Requests' "download a ~2GB file", taken to
# Git's chunk-file format page and refused there, and SQLAlchemy's "export 20 million rows", refused on its
# own site too). The same one-question slack.
MIN_ALL_HIT3="${MIN_ALL_HIT3:-83}"
MIN_ALL_HIT1="${MIN_ALL_HIT1:-70}"
MIN_ALL_REFUSAL="${MIN_ALL_REFUSAL:-30}"
MAX_ALL_FALSE_REFUSAL="${MAX_ALL_FALSE_REFUSAL:-3.5}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/docbot-report.XXXXXX")
SERVER=""
cleanup() {
  if [[ -n $SERVER ]]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

$PY scripts/serve_docs.py \
  --site flask=/usr/share/doc/python-flask-doc/html \
  --site requests=/usr/share/doc/python-requests-doc/html \
  --site drf=/usr/share/doc/python3-djangorestframework/html \
  --site sqlalchemy=/usr/share/doc/python-sqlalchemy-doc/html \
  --site git=/usr/share/doc/git-doc >"$WORK/servers.json" &
SERVER=$!
for _ in $(seq 100); do [[ -s $WORK/servers.json ]] && break; sleep 0.1; done
[[ -s $WORK/servers.json ]] || { echo "ci_report: doc servers did not start" >&2; exit 1; }
echo "ci_report: serving $(cat "$WORK/servers.json")"

# A throw-away config: sites at their served URLs, data and maps in the temp dir.
$PY - "$WORK" <<'PYEOF'
import json, sys
work = sys.argv[1]
urls = json.load(open(f"{work}/servers.json"))
with open(f"{work}/docbot.toml", "w") as fh:
    fh.write(f'data_dir = "{work}/data"\nanchor_maps = "{work}/anchor_maps"\n')
    for site, url in urls.items():
        fh.write(f'\n[[sites]]\nname = "{site}"\nurl = "{url}"\n')
PYEOF
export DOCBOT_CONFIG="$WORK/docbot.toml" DOCBOT_DATA_DIR="$WORK/data" DOCBOT_ANCHOR_MAPS="$WORK/anchor_maps"

for site in flask requests drf sqlalchemy git; do
  url=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$WORK/servers.json" "$site")
  t=$(date +%s)
  $DOCBOT crawl "$url" --site "$site" >/dev/null
  $DOCBOT index --site "$site" >/dev/null
  echo "ci_report: crawled and indexed $site in $(( $(date +%s) - t ))s"
done

status=0
$DOCBOT report \
  --questions "$EVAL_DIR/dev_questions.jsonl" \
  --cases "$EVAL_DIR/dev_validator_cases.jsonl" \
  --out "$OUT" \
  --min-link-validity "$MIN_LINK_VALIDITY" --min-hit3 "$MIN_HIT3" --min-hit1 "$MIN_HIT1" \
  --min-refusal "$MIN_REFUSAL" --max-false-refusal "$MAX_FALSE_REFUSAL" --min-repair "$MIN_REPAIR" \
  --min-flagged "$MIN_FLAGGED" --max-false-flag "$MAX_FALSE_FLAG" \
  --max-ece "$MAX_ECE" --min-facts "$MIN_FACTS" \
  --min-directives "$MIN_DIRECTIVES" --min-directive-validity "$MIN_DIRECTIVE_VALIDITY" "$@" || status=$?
$DOCBOT report --all-sites \
  --questions "$EVAL_DIR/dev_questions.jsonl" \
  --out "$OUT/all-sites" \
  --min-link-validity "$MIN_LINK_VALIDITY" --min-hit3 "$MIN_ALL_HIT3" --min-hit1 "$MIN_ALL_HIT1" \
  --min-refusal "$MIN_ALL_REFUSAL" --max-false-refusal "$MAX_ALL_FALSE_REFUSAL" \
  --min-directive-validity "$MIN_DIRECTIVE_VALIDITY" "$@" | sed -n '1,13p' || status=$?  # the headline table; sed reads to the end, so no SIGPIPE
echo "ci_report: report in $OUT/ (report.md, report.json, report.html; all-sites/ for the questions asked" \
  "across all sites); total $(( $(date +%s) - start ))s; exit $status"
exit $status
