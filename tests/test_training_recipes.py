"""The TRL recipes of ``training_examples/`` run for real on a tiny model and a tiny dataset (CPU, offline).

Every recipe's ``main()`` is called in this one process with arguments parsed by its own
``TrlParser`` (imports are paid once). Data:

* a small release folder from the release builder (``n=40``): one smoke run of each recipe;
* 12 questions about 4 short CRUXEval programs (:func:`execverify_data.questions.build`) in a
  Hub-layout folder: the SFT-then-GRPO learning test (short answers a tiny model memorises);
* a hostile ``codegen`` folder: hostile ``tests`` in the data, hostile completions through a
  patched ``GRPOTrainer._generate_single_turn`` (the model's sampling is replaced, nothing else).

The smoke runs of ``grpo_codegen`` patch generation too (a random tiny model never writes passing
code, so rewards would not vary and no update would happen).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("datasets")
torch.set_num_threads(1)

from training_helpers import write_release  # noqa: E402

from execverify_data.data import cruxeval_records  # noqa: E402
from execverify_data.questions import build  # noqa: E402
from execverify_data.testing import build_tiny_model  # noqa: E402

pytestmark = pytest.mark.slow
RECIPES = Path(__file__).resolve().parents[1] / "training_examples"
TIMINGS: dict[str, float] = {}


def load_recipe(name: str):
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def question_rows(n: int, **build_kwargs) -> list[dict]:
    rows = []
    for record in cruxeval_records():
        if len(record["code"]) > 200:  # short programs keep the prompts short
            continue
        r = build(record["code"], f"f({record['input']})", seed=len(rows), **build_kwargs)
        rows.append({"prompt": r.prompt, "completion": r.reference_completion,
                     "verification": json.dumps(r.verification)})
        if len(rows) == n:
            return rows
    raise AssertionError("not enough short CRUXEval programs")


ADVERSARIAL = Path(__file__).resolve().parent / "adversarial"
PAPER = RECIPES / "Qwen2.5-Coder-7B-Instruct"
HOSTILE = ["07_os_system_rm", "09_subprocess_rm", "11_write_outside_tmp", "12_remove_canary", "15_kill_parent",
           "21_lying_eq"]

COMMON = ["--report_to", "none", "--use_cpu", "--save_strategy", "no", "--logging_steps", "1",
          "--dataloader_num_workers", "0", "--disable_tqdm", "true"]
GRPO = ["--num_generations", "4", "--max_completion_length", "40", "--beta", "0.0", "--learning_rate", "1e-3",
        "--temperature", "1.0"]
EXECUTION_REWARDS = ("whitebox_reward", "io_reward", "oi_reward", "format_reward")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.mktemp("tiny") / "model"))


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """12 questions about 4 short CRUXEval programs in the configs ``trace``, ``io``, ``oi``; ``sft`` holds
    their reference completions without a reasoning chain: short answers that a tiny model memorises."""
    questions = {"trace": question_rows(4, n_path=1, n_state=1), "io": question_rows(4, n_path=0, n_state=0),
                 "oi": question_rows(4, task="input", n_path=0, n_state=0)}
    return str(write_release(tmp_path_factory.mktemp("release"), {
        **questions, "sft": [row for rows in questions.values() for row in rows]}))


def weights(path) -> dict:
    from transformers import AutoModelForCausalLM

    return {k: v.detach().clone() for k, v in AutoModelForCausalLM.from_pretrained(path).state_dict().items()}


def changed(before: dict, after_path) -> bool:
    after = weights(after_path)
    return any(not torch.equal(before[k], after[k]) for k in before)


def parse(recipe, *args: str):
    return recipe.make_parser().parse_args_and_config(list(args))


def run(name: str, *args: str, seed: int = 0, common: bool = True):
    recipe = load_recipe(name)
    start = time.perf_counter()
    trainer = recipe.main(*parse(recipe, *args, *(COMMON if common else ()), "--seed", str(seed)))
    steps, out = args[args.index("--max_steps") + 1], Path(args[args.index("--output_dir") + 1]).name
    TIMINGS[f"{name} -> {out} ({steps} steps)"] = round(time.perf_counter() - start, 1)
    return trainer


def logged(trainer, key: str) -> list[float]:
    """Every non-None value of ``key`` in the trainer's log history."""
    return [entry[key] for entry in trainer.state.log_history if entry.get(key) is not None]


