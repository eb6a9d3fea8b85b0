"""Stage I: GRPO on execution reasoning (the ``trace``, ``io`` and ``oi`` configs).

Rewards come from the library and read the ``verification`` column: ``whitebox_reward``
(final-answer gate + step accuracy), ``io_reward``, ``oi_reward`` (the proposed input is run
in the trusted runner) and ``format_reward``. A reward returns None on rows it does not
apply to, so TRL logs each one separately as ``rewards/<name>/mean`` over its own rows.

    python training_examples/grpo_execution.py --config training_examples/tiny/grpo_execution/config_cpu.yaml
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/grpo_execution.py \\
        --config training_examples/Qwen2.5-Coder-7B-Instruct/grpo_execution/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import GRPOConfig, ModelConfig, ScriptArguments, TrlParser

from execverify_data.model_card import dataset_version, write_recipe_card
from execverify_data.rewards import format_reward, io_reward, oi_reward, whitebox_reward
from execverify_data.training import load_prompt_rows, model_init_kwargs

REWARDS = {f.__name__: f for f in (whitebox_reward, io_reward, oi_reward, format_reward)}
HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "num_generations", "beta", "max_completion_length",
                   "temperature", "per_device_train_batch_size", "gradient_accumulation_steps", "num_train_epochs",
                   "max_steps", "reward_weights", "use_vllm", "vllm_mode", "bf16", "seed")


@dataclass
class GRPOExecutionArguments(ScriptArguments):
    """Where the data comes from and which rewards to use; the training settings are TRL's :class:`GRPOConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder (execverify_data.release.build_release) or a Hub dataset id."})
    dataset_configs: list[str] = field(
        default_factory=lambda: ["trace", "io", "oi"], metadata={"help": "Dataset configs to mix (concatenated)."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    reward_funcs: list[str] = field(
        default_factory=lambda: list(REWARDS), metadata={"help": f"Rewards, any of {sorted(REWARDS)}."})
    max_prompt_length: int | None = field(
        default=None, metadata={"help": "Drop rows whose templated prompt has more tokens (verl's overlong filter)."})
    max_samples: int | None = field(default=None, metadata={"help": "Train on the first N rows after a seeded shuffle."})
    chat_format: bool = field(default=True, metadata={"help": "Wrap string prompts as one user message."})
    eval_command: str = field(
        default="execverify-lm-eval --model hf --model_args pretrained={output_dir} --tasks execverify",
        metadata={"help": "Evaluation command written into the model card ({output_dir} is filled in)."})

    def __post_init__(self):
        if not self.dataset_name:
            raise ValueError("--dataset_name is required: a release folder or a Hub id such as execverify/execverify")
        if self.dataset_config is not None:
            raise ValueError("this recipe mixes several configs: use --dataset_configs trace io oi, not --dataset_config")
        self.dataset_revision = self.dataset_revision or None  # "" on the command line clears a config's tag
        self.data_version = dataset_version(self.dataset_name, self.dataset_revision)  # checks a local folder's
        unknown = sorted(set(self.reward_funcs) - set(REWARDS))
        if unknown or not self.reward_funcs:
            raise ValueError(f"unknown or no reward(s) {unknown}; valid names: {', '.join(sorted(REWARDS))}")
        for name in ("max_prompt_length", "max_samples"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"--{name} must be a positive int, got {getattr(self, name)}")


def main(script_args: GRPOExecutionArguments, training_args: GRPOConfig, model_args: ModelConfig):
    from trl import GRPOTrainer, get_peft_config, get_quantization_config

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    train_rows = load_prompt_rows(
        script_args.dataset_name, script_args.dataset_configs, columns=["prompt", "verification"],
        revision=script_args.dataset_revision, split=script_args.dataset_train_split, seed=training_args.seed,
        chat_format=script_args.chat_format, max_prompt_length=script_args.max_prompt_length,
        tokenizer_path=model_args.model_name_or_path, max_samples=script_args.max_samples)
    reward_funcs = [REWARDS[name] for name in script_args.reward_funcs]

    trainer = GRPOTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=train_rows,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)

    if trainer.accelerator.is_main_process:
        weights = training_args.reward_weights or [1.0] * len(reward_funcs)
        write_recipe_card(
            "grpo_execution.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
            method="GRPO on execution reasoning (Stage I)", method_tag="grpo",
            dataset_configs=", ".join(f"`{c}`" for c in script_args.dataset_configs), n_rows=len(train_rows),
            dataset_description="questions about the interpreter's trace whose every answer is checked",
            rewards="\n".join(f"- `{f.__name__}` (weight {w}), from `{type(f).__module__}`"
                              for f, w in zip(reward_funcs, weights)),
        )
    return trainer


def make_parser() -> TrlParser:
    return TrlParser((GRPOExecutionArguments, GRPOConfig, ModelConfig))


if __name__ == "__main__":
    main(*make_parser().parse_args_and_config())
