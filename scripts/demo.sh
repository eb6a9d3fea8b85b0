#!/usr/bin/env bash
# The main job end to end on a small default. Called by `make demo` with the venv path.
set -euo pipefail
venv=${1:-.venv}
bin="$venv/bin"
out=${DEMO_OUT:-out/demo}
mkdir -p "$out"

echo "== trace a program (examples/running_max.py)"
"$bin/execverify" trace examples/running_max.py --call "running_max([3, 9, 4, 11], 5)"

echo "== the same trace as JSON -> $out/trace.json"
"$bin/execverify" trace examples/running_max.py --call "running_max([3, 9, 4, 11], 5)" --json > "$out/trace.json"
"$bin/python" - "$out/trace.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
print(f"status={trace['status']} output={trace['output']['text']} events={len(trace['events'])} python={trace['python']}")
PY