def scripted_generation(monkeypatch, texts: list[str]) -> None:
    """Replace the model's sampling by ``texts`` (in turn, one per completion); the rest of GRPO runs unchanged."""
    from trl import GRPOTrainer

    def generate(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        tokenizer = self.processing_class
        ids = [tokenizer(texts[i % len(texts)], add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
               for i in range(len(prompt_ids))]
        return ids, None

    monkeypatch.setattr(GRPOTrainer, "_generate_single_turn", generate)


@pytest.fixture(scope="module", autouse=True)
def isolated_datasets_cache(tmp_path_factory):
    """A fresh datasets cache: the shared one may hold an older parse of a same-named local file."""
    import datasets

    saved = datasets.config.HF_DATASETS_CACHE
    datasets.config.HF_DATASETS_CACHE = tmp_path_factory.mktemp("hf_datasets_cache")
    yield
    datasets.config.HF_DATASETS_CACHE = saved


@pytest.fixture(scope="module", autouse=True)
def report_timings():
    yield
    print("\nrecipe wall times (s):", TIMINGS)


@pytest.fixture(scope="module")
def release_slice(tmp_path_factory):
    """A small release folder from the release builder (9 training rows in each of io, oi, trace, sft; 3 codegen)."""
    release = pytest.importorskip("execverify_data.release.builder", reason="the release builder is not installed")
    from execverify_data.release import ReleaseConfig

    out = tmp_path_factory.mktemp("release_slice") / "execverify-0.0.1"
    release.build_release(ReleaseConfig(version="0.0.1", n_examples=40, seed=0, shard_size=20), out)
    return str(out)


def test_sft_warmup_on_a_release_slice(tiny_model, release_slice, tmp_path):
    out = tmp_path / "sft"
    trainer = run("sft_warmup", "--model_name_or_path", tiny_model, "--dataset_name", release_slice,
                  "--dataset_revision", "v0.0.1", "--output_dir", str(out), "--max_steps", "3",
                  "--per_device_train_batch_size", "2", "--learning_rate", "1e-3", "--max_length", "1024")
    assert trainer.state.global_step == 3 and logged(trainer, "loss")
    assert changed(weights(tiny_model), out)
    card = (out / "README.md").read_text()
    assert tiny_model in card and "`sft`" in card and "| learning_rate | 0.001 |" in card
    assert "0.0.1 (local folder" in card and "$" not in card


def test_grpo_execution_on_a_release_slice(tiny_model, release_slice, tmp_path):
    trainer = run("grpo_execution", "--model_name_or_path", tiny_model, "--dataset_name", release_slice,
                  "--output_dir", str(tmp_path / "out"), "--max_steps", "2", "--per_device_train_batch_size", "16",
                  "--max_prompt_length", "2048", *GRPO)
    assert trainer.state.global_step == 2
    logged_keys = {key for entry in trainer.state.log_history for key in entry}
    assert {f"rewards/{name}/mean" for name in EXECUTION_REWARDS} <= logged_keys


def test_grpo_codegen_on_a_release_slice(tiny_model, release_slice, tmp_path, monkeypatch):
    from datasets import load_dataset

    # patched generation: every group gets each reference solution and one non-answer, so exactly one passes
    solutions = load_dataset(release_slice, "codegen", split="train")["reference_solution"]
    scripted_generation(monkeypatch, [f"```python\n{code}\n```" for code in solutions] + ["no code at all"])
    out = tmp_path / "grpo_codegen"
    n = len(solutions) + 1
    trainer = run("grpo_codegen", "--model_name_or_path", tiny_model, "--dataset_name", release_slice,
                  "--output_dir", str(out), "--max_steps", "2", "--per_device_train_batch_size", str(n),
                  "--num_generations", str(n), "--max_completion_length", "40", "--beta", "0.0",
                  "--learning_rate", "1e-3")
    assert trainer.state.global_step == 2
    assert logged(trainer, "rewards/unit_test_reward/mean") == pytest.approx([1 / n, 1 / n])
    assert changed(weights(tiny_model), out)
    assert "`unit_test_reward`" in (out / "README.md").read_text()


@pytest.fixture(scope="module")
def memorised(tiny_model, release, tmp_path_factory):
    """The tiny model after an SFT long enough to (mostly) memorise the reference answers of the 12 questions."""
    out = tmp_path_factory.mktemp("memorised") / "model"
    trainer = run("sft_warmup", "--model_name_or_path", tiny_model, "--dataset_name", release,
                  "--output_dir", str(out), "--max_steps", "80", "--per_device_train_batch_size", "4",
                  "--learning_rate", "3e-3", "--lr_scheduler_type", "constant", "--max_length", "1024")
    assert logged(trainer, "loss")[-1] < logged(trainer, "loss")[0] / 4
    return str(out)


def grpo_execution(model: str, release: str, out: Path, seed: int = 0):
    # 4 prompts x 4 generations per step: the 3 steps see each of the 12 rows once, so every reward applies somewhere
    return run("grpo_execution", "--model_name_or_path", model, "--dataset_name", release, "--output_dir", str(out),
               "--max_steps", "3", "--per_device_train_batch_size", "16", "--max_prompt_length", "4096", *GRPO,
               seed=seed)


def test_grpo_execution_after_sft_beats_the_untrained_model(tiny_model, memorised, release, tmp_path):
    trained = grpo_execution(memorised, release, tmp_path / "after_sft")
    untrained = grpo_execution(tiny_model, release, tmp_path / "untrained")
    for trainer in (trained, untrained):
        assert trainer.state.global_step == 3
        for name in EXECUTION_REWARDS:
            assert logged(trainer, f"rewards/{name}/mean"), f"{name} was never logged"
    # the same 12 prompts in the same order (same seed): the SFT-ed policy earns more, on form and in total
    mean = lambda trainer, key: sum(logged(trainer, key)) / len(logged(trainer, key))  # noqa: E731
    assert mean(trained, "rewards/format_reward/mean") > mean(untrained, "rewards/format_reward/mean")
    assert mean(trained, "reward") > mean(untrained, "reward")
    assert changed(weights(memorised), tmp_path / "after_sft")  # rewards varied within groups: a real update
    card = (tmp_path / "after_sft" / "README.md").read_text()
    assert "`whitebox_reward`" in card and "`trace`, `io`, `oi`" in card


def test_grpo_codegen_hostile_completions_and_tests_leave_the_machine_untouched(tiny_model, tmp_path, monkeypatch):
    from execverify_data.sandbox import detect_layers

    layers = {layer.name: layer.available for layer in detect_layers()}
    if not (layers.get("bwrap") or layers.get("privilege_drop")):
        pytest.skip("neither bwrap nor a privilege drop is available: files of this uid are reachable")
    canary = tmp_path / "canary.txt"
    canary.write_text("canary")
    marker = tmp_path / "marker.txt"
    victim = subprocess.Popen(["sleep", "600"])
    values = {"CANARY": str(canary), "MARKER": str(marker), "HOST_PID": str(os.getpid()),
              "VICTIM_PID": str(victim.pid), "PORT": "9", "EXECVERIFY_PLANTED_SECRET": "x"}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace("{{%s}}" % key, value)
        return text

    # hostility from both sides: completions (patched generation) and the dataset's tests column
    completions = [f"```python\n{fill((ADVERSARIAL / f'{name}.py.txt').read_text())}\n```" for name in HOSTILE]
    scripted_generation(monkeypatch, completions)
    hostile_tests = [f"import os, shutil\nos.remove({str(canary)!r})\nshutil.rmtree({str(tmp_path)!r})\n"
                     f"os.kill({victim.pid}, 9)\nassert add(1, 2) == 3",
                     f"assert __import__('os').remove({str(canary)!r}) is None"]
    data = write_release(tmp_path / "hostile", {"codegen": [
        {"prompt": "Write add(a, b).", "entry_point": "add", "tests": ["assert add(1, 2) == 3", *hostile_tests]},
        {"prompt": "Write add(a, b) again.", "entry_point": "add", "tests": ["assert add(2, 3) == 5"]}]})
    try:
        trainer = run("grpo_codegen", "--model_name_or_path", tiny_model, "--dataset_name", str(data),
                      "--output_dir", str(tmp_path / "out"), "--max_steps", "2", "--per_device_train_batch_size", "6",
                      "--num_generations", "6", "--max_completion_length", "40", "--beta", "0.0",
                      "--test_timeout", "2")
        assert trainer.state.global_step == 2
        assert logged(trainer, "rewards/unit_test_reward/mean") == [0.0, 0.0]  # no hostile completion scores
        assert canary.read_text() == "canary"
        assert not marker.exists()
        assert victim.poll() is None, "the victim process was killed"
        for path in ("/etc/execverify-pwned", "/root/execverify-pwned", "/execverify-pwned"):
            assert not os.path.exists(path)
    finally:
        victim.kill()
        victim.wait()


def test_bad_arguments_are_refused(release):
    recipe = load_recipe("grpo_execution")
    with pytest.raises(ValueError, match="valid names"):
        parse(recipe, "--dataset_name", release, "--reward_funcs", "nope", "--output_dir", "x")
    with pytest.raises(ValueError, match="local folder"):
        parse(recipe, "--dataset_name", release, "--dataset_revision", "v1.0.0", "--output_dir", "x")
    with pytest.raises(ValueError, match="drop --dataset_revision"):
        parse(load_recipe("sft_warmup"), "--dataset_name", release, "--dataset_revision", "v1.0.0", "--output_dir", "x")
    with pytest.raises(ValueError, match="dataset_configs"):
        parse(recipe, "--dataset_name", release, "--dataset_config", "io", "--output_dir", "x")


@pytest.mark.parametrize("name, change, message", [
    ("grpo_execution", {"vllm_mode": "bogus"}, "vllm_mode"),
    ("grpo_execution", {"reward_weights": [1.0, 2.0]}, "2 weight"),
    ("grpo_codegen", {"log_completions": True, "num_completions_to_print": None}, "num_completions_to_print"),
    ("grpo_codegen", {"use_vllm": True}, "vLLM"),
    ("sft_warmup", {"completion_only_loss": False}, "completion tokens only"),
])
def test_main_checks_every_argument_before_anything_loads(release, tmp_path, name, change, message, monkeypatch):
    recipe = load_recipe(name)
    script_args, training_args, model_args = parse(recipe, "--dataset_name", release, "--output_dir", str(tmp_path),
                                                   "--model_name_or_path", str(tmp_path / "no-model"), *COMMON)
    for key, value in change.items():
        setattr(training_args, key, value)
    import datasets

    def no_loading(*args, **kwargs):
        raise AssertionError("data was loaded before the arguments were checked")

    monkeypatch.setattr(datasets, "load_dataset", no_loading)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else find_spec(name, *a))
    with pytest.raises((ValueError, ImportError), match=message):
        recipe.main(script_args, training_args, model_args)


find_spec = importlib.util.find_spec


def test_configs_parse():
    """Every YAML config parses with its recipe's parser (dataset and model paths are not opened)."""
    configs = sorted(RECIPES.glob("*/*/config_*.yaml"))
    assert len(configs) >= 7
    for config in configs:
        method = config.parent.name
        recipe = load_recipe({"sft": "sft_warmup"}.get(method, method))
        overrides = ["--bf16", "false"] if "bf16: true" in config.read_text() else []  # no bf16 on this CPU
        script_args, training_args, model_args = parse(recipe, "--config", str(config), *overrides)
        assert model_args.model_name_or_path and training_args.output_dir
        if getattr(training_args, "log_completions", False):
            assert training_args.num_completions_to_print, config
        if training_args.save_strategy.value != "no":
            assert training_args.save_total_limit, config
        if "Qwen2.5-Coder-7B-Instruct" not in config.parts:
            continue
        assert script_args.dataset_revision and training_args.activation_checkpointing
        if method.startswith("grpo"):
            assert (training_args.learning_rate, training_args.beta, training_args.num_generations) == (1e-6, 0.0, 8)
            assert (script_args.max_prompt_length, training_args.max_completion_length) == (2048, 4096)
            assert training_args.use_vllm and training_args.vllm_mode == "colocate" and training_args.vllm_enable_sleep_mode
            assert training_args.weight_decay == 0.01
            # on 8 GPUs: 64 prompts x 8 completions per update, 128 prompts x 8 per rollout (two updates each)
            per_update = training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps * 8
            per_rollout = training_args.per_device_train_batch_size * training_args.steps_per_generation * 8
            assert (per_update, per_rollout) == (64 * 8, 128 * 8)
        if config.name == "config_paper.yaml" and method == "grpo_execution":
            assert script_args.reward_funcs == ["paper_reward"] and script_args.prompt_style == "reasoning"
            assert (script_args.n_path, script_args.n_state) == (5, 5)
            assert dict(zip(script_args.dataset_configs, script_args.samples_per_config)) == {"trace": 20000, "oi": 12000}
            assert training_args.num_train_epochs == 4
        if config.name == "config_project.yaml":
            assert script_args.reward_funcs == ["whitebox_reward", "io_reward", "oi_reward", "format_reward"]
        if method == "grpo_codegen":
            assert training_args.num_train_epochs == 5 and script_args.prompt_style == "reasoning"
            assert script_args.reward == "paper"
        if method == "sft":
            assert (training_args.learning_rate, training_args.lr_scheduler_type.value) == (1e-5, "cosine")
            assert (training_args.warmup_steps, training_args.num_train_epochs) == (0.1, 2)
            assert (training_args.max_length, script_args.max_samples) == (4096, 30000)
            assert training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps * 8 == 128
            assert training_args.save_only_model and script_args.prompt_style == "reasoning"


# --------------------------------------------------------------------------- paper configs: updates, chain


def updates(trainer) -> tuple[int, int]:
    """(updates per epoch, updates in all) as transformers' Trainer computes them for ``trainer.train()``."""
    values = trainer.set_initial_training_values(trainer.args, trainer.get_train_dataloader())
    return values[1], values[-1]


def constant_reward(prompts, completions, **kwargs):
    return [0.0] * len(completions)


@pytest.mark.parametrize("stage, rows, expected", [
    ("grpo_execution", 32000, (500, 2000)),  # the paper's Stage I: 250 rollouts of 128 prompts a epoch, 2 updates each, 4 epochs
    ("grpo_codegen", 9398, (146, 730)),      # Stage II on release 1.1.0's whole codegen config: 73 full rollouts, 5 epochs
])
def test_paper_configs_make_the_papers_updates(tiny_model, tmp_path, stage, rows, expected):
    from datasets import Dataset
    from trl import GRPOTrainer

    recipe = load_recipe(stage)
    # one process standing for the 8 GPUs: per-device batch 16 = 8 x 2, the configs' accumulation and rollout steps
    _, training_args, _ = parse(recipe, "--config", str(PAPER / stage / "config_paper.yaml"), "--bf16", "false",
                                "--use_vllm", "false", "--use_cpu", "--per_device_train_batch_size", "16",
                                "--output_dir", str(tmp_path), "--report_to", "none")
    trainer = GRPOTrainer(model=tiny_model, reward_funcs=[constant_reward], args=training_args,
                          train_dataset=Dataset.from_dict({"prompt": ["x"] * rows}))
    assert training_args.generation_batch_size == 128 * 8  # one rollout: 128 prompts x 8 completions
    assert updates(trainer) == expected
    TIMINGS[f"{stage} paper updates for {rows} rows"] = updates(trainer)[1]


def test_paper_sft_config_makes_the_papers_steps(tiny_model, tmp_path):
    from datasets import Dataset
    from trl import SFTTrainer

    recipe = load_recipe("sft_warmup")
    _, training_args, _ = parse(recipe, "--config", str(PAPER / "sft" / "config_paper.yaml"), "--bf16", "false",
                                "--use_cpu", "--per_device_train_batch_size", "16", "--output_dir", str(tmp_path),
                                "--report_to", "none", "--dataset_num_proc", "1")
    rows = Dataset.from_dict({"input_ids": [[1, 2, 3]] * 30000, "completion_mask": [[0, 1, 1]] * 30000})  # tokenized
    trainer = SFTTrainer(model=tiny_model, args=training_args, train_dataset=rows)
    assert updates(trainer) == (235, 470)  # 30,000 rows / 128 per step, 2 epochs


def reference_generation(monkeypatch, references: dict[str, str], junk: str = "no answer") -> None:
    """Patched sampling: within each group, even completions are the prompt's reference, odd ones ``junk``."""
    from trl import GRPOTrainer

    def generate(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        tokenizer = self.processing_class
        out = []
        for i, ids in enumerate(prompt_ids):
            prompt = tokenizer.decode(ids)
            reference = next((ref for key, ref in references.items() if key in prompt), None)
            assert reference is not None, "a prompt that no reference belongs to"
            out.append(tokenizer(reference if i % 2 == 0 else junk, add_special_tokens=False).input_ids
                       + [tokenizer.eos_token_id])
        return out, None

    monkeypatch.setattr(GRPOTrainer, "_generate_single_turn", generate)


def test_the_three_stages_chain_with_the_paper_configs(tiny_model, release_slice, tmp_path, monkeypatch):
    """The paper configs, overridden to the tiny model and a release slice: SFT -> Stage I -> Stage II, each from
    the previous stage's output, each checked by the pre-flight checks of scripts/gpu_smoke.sh."""
    preflight = load_recipe("preflight")
    small = ["--bf16", "false", "--dtype", "float32", "--dataset_name", release_slice,
             "--dataset_revision", "v0.0.1", "--max_steps", "2", "--save_strategy", "steps", "--save_steps", "2",
             "--save_total_limit", "1", *COMMON[:2], "--use_cpu",
             "--logging_steps", "1", "--dataloader_num_workers", "0", "--disable_tqdm", "true"]
    grpo = ["--use_vllm", "false", "--num_completions_to_print", "1",
            "--num_generations", "4", "--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "1",
            "--steps_per_generation", "2", "--max_completion_length", "64", "--max_prompt_length", "4096",
            "--learning_rate", "1e-3"]

    sft = run("sft_warmup", "--config", str(PAPER / "sft" / "config_paper.yaml"), *small, "--model_name_or_path",
              tiny_model, "--samples_per_config", "4", "4", "--max_samples", "8", "--per_device_train_batch_size", "2",
              "--gradient_accumulation_steps", "1", "--learning_rate", "1e-3", "--max_length", "2048",
              "--output_dir", str(tmp_path / "sft"), common=False)
    assert sft.state.global_step == 2
    print(preflight.check_stage(tiny_model, tmp_path / "sft"))

    # Stage I: the paper's rows (5 + 5 questions, reasoning style); half of each group answers with the reference
    from execverify_data.training import load_prompt_rows, restyle_questions

    stage1_rows = load_prompt_rows(
        release_slice, ["trace", "oi"], columns=["prompt", "verification", "id", "code", "call", "task"],
        samples_per_config=[9, 9], seed=0,  # every training row: whether a row's trace holds more than 1 + 2 + 2
        restyle=lambda rows: restyle_questions(rows, style="reasoning", n_path=5, n_state=5, seed=0, workers=1))
    reference_generation(monkeypatch, {row["prompt"][1]["content"]: row["reference_completion"] for row in stage1_rows})
    stage1 = run("grpo_execution", "--config", str(PAPER / "grpo_execution" / "config_paper.yaml"), *small, *grpo,
                 "--model_name_or_path", str(tmp_path / "sft"), "--samples_per_config", "9", "9",
                 "--output_dir", str(tmp_path / "stage1"), common=False)
    assert logged(stage1, "rewards/paper_reward/mean") == [pytest.approx(1.0)]  # one rollout: references 2.0, junk 0.0
    counts = [len(json.loads(v)["questions"]) for v in stage1.train_dataset["verification"]]
    assert sorted(counts) == sorted(len(json.loads(row["verification"])["questions"]) for row in stage1_rows)
    assert max(counts) > 5 and 1 in counts  # white-box rows with more than the release's 1 + 2 + 2, and oi rows
    print(preflight.check_stage(tmp_path / "sft", tmp_path / "stage1"))

    # Stage II: the paper's prompt form; half of each group answers with the reference solution
    from datasets import load_dataset

    codegen = load_dataset(release_slice, "codegen", split="train")
    reference_generation(monkeypatch, {row["prompt"]: f"<reasoning>\n</reasoning>\n<answer>\n```python\n"
                                       f"{row['reference_solution']}```\n</answer>" for row in codegen})
    stage2 = run("grpo_codegen", "--config", str(PAPER / "grpo_codegen" / "config_paper.yaml"), *small, *grpo,
                 "--model_name_or_path", str(tmp_path / "stage1"), "--sandbox_workers", "2",
                 "--output_dir", str(tmp_path / "stage2"), common=False)
    assert logged(stage2, "rewards/paper_codegen_reward/mean") == [pytest.approx((1.05 + 0.0) / 2)]  # + the tag bonus
    print(preflight.check_stage(tmp_path / "stage1", tmp_path / "stage2"))
    card = (tmp_path / "stage2" / "README.md").read_text()
    assert "config_paper.yaml" in card and "--config recipe_args.yaml" in card and "`reasoning` style" in card


@pytest.fixture(scope="module")
def sft_args(tiny_model, release_slice):
    return ["--model_name_or_path", tiny_model, "--dataset_name", release_slice, "--max_steps", "2",
            "--per_device_train_batch_size", "2", "--learning_rate", "1e-3", "--max_length", "1024",
            "--max_samples", "4"]


def test_saved_models_have_use_cache_on(sft_args, tmp_path):
    run("sft_warmup", *sft_args, "--activation_checkpointing", "true", "--output_dir", str(tmp_path / "out"))
    assert json.loads((tmp_path / "out" / "config.json").read_text())["use_cache"] is True


def test_a_peft_stage_leaves_a_full_model_for_the_next(tiny_model, sft_args, release_slice, tmp_path):
    from transformers import AutoModelForCausalLM

    out = tmp_path / "sft-lora"
    run("sft_warmup", *sft_args, "--use_peft", "--lora_r", "4", "--lora_alpha", "8", "--lora_target_modules",
        "q_proj", "v_proj", "--output_dir", str(out))
    assert (out / "adapter" / "adapter_config.json").is_file() and not (out / "adapter_config.json").exists()
    merged = AutoModelForCausalLM.from_pretrained(out)
    assert not any("lora" in key for key in merged.state_dict())
    assert changed(weights(tiny_model), out)  # the trained adapter is in the weights
    assert json.loads((out / "config.json").read_text())["use_cache"] is True
    assert "LoRA adapter" in (out / "README.md").read_text()
    run("grpo_execution", "--model_name_or_path", str(out), "--dataset_name", release_slice, "--output_dir",
        str(tmp_path / "next"), "--max_steps", "1", "--per_device_train_batch_size", "8", "--max_samples", "4",
        "--max_prompt_length", "2048", *GRPO)


def test_the_card_reproduces_the_run_and_is_pushed_last(sft_args, tmp_path, monkeypatch):
    """Our card reaches the Hub after the trainer's pushes (which carry TRL's card), and its arguments
    file parses back into the run's arguments."""
    from concurrent.futures import Future

    import huggingface_hub
    import transformers.trainer
    import yaml

    pushed: list[tuple[str, str]] = []

    def upload(source):
        def record(*args, folder_path, **kwargs):
            pushed.append((source, (Path(folder_path) / "README.md").read_text()))
            future = Future()
            future.set_result(None)
            return future
        return record

    class FakeApi:
        def create_repo(self, repo_id, **kwargs):
            return type("Repo", (), {"repo_id": repo_id})()

        upload_folder = staticmethod(upload("trainer"))

    monkeypatch.setattr(transformers.trainer, "hf_api", lambda: FakeApi())
    monkeypatch.setattr(huggingface_hub, "upload_folder", upload("execverify"))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"learning_rate": 5e-4, "lr_scheduler_type": "constant", "seed": 3}))
    out = tmp_path / "pushed"
    recipe = load_recipe("sft_warmup")
    args = ["--config", str(config), *sft_args, "--output_dir", str(out), "--push_to_hub", "true", "--hub_model_id",
            "me/tiny-sft", "--save_strategy", "steps", "--save_steps", "1", "--save_total_limit", "1", *COMMON[:2],
            "--use_cpu", "--logging_steps", "1", "--dataloader_num_workers", "0", "--disable_tqdm", "true"]
    parsed = parse(recipe, *args)
    recipe.main(*parsed)
    assert [source for source, _ in pushed][-1] == "execverify" and "trainer" in [source for source, _ in pushed]
    assert all("recipe_args.yaml" not in card for source, card in pushed if source == "trainer")  # TRL's card
    final = pushed[-1][1]
    assert final == (out / "README.md").read_text()
    assert str(config) in final and "python training_examples/sft_warmup.py --config recipe_args.yaml" in final
    assert "| learning_rate | 0.001 |" in final and "| seed | 3 |" in final  # the command line won, then the config
    comparable = lambda p: [vars(p[0]) | {"recipe_inputs": None}, p[1].to_dict(), vars(p[2])]  # noqa: E731
    assert comparable(parse(recipe, "--config", str(out / "recipe_args.yaml"))) == comparable(parse(recipe, *args))


