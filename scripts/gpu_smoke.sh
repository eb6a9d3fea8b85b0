#!/usr/bin/env bash
# GPU smoke test of the TRL recipes: one bf16 optimizer step of each of
#   training_examples/sft_warmup.py, grpo_execution.py (with and, when vLLM is installed,
#   without vLLM colocate) and grpo_codegen.py
# on a randomly initialised ~330M-parameter Qwen2 (built offline by execverify_data.testing:
# nothing is downloaded) and a small release folder built by execverify_data.release.
#
# Usage (repository root, the `train` extra installed, one CUDA GPU):
#   scripts/gpu_smoke.sh [WORK_DIR]          # WORK_DIR defaults to a fresh temporary folder
# Exits non-zero, loudly, when torch sees no CUDA GPU or bf16 is unsupported, and on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
WORK=${1:-$(mktemp -d -t execverify-gpu-smoke.XXXXXX)}
mkdir -p "$WORK"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_CACHE="$WORK/hf_datasets_cache"
export TOKENIZERS_PARALLELISM=false

if ! "$PY" - <<'EOF'
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("gpu_smoke: FAILED: torch %s sees no CUDA GPU; this script only runs on a CUDA machine" % torch.__version__)
if not torch.cuda.is_bf16_supported():
    sys.exit("gpu_smoke: FAILED: %s does not support bf16" % torch.cuda.get_device_name(0))
print("gpu_smoke: device", torch.cuda.get_device_name(0), "torch", torch.__version__, "cuda", torch.version.cuda)
EOF
then
    echo "gpu_smoke: FAILED (see above)" >&2
    exit 2
fi

echo "gpu_smoke: building the random model and the release slice in $WORK"
# a file, not stdin: the release builder's worker processes re-import __main__ (spawn)
cat > "$WORK/setup_smoke.py" <<'EOF'
import sys
from pathlib import Path

from transformers import AutoModelForCausalLM

from execverify_data.release import ReleaseConfig, build_release
from execverify_data.testing import build_tiny_model

if __name__ == "__main__":
    work = Path(sys.argv[1])
    if not (work / "model" / "config.json").exists():
        build_tiny_model(work / "model", hidden_size=1280, layers=24, heads=16, vocab_size=4096)
    n = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(work / "model").parameters())
    print(f"gpu_smoke: model parameters: {n / 1e6:.0f}M")
    assert 100e6 < n < 1e9, n
    if not (work / "release" / "MANIFEST.json").exists():
        build_release(ReleaseConfig(version="0.0.1", n=40, seed=0, shard_size=20), work / "release")
EOF
"$PY" "$WORK/setup_smoke.py" "$WORK"

COMMON=(--dataset_name "$WORK/release" --dataset_revision v0.0.1 --bf16 true --dtype bfloat16 --max_steps 1
        --logging_steps 1 --save_strategy no --report_to none --seed 0 --activation_checkpointing true)
GRPO=(--num_generations 4 --per_device_train_batch_size 8 --max_completion_length 256 --beta 0.0
      --learning_rate 1e-6 --max_prompt_length 2048)

step() {  # step NAME COMMAND...: run, time, and check that the model and its card were written
    local name=$1; shift
    local start=$SECONDS
    echo "gpu_smoke: === $name"
    "$@" --output_dir "$WORK/$name"
    test -f "$WORK/$name/README.md" -a -f "$WORK/$name/model.safetensors" \
        || { echo "gpu_smoke: FAILED: $name wrote no model or card" >&2; exit 1; }
    echo "gpu_smoke: $name passed in $((SECONDS - start)) s"
}

step sft "$PY" training_examples/sft_warmup.py --model_name_or_path "$WORK/model" \
    --per_device_train_batch_size 4 --max_length 4096 --learning_rate 1e-5 "${COMMON[@]}"
step grpo_execution "$PY" training_examples/grpo_execution.py --model_name_or_path "$WORK/sft" \
    "${GRPO[@]}" "${COMMON[@]}"
if "$PY" -c "import vllm" 2>/dev/null; then
    step grpo_execution_vllm "$PY" training_examples/grpo_execution.py --model_name_or_path "$WORK/sft" \
        --use_vllm true --vllm_mode colocate --vllm_gpu_memory_utilization 0.3 --vllm_max_model_length 2304 \
        "${GRPO[@]}" "${COMMON[@]}"
else
    echo "gpu_smoke: vLLM not installed (pip install 'trl[vllm]'): the colocate step is skipped"
fi
step grpo_codegen "$PY" training_examples/grpo_codegen.py --model_name_or_path "$WORK/sft" \
    "${GRPO[@]}" "${COMMON[@]}"
echo "gpu_smoke: all steps passed; outputs in $WORK"
