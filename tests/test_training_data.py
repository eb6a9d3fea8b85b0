"""What the recipes share (``execverify_data.training``): data mixing, re-rendering, the curriculum,
argument checks and recording, sandbox sizing, the reproduce command. Fast: no model is trained here
(``tests/test_training_recipes.py`` trains)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("datasets")

from training_helpers import write_release  # noqa: E402

from execverify_data.model_card import reproduce_command  # noqa: E402
from execverify_data.questions import Scorer, build  # noqa: E402
from execverify_data.training import (  # noqa: E402
    check_grpo_args,
    check_sft_args,
    curriculum_order,
    load_prompt_rows,
    restyle_codegen,
    restyle_questions,
    sandbox_workers,
)

RECIPES = Path(__file__).resolve().parents[1] / "training_examples"
PROGRAM = "def f(xs):\n    s = 0\n    for x in xs:\n        if x > 1:\n            s += x\n    return s\n"


def release_row(config: str, i: int, task: str, bucket: int) -> dict:
    call = f"f({[i, i + 1, i + 2]})"
    style = "cruxeval" if task != "whitebox" else "execverify"
    kwargs = {"n_path": 2, "n_state": 2} if task == "whitebox" else {"n_path": 0, "n_state": 0}
    r = build(PROGRAM, call, task="input" if task == "input" else "output", style=style, **kwargs)
    return {"id": f"p{i}-{config}-0", "code": PROGRAM, "call": call, "task": task, "bucket": bucket,
            "difficulty": bucket / 5, "prompt": r.prompt, "verification": json.dumps(r.verification)}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    tasks = {"trace": "whitebox", "io": "output", "oi": "input"}
    return str(write_release(tmp_path_factory.mktemp("release"), {
        config: [release_row(config, i, task, bucket=i % 3) for i in range(9)] for config, task in tasks.items()}))


@pytest.fixture(autouse=True)
def fresh_datasets_cache(tmp_path, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf_cache")


# --------------------------------------------------------------------------- mixing and the curriculum


def test_samples_per_config_take_that_many_rows_of_each(release):
    rows = load_prompt_rows(release, ["trace", "oi"], columns=["prompt", "verification"], optional_columns=["id"],
                            samples_per_config=[5, 2], seed=3)
    configs = [row_id.split("-")[1] for row_id in rows["id"]]
    assert sorted(configs) == ["oi"] * 2 + ["trace"] * 5
    again = load_prompt_rows(release, ["trace", "oi"], columns=["prompt", "verification"], optional_columns=["id"],
                             samples_per_config=[5, 2], seed=3)
    assert again["id"] == rows["id"]  # seeded
    with pytest.raises(ValueError, match="fewer than the 10 asked"):
        load_prompt_rows(release, ["trace"], columns=["prompt"], samples_per_config=[10])
    with pytest.raises(ValueError, match="one per config"):
        load_prompt_rows(release, ["trace", "oi"], columns=["prompt"], samples_per_config=[1])


def test_curriculum_orders_by_bucket_and_shuffles_within(release):
    rows = load_prompt_rows(release, ["trace", "io", "oi"], columns=["prompt"], optional_columns=["id"],
                            curriculum=True, seed=0)
    buckets = rows["bucket"]
    assert buckets == sorted(buckets) and set(buckets) == {0, 1, 2}
    by_seed = {seed: curriculum_order(rows, seed)["id"] for seed in (0, 1, 2)}
    assert len(set(map(tuple, by_seed.values()))) > 1  # the order within a bucket depends on the seed
    assert curriculum_order(rows, 1)["id"] == by_seed[1]
    for order in by_seed.values():  # a bucket's rows stay in their bucket
        assert [int(i[1:].split("-")[0]) % 3 for i in order] == sorted(int(i[1:].split("-")[0]) % 3 for i in order)


def test_curriculum_needs_the_bucket_column(tmp_path):
    data = str(write_release(tmp_path / "plain", {"codegen": [{"prompt": "Write f.", "tests": ["assert f() == 1"]}]}))
    with pytest.raises(ValueError, match="bucket"):
        load_prompt_rows(data, ["codegen"], columns=["prompt"], curriculum=True)


def test_a_curriculum_that_the_trainer_would_reshuffle_is_refused():
    grpo = type("GRPOArgs", (), {"vllm_mode": "colocate", "shuffle_dataset": True})()
    with pytest.raises(ValueError, match="--shuffle_dataset false"):
        check_grpo_args(grpo, reward_count=1, curriculum=True)
    grpo.shuffle_dataset = False
    check_grpo_args(grpo, reward_count=1, curriculum=True)
    sft = type("SFTArgs", (), {"train_sampling_strategy": "random"})()
    with pytest.raises(ValueError, match="--train_sampling_strategy sequential"):
        check_sft_args(sft, curriculum=True)
    sft.train_sampling_strategy = "sequential"
    check_sft_args(sft, curriculum=True)


# --------------------------------------------------------------------------- re-rendering


def test_restyle_questions_builds_the_papers_rows(release):
    rows = load_prompt_rows(release, ["trace", "oi"], columns=["prompt", "verification", "id", "code", "call", "task"],
                            optional_columns=["bucket"], samples_per_config=[3, 3], seed=0,
                            restyle=lambda r: restyle_questions(r, style="reasoning", n_path=5, n_state=5, workers=1))
    assert len(rows) == 6 and set(rows.column_names) >= {"prompt", "verification", "reference_completion", "bucket"}
    scorer = Scorer()
    for row in rows:
        assert row["prompt"][0] == {"role": "system", "content": "You are a programming expert."}
        assert "<reasoning>" in row["prompt"][1]["content"]
        verification = json.loads(row["verification"])
        kinds = [q["kind"] for q in verification["questions"]]
        if row["task"] == "whitebox":
            assert kinds[0] == "io" and 2 < len(kinds) <= 11  # the io question, then up to 5 + 5
            assert kinds.count("path") <= 5 and kinds.count("state") <= 5
        else:
            assert kinds == ["oi"]
        result = scorer.score(verification, row["reference_completion"])
        assert all(result.correct) and result.well_formed


def test_restyle_questions_refuses_rows_it_cannot_rebuild(tmp_path):
    data = str(write_release(tmp_path / "plain", {"trace": [{"prompt": "p", "verification": "{}"}]}))
    with pytest.raises(ValueError, match="lack"):
        load_prompt_rows(data, ["trace"], columns=["prompt"],
                         restyle=lambda r: restyle_questions(r, style="reasoning", n_path=5, n_state=5))


def test_restyle_codegen_wraps_the_problem():
    from datasets import Dataset

    rows = restyle_codegen(Dataset.from_dict({"prompt": ["Write add(a, b)."], "tests": [["assert add(1, 2) == 3"]]}),
                           style="reasoning")
    system, user = rows[0]["prompt"]
    assert system["content"] == "You are a programming expert."
    assert "Write add(a, b)." in user["content"] and "<answer>\n```python" in user["content"]
    assert rows[0]["tests"] == ["assert add(1, 2) == 3"]
    with pytest.raises(ValueError, match="reasoning"):
        restyle_codegen(rows, style="chat")


# --------------------------------------------------------------------------- checks, sizing, reproducing


@pytest.mark.parametrize("change, message", [
    ({"vllm_mode": "bogus"}, "vllm_mode"),
    ({"reward_weights": [1.0, 1.0]}, "2 weight"),
    ({"log_completions": True, "num_completions_to_print": None}, "num_completions_to_print"),
    ({"use_vllm": True, "vllm_max_model_length": 4096}, "vllm_max_model_length"),
])
def test_grpo_arguments_that_would_fail_late_are_refused(change, message):
    args = type("GRPOArgs", (), {"vllm_mode": "colocate", "reward_weights": None, "log_completions": False,
                                 "use_vllm": False, "vllm_max_model_length": None, "max_completion_length": 4096,
                                 "shuffle_dataset": True})()
    check_grpo_args(args, reward_count=4, max_prompt_length=2048)
    for key, value in change.items():
        setattr(args, key, value)
    with pytest.raises(ValueError, match=message):
        check_grpo_args(args, reward_count=4, max_prompt_length=2048)


def test_sandbox_workers_are_the_ranks_share_of_the_node(monkeypatch):
    assert sandbox_workers(None, cpus=16, local_world_size=1) == 24
    assert sandbox_workers(None, cpus=16, local_world_size=8) == 3
    assert sandbox_workers(None, cpus=2, local_world_size=8) == 1
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "4")
    assert sandbox_workers(None, cpus=8) == 3
    assert sandbox_workers(7) == 7
    with pytest.raises(ValueError, match="positive"):
        sandbox_workers(0)


def test_reproduce_command_names_the_launcher_and_the_arguments_file():
    assert reproduce_command("grpo_codegen.py", world_size=1, zero_stage="") == \
        "python training_examples/grpo_codegen.py --config recipe_args.yaml"
    assert "zero2.yaml --num_processes 4" in reproduce_command("sft_warmup.py", world_size=4, zero_stage="2")
    assert reproduce_command("sft_warmup.py", world_size=2, zero_stage="").startswith("accelerate launch --num_processes 2")


def load_recipe(name: str):
    pytest.importorskip("trl")
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def comparable(parsed) -> list[dict]:
    script, training, model = parsed
    script_vars = {k: v for k, v in vars(script).items() if k != "recipe_inputs"}
    return [script_vars, training.to_dict(), vars(model)]


def test_recorded_arguments_reproduce_the_parse(release, tmp_path):
    import yaml

    recipe = load_recipe("grpo_execution")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"dataset_name": release, "dataset_configs": ["trace", "oi"], "num_generations": 4,
                                      "learning_rate": 1e-5, "output_dir": str(tmp_path / "out"), "use_cpu": True}))
    args = ["--config", str(config), "--learning_rate", "3e-4", "--samples_per_config", "3", "2", "--reward_funcs",
            "paper", "--prompt_style", "reasoning", "--n_path", "4", "--shuffle_dataset", "false", "--curriculum",
            "--per_device_train_batch_size", "8", "--steps_per_generation", "2", "--report_to", "none"]
    parsed = recipe.make_parser().parse_args_and_config(args)
    inputs = parsed[0].recipe_inputs
    assert inputs.config_path == str(config)
    assert inputs.values["learning_rate"] == 3e-4 and inputs.values["samples_per_config"] == [3, 2]
    assert inputs.values["curriculum"] is True and inputs.values["num_generations"] == 4
    saved = tmp_path / "recipe_args.yaml"
    saved.write_text(yaml.safe_dump(inputs.values, sort_keys=False))
    again = recipe.make_parser().parse_args_and_config(["--config", str(saved)])
    assert comparable(again) == comparable(parsed)


@pytest.mark.parametrize("args, message", [
    (["--vllm_mode", "bogus"], "vllm_mode"),
    (["--reward_funcs", "project", "--reward_weights", "1", "2"], "2 weight"),
    (["--log_completions", "true"], "num_completions_to_print"),
    (["--samples_per_config", "5"], "one per config"),
    (["--n_path", "3"], "--prompt_style"),
    (["--curriculum"], "--shuffle_dataset false"),
    (["--reward_funcs", "nope"], "valid names"),
])
def test_the_parser_refuses_bad_arguments_at_once(release, args, message):
    recipe = load_recipe("grpo_execution")
    with pytest.raises(ValueError, match=message):
        recipe.make_parser().parse_args_and_config(["--dataset_name", release, "--output_dir", "x", "--use_cpu", *args])


@pytest.mark.parametrize("recipe_name", ["sft_warmup", "grpo_execution", "grpo_codegen"])
@pytest.mark.parametrize("args, message", [
    (["--learning_rat", "1e-5"], "unrecognized arguments: --learning_rat 1e-5 (did you mean --learning_rate?)"),
    (["--learning_rate", "abc"], "invalid float value: 'abc'"),
    (["--dataset_revision", "v9.9.9"], "drop --dataset_revision"),
    (["--dataset_name", "./no/such/release"], "no release folder at ./no/such/release: build one there"),
    (["--max_samples", "0"], "--max_samples must be a positive int"),
])
def test_a_recipes_argument_error_is_one_line(release, recipe_name, args, message, capsys):
    """As a user meets it on the command line (issue 31): one line on stderr, exit status 2, no traceback and no
    usage of several hundred options; nothing loads."""
    from execverify_data.training import run_recipe

    recipe = load_recipe(recipe_name)
    main = lambda *parsed: pytest.fail("main ran")  # noqa: E731
    with pytest.raises(SystemExit) as exited:
        run_recipe(recipe.make_parser, main, ["--dataset_name", release, "--output_dir", "x", "--use_cpu", "true", *args])
    err = capsys.readouterr().err.strip()
    assert exited.value.code == 2 and len(err.splitlines()) == 1 and message in err, err
    assert err.startswith(Path(sys.argv[0]).name + ": error: ")


def test_a_dataset_that_cannot_be_loaded_is_one_line(release, tmp_path, capsys):
    """A release folder without the config asked, and a folder with no data at all: one line naming the fix."""
    from execverify_data.training import run_recipe

    recipe = load_recipe("sft_warmup")
    empty = tmp_path / "empty"
    empty.mkdir()
    for name, config, expected in ((release, "codegen", "cannot load the 'codegen' config of"),
                                   (str(empty), "sft", "build a release there with `execverify build-release --out")):
        with pytest.raises(SystemExit) as exited:
            run_recipe(recipe.make_parser, recipe.main, ["--dataset_name", name, "--dataset_config", config,
                                                         "--output_dir", str(tmp_path / "out"), "--use_cpu", "true"])
        err = capsys.readouterr().err.strip().splitlines()
        assert exited.value.code == 2 and expected in err[-1], err
        assert not any("Traceback" in line for line in err)


def test_the_evaluation_runs_outside_the_launchers_process_group_and_fills_the_card(tmp_path, monkeypatch):
    """The evaluation process gets no RANK/WORLD_SIZE/ACCELERATE_* (lm-eval would join a process group of ranks that
    have exited); the card's Evaluation section becomes the scores, the rest of the card is kept."""
    from execverify_data import model_eval

    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "8")
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    monkeypatch.setenv("KEEP_ME", "1")
    env = model_eval._clean_env()
    assert "RANK" not in env and "WORLD_SIZE" not in env and "ACCELERATE_USE_DEEPSPEED" not in env and env["KEEP_ME"] == "1"

    card = tmp_path / "README.md"
    card.write_text("# m\n\n## Evaluation\n\n```bash\nexecverify-lm-eval ...\n```\n\n## Reproduce\n\nkept\n")
    results = {"results": {"execverify_humaneval": {"alias": "execverify_humaneval", "pass@1,create_test": 0.25,
                                                    "pass@1_stderr,create_test": 0.1, "sample_len,none": 4}},
               "n-samples": {"execverify_humaneval": {"effective": 4, "original": 164}}}
    model_eval.write_eval_section(card, results, "execverify-lm-eval --tasks execverify_humaneval", limit=4)
    text = card.read_text()
    assert "| execverify_humaneval | pass@1 | 0.2500 | 0.1000 | 4 |" in text and "sample_len" not in text
    assert "at most 4 docs" in text and text.endswith("## Reproduce\n\nkept\n") and text.count("## Evaluation") == 1
    model_eval.write_eval_section(card, results, "again")  # a second evaluation replaces the first
    assert text.count("| execverify_humaneval |") == card.read_text().count("| execverify_humaneval |") == 1


