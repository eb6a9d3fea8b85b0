"""Stage II: GRPO for code generation, rewarded by unit tests run in the library's sandbox.

Data: the ``codegen`` config of the release, or any dataset with a ``prompt`` column (text or
chat messages) and a ``tests`` column (a list of test strings per row: ``assert f(1) == 2`` or a
HumanEval-style ``def check(candidate): ...``) and/or a ``stdio_tests`` column (a list of
``{"stdin", "stdout"}`` per row); an optional ``entry_point`` column names the function that
``check`` is called with. Every column reaches ``unit_test_reward`` unchanged. It extracts the
last fenced Python block of each completion and returns the fraction of tests passed
(``--reward paper``: plus 0.05 for the ``<answer>`` tags when above 0, the paper's rule); every test
and completion runs in the untrusted sandbox (``execverify_data.sandbox``, ``--sandbox_workers``
per rank), and the verdict is decided in this process. ``--prompt_style reasoning`` wraps the
problems in the paper's Stage II prompt form.

    python training_examples/grpo_codegen.py --config training_examples/tiny/grpo_codegen/config_cpu.yaml
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/grpo_codegen.py --config training_examples/Qwen2.5-Coder-7B-Instruct/grpo_codegen/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from trl import GRPOConfig, ModelConfig, ScriptArguments

from execverify_data.model_card import dataset_version
from execverify_data.training import (
    EvalArguments,
    check_environment,
    check_grpo_args,
    finish_training,
    load_prompt_rows,
    model_init_kwargs,
    recipe_parser,
    restyle_codegen,
    run_recipe,
    sandbox_workers,
)

HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "weight_decay", "num_generations", "beta", "epsilon",
                   "loss_type", "scale_rewards", "max_completion_length", "temperature", "per_device_train_batch_size",
                   "gradient_accumulation_steps", "steps_per_generation", "num_iterations", "num_train_epochs",
                   "max_steps", "shuffle_dataset", "use_vllm", "vllm_mode", "bf16", "seed")
TEST_COLUMNS = ("tests", "stdio_tests")


@dataclass
class GRPOCodegenArguments(ScriptArguments, EvalArguments):
    """Data and sandbox settings; the training settings are TRL's :class:`GRPOConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder, a Hub dataset id, or any dataset with `prompt` and `tests` columns."})
    dataset_config: str | None = field(default="codegen", metadata={"help": "Dataset config; '' for a dataset without configs."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    prompt_style: str | None = field(
        default=None, metadata={"help": "`reasoning`: wrap each problem in the paper's Stage II prompt form "
                                        "(system message, <reasoning> then the code in <answer>); unset: as stored."})
    curriculum: bool = field(
        default=False, metadata={"help": "Order the rows by difficulty bucket (shuffled within a bucket); "
                                         "needs --shuffle_dataset false and a `bucket` column."})
    reward: str = field(
        default="unit_test", metadata={"help": "`unit_test`: the fraction of tests passed; `paper`: the paper's rule, "
                                               "that fraction + 0.05 for <answer> tags when it is above 0."})
    test_timeout: float = field(default=5.0, metadata={"help": "Wall-clock seconds per sandboxed execution."})
    test_memory_mb: int = field(default=1024, metadata={"help": "Address-space limit of each sandboxed execution."})
    sandbox_workers: int | None = field(
        default=None, metadata={"help": "Sandbox worker processes of this rank; default: 1.5 per CPU of the node "
                                        "divided by the ranks on it (LOCAL_WORLD_SIZE)."})
    max_prompt_length: int | None = field(
        default=None, metadata={"help": "Drop rows whose templated prompt has more tokens."})
    max_samples: int | None = field(default=None, metadata={"help": "Train on the first N rows after a seeded shuffle."})
    chat_format: bool = field(default=True, metadata={"help": "Wrap string prompts as one user message."})
    eval_command: str = field(
        default="execverify-lm-eval --model hf --model_args pretrained={output_dir} --tasks execverify_humaneval",
        metadata={"help": "Evaluation command written into the model card ({output_dir} is filled in)."})

    def __post_init__(self):
        if not self.dataset_name:
            raise ValueError("--dataset_name is required: a release folder, a Hub id, or a dataset with prompt and tests")
        self.dataset_config = self.dataset_config or None
        self.dataset_revision = self.dataset_revision or None  # "" on the command line clears a config's tag
        self.data_version = dataset_version(self.dataset_name, self.dataset_revision)  # checks a local folder's
        if self.test_timeout <= 0 or self.test_memory_mb <= 0:
            raise ValueError("--test_timeout and --test_memory_mb must be positive")
        if self.reward not in ("unit_test", "paper"):
            raise ValueError(f"--reward must be unit_test or paper, got {self.reward!r}")
        if self.prompt_style not in (None, "reasoning"):
            raise ValueError(f"--prompt_style for code generation is `reasoning` or unset, got {self.prompt_style!r}")
        self.sandbox_workers = sandbox_workers(self.sandbox_workers)
        for name in ("max_prompt_length", "max_samples"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"--{name} must be a positive int, got {getattr(self, name)}")


def check(script_args: GRPOCodegenArguments, training_args: GRPOConfig, model_args: ModelConfig) -> None:
    check_grpo_args(training_args, reward_count=1, max_prompt_length=script_args.max_prompt_length,
                    curriculum=script_args.curriculum)


def validate_rows(rows, dataset_name: str) -> None:
    """Refuse rows without tests, and tests that check nothing (:func:`~execverify_data.rewards.validate_tests`)."""
    from execverify_data.rewards import validate_tests

    present = [c for c in TEST_COLUMNS if c in rows.column_names]
    if not present:
        raise ValueError(f"{dataset_name} has neither a `tests` nor a `stdio_tests` column; it has {rows.column_names}")
    for i, row in enumerate(rows.select_columns(present)):
        try:
            validate_tests(row.get("tests"), row.get("stdio_tests"))
        except (ValueError, TypeError) as exc:  # InvalidArgument is a TypeError
            raise ValueError(f"row {i} of {dataset_name}: {exc}") from None


def main(script_args: GRPOCodegenArguments, training_args: GRPOConfig, model_args: ModelConfig):
    check(script_args, training_args, model_args)  # before anything loads
    check_environment(training_args)
    from trl import GRPOTrainer, get_peft_config, get_quantization_config

    from execverify_data.rewards import PaperCodegenReward, UnitTestReward

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    restyle = partial(restyle_codegen, style=script_args.prompt_style) if script_args.prompt_style else None
    train_rows = load_prompt_rows(
        script_args.dataset_name, [script_args.dataset_config], columns=["prompt"],
        optional_columns=[*TEST_COLUMNS, "entry_point", "bucket"], revision=script_args.dataset_revision,
        split=script_args.dataset_train_split, seed=training_args.seed, chat_format=script_args.chat_format,
        restyle=restyle, max_prompt_length=script_args.max_prompt_length, tokenizer_path=model_args.model_name_or_path,
        max_samples=script_args.max_samples, curriculum=script_args.curriculum)
    validate_rows(train_rows, script_args.dataset_name)
    unit_tests = UnitTestReward(timeout=script_args.test_timeout, memory_mb=script_args.test_memory_mb,
                                workers=script_args.sandbox_workers)
    reward = PaperCodegenReward(unit_tests=unit_tests) if script_args.reward == "paper" else unit_tests

    trainer = GRPOTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=[reward],
        args=training_args,
        train_dataset=train_rows,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    finish_training(
        trainer, "grpo_codegen.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
        method="GRPO for code generation with unit tests (Stage II)", method_tag="grpo",
        dataset_configs=f"`{script_args.dataset_config}`" + (f", in the `{script_args.prompt_style}` style"
                                                            if script_args.prompt_style else ""),
        n_rows=len(train_rows), dataset_description="programming problems with unit tests",
        rewards=f"- `{reward.__name__}`: fraction of unit tests passed in the sandbox "
                f"(timeout {unit_tests.timeout} s, memory {unit_tests.memory_mb} MB per execution, "
                f"{script_args.sandbox_workers} workers per rank)"
                + (", + 0.05 for the <answer> tags when above 0 (the paper's rule)" if script_args.reward == "paper" else ""),
    )
    return trainer


def make_parser():
    return recipe_parser((GRPOCodegenArguments, GRPOConfig, ModelConfig), check=check)


if __name__ == "__main__":
    run_recipe(make_parser, main)
