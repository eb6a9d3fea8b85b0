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


def write_release(root: Path, configs: dict[str, list[dict]]) -> Path:
    """A folder in the release's Hub layout: ``<config>/train.jsonl`` + README configs."""
    lines = ["---", "configs:"]
    for name, rows in configs.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        with (root / name / "train.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        lines += [f"- config_name: {name}", "  data_files:", "  - split: train", f"    path: {name}/train.jsonl"]
    (root / "README.md").write_text("\n".join(lines + ["---", ""]), encoding="utf-8")
    return root


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


def run(name: str, *args: str, seed: int = 0):
    recipe = load_recipe(name)
    start = time.perf_counter()
    trainer = recipe.main(*parse(recipe, *args, *COMMON, "--seed", str(seed)))
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
    release.build_release(ReleaseConfig(version="0.0.1", n=40, seed=0, shard_size=20), out)
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
        if method == "sft":
            assert (training_args.learning_rate, training_args.lr_scheduler_type.value) == (1e-5, "cosine")
            assert (training_args.warmup_steps, training_args.num_train_epochs) == (0.1, 2)
            assert (training_args.max_length, script_args.max_samples) == (4096, 30000)
            assert training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps * 8 == 128
            assert training_args.save_only_model and script_args.prompt_style == "reasoning"
