#!/usr/bin/env bash
# Run the MCP conformance suite (server scenarios) against a real Tributary on loopback.
# Needs network access to the npm registry once (Node 22 and the suites are installed
# into $CONFORMANCE_DIR, outside the repo). Exits non-zero on any unexpected result.
#   bash test/integration/mcp/conformance/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
dir="${CONFORMANCE_DIR:-/tmp/tributary-conformance}"
port="${CONFORMANCE_PORT:-47398}"
v1="${CONFORMANCE_V1:-0.1.16}"
v2="${CONFORMANCE_V2:-0.2.0-alpha.12}"

mkdir -p "$dir/v1" "$dir/v2"
if [ ! -x "$dir/v1/node_modules/.bin/conformance" ]; then
  (cd "$dir/v1" && npm init -y >/dev/null && npm install --no-audit --no-fund "node@22" "@modelcontextprotocol/conformance@$v1" >/dev/null)
fi
if [ ! -x "$dir/v2/node_modules/.bin/conformance" ]; then
  (cd "$dir/v2" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/conformance@$v2" >/dev/null)
fi
export PATH="$dir/v1/node_modules/node/bin:$PATH"

(cd "$repo" && exec node --import tsx test/integration/mcp/helpers/serve-real.ts "$port") >"$dir/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  curl -sf "http://127.0.0.1:$port/mcp/status" >/dev/null && break
  sleep 0.2
done
url="http://127.0.0.1:$port/mcp/streamable"

status=0
echo "== conformance $v1 (2025-11-25)"
"$dir/v1/node_modules/.bin/conformance" server --url "$url" \
  --expected-failures "$here/baseline-2025-11-25.yml" -o "$dir/results-v1" | sed -n '/SUMMARY/,$p' || status=1
echo "== conformance $v2 (--requirements 2026-07-28)"
"$dir/v2/node_modules/.bin/conformance" server --url "$url" --requirements 2026-07-28 \
  --expected-failures "$here/baseline-2026-07-28.yml" -o "$dir/results-v2" | sed -n '/SUMMARY/,$p' || status=1
exit $status
