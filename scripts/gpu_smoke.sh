#!/usr/bin/env bash
# Pre-flight check of the three TRL recipes before a cluster run: each stage is launched as on the
# cluster, with its paper config (training_examples/Qwen2.5-Coder-7B-Instruct/*/config_paper.yaml)
# overridden to a random Qwen2 built offline (~360M parameters; nothing is downloaded), a small
# release folder and two optimizer steps, then checked by training_examples/preflight.py:
#   - accelerate launch with DeepSpeed ZeRO-3 (training_examples/accelerate_configs/zero3.yaml, bf16)
#     on every visible GPU;
#   - Stage I and Stage II generate with vLLM colocated, in sleep mode; without vLLM installed the
#     script fails loudly (exit 3) unless --no-vllm says to skip that part;
#   - every stage logs finite losses, changes the weights, saves a checkpoint, and its output loads as
#     the next stage's model (use_cache on, PEFT merged, our model card and recipe_args.yaml written);
#   - after each stage the config's evaluation (eval_tasks, 2 docs per task) runs on the saved model.
# A random model's rewards rarely vary, so the GRPO stages add a small entropy bonus (--entropy_coef):
# the update then moves the weights even when every completion scores the same.
#
# Usage (repository root, `pip install 'execverify-data[train,vllm]'`):
#   scripts/gpu_smoke.sh [--no-vllm] [WORK_DIR]     # on a CUDA machine; WORK_DIR defaults to a new temp folder
#   scripts/gpu_smoke.sh --cpu-dry-run [WORK_DIR]   # on a CPU: the documented paper path at toy scale
#                                                   # (python scripts/paper_path.py --cpu-dry-run; what CI runs)
# Exits 0 after "gpu_smoke: PASSED"; 2 without a usable GPU, 3 without vLLM, 1 on any other failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
MODE=gpu
VLLM=required
while [[ $# -gt 0 ]]; do
    case $1 in
        --cpu-dry-run) MODE=cpu; shift ;;
        --no-vllm) VLLM=skipped; shift ;;
        -h|--help) sed -n 2,22p "$0"; exit 0 ;;
        -*) echo "gpu_smoke: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
WORK=${1:-$(mktemp -d -t execverify-gpu-smoke.XXXXXX)}
mkdir -p "$WORK"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_CACHE="$WORK/hf_datasets_cache"
export TOKENIZERS_PARALLELISM=false
PAPER=training_examples/Qwen2.5-Coder-7B-Instruct

if [[ $MODE == cpu ]]; then  # one CPU dry run: the documented commands (docs/training.md), at toy scale
    exec "$PY" scripts/paper_path.py --cpu-dry-run "$WORK"
fi

if ! NGPU=$("$PY" - <<'EOF'
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("gpu_smoke: FAILED: torch %s sees no CUDA GPU (use --cpu-dry-run on a CPU)" % torch.__version__)
if not torch.cuda.is_bf16_supported():
    sys.exit("gpu_smoke: FAILED: %s does not support bf16" % torch.cuda.get_device_name(0))
print("gpu_smoke: device", torch.cuda.get_device_name(0), "x", torch.cuda.device_count(), "torch", torch.__version__,
      "cuda", torch.version.cuda, file=sys.stderr)
print(torch.cuda.device_count())
EOF
); then
    echo "gpu_smoke: FAILED (see above)" >&2
    exit 2
fi
if "$PY" -c "import deepspeed" 2>/dev/null; then :; else
    echo "gpu_smoke: FAILED: deepspeed is not installed (pip install 'execverify-data[train]')" >&2
    exit 1
fi
if "$PY" -c "import vllm" 2>/dev/null; then
    VLLM=checked
    GEN=(--use_vllm true --vllm_mode colocate --vllm_enable_sleep_mode true --vllm_gpu_memory_utilization 0.3
         --vllm_max_model_length 2304)
