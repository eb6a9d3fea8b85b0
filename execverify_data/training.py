"""What the TRL recipes in ``training_examples/`` share: argument parsing and checks, data
preparation, sandbox sizing, and the end of a run (save, merge, card, push).

``datasets``, ``transformers``, ``trl`` and ``accelerate`` are imported inside the functions,
so importing this module needs none of them (only :class:`RecipeParser` needs ``trl``).

Parsing (:func:`recipe_parser`, which records :class:`RecipeInputs` for the card's reproduce command),
checks (``check_*``, before data or a model loads), data (:func:`load_prompt_rows`), sandbox sizing
(:func:`sandbox_workers`) and the end of a run (:func:`finish_training`); ``docs/training.md`` has the details.

>>> sandbox_workers(None, cpus=16, local_world_size=8), sandbox_workers(5, cpus=16, local_world_size=8)
(3, 5)
>>> check_grpo_args(type("A", (), {"use_vllm": False, "vllm_mode": "bogus"})(), reward_count=1)
Traceback (most recent call last):
...
ValueError: --vllm_mode must be 'colocate' or 'server', got 'bogus'
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execverify_data.errors import DataError, ExecVerifyError

__all__ = ["RECIPE_ARGS_FILE", "RESTYLE_COLUMNS", "EvalArguments", "RecipeInputs", "check_environment", "check_grpo_args",
           "check_sft_args", "curriculum_order", "finish_training", "load_prompt_rows", "model_init_kwargs",
           "question_counts", "recipe_parser", "restyle_codegen", "restyle_questions", "run_recipe", "sandbox_workers"]

#: The columns :func:`restyle_questions` rebuilds a question row from (the release's layout).
RESTYLE_COLUMNS = ("id", "code", "call", "task")
#: Columns a re-rendered row keeps besides the new ``prompt``, ``verification`` and ``reference_completion``.
_KEPT_COLUMNS = ("id", "task", "bucket", "difficulty")
#: Sandbox workers per CPU of a node, shared by the ranks on it (the sandbox's own default ratio).
WORKERS_PER_CPU = 1.5
#: File beside a trained model holding the arguments that reproduce it (``--config`` of the card's command).
RECIPE_ARGS_FILE = "recipe_args.yaml"


@dataclass
class RecipeInputs:
    """What the user gave a recipe: the ``--config`` file as given (``config_path``), and its mapping updated
    with the command-line values as the parser types them (``values``; written as :data:`RECIPE_ARGS_FILE`,
    it reproduces the run)."""

    config_path: str | None = None
    values: dict[str, Any] = field(default_factory=dict)


def _split_config(argv: list[str]) -> tuple[str | None, list[str]]:
    if "--config" not in argv:
        return None, argv
    i = argv.index("--config")
    if i + 1 >= len(argv):
        raise ValueError("--config needs a YAML file path")
    return argv[i + 1], argv[:i] + argv[i + 2 :]


def recipe_parser(dataclass_types: Sequence[type], check: Callable[..., None] | None = None):
    """A ``TrlParser`` for ``dataclass_types`` that records :class:`RecipeInputs` on the first
    parsed object (``script_args.recipe_inputs``) and calls ``check(*parsed)`` after parsing."""
    import yaml
    from transformers import HfArgumentParser
    from trl import TrlParser

    class RecipeParser(TrlParser):
        def parse_args_and_config(self, args=None, return_remaining_strings=False, fail_with_unknown_args=True,
                                  separate_remaining_strings=False):
            argv = list(args) if args is not None else sys.argv[1:]
            config_path, cli = _split_config(argv)
            output = super().parse_args_and_config(
                argv, return_remaining_strings=return_remaining_strings,
                fail_with_unknown_args=fail_with_unknown_args, separate_remaining_strings=separate_remaining_strings)
            values: dict[str, Any] = {}
            if config_path is not None:
                with open(config_path, encoding="utf-8") as handle:
                    values.update(yaml.safe_load(handle) or {})
            given = HfArgumentParser(self.dataclass_types)  # a fresh parser that reports only what was typed
            for action in given._actions:
                if action.dest != "help":
                    action.default, action.required = argparse.SUPPRESS, False
            typed, _ = given.parse_known_args(cli)
            values.update(vars(typed))
            output[0].recipe_inputs = RecipeInputs(config_path, values)
            if check is not None:
                check(*output[: len(self.dataclass_types)])
            return output

        def error(self, message: str):
            """One line instead of argparse's usage of several hundred options; a close option is named."""
            self.exit(2, f"{self.prog}: error: {message}{_close_option(self, message)} (--help lists the arguments)\n")

    return RecipeParser(tuple(dataclass_types), allow_abbrev=False)


