#!/usr/bin/env bash
# The test suite on each supported Node LTS line besides the one installed (package.json
# "engines"), with Node fetched from the npm registry's `node` package. .ci/run runs it after
# the suite on the installed Node.
# Usage: scripts/test-node-lines.sh [LINES...] [-- run-tests args]   (default lines: 22 24)
#   e.g. scripts/test-node-lines.sh 22 -- unit integration/sources
set -euo pipefail
cd "$(dirname "$0")/.."

lines=()
while [[ $# -gt 0 && "$1" != "--" ]]; do lines+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
[[ ${#lines[@]} -eq 0 ]] && lines=(22 24)

[[ -d node_modules ]] || npm ci --no-audit --no-fund
status=0
for line in "${lines[@]}"; do
  echo "=== Node ${line}: $(npx -y "node@${line}" --version)"
  # run-tests.mjs spawns the runner with process.execPath: the same Node ${line}.
  if ! npx -y "node@${line}" scripts/run-tests.mjs "$@"; then
    echo "=== Node ${line}: FAILED"
    status=1
  fi
done
exit $status