def test_the_train_extra_installs_what_the_accelerate_configs_launch():
    """accelerate_configs/zero{2,3}.yaml launch DeepSpeed: the train extra must install it (it failed at launch)."""
    import tomllib

    import yaml

    extras = tomllib.loads((RECIPES.parent / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {requirement.split(">")[0].split("=")[0].split("[")[0].strip() for requirement in extras["train"]}
    for config in sorted((RECIPES / "accelerate_configs").glob("*.yaml")):
        if yaml.safe_load(config.read_text())["distributed_type"] == "DEEPSPEED":
            assert "deepspeed" in names, config
    if importlib.util.find_spec("torch") is not None:  # installed with the train extra here
        assert importlib.util.find_spec("deepspeed") is not None


def test_stage_ii_refuses_rows_whose_tests_cannot_fail():
    """grpo_codegen's one call site of validate_tests: a row with ``assert True`` or a blank expected stdout is
    refused naming the row, before training; real tests and stdin/stdout cases pass."""
    from datasets import Dataset

    recipe = load_recipe("grpo_codegen")
    good = Dataset.from_list([{"tests": ["assert f(1) == 2"], "stdio_tests": [{"stdin": "1", "stdout": "2"}]}])
    recipe.validate_rows(good, "good")
    for bad in ({"tests": ["assert True"], "stdio_tests": [{"stdin": "1", "stdout": "2"}]},
                {"tests": ["assert f(1) == 2"], "stdio_tests": [{"stdin": "1", "stdout": "  "}]}):
        rows = Dataset.from_list([{"tests": ["assert f(0) == 1"], "stdio_tests": [{"stdin": "0", "stdout": "1"}]}, bad])
        with pytest.raises(ValueError, match="row 1 of bad"):
            recipe.validate_rows(rows, "bad")
    with pytest.raises(ValueError, match="neither a `tests` nor a `stdio_tests` column"):
        recipe.validate_rows(Dataset.from_list([{"prompt": "x"}]), "bare")
