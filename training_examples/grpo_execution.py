"""Stage I: GRPO on execution reasoning (the ``trace``, ``io`` and ``oi`` configs).

Rewards come from the library and read the ``verification`` column. Two named mixes:
``--reward_funcs paper`` is the paper's single reward per row (``paper_reward``: an ``oi`` row
2 or 0, a white-box row 0 when the final answer is wrong, else 1 + step accuracy); ``project``
(the default) is ours: ``whitebox_reward``, ``io_reward``, ``oi_reward`` (the proposed input is
run in the trusted runner) and ``format_reward``, logged separately as ``rewards/<name>/mean``.
Names can also be listed one by one. ``--prompt_style reasoning --n_path 5 --n_state 5``
re-renders the release's rows in the paper's prompt form with its question counts.

    python training_examples/grpo_execution.py --config training_examples/tiny/grpo_execution/config_cpu.yaml
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/grpo_execution.py \\
        --config training_examples/Qwen2.5-Coder-7B-Instruct/grpo_execution/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from trl import GRPOConfig, ModelConfig, ScriptArguments

from execverify_data.model_card import dataset_version
from execverify_data.rewards import (
    format_reward,
    io_reward,
    oi_reward,
    paper_reward,
    whitebox_reward,
)
from execverify_data.training import (
    RESTYLE_COLUMNS,
    EvalArguments,
    check_environment,
    check_grpo_args,
    finish_training,
    load_prompt_rows,
    model_init_kwargs,
    question_counts,
    recipe_parser,
    restyle_questions,
    run_recipe,
)

REWARDS = {f.__name__: f for f in (whitebox_reward, io_reward, oi_reward, format_reward, paper_reward)}
#: Named reward mixes: the paper's single reward, and the project's four.
REWARD_SETS = {"paper": ["paper_reward"], "project": ["whitebox_reward", "io_reward", "oi_reward", "format_reward"]}
HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "weight_decay", "num_generations", "beta", "epsilon",
                   "loss_type", "scale_rewards", "max_completion_length", "temperature", "per_device_train_batch_size",
                   "gradient_accumulation_steps", "steps_per_generation", "num_iterations", "num_train_epochs",
                   "max_steps", "reward_weights", "shuffle_dataset", "use_vllm", "vllm_mode", "bf16", "seed")


@dataclass
class GRPOExecutionArguments(ScriptArguments, EvalArguments):
    """Where the data comes from, how it is prepared, which rewards; the training settings are TRL's :class:`GRPOConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder (execverify_data.release.build_release) or a Hub dataset id."})
    dataset_configs: list[str] = field(
        default_factory=lambda: ["trace", "io", "oi"], metadata={"help": "Dataset configs to mix (concatenated)."})
    samples_per_config: list[int] | None = field(
        default=None, metadata={"help": "Rows taken from each of --dataset_configs after a seeded shuffle "
                                        "(the paper: 20000 white-box + 12000 oi); all rows when unset."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    reward_funcs: list[str] = field(
        default_factory=lambda: ["project"],
        metadata={"help": f"Rewards: a mix name ({', '.join(REWARD_SETS)}) or any of {sorted(REWARDS)}."})
    prompt_style: str | None = field(
        default=None, metadata={"help": "Re-render the release's rows in this style (`reasoning`: the paper's prompt "
                                        "form; `execverify`, `chat`); unset: the prompts as stored."})
    n_path: int | None = field(default=None, metadata={"help": "Path questions per white-box row when re-rendering "
                                                               "(default 5, the paper's)."})
    n_state: int | None = field(default=None, metadata={"help": "State questions per white-box row when re-rendering "
                                                                "(default 5, the paper's)."})
    curriculum: bool = field(
        default=False, metadata={"help": "Order the rows by difficulty bucket (shuffled within a bucket); "
                                         "needs --shuffle_dataset false."})
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
        self.reward_funcs = [name for entry in self.reward_funcs for name in REWARD_SETS.get(entry, [entry])]
        unknown = sorted(set(self.reward_funcs) - set(REWARDS))
        if unknown or not self.reward_funcs:
            raise ValueError(f"unknown or no reward(s) {unknown}; valid names: {', '.join([*REWARD_SETS, *sorted(REWARDS)])}")
        if self.samples_per_config is not None:
            if len(self.samples_per_config) != len(self.dataset_configs):
                raise ValueError(f"--samples_per_config has {len(self.samples_per_config)} counts for "
                                 f"{len(self.dataset_configs)} --dataset_configs; give one per config")
            if any(n < 1 for n in self.samples_per_config):
                raise ValueError(f"--samples_per_config counts must be positive, got {self.samples_per_config}")
        self.n_path, self.n_state = question_counts(self.prompt_style, self.n_path, self.n_state)
        for name in ("max_prompt_length", "max_samples"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"--{name} must be a positive int, got {getattr(self, name)}")


def check(script_args: GRPOExecutionArguments, training_args: GRPOConfig, model_args: ModelConfig) -> None:
    check_grpo_args(training_args, reward_count=len(script_args.reward_funcs),
                    max_prompt_length=script_args.max_prompt_length, curriculum=script_args.curriculum)


def data_description(script_args: GRPOExecutionArguments) -> str:
    counts = script_args.samples_per_config or [None] * len(script_args.dataset_configs)
    text = ", ".join(f"`{c}`" + (f" ({n} rows)" if n else "") for c, n in zip(script_args.dataset_configs, counts))
    if script_args.prompt_style:
        text += (f"; re-rendered in the `{script_args.prompt_style}` style with up to {script_args.n_path} path "
                 f"and {script_args.n_state} state questions per white-box row")
    return text + ("; ordered by difficulty bucket" if script_args.curriculum else "")


def main(script_args: GRPOExecutionArguments, training_args: GRPOConfig, model_args: ModelConfig):
    check(script_args, training_args, model_args)  # before anything loads
    check_environment(training_args)
    from trl import GRPOTrainer, get_peft_config, get_quantization_config

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    style = script_args.prompt_style
    restyle = partial(restyle_questions, style=style, n_path=script_args.n_path, n_state=script_args.n_state,
                      seed=training_args.seed) if style else None
    train_rows = load_prompt_rows(
        script_args.dataset_name, script_args.dataset_configs,
        columns=["prompt", "verification", *(RESTYLE_COLUMNS if style else ())], optional_columns=["bucket", "difficulty"],
        samples_per_config=script_args.samples_per_config, revision=script_args.dataset_revision,
        split=script_args.dataset_train_split, seed=training_args.seed, chat_format=script_args.chat_format,
        restyle=restyle, max_prompt_length=script_args.max_prompt_length, tokenizer_path=model_args.model_name_or_path,
        max_samples=script_args.max_samples, curriculum=script_args.curriculum)
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
    weights = training_args.reward_weights or [1.0] * len(reward_funcs)
    finish_training(
        trainer, "grpo_execution.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
        method="GRPO on execution reasoning (Stage I)", method_tag="grpo",
        dataset_configs=data_description(script_args), n_rows=len(train_rows),
        dataset_description="questions about the interpreter's trace whose every answer is checked",
        rewards="\n".join(f"- `{f.__name__}` (weight {w}), from `{type(f).__module__}`"
                          for f, w in zip(reward_funcs, weights)),
    )
    return trainer


def make_parser():
    return recipe_parser((GRPOExecutionArguments, GRPOConfig, ModelConfig), check=check)


if __name__ == "__main__":
    run_recipe(make_parser, main)
