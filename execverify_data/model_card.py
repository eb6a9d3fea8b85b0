"""Fill the model card template (``cards/model_card.md``) that the training recipes write.

The template is a :class:`string.Template` (``$name`` placeholders). The recipes in
``training_examples/`` pass the base model, the data version, the rewards, the
hyperparameters and the evaluation command; :func:`render_model_card` adds the
versions of the training stack and refuses a template with a placeholder left unfilled.

>>> text = render_model_card("$model_name from $base_model (TRL $trl_version)",
...                          model_name="m", base_model="b", trl_version="1.0")
>>> text
'm from b (TRL 1.0)'
>>> hyperparameter_rows({"learning_rate": 1e-06, "beta": 0.0})
'| learning_rate | 1e-06 |\\n| beta | 0.0 |'
>>> dataset_version("execverify/execverify", "v1.0.0")
'v1.0.0'
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Iterable, Mapping
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Any

from execverify_data.errors import InvalidArgument

__all__ = ["dataset_version", "hyperparameter_rows", "reproduce_command", "render_model_card", "stack_versions",
           "write_model_card", "write_recipe_card"]

_PACKAGES = {"trl_version": "trl", "transformers_version": "transformers", "torch_version": "torch",
             "datasets_version": "datasets", "execverify_version": "execverify-data"}


def dataset_version(dataset: str, revision: str | None = None) -> str:
    """The data version to record: the Hub ``revision``, or a local release folder's ``MANIFEST.json`` version.

    A local folder holds one version: a ``revision`` given with it must name that version
    (``1.0.0`` or ``v1.0.0``), else a ``ValueError`` says what to do.
    """
    if not os.path.isdir(dataset):
        if dataset.startswith(("/", ".", "~")):  # a path, not a Hub id
            raise ValueError(f"no release folder at {dataset}: build one there with `execverify build-release --out "
                             f"{dataset}` (or name a Hub dataset id)")
        return revision or "main (no revision pinned)"
    manifest = Path(dataset) / "MANIFEST.json"
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version") if manifest.is_file() else None
    if revision and revision.removeprefix("v") != version:
        raise ValueError(
            f"{dataset} is a local folder of version {version or 'unknown (no MANIFEST.json)'}, not {revision}; "
            "drop --dataset_revision (or pass --dataset_revision '' to clear one set in a config file)")
    return f"{version} (local folder {dataset})" if version else f"local folder {dataset} (no MANIFEST.json)"


def stack_versions() -> dict[str, str]:
    """Installed versions of the training stack, keyed as the template names them (``trl_version``...)."""
    versions = {}
    for key, package in _PACKAGES.items():
        try:
            versions[key] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[key] = "not installed"
    return versions


def hyperparameter_rows(values: Mapping[str, Any] | Any, names: Iterable[str] | None = None) -> str:
    """Markdown table rows ``| name | value |`` for ``names`` of a mapping or a config object.

    Args:
        values (`Mapping` or a dataclass such as `GRPOConfig`): where the values are read.
        names (`Iterable[str]`, optional): which ones, in order; defaults to every key of a mapping.
    """
    if names is None:
        if not isinstance(values, Mapping):
            raise InvalidArgument("names= is required when values is not a mapping")
        names = list(values)
    get = values.get if isinstance(values, Mapping) else lambda name: getattr(values, name)
    text = lambda value: value.value if isinstance(value, Enum) else value  # noqa: E731  (SchedulerType.COSINE -> cosine)
    return "\n".join(f"| {name} | {text(get(name))} |" for name in names)


def render_model_card(template: str, **fields: Any) -> str:
    """Substitute ``fields`` (plus :func:`stack_versions` unless given) into ``template``.

    Raises:
        InvalidArgument: the template names a placeholder that no field fills.
    """
    values = {**stack_versions(), **{k: str(v) for k, v in fields.items()}}
    try:
        return string.Template(template).substitute(values)
    except KeyError as exc:
        raise InvalidArgument(f"the model card template needs a value for {exc.args[0]!r}; pass it as a field") from None
    except ValueError as exc:
        raise InvalidArgument(f"the model card template is malformed ({exc}); write a literal $ as $$") from None


def write_model_card(output_dir: str | os.PathLike[str], template_path: str | os.PathLike[str], **fields: Any) -> Path:
    """Render the template at ``template_path`` with ``fields`` into ``output_dir/README.md``; return that path."""
    text = render_model_card(Path(template_path).read_text(encoding="utf-8"), **fields)
    out = Path(output_dir) / "README.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def reproduce_command(recipe: str, *, world_size: int | None = None, zero_stage: str | None = None,
                      args_file: str = "recipe_args.yaml") -> str:
    """The command that re-runs a recipe from the arguments file written beside its model.

    ``world_size`` and ``zero_stage`` default to what ``accelerate launch`` put in the
    environment (``WORLD_SIZE``, ``ACCELERATE_DEEPSPEED_ZERO_STAGE``).

    >>> reproduce_command("sft_warmup.py", world_size=1, zero_stage="")
    'python training_examples/sft_warmup.py --config recipe_args.yaml'
    >>> print(reproduce_command("grpo_execution.py", world_size=8, zero_stage="3"))
    accelerate launch --config_file training_examples/accelerate_configs/zero3.yaml --num_processes 8 \\
        training_examples/grpo_execution.py --config recipe_args.yaml
    """
    world_size = int(os.environ.get("WORLD_SIZE", "1")) if world_size is None else world_size
    zero_stage = os.environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", "") if zero_stage is None else zero_stage
    script = f"training_examples/{recipe} --config {args_file}"
    if zero_stage in ("2", "3"):
        return (f"accelerate launch --config_file training_examples/accelerate_configs/zero{zero_stage}.yaml "
                f"--num_processes {world_size} \\\n    {script}")
    if world_size > 1:
        return f"accelerate launch --num_processes {world_size} \\\n    {script}"
    return f"python {script}"


def write_recipe_card(recipe: str, script_args: Any, training_args: Any, model_args: Any, *,
                      hyperparameters: Iterable[str], merged_adapter: bool = False, **fields: Any) -> Path:
    """Write the shipped model card template next to a recipe's saved model.

    Fills what every recipe shares from TRL's argument objects (model name, base model,
    dataset and its version, the ``hyperparameters`` named, the evaluation command, and the
    reproduce command, which reads the arguments file that
    :func:`execverify_data.training.finish_training` writes beside the model); ``fields`` carry
    the recipe's own (method, configs, rows, rewards...).
    """
    from execverify_data.cards import template_path

    output_dir = training_args.output_dir
    inputs = getattr(script_args, "recipe_inputs", None)
    config_file = f"`{inputs.config_path}`" if inputs is not None and inputs.config_path else "(none)"
    notes = ("Trained as a LoRA adapter (kept in `adapter/`), merged here into a full model that the next stage "
             "loads with `--model_name_or_path`." if merged_adapter else "Full fine-tuning.")
    return write_model_card(
        output_dir, template_path("model_card.md"), model_name=Path(output_dir).name,
        base_model=model_args.model_name_or_path, base_revision=model_args.model_revision or "main", recipe=recipe,
        dataset=script_args.dataset_name, dataset_revision=script_args.data_version,
        hyperparameters=hyperparameter_rows(training_args, hyperparameters),
        eval_command=script_args.eval_command.format(output_dir=output_dir), train_command=reproduce_command(recipe),
        config_file=config_file, training_notes=notes, **fields)
