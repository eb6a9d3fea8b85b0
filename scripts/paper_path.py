"""The paper run as docs/training.md gives it: build the release, then SFT, Stage I and Stage II.

The commands are read from the fenced block after ``<!-- paper-path -->`` in docs/training.md, so the
documentation is what runs:

    python scripts/paper_path.py --print            # the commands, one per line
    python scripts/paper_path.py                    # run them in order (8 GPUs; stops at the first failure)
    python scripts/paper_path.py --cpu-dry-run DIR  # the same commands on a CPU, in DIR, at toy scale

The dry run changes only what a CPU and minutes require, and prints every command as it runs it:
the release is built with ``--n 40 --workers 1``; ``accelerate launch`` runs on the CPU in one process
(``--cpu`` instead of the DeepSpeed config); the SFT stage starts from a tiny random Qwen2 (built offline
in DIR/model) instead of the 7B base; each stage appends two optimizer steps, short completions, no vLLM and
``--eval_limit 2`` (each evaluation task scored on two docs). Paths are the documented ones, relative to DIR
(``training_examples`` is linked there). After each stage ``training_examples/preflight.py`` checks the
output, and at the end the Stage II card must hold the evaluation scores. Ends with ``paper_path: PASSED``.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "training.md"
MARK = "<!-- paper-path -->"
CPU_LAUNCH = ["--cpu", "--num_processes", "1", "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
TOY_COMMON = ["--max_steps", "2", "--save_strategy", "steps", "--save_steps", "2", "--save_total_limit", "1",
              "--logging_steps", "1", "--seed", "0", "--dataloader_num_workers", "0", "--use_cpu", "true", "--bf16", "false",
              "--dtype", "float32", "--eval_limit", "2"]
TOY_GRPO = ["--num_generations", "4", "--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "1",
            "--steps_per_generation", "2", "--max_completion_length", "64", "--max_prompt_length", "2048",
            "--use_vllm", "false", "--learning_rate", "1e-4", "--entropy_coef", "0.01"]
TOY_STAGE = {
    "sft_warmup.py": ["--samples_per_config", "4", "4", "--max_samples", "8", "--per_device_train_batch_size", "2",
                      "--gradient_accumulation_steps", "1", "--learning_rate", "1e-4", "--max_length", "2048"],
    "grpo_execution.py": ["--samples_per_config", "4", "4", *TOY_GRPO],
    "grpo_codegen.py": TOY_GRPO,
}


def documented_commands(doc: Path = DOC) -> list[list[str]]:
    """The commands of the paper-path block of ``doc``, each split as the shell would (continuations joined)."""
    text = doc.read_text(encoding="utf-8")
    found = re.search(re.escape(MARK) + r"\s*```bash\n(.*?)```", text, flags=re.S)
    if found is None:
        raise SystemExit(f"paper_path: {doc} has no ```bash block after {MARK}")
    joined = found.group(1).replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if shlex.split(line, comments=True)]


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def _set(argv: list[str], name: str, value: str) -> list[str]:
    i = argv.index(name)
    return [*argv[: i + 1], value, *argv[i + 2 :]]


def toy(argv: list[str], model: Path) -> list[str]:
    """One documented command at CPU toy scale (the module docstring lists every change)."""
    if argv[0] == "execverify":
        return [sys.executable, "-m", "execverify_data", *_set(_set(argv, "--n", "40"), "--workers", "1")[1:]]
    if argv[:2] != ["accelerate", "launch"]:
        raise SystemExit(f"paper_path: no toy form for {shlex.join(argv)}")
    args = argv[2:]
    if "--config_file" in args:  # the DeepSpeed config: a CPU has no DeepSpeed
        i = args.index("--config_file")
        args = args[:i] + args[i + 2 :]
    recipe = next(a for a in args if a.endswith(".py"))
    extra = [*(["--model_name_or_path", str(model)] if recipe.endswith("sft_warmup.py") else []),
             *TOY_STAGE[Path(recipe).name], *TOY_COMMON]
    return [sys.executable, "-m", "accelerate.commands.launch", *CPU_LAUNCH, *args, *extra]


def _stage_dirs(argv: list[str], cwd: Path) -> tuple[str, Path, Path] | None:
    """(stage name, input model, output folder) of a recipe command, from its config and overrides."""
    import yaml

    recipe = next((a for a in argv if a.endswith(".py") and "training_examples" in a), None)
    if recipe is None:
        return None
    config = yaml.safe_load((cwd / _option(argv, "--config")).read_text(encoding="utf-8"))
    model = _option(argv, "--model_name_or_path") or config["model_name_or_path"]
    output = _option(argv, "--output_dir") or config["output_dir"]
    return Path(recipe).stem, cwd / model, cwd / output


def run(commands: list[list[str]], cwd: Path, check_stages: bool) -> None:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    for argv in commands:
        start = time.monotonic()
        print(f"paper_path: $ {shlex.join(argv)}", flush=True)
        if subprocess.run(argv, cwd=cwd, env=env, check=False).returncode != 0:
            raise SystemExit(f"paper_path: FAILED: {shlex.join(argv[:4])} ... exited with an error")
        stage = _stage_dirs(argv, cwd) if check_stages else None
        if stage is not None:
            name, model, output = stage
            preflight = [sys.executable, str(cwd / "training_examples" / "preflight.py"), name, str(model), str(output)]
            if subprocess.run(preflight, cwd=cwd, env=env, check=False).returncode != 0:
                raise SystemExit(f"paper_path: FAILED: the {name} output did not pass the pre-flight checks")
        print(f"paper_path: done in {time.monotonic() - start:.0f} s", flush=True)


def dry_run(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    link = work / "training_examples"
    if not link.exists():
        link.symlink_to(REPO / "training_examples", target_is_directory=True)
    os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1",
                      HF_DATASETS_CACHE=str(work / "hf_datasets_cache"))
    model = work / "model"
    if not (model / "config.json").exists():
        from execverify_data.testing import build_tiny_model

        build_tiny_model(model)
    commands = [toy(argv, model) for argv in documented_commands()]
    run(commands, work, check_stages=True)
    last = _stage_dirs(commands[-1], work)
    card = (last[2] / "README.md").read_text(encoding="utf-8")
    scores = [line for line in card.splitlines() if line.startswith("| execverify_")]
    if not scores or not (last[2] / "eval_results.json").is_file():
        raise SystemExit(f"paper_path: FAILED: {last[2]}/README.md has no evaluation scores")
    print("paper_path: Stage II card's evaluation rows:\n" + "\n".join(scores))
    print(f"paper_path: PASSED (CPU dry run of the {len(commands)} documented commands); outputs in {work}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--print", action="store_true", help="print the documented commands and exit")
    mode.add_argument("--cpu-dry-run", metavar="DIR", type=Path, help="run them at toy scale on a CPU, in DIR")
    args = parser.parse_args(argv)
    if args.print:
        print("\n".join(shlex.join(c) for c in documented_commands()))
    elif args.cpu_dry_run is not None:
        dry_run(args.cpu_dry_run.resolve())
    else:
        run(documented_commands(), REPO, check_stages=False)


if __name__ == "__main__":
    main()