elif [[ $VLLM == required ]]; then
    echo "gpu_smoke: FAILED: vLLM is not installed, so generation with vLLM colocate and sleep mode (the paper" >&2
    echo "gpu_smoke: configs' setting) cannot be checked: pip install 'execverify-data[vllm]' (it pins its own" >&2
    echo "gpu_smoke: torch: install it first, in a fresh environment), or pass --no-vllm to check the rest." >&2
    exit 3
else
    GEN=(--use_vllm false)
fi
LAUNCH=("$PY" -m accelerate.commands.launch --config_file training_examples/accelerate_configs/zero3.yaml --num_processes "$NGPU")
DEVICE=(--bf16 true --dtype bfloat16)
MODEL_SIZE="hidden_size=1280, layers=24, heads=16, vocab_size=4096"
RELEASE_N=160

echo "gpu_smoke: building the random model and the release slice in $WORK"
# a file, not stdin: the release builder's worker processes re-import __main__ (spawn)
cat > "$WORK/setup_smoke.py" <<EOF
import sys
from pathlib import Path

from transformers import AutoModelForCausalLM

from execverify_data.release import ReleaseConfig, build_release
from execverify_data.testing import build_tiny_model

if __name__ == "__main__":
    work = Path(sys.argv[1])
    if not (work / "model" / "config.json").exists():
        build_tiny_model(work / "model", $MODEL_SIZE)
    n = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(work / "model").parameters())
    print(f"gpu_smoke: model parameters: {n / 1e6:.1f}M")
    if not (work / "release" / "MANIFEST.json").exists():
        build_release(ReleaseConfig(version="0.0.1", n_examples=$RELEASE_N, seed=0, shard_size=20), work / "release")
EOF
"$PY" "$WORK/setup_smoke.py" "$WORK"

# two optimizer steps, a checkpoint at the second, the logs and the output the next stage loads
COMMON=(--dataset_name "$WORK/release" --dataset_revision v0.0.1 --max_steps 2 --save_strategy steps --save_steps 2
        --save_total_limit 1 --logging_steps 1 --report_to none --seed 0 --dataloader_num_workers 0 --eval_limit 2 "${DEVICE[@]}")
# GRPO: 2 prompts x 4 completions per update and per rank, one rollout feeding both updates (as the paper's two mini-batches)
GRPO=(--num_generations 4 --per_device_train_batch_size 4 --gradient_accumulation_steps 1 --steps_per_generation 2
      --max_completion_length 128 --max_prompt_length 2048 --learning_rate 1e-4 --entropy_coef 0.01 "${GEN[@]}")

stage() {  # stage NAME INPUT_MODEL RECIPE CONFIG ARGS...: launch, time, check
    local name=$1 input=$2 recipe=$3 config=$4
    shift 4
    local start=$SECONDS
    echo "gpu_smoke: === $name: ${LAUNCH[*]} training_examples/$recipe --config $config ..."
    "${LAUNCH[@]}" "training_examples/$recipe" --config "$config" --model_name_or_path "$input" "$@" "${COMMON[@]}" \
        --output_dir "$WORK/$name" \
        || { echo "gpu_smoke: FAILED: $name did not finish" >&2; exit 1; }
    "$PY" training_examples/preflight.py "$name" "$input" "$WORK/$name" || exit 1
    echo "gpu_smoke: $name passed in $((SECONDS - start)) s"
}

stage sft "$WORK/model" sft_warmup.py "$PAPER/sft/config_paper.yaml" \
    --samples_per_config 4 4 --max_samples 8 --per_device_train_batch_size 2 --gradient_accumulation_steps 1 \
    --learning_rate 1e-4 --max_length 2048
stage stage1 "$WORK/sft" grpo_execution.py "$PAPER/grpo_execution/config_paper.yaml" \
    --samples_per_config 4 4 "${GRPO[@]}"
stage stage2 "$WORK/stage1" grpo_codegen.py "$PAPER/grpo_codegen/config_paper.yaml" "${GRPO[@]}"
echo "gpu_smoke: PASSED ($NGPU GPU process(es), vLLM colocate + sleep mode: $VLLM); outputs in $WORK"
