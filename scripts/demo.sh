#!/usr/bin/env bash
# The main job end to end on a small default: synthesize a sample, build a release
# folder, load it back. Called by `make demo` with the venv path.
set -euo pipefail
venv=${1:-.venv}
bin="$venv/bin"
out=${DEMO_OUT:-out/demo}
n=${DEMO_N:-150}
mkdir -p "$out"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1

echo "== 1. synthesize 60 programs (3 inputs each) -> $out/programs"
"$bin/execverify" synthesize --n 60 --seed 0 --out "$out/programs" --workers 2

echo "== 2. trace one of them"
"$bin/python" - "$out/programs" > "$out/program.py" <<'PY'
import sys, pathlib, pyarrow.parquet as pq
shard = sorted(pathlib.Path(sys.argv[1]).glob("**/*.parquet"))[0]
row = pq.read_table(shard).slice(0, 1).to_pylist()[0]
print(row["code"])
print(f"# call: {row['entry_point']}({row['inputs'][0]})")
PY
call=$(sed -n 's/^# call: //p' "$out/program.py")
"$bin/execverify" trace "$out/program.py" --call "$call"

echo "== 3. build a release folder of $n examples (each a row of io, oi, trace and sft; each program a codegen row) -> $out/release"
"$bin/execverify" build-release --release-version 0.1.0 --n "$n" --seed 0 --out "$out/release" --workers 2

echo "== 4. load every config back with datasets.load_dataset"
"$bin/python" - "$out/release" <<'PY'
import json, sys
from datasets import disable_progress_bars, load_dataset
disable_progress_bars()
folder = sys.argv[1]
manifest = json.load(open(f"{folder}/MANIFEST.json"))
for config in ("io", "oi", "trace", "sft", "codegen", "default"):
    ds = load_dataset(folder, config)
    print(f"{config:8s} " + "  ".join(f"{split}={len(ds[split])}" for split in ds))
print("manifest rows:", json.dumps(manifest["rows"], sort_keys=True))
PY
