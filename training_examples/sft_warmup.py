"""SFT warm-up on the ExecVerify ``sft`` config: prompt -> verified reasoning chain + answer block.

The loss covers the completion tokens only (``completion_only_loss``). String prompts are
wrapped as one user message (``--chat_format``, default on) so that the model's chat template
is applied, as for an instruct model.

    # toy scale (CPU, a tiny random model; see training_examples/README.md)
    python training_examples/sft_warmup.py --config training_examples/tiny/sft/config_cpu.yaml
    # paper scale (8 GPUs, DeepSpeed ZeRO-3)
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/sft_warmup.py --config training_examples/Qwen2.5-Coder-7B-Instruct/sft/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import ModelConfig, ScriptArguments, SFTConfig, TrlParser

from execverify_data.model_card import dataset_version, write_recipe_card
from execverify_data.training import model_init_kwargs

HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "warmup_steps", "num_train_epochs", "max_length",
                   "per_device_train_batch_size", "gradient_accumulation_steps", "bf16", "seed")


@dataclass
class SFTScriptArguments(ScriptArguments):
    """Where the data comes from; the training settings are TRL's :class:`SFTConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder (execverify_data.release.build_release) or a Hub dataset id."})
    dataset_config: str | None = field(default="sft", metadata={"help": "Dataset config to train on."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    max_samples: int | None = field(default=None, metadata={"help": "Train on the first N rows after a seeded shuffle."})
    chat_format: bool = field(
        default=True, metadata={"help": "Wrap string prompts/completions as chat messages (applies the chat template)."})
    eval_command: str = field(
        default="execverify-lm-eval --model hf --model_args pretrained={output_dir} --tasks execverify",
        metadata={"help": "Evaluation command written into the model card ({output_dir} is filled in)."})

    def __post_init__(self):
        if not self.dataset_name:
            raise ValueError("--dataset_name is required: a release folder or a Hub id such as execverify/execverify")
        self.dataset_revision = self.dataset_revision or None  # "" on the command line clears a config's tag
        self.data_version = dataset_version(self.dataset_name, self.dataset_revision)  # checks a local folder's
        if self.max_samples is not None and self.max_samples < 1:
            raise ValueError(f"--max_samples must be a positive int, got {self.max_samples}")


def load_sft_rows(script_args: SFTScriptArguments, seed: int):
    """The prompt-completion rows to train on (TRL's standard or conversational format)."""
    from datasets import load_dataset

    rows = load_dataset(script_args.dataset_name, script_args.dataset_config, revision=script_args.dataset_revision,
                        split=script_args.dataset_train_split)
    if "completion" not in rows.column_names and "reference_completion" in rows.column_names:
        rows = rows.rename_column("reference_completion", "completion")
    missing = {"prompt", "completion"} - set(rows.column_names)
    if missing:
        raise ValueError(f"the {script_args.dataset_config!r} config lacks column(s) {sorted(missing)}; "
                         f"it has {rows.column_names}")
    rows = rows.select_columns(["prompt", "completion"]).shuffle(seed=seed)
    if script_args.max_samples is not None:
        rows = rows.select(range(min(script_args.max_samples, len(rows))))
    if script_args.chat_format and getattr(rows.features["prompt"], "dtype", None) == "string":
        rows = rows.map(lambda row: {"prompt": [{"role": "user", "content": row["prompt"]}],
                                     "completion": [{"role": "assistant", "content": row["completion"]}]})
    if len(rows) == 0:
        raise ValueError(f"no training rows left in {script_args.dataset_name} (check the split and the length filters)")
    return rows


def main(script_args: SFTScriptArguments, training_args: SFTConfig, model_args: ModelConfig):
    from trl import SFTTrainer, get_peft_config, get_quantization_config

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    if training_args.completion_only_loss is False:
        raise ValueError("this recipe trains on the completion tokens only; leave completion_only_loss unset or true")
    train_rows = load_sft_rows(script_args, training_args.seed)

    trainer = SFTTrainer(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=train_rows,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)

    if trainer.accelerator.is_main_process:
        write_recipe_card(
            "sft_warmup.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
            method="supervised fine-tuning (completion-only loss)", method_tag="sft",
            dataset_configs=f"`{script_args.dataset_config}`", n_rows=len(train_rows),
            dataset_description="prompts with a reasoning chain narrated from the interpreter's trace and the answer",
            rewards="None: supervised cross-entropy on the completion tokens.",
        )
    return trainer


def make_parser() -> TrlParser:
    return TrlParser((SFTScriptArguments, SFTConfig, ModelConfig))


if __name__ == "__main__":
    main(*make_parser().parse_args_and_config())
