"""Stage II: GRPO for code generation, rewarded by unit tests run in the library's sandbox.

Data: the ``codegen`` config of the release, or any dataset with a ``prompt`` column (text or
chat messages) and a ``tests`` column (a list of test strings per row: ``assert f(1) == 2`` or a
HumanEval-style ``def check(candidate): ...``); an optional ``entry_point`` column names the
function that ``check`` is called with. ``unit_test_reward`` extracts the last fenced Python block
of each completion and returns the fraction of tests passed; every test and completion runs in
the untrusted sandbox (``execverify_data.sandbox``), and the verdict is decided in this process.

    python training_examples/grpo_codegen.py --config training_examples/tiny/grpo_codegen/config_cpu.yaml
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml \\
        training_examples/grpo_codegen.py --config training_examples/Qwen2.5-Coder-7B-Instruct/grpo_codegen/config_paper.yaml
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import GRPOConfig, ModelConfig, ScriptArguments, TrlParser

from execverify_data.model_card import dataset_version, write_recipe_card
from execverify_data.training import load_prompt_rows, model_init_kwargs

HYPERPARAMETERS = ("learning_rate", "lr_scheduler_type", "num_generations", "beta", "max_completion_length",
                   "temperature", "per_device_train_batch_size", "gradient_accumulation_steps", "num_train_epochs",
                   "max_steps", "use_vllm", "vllm_mode", "bf16", "seed")


@dataclass
class GRPOCodegenArguments(ScriptArguments):
    """Data and sandbox settings; the training settings are TRL's :class:`GRPOConfig`."""

    dataset_name: str | None = field(
        default="execverify/execverify",
        metadata={"help": "A local release folder, a Hub dataset id, or any dataset with `prompt` and `tests` columns."})
    dataset_config: str | None = field(default="codegen", metadata={"help": "Dataset config; '' for a dataset without configs."})
    dataset_revision: str | None = field(
        default=None, metadata={"help": "Version tag (e.g. `v1.0.0`); a local folder's must match its MANIFEST.json."})
    test_timeout: float = field(default=5.0, metadata={"help": "Wall-clock seconds per sandboxed execution."})
    test_memory_mb: int = field(default=1024, metadata={"help": "Address-space limit of each sandboxed execution."})
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
        for name in ("max_prompt_length", "max_samples"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"--{name} must be a positive int, got {getattr(self, name)}")


def main(script_args: GRPOCodegenArguments, training_args: GRPOConfig, model_args: ModelConfig):
    from trl import GRPOTrainer, get_peft_config, get_quantization_config

    from execverify_data.rewards import UnitTestReward

    training_args.model_init_kwargs = model_init_kwargs(model_args, training_args)
    train_rows = load_prompt_rows(
        script_args.dataset_name, [script_args.dataset_config], columns=["prompt", "tests"],
        optional_columns=["entry_point"], revision=script_args.dataset_revision,
        split=script_args.dataset_train_split, seed=training_args.seed, chat_format=script_args.chat_format,
        max_prompt_length=script_args.max_prompt_length, tokenizer_path=model_args.model_name_or_path,
        max_samples=script_args.max_samples)
    reward = UnitTestReward(timeout=script_args.test_timeout, memory_mb=script_args.test_memory_mb)

    trainer = GRPOTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=[reward],
        args=training_args,
        train_dataset=train_rows,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)

    if trainer.accelerator.is_main_process:
        write_recipe_card(
            "grpo_codegen.py", script_args, training_args, model_args, hyperparameters=HYPERPARAMETERS,
            method="GRPO for code generation with unit tests (Stage II)", method_tag="grpo",
            dataset_configs=f"`{script_args.dataset_config}`", n_rows=len(train_rows),
            dataset_description="programming problems with unit tests",
            rewards=f"- `{reward.__name__}`: fraction of unit tests passed in the sandbox "
                    f"(timeout {reward.timeout} s, memory {reward.memory_mb} MB per execution)",
        )
    return trainer


def make_parser() -> TrlParser:
    return TrlParser((GRPOCodegenArguments, GRPOConfig, ModelConfig))


if __name__ == "__main__":
    main(*make_parser().parse_args_and_config())
