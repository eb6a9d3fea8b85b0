"""Throughput of the white-box reward against a process-per-check baseline.

A batch of 1,024 completions (128 CRUXEval programs x 8 samples, as in GRPO with
``num_generations=8``), each answering 8 questions (1 io, 4 path, 3 state): the
reference completion and near-miss variants with 1 to 7 wrong answers. With
``--programs 1024 --samples 1`` every completion answers its own prompt (no
repeated rows, fewer repeated answers).

* ours: ``whitebox_reward(prompts, completions, verification=...)`` in this
  process (extraction, ``values.parse`` and ``values.same``; no process per check),
  timed with cold caches;
* baseline: what research reward code does, one process per completion that
  compares each answer with ``eval`` and sends the verdicts back: a
  ``multiprocessing`` fork (default, the cheaper one) or a fresh ``python -c``
  (``--baseline subprocess``), on the first ``--baseline-n`` completions, scaled
  to the batch.

Run: ``.venv/bin/python benchmarks/bench_rewards.py`` (add ``--baseline-n 1024`` to
time the baseline on the whole batch). Pin to one core with ``taskset -c 0``.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import random
import subprocess
import sys
import time

from execverify_data.data import cruxeval_records
from execverify_data.errors import AnswerError
from execverify_data.questions import render, scoring, select_questions
from execverify_data.questions.nearmiss import near_misses
from execverify_data.questions.kinds import Question
from execverify_data.rewards import WhiteboxReward
from execverify_data.sandbox.trusted import Job, TrustedRunner
from execverify_data import values


def make_batch(n_programs: int, samples: int, seed: int) -> tuple[list, list, list]:
    rng = random.Random(seed)
    records = [r for r in cruxeval_records() if _literal(r["input"])]
    jobs = [Job(r["code"], f"f({r['input']})") for r in records]
    with TrustedRunner(2) as runner:
        traces = runner.map(jobs)
    prompts, completions, verifications = [], [], []
    rows = [(record, job, trace) for record, job, trace in zip(records, jobs, traces)]
    rng.shuffle(rows)
    index = 0
    while len(completions) < n_programs * samples:  # cycles over the programs with new seeds
        record, job, trace = rows[index % len(rows)]
        index += 1
        questions = select_questions(record["code"], trace, job.call, seed=rng.randrange(1 << 30), n_path=4, n_state=3)
        if len(questions) != 8:
            continue
        r = render(record["code"], questions)
        reference = r.reference_completion.split("\n")[1:-1]
        for sample in range(samples):
            answers = list(reference)
            wrong = sample if samples > 1 else rng.randrange(8)  # sample 0 of a group is the reference
            for i in rng.sample(range(8), wrong):
                misses = near_misses(questions[i])
                answers[i] = rng.choice(misses)[1] if misses else "0"
            completions.append("Let me trace it.\n<answer>\n" + "\n".join(answers) + "\n</answer>")
            prompts.append(r.prompt)
            verifications.append(r.verification)
    return prompts, completions, verifications


def _literal(arguments: str) -> bool:
    try:
        values.parse_arguments(arguments)
    except AnswerError:
        return False
    return True


# ---------------------------------------------------------------------- the baseline


def _research_check(completion: str, expected: list[str], conn) -> None:  # runs in the child
    block = completion.split("<answer>")[-1].split("</answer>")[0]
    answers = [line.strip() for line in block.strip().split("\n")]
    verdicts = []
    for answer, reference in zip(answers, expected):
        try:
            verdicts.append(eval(answer) == eval(reference))  # noqa: S307 - the baseline being measured
        except Exception:
            verdicts.append(answer == reference)
    conn.send(verdicts)
    conn.close()


_SUBPROCESS_CHECK = """
import json, sys
completion, expected = json.loads(sys.stdin.read())
block = completion.split("<answer>")[-1].split("</answer>")[0]
answers = [line.strip() for line in block.strip().split("\\n")]
verdicts = []
for answer, reference in zip(answers, expected):
    try:
        verdicts.append(eval(answer) == eval(reference))
    except Exception:
        verdicts.append(answer == reference)
print(json.dumps(verdicts))
"""


def baseline(completions: list[str], verifications: list[dict], kind: str = "fork") -> list[float]:
    context = multiprocessing.get_context("fork")
    rewards = []
    for completion, verification in zip(completions, verifications):
        expected = [Question.from_json(q).reference_answer.split("; ")[0] for q in verification["questions"]]
        if kind == "subprocess":
            done = subprocess.run(
                [sys.executable, "-c", _SUBPROCESS_CHECK], input=json.dumps([completion, expected]), capture_output=True, text=True, timeout=10
            )
            verdicts = json.loads(done.stdout or "[]")
        else:
            parent, child = context.Pipe(duplex=False)
            process = context.Process(target=_research_check, args=(completion, expected, child))
            process.start()
            child.close()
            verdicts = parent.recv() if parent.poll(5) else []
            process.join()
        final = bool(verdicts[:1] and verdicts[0])
        rewards.append(1.0 + sum(verdicts[1:]) / 7 if final else 0.0)
    return rewards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=128)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--baseline-n", type=int, default=128, help="completions the baseline is timed on")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--baseline",
        choices=["fork", "subprocess"],
        default="fork",
        help="fork: a multiprocessing.Process per completion; subprocess: a fresh `python -c` per completion",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--column",
        choices=["json", "dict"],
        default="json",
        help="verification column as JSON strings or as dicts (a fresh copy per row, as a dataset yields them)",
    )
    args = parser.parse_args()

    prompts, completions, verifications = make_batch(args.programs, args.samples, args.seed)
    if args.column == "json":
        column = [json.dumps(v) for v in verifications]
    else:
        column = [copy.deepcopy(v) for v in verifications]
    n = len(completions)
    n_questions = sum(len(v["questions"]) for v in verifications)
    reward = WhiteboxReward()
    times = []
    for _ in range(args.repeat):
        values._expected_value.cache_clear()
        scoring._verification_from_text.cache_clear()
        start = time.perf_counter()
        ours = reward(prompts, completions, verification=column)
        times.append(time.perf_counter() - start)
    best, cold = min(times), times[0]
    if args.samples > 1:
        assert ours[:: args.samples].count(2.0) == len(ours[:: args.samples]), "references must score 2.0"

    m = min(args.baseline_n, n)
    base_times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        base = baseline(completions[:m], verifications[:m], args.baseline)
        base_times.append(time.perf_counter() - start)
    base_time = min(base_times)
    base_rate = m / base_time
    print(
        f"python {sys.version.split()[0]}, batch: {n} completions x {n_questions // n} questions "
        f"({n_questions} answers), verification column: {args.column}"
    )
    print(f"ours     whitebox_reward: {cold:.3f} s for the batch (cold caches), best of {args.repeat} {best:.3f} s -> {n / best:,.0f} rewards/s, {n_questions / best:,.0f} answers/s")
    print(f"baseline {args.baseline} per completion: best of {args.repeat} {base_time:.3f} s for {m} -> {base_rate:,.0f} rewards/s (whole batch ~{n / base_rate:.1f} s)")
    print(f"speed-up: {n / best / base_rate:,.0f}x (cold: {n / cold / base_rate:,.0f}x)")
    mean_ours = sum(ours[:m]) / m
    mean_base = sum(base) / m
    print(f"mean reward on the first {m}: ours {mean_ours:.3f}, baseline {mean_base:.3f} (the baseline's eval/== rule differs)")


if __name__ == "__main__":
    main()