def _close_option(parser: argparse.ArgumentParser, message: str) -> str:
    import difflib

    if not message.startswith("unrecognized arguments:"):
        return ""
    options = [o for action in parser._actions for o in action.option_strings if o.startswith("--")]
    for word in message.split(":", 1)[1].split():
        close = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.75)
        if word.startswith("--") and close:
            return f" (did you mean {close[0]}?)"
    return ""


@dataclass
class EvalArguments:
    """The optional evaluation after a stage (:func:`execverify_data.model_eval.evaluate_saved_model`); a recipe's
    script arguments inherit these fields."""

    eval_tasks: str | None = field(
        default=None, metadata={"help": "lm-eval tasks (comma-separated) to run on the saved model after training; their "
                                        "scores go into the model card and eval_results.json. Unset: no evaluation."})
    eval_limit: float | None = field(
        default=None, metadata={"help": "lm-eval --limit for the evaluation (docs per task): dry runs only."})
    eval_batch_size: str = field(default="1", metadata={"help": "lm-eval --batch_size for the evaluation (or auto)."})


_UNUSED = "Some specified arguments are not used by the HfArgumentParser:"


def run_recipe(make_parser: Callable[[], Any], main: Callable[..., Any], argv: Sequence[str] | None = None) -> Any:
    """A recipe's command line: parse and check (a bad argument, a missing package or dataset is one line and exit
    status 2), train with ``main``, then, on the main process, evaluate the saved model when ``--eval_tasks`` is set."""
    prog = Path(sys.argv[0]).name
    parser = make_parser()
    try:
        parsed = parser.parse_args_and_config(argv)
        check_environment(parsed[1])
    except (ValueError, ImportError) as exc:
        message = str(exc)
        if message.startswith(_UNUSED):  # HfArgumentParser's words for arguments no dataclass takes
            unused = ast.literal_eval(message[len(_UNUSED):].strip())
            parser.error(f"unrecognized arguments: {' '.join(unused)}")
        print(f"{prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2) from None
    script_args, training_args = parsed[0], parsed[1]
    try:
        trainer = main(*parsed)
    except ExecVerifyError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if not getattr(script_args, "eval_tasks", None) or not trainer.accelerator.is_main_process:
        return trainer
    push = (trainer.hub_model_id or training_args.hub_model_id) if training_args.push_to_hub else None
    del trainer  # the evaluation process loads the saved model: free this one's memory first
    _free_memory()
    from execverify_data.model_eval import EVAL_RESULTS_FILE, evaluate_saved_model

    output_dir = Path(training_args.output_dir)
    print(f"{prog}: evaluating {output_dir} on {script_args.eval_tasks}", file=sys.stderr)
    try:
        results = evaluate_saved_model(output_dir, script_args.eval_tasks, limit=script_args.eval_limit,
                                       batch_size=script_args.eval_batch_size)
    except ExecVerifyError as exc:
        raise SystemExit(f"{prog}: error: the model is saved in {output_dir}, but its evaluation failed: {exc}") from None
    if push:
        import huggingface_hub

        huggingface_hub.upload_folder(repo_id=push, folder_path=str(output_dir), revision=training_args.hub_revision,
                                      token=training_args.hub_token, allow_patterns=["README.md", EVAL_RESULTS_FILE],
                                      commit_message="execverify-data: evaluation scores")
    return results


def _free_memory() -> None:
    import gc

    gc.collect()
    try:
        import torch
    except ImportError:  # pragma: no cover - a recipe always has torch
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def check_grpo_args(training_args: Any, *, reward_count: int, max_prompt_length: int | None = None,
                    curriculum: bool = False) -> None:
    """Raise ``ValueError`` for GRPO settings that TRL would accept and fail on only after loading (or never)."""
    mode = getattr(training_args, "vllm_mode", "colocate")
    if mode not in ("colocate", "server"):
        raise ValueError(f"--vllm_mode must be 'colocate' or 'server', got {mode!r}")
    weights = getattr(training_args, "reward_weights", None)
    if weights is not None and len(weights) != reward_count:
        raise ValueError(f"--reward_weights has {len(weights)} weight(s) for {reward_count} reward(s); "
                         "give one weight per reward, in the order of the rewards")
    if getattr(training_args, "log_completions", False) and getattr(training_args, "num_completions_to_print", 0) is None:
        raise ValueError("--log_completions prints every completion of every step unless --num_completions_to_print N "
                         "is set (4 is plenty)")
    limit = getattr(training_args, "vllm_max_model_length", None)
    if getattr(training_args, "use_vllm", False) and limit and max_prompt_length:
        needed = max_prompt_length + training_args.max_completion_length
        if needed > limit:
            raise ValueError(f"--vllm_max_model_length {limit} is shorter than --max_prompt_length {max_prompt_length} "
                             f"+ --max_completion_length {training_args.max_completion_length} = {needed}")
    if curriculum and getattr(training_args, "shuffle_dataset", False):
        raise ValueError("--curriculum orders the rows by difficulty, and GRPO would shuffle them again: "
                         "add --shuffle_dataset false")


def question_counts(prompt_style: str | None, n_path: int | None, n_state: int | None) -> tuple[int | None, int | None]:
    """The path and state question counts a recipe re-renders with: the paper's 5 and 5 unless given
    (``ValueError`` for counts without a style to re-render in, an unknown style, a negative count)."""
    if prompt_style is None:
        if n_path is not None or n_state is not None:
            raise ValueError("--n_path and --n_state apply when re-rendering: add --prompt_style reasoning "
                             "(or execverify, chat)")
        return None, None
    if prompt_style not in ("reasoning", "execverify", "chat"):
        raise ValueError(f"--prompt_style must be reasoning, execverify or chat, got {prompt_style!r}")
    n_path, n_state = (5 if n_path is None else n_path), (5 if n_state is None else n_state)
    if n_path < 0 or n_state < 0:
        raise ValueError(f"--n_path and --n_state must be non-negative, got {n_path} and {n_state}")
    return n_path, n_state


def check_sft_args(training_args: Any, *, curriculum: bool = False) -> None:
    """Raise ``ValueError`` for SFT settings that would undo a curriculum (a sampler other than ``sequential``)."""
    strategy = getattr(training_args, "train_sampling_strategy", "random")
    if curriculum and strategy != "sequential":
        raise ValueError(f"--curriculum orders the rows by difficulty, and the '{strategy}' sampler would shuffle them "
                         "again: add --train_sampling_strategy sequential")


def check_environment(training_args: Any) -> None:
    """The packages a run needs that are missing, with the install line (called before anything loads)."""
    if getattr(training_args, "use_vllm", False) and importlib.util.find_spec("vllm") is None:
        raise ImportError("--use_vllm needs vLLM: pip install 'execverify-data[vllm]' (it pins its own torch), "
                          "or pass --use_vllm false")
    if os.environ.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true" and importlib.util.find_spec("deepspeed") is None:
        raise ImportError("this DeepSpeed launch needs deepspeed: pip install 'execverify-data[train]'")


def load_prompt_rows(dataset_name: str, configs: Sequence[str | None], *, columns: Sequence[str],
                     optional_columns: Sequence[str] = (), samples_per_config: Sequence[int] | None = None,
                     revision: str | None = None, split: str = "train", seed: int = 0, chat_format: bool = True,
                     restyle: Callable[[Any], Any] | None = None, max_prompt_length: int | None = None,
                     tokenizer_path: str | None = None, max_samples: int | None = None, curriculum: bool = False):
    """Training prompts: the ``columns`` of every config in ``configs``, mixed, prepared, ordered.

    In order: ``samples_per_config[i]`` rows of each config (after a seeded shuffle), all shuffled with
    ``seed``, ``restyle``, ``chat_format``, ``max_prompt_length`` (tokens), ``max_samples``, ``curriculum``
    (the steps of ``docs/training.md``).

    Raises:
        ValueError: a config lacks a required column (``bucket`` too with ``curriculum``), has
            fewer rows than asked, or no row is left.
    """
    from datasets import concatenate_datasets

    if samples_per_config is not None and len(samples_per_config) != len(configs):
        raise DataError(f"{len(samples_per_config)} row counts for {len(configs)} configs; give one per config")
    required = [*columns, *(["bucket"] if curriculum else [])]
    parts = []
    for i, config in enumerate(configs):
        where = f"the {config!r} config of {dataset_name}" if config else dataset_name
        part = _load_split(dataset_name, config, revision, split, where)
        missing = set(required) - set(part.column_names)
        if missing:
            raise DataError(f"{where} lacks column(s) {sorted(missing)}; it has {part.column_names}")
        part = part.select_columns([*dict.fromkeys([*required, *(c for c in optional_columns if c in part.column_names)])])
        if samples_per_config is not None:
            wanted = samples_per_config[i]
            if wanted > len(part):
                raise DataError(f"{where} has {len(part)} rows, fewer than the {wanted} asked; lower its count")
            part = part.shuffle(seed=seed).select(range(wanted))
        parts.append(part)
    rows = concatenate_datasets(parts).shuffle(seed=seed)
    if restyle is not None:
        rows = restyle(rows)
    if chat_format and getattr(rows.features["prompt"], "dtype", None) == "string":
        rows = rows.map(lambda row: {"prompt": [{"role": "user", "content": row["prompt"]}]})
    if max_prompt_length is not None:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer_path)

        def fits(row: dict[str, Any]) -> bool:
            prompt = row["prompt"]
            if not isinstance(prompt, str):
                prompt = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
            return len(tokenizer(prompt, add_special_tokens=False).input_ids) <= max_prompt_length

        rows = rows.filter(fits)
    if max_samples is not None:
        rows = rows.select(range(min(max_samples, len(rows))))
    if len(rows) == 0:
        raise DataError(f"no training rows left in {dataset_name} (check the split and the length filters)")
    if curriculum:
        rows = curriculum_order(rows, seed)
    return rows