def test_sandbox_workers_are_sized_per_rank(monkeypatch, release):
    import execverify_data.training as training

    monkeypatch.setattr(training, "_local_cpus", lambda: 16)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    recipe = load_recipe("grpo_codegen")
    script_args = parse(recipe, "--dataset_name", release, "--output_dir", "x", "--use_cpu")[0]
    assert script_args.sandbox_workers == 3  # 1.5 x 16 CPUs shared by 8 ranks (before: 24 on every rank)
    assert parse(recipe, "--dataset_name", release, "--output_dir", "x", "--use_cpu", "--sandbox_workers", "5")[0] \
        .sandbox_workers == 5


def test_grpo_reads_a_curriculum_in_order(tiny_model, tmp_path):
    """With shuffle_dataset false, TRL's sampler gives the prompts in the dataset's order (each num_generations times)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from execverify_data.training import curriculum_order

    rows = curriculum_order(Dataset.from_dict({"prompt": [f"p{i}" for i in range(12)], "bucket": [i % 3 for i in range(12)]}), 0)
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, shuffle_dataset=False, num_generations=2,
                      per_device_train_batch_size=4, report_to="none")
    trainer = GRPOTrainer(model=tiny_model, reward_funcs=[constant_reward], args=args, train_dataset=rows)
    order = list(trainer._get_train_sampler())[::2]
    assert [rows["bucket"][i] for i in order] == sorted(rows["bucket"])
    assert order == list(range(12))


@pytest.mark.timeout(1800)
def test_the_documented_paper_path_runs_on_cpu(tmp_path):
    """The paper path of docs/training.md, as written there, from an empty folder to a Stage II model whose card holds
    evaluation scores (issue 31): ``scripts/gpu_smoke.sh --cpu-dry-run``, which runs ``scripts/paper_path.py
    --cpu-dry-run`` (minutes: a release build, 3 launches, 3 evaluations)."""
    sys.path.insert(0, str(RECIPES.parent / "scripts"))
    import paper_path

    documented = paper_path.documented_commands()
    assert [c[:2] for c in documented] == [["execverify", "build-release"]] + [["accelerate", "launch"]] * 3
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(RECIPES.parent), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(["bash", str(RECIPES.parent / "scripts" / "gpu_smoke.sh"), "--cpu-dry-run", str(tmp_path)],
                            capture_output=True, text=True, env=env, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    ran = [line.split("$ ", 1)[1] for line in result.stdout.splitlines() if line.startswith("paper_path: $ ")]
    assert len(ran) == 4 and "paper_path: PASSED" in result.stdout and result.stdout.count("preflight: ") == 3
    for command, toy in zip(documented, ran):  # every documented word is run, except the DeepSpeed config's
        kept = [w for w in command[1:] if w not in ("--config_file", "training_examples/accelerate_configs/zero3.yaml",
                                                   "119000", "16", "launch")]
        assert all(f" {w}" in f" {toy}" for w in kept), (command, toy)
    for stage in ("SFT", "StageI", "StageII"):
        out = tmp_path / "outputs" / f"Qwen2.5-Coder-7B-Instruct-ExecVerify-{stage}"
        card = (out / "README.md").read_text()
        assert "| execverify_" in card and "at most 2 docs" in card and (out / "eval_results.json").is_file()
        assert any((out / "runs").rglob("events.out.tfevents.*"))  # report_to: tensorboard, offline
    card = (tmp_path / "outputs" / "Qwen2.5-Coder-7B-Instruct-ExecVerify-StageII" / "README.md").read_text()
    assert "| execverify_humaneval | pass@1 |" in card
