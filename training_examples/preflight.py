"""Checks of one finished training stage, for ``scripts/gpu_smoke.sh`` and the CPU chain test.

    python training_examples/preflight.py STAGE INPUT_MODEL OUTPUT_DIR

passes (exit 0, one ``preflight: STAGE: ok ...`` line) when the stage in ``OUTPUT_DIR``, started
from ``INPUT_MODEL``:

* saved a full model (``config.json`` with ``use_cache: true``, weights; no bare PEFT adapter)
  that ``AutoModelForCausalLM`` loads, as the next stage will;
* saved a checkpoint (``checkpoint-N``) whose model loads too and whose ``trainer_state.json``
  logged a loss at every logging step, all finite;
* changed the weights (some tensor differs from ``INPUT_MODEL``'s);
* wrote our model card (``README.md`` with the reproduce command) and ``recipe_args.yaml``.

Anything else prints ``preflight: STAGE: FAILED: why`` on stderr and exits 1.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


class PreflightError(Exception):
    """A stage's output is not what the next stage (or a user) needs."""


def weights(folder: Path) -> dict:
    """Every tensor of a saved model (one ``model.safetensors`` or the shards of its index)."""
    from safetensors.torch import load_file

    index = folder / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    elif (folder / "model.safetensors").is_file():
        files = ["model.safetensors"]
    else:
        raise PreflightError(f"{folder} has no model.safetensors (nor an index of shards)")
    tensors: dict = {}
    for name in files:
        tensors.update(load_file(str(folder / name)))
    return tensors


def last_checkpoint(output_dir: Path) -> Path:
    checkpoints = sorted(output_dir.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[-1]))
    if not checkpoints:
        raise PreflightError(f"no checkpoint-N folder in {output_dir} (save_strategy steps with save_steps <= max_steps)")
    return checkpoints[-1]


def logged_losses(checkpoint: Path) -> list[float]:
    state = checkpoint / "trainer_state.json"
    if not state.is_file():
        raise PreflightError(f"{checkpoint} has no trainer_state.json")
    losses = [entry["loss"] for entry in json.loads(state.read_text())["log_history"] if "loss" in entry]
    if not losses:
        raise PreflightError(f"{state} logged no loss")
    bad = [loss for loss in losses if not math.isfinite(loss)]
    if bad:
        raise PreflightError(f"{state} logged non-finite losses {bad}")
    return losses


def check_stage(input_model: str | Path, output_dir: str | Path) -> str:
    """Run every check on one stage; return a one-line summary, raise :class:`PreflightError` on a failure."""
    from transformers import AutoModelForCausalLM

    output_dir, input_model = Path(output_dir), Path(input_model)
    if (output_dir / "adapter_config.json").is_file():
        raise PreflightError(f"{output_dir} holds a bare PEFT adapter, not a model the next stage can load")
    config_file = output_dir / "config.json"
    if not config_file.is_file():
        raise PreflightError(f"{output_dir} has no config.json")
    if json.loads(config_file.read_text()).get("use_cache") is not True:
        raise PreflightError(f"{config_file} has use_cache != true: generation with the saved model would be slow")
    checkpoint = last_checkpoint(output_dir)
    losses = logged_losses(checkpoint)
    for folder in (output_dir, checkpoint):
        AutoModelForCausalLM.from_pretrained(str(folder))  # what the next stage's --model_name_or_path does
    import torch

    before, after = weights(input_model), weights(output_dir)
    if not any(k in after and (before[k].shape != after[k].shape or not torch.equal(before[k], after[k])) for k in before):
        raise PreflightError(f"no weight of {output_dir} differs from {input_model}'s: the stage did not train")
    card = output_dir / "README.md"
    text = card.read_text(encoding="utf-8") if card.is_file() else ""
    if "recipe_args.yaml" not in text or "execverify" not in text:
        raise PreflightError(f"{card} is not the execverify model card (missing, or TRL's)")
    if not (output_dir / "recipe_args.yaml").is_file():
        raise PreflightError(f"{output_dir} has no recipe_args.yaml")
    return f"ok: {len(losses)} finite losses (last {losses[-1]:.4g}), weights changed, {checkpoint.name} and the model load"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    stage, input_model, output_dir = argv
    try:
        summary = check_stage(input_model, output_dir)
    except PreflightError as exc:
        print(f"preflight: {stage}: FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"preflight: {stage}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