def _load_split(dataset_name: str, config: str | None, revision: str | None, split: str, where: str):
    """One split of a dataset, or a :class:`DataError` in one line saying how to get it."""
    from datasets import load_dataset

    try:
        return load_dataset(dataset_name, config, revision=revision, split=split)
    except (FileNotFoundError, ConnectionError) as exc:  # datasets' DatasetNotFoundError is a FileNotFoundError
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"cannot load {where} ({first}); build a release there with `execverify build-release --out "
                        f"{dataset_name}` or pass --dataset_name a release folder or Hub dataset id") from None
    except ValueError as exc:  # an unknown config or split: datasets lists the ones there are
        raise DataError(f"cannot load {where} (split {split!r}): {str(exc).splitlines()[0]}") from None


def curriculum_order(rows, seed: int):
    """``rows`` ordered by their ``bucket`` column (0, the easiest, first), shuffled with ``seed`` within a bucket
    (the trainer must then read them in order, ``docs/training.md``)."""
    if "bucket" not in rows.column_names:
        raise DataError(f"a curriculum needs the release's `bucket` column; these rows have {rows.column_names}")
    buckets = rows["bucket"]
    rank = list(range(len(buckets)))
    random.Random(seed).shuffle(rank)
    return rows.select(sorted(range(len(buckets)), key=lambda i: (buckets[i], rank[i])))


