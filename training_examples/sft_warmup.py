"""SFT warm-up on the ExecVerify ``sft`` config: prompt -> verified reasoning chain + answer block.

The loss covers the completion tokens only (``completion_only_loss``). String prompts are
wrapped as one user message (``--chat_format``, default on) so that the model's chat template
is applied, as for an instruct model. ``--prompt_style reasoning --dataset_configs io oi``
builds the paper's warm-up instead: output and input questions in the paper's prompt form, the
trace-narrated reasoning in ``<reasoning>`` and the answer in ``<answer>``.

    # toy scale (CPU, a tiny random model; see training_examples/README.md)
    python training_examples/sft_warmup.py --config training_examples/tiny/sft/config_cpu.yaml
    # paper scale (8 GPUs, DeepSpeed ZeRO-3)
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/sft_warmup.py --config training_examples/Qwen2.5-Coder-7B-Instruct/sft/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from trl import ModelConfig, ScriptArguments, SFTConfig

from execverify_data.model_card import dataset_version
from execverify_data.training import (
    RESTYLE_COLUMNS,
    EvalArguments,
    check_environment,
    check_sft_args,
    finish_training,
    load_prompt_rows,
    model_init_kwargs,
    question_counts,
    recipe_parser,
    restyle_questions,
    run_recipe,
)

HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "warmup_steps", "num_train_epochs", "max_length",
                   "per_device_train_batch_size", "gradient_accumulation_steps", "train_sampling_strategy", "bf16", "seed")


@dataclass
class SFTScriptArguments(ScriptArguments, EvalArguments):
    """Where the data comes from and how it is prepared; the training settings are TRL's :class:`SFTConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder (execverify_data.release.build_release) or a Hub dataset id."})
    dataset_config: str | None = field(default="sft", metadata={"help": "Dataset config to train on."})
    dataset_configs: list[str] | None = field(
        default=None, metadata={"help": "Several configs to mix instead of --dataset_config (e.g. io oi)."})
    samples_per_config: list[int] | None = field(
        default=None, metadata={"help": "Rows taken from each config after a seeded shuffle; all rows when unset."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    prompt_style: str | None = field(
        default=None, metadata={"help": "Re-render the release's rows in this style with the trace-narrated reasoning "
                                        "as the completion (`reasoning`: the paper's form); unset: as stored."})
    n_path: int | None = field(default=None, metadata={"help": "Path questions per white-box row when re-rendering (default 5)."})
    n_state: int | None = field(default=None, metadata={"help": "State questions per white-box row when re-rendering (default 5)."})
    curriculum: bool = field(
        default=False, metadata={"help": "Order the rows by difficulty bucket (shuffled within a bucket); "
                                         "needs --train_sampling_strategy sequential."})
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
        self.configs = list(self.dataset_configs) if self.dataset_configs else [self.dataset_config]
        if self.samples_per_config is not None and len(self.samples_per_config) != len(self.configs):
            raise ValueError(f"--samples_per_config has {len(self.samples_per_config)} counts for {len(self.configs)} configs")
        self.n_path, self.n_state = question_counts(self.prompt_style, self.n_path, self.n_state)
        if self.max_samples is not None and self.max_samples < 1:
            raise ValueError(f"--max_samples must be a positive int, got {self.max_samples}")


def check(script_args: SFTScriptArguments, training_args: SFTConfig, model_args: ModelConfig) -> None:
    if training_args.completion_only_loss is False:
        raise ValueError("this recipe trains on the completion tokens only; leave completion_only_loss unset or true")
    check_sft_args(training_args, curriculum=script_args.curriculum)


def load_sft_rows(script_args: SFTScriptArguments, seed: int):
    """The prompt-completion rows to train on (TRL's standard or conversational format)."""
    style = script_args.prompt_style
    restyle = partial(restyle_questions, style=style, n_path=script_args.n_path, n_state=script_args.n_state,
                      rationale=True, seed=seed) if style else None
    rows = load_prompt_rows(
        script_args.dataset_name, script_args.configs, columns=["prompt", *(RESTYLE_COLUMNS if style else ())],
        optional_columns=["completion", "reference_completion", "bucket"], samples_per_config=script_args.samples_per_config,
        revision=script_args.dataset_revision, split=script_args.dataset_train_split, seed=seed,
        chat_format=script_args.chat_format, restyle=restyle, max_samples=script_args.max_samples,
        curriculum=script_args.curriculum)
    if "completion" not in rows.column_names and "reference_completion" in rows.column_names:
        rows = rows.rename_column("reference_completion", "completion")
    if "completion" not in rows.column_names:
        raise ValueError(f"{script_args.dataset_name} ({', '.join(map(str, script_args.configs))}) has no `completion` "
                         f"or `reference_completion` column; it has {rows.column_names}")
    rows = rows.select_columns(["prompt", "completion"])
    if getattr(rows.features["prompt"], "dtype", None) != "string":  # chat prompts: the completion is a reply
        rows = rows.map(lambda row: {"completion": [{"role": "assistant", "content": row["completion"]}]})
    return rows


def main(script_args: SFTScriptArguments, training_args: SFTConfig, model_args: ModelConfig):
    check(script_args, training_args, model_args)  # before anything loads
    check_environment(training_args)
    from trl import SFTTrainer, get_peft_config, get_quantization_config

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    train_rows = load_sft_rows(script_args, training_args.seed)

    trainer = SFTTrainer(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=train_rows,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    configs = ", ".join(f"`{c}`" for c in script_args.configs)
    if script_args.prompt_style:
        configs += f", re-rendered in the `{script_args.prompt_style}` style with the trace-narrated reasoning"
    finish_training(
        trainer, "sft_warmup.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
        method="supervised fine-tuning (completion-only loss)", method_tag="sft",
        dataset_configs=configs, n_rows=len(train_rows),
        dataset_description="prompts with a reasoning chain narrated from the interpreter's trace and the answer",
        rewards="None: supervised cross-entropy on the completion tokens.",
    )
    return trainer


def make_parser():
    return recipe_parser((SFTScriptArguments, SFTConfig, ModelConfig), check=check)


if __name__ == "__main__":
    run_recipe(make_parser, main)