def _local_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _local_world_size() -> int:
    try:
        return max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    except ValueError:
        raise ValueError(f"LOCAL_WORLD_SIZE must be an int, got {os.environ['LOCAL_WORLD_SIZE']!r}") from None


def sandbox_workers(requested: int | None, *, cpus: int | None = None, local_world_size: int | None = None) -> int:
    """Sandbox workers for this rank: ``requested``, or the node's share: 1.5 per CPU divided by
    the ranks on the node (``LOCAL_WORLD_SIZE``, set by ``accelerate launch`` and ``torchrun``)."""
    if requested is not None:
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
            raise ValueError(f"--sandbox_workers must be a positive int, got {requested!r}")
        return requested
    cpus = _local_cpus() if cpus is None else cpus
    ranks = _local_world_size() if local_world_size is None else local_world_size
    return max(1, int(WORKERS_PER_CPU * cpus) // ranks)


def _fingerprint(rows, *parts: Any) -> str:
    from execverify_data import __version__
    from execverify_data.questions.templates import TEMPLATE_VERSION

    base = getattr(rows, "_fingerprint", None) or repr(len(rows))
    return hashlib.sha256(repr((base, __version__, TEMPLATE_VERSION, *parts)).encode()).hexdigest()[:32]


def _main_process_first():
    from accelerate import PartialState

    return PartialState().main_process_first()


def restyle_questions(rows, *, style: str, n_path: int, n_state: int, rationale: bool = False, seed: int = 0,
                      workers: int | None = None):
    """Question rows of the release re-rendered in ``style`` from their program and call (``docs/training.md``).

    Each row's ``call`` is traced again in the trusted runner; white-box rows get up to ``n_path`` path
    and ``n_state`` state questions, ``output``/``input`` rows their one question; ``rationale`` puts the
    trace-narrated reasoning in the reference completion (for SFT), in the ``explained`` style (the runner records
    what decided each step, ``docs/chains.md``). New ``prompt``, ``verification`` (JSON)
    and ``reference_completion`` columns; rows that cannot be re-rendered are dropped and counted.

    Raises:
        ValueError: a column of :data:`RESTYLE_COLUMNS` is missing, or a question count is negative.
    """
    from execverify_data.errors import InvalidArgument, ProgramError
    from execverify_data.questions import build
    from execverify_data.questions.templates import STYLES
    from execverify_data.seeds import derive_seed

    missing = set(RESTYLE_COLUMNS) - set(rows.column_names)
    if missing:
        raise DataError(f"--prompt_style rebuilds rows from the release's {list(RESTYLE_COLUMNS)} columns; "
                         f"these rows lack {sorted(missing)}")
    if style not in STYLES or style == "cruxeval":
        raise ValueError(f"--prompt_style must be one of {[s for s in STYLES if s != 'cruxeval']}, got {style!r}")
    for name, value in (("n_path", n_path), ("n_state", n_state)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")
    runner = None
    kept = [c for c in _KEPT_COLUMNS if c in rows.column_names]

    def render(batch: dict[str, list]) -> dict[str, list]:
        nonlocal runner
        if runner is None:
            from execverify_data.sandbox.trusted import TrustedRunner

            runner = TrustedRunner(workers or max(1, _local_cpus() // _local_world_size()), timeout=60.0)
        traces = runner.map(list(zip(batch["code"], batch["call"])), return_exceptions=True, notes=rationale)
        out: dict[str, list] = {name: [] for name in ("prompt", "verification", "reference_completion", *kept)}
        for i, traced in enumerate(traces):
            task = batch["task"][i]
            steps = task == "whitebox"
            try:
                if isinstance(traced, Exception):
                    raise ProgramError(str(traced))
                trace, notes = traced if rationale else (traced, None)
                r = build(batch["code"][i], batch["call"][i], seed=derive_seed(seed, "restyle", batch["id"][i]),
                          n_path=n_path if steps else 0, n_state=n_state if steps else 0,
                          task="input" if task == "input" else "output", style=style, trace=trace, rationale=rationale,
                          chain_style="explained" if rationale else "trace", notes=notes)
            except (ProgramError, InvalidArgument):
                continue
            out["prompt"].append(r.prompt)
            out["verification"].append(json.dumps(r.verification, ensure_ascii=False, sort_keys=True))
            out["reference_completion"].append(r.reference_completion)
            for name in kept:
                out[name].append(batch[name][i])
        return out

    try:
        with _main_process_first():
            restyled = rows.map(render, batched=True, batch_size=256, remove_columns=rows.column_names,
                                new_fingerprint=_fingerprint(rows, "questions", style, n_path, n_state, rationale, seed),
                                desc=f"re-rendering in the {style} style")
    finally:
        if runner is not None:
            runner.close()
    if len(restyled) < len(rows):
        print(f"execverify: {len(rows) - len(restyled)} of {len(rows)} rows could not be re-rendered and were dropped",
              file=sys.stderr)
    return restyled


def restyle_codegen(rows, *, style: str):
    """Code-generation rows with their ``prompt`` text wrapped in ``style``'s messages
    (``reasoning``: :func:`execverify_data.questions.templates.codegen_messages`, the paper's Stage II form)."""
    from execverify_data.questions.templates import codegen_messages

    if style != "reasoning":
        raise ValueError(f"code-generation prompts have one other style, 'reasoning'; got {style!r}")
    if getattr(rows.features["prompt"], "dtype", None) != "string":
        raise DataError("--prompt_style wraps text prompts; these rows already hold chat messages")
    return rows.map(lambda row: {"prompt": codegen_messages(row["prompt"])},
                    new_fingerprint=_fingerprint(rows, "codegen", style), desc=f"wrapping in the {style} style")


def model_init_kwargs(model_args: Any, training_args: Any) -> dict[str, Any]:
    """The ``model_init_kwargs`` a TRL trainer needs from TRL's ``ModelConfig`` (explicit ones win)."""
    return {
        "revision": model_args.model_revision,
        "trust_remote_code": training_args.trust_remote_code,
        "attn_implementation": model_args.attn_implementation,
        "dtype": model_args.dtype,
        **(training_args.model_init_kwargs or {}),
    }


def _is_peft(model: Any) -> bool:
    if importlib.util.find_spec("peft") is None:
        return False
    from peft import PeftModel

    return isinstance(model, PeftModel)


def _merge_adapter(adapter_dir: Path, output_dir: Path, model_args: Any, trust_remote_code: bool, processing_class: Any) -> None:
    """Load the base model, apply the adapter, merge it and save a full model in ``output_dir``."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    dtype = model_args.dtype if model_args.dtype not in (None, "auto") else None
    base = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, revision=model_args.model_revision,
                                                dtype=dtype, trust_remote_code=trust_remote_code)
    merged = PeftModel.from_pretrained(base, str(adapter_dir)).merge_and_unload()
    merged.config.use_cache = True
    merged.save_pretrained(output_dir)
    if processing_class is not None:
        processing_class.save_pretrained(output_dir)


def _push_last(trainer: Any, output_dir: Path) -> None:
    """Upload ``output_dir`` after every push the trainer started, so that the Hub keeps our card."""
    import huggingface_hub

    finish = getattr(trainer, "_finish_current_push", None)
    if finish is not None:
        finish()  # wait for the checkpoint pushes of transformers (they carry TRL's card)
    args = trainer.args
    huggingface_hub.upload_folder(
        repo_id=trainer.hub_model_id or args.hub_model_id, folder_path=str(output_dir), revision=args.hub_revision,
        token=args.hub_token, commit_message="execverify-data: model, model card and recipe arguments",
        ignore_patterns=["_*", "checkpoint-*"])


def finish_training(trainer: Any, recipe: str, script_args: Any, training_args: Any, model_args: Any, *,
                    hyperparameters: Sequence[str], **card_fields: Any) -> Path:
    """Save the trained model where the next stage loads it (a PEFT adapter merged into a full model, ``use_cache``
    back on), write our card (:func:`execverify_data.model_card.write_recipe_card`) and :data:`RECIPE_ARGS_FILE`,
    and push after the trainer's own pushes so that ours is the card on the Hub (``docs/training.md``).
    Returns the output folder."""
    import yaml

    from execverify_data.model_card import write_recipe_card

    output_dir = Path(training_args.output_dir)
    model = trainer.accelerator.unwrap_model(trainer.model)
    model.config.use_cache = True
    peft = _is_peft(model)
    trainer.save_model(str(output_dir / "adapter" if peft else output_dir), _internal_call=True)  # no push yet
    trainer.accelerator.wait_for_everyone()
    if trainer.accelerator.is_main_process:
        if peft:
            _merge_adapter(output_dir / "adapter", output_dir, model_args, getattr(training_args, "trust_remote_code", False),
                           trainer.processing_class)
        inputs = getattr(script_args, "recipe_inputs", None) or RecipeInputs()
        values = {**inputs.values, "output_dir": inputs.values.get("output_dir", training_args.output_dir)}
        (output_dir / RECIPE_ARGS_FILE).write_text(yaml.safe_dump(values, sort_keys=False), encoding="utf-8")
        write_recipe_card(recipe, script_args, training_args, model_args, hyperparameters=hyperparameters,
                          merged_adapter=peft, **card_fields)
        if training_args.push_to_hub:
            _push_last(trainer, output_dir)
    trainer.accelerator.wait_for_everyone()
    return output_dir
