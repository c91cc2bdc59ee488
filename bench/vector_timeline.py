"""Where a batch step of wadgym's vector env spends its wall time, step by step (issue 10).

    python bench/vector_timeline.py [--n-envs 8] [--steps 2000]

Steps N DoomItems-v0 games with random actions through Gymnasium's API (gym.make_vec) and times, for each
batch step: from step() being called to the first worker starting its part (hand-out), each worker's
part (its envs stepped one after another), the gap between the first and the last worker finishing
(waiting for the slower one), from the last worker's end to step() returning (return: results batched),
and the caller's own time between steps. Medians and means in microseconds. Run it beside
bench/collect_speed.py: the ceiling (bare engines) takes 8 / ceiling steps/s for N=8 steps, and the
workers' parts alone must fit in 0.9 of that for the vector env to reach 0.9 of the ceiling.
"""

from __future__ import annotations

import argparse
import bisect
import statistics
import sys
import time
import warnings

import gymnasium as gym
import numpy as np

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.vector import threads as vector

ENV_ID = "DoomItems-v0"


def timed_parts(parts: list[tuple[float, float]]):
    """vector.run_jobs, recording (start, end) of each worker's part into `parts`: from its first job's
    start to its last job's end (before the part counts as finished and the caller may go on)."""
    run_jobs = vector.run_jobs

    def timed(call, part, job, catch=BaseException):
        start = time.perf_counter()
        end = [start]

        def timed_job(index, *args):
            try:
                return job(index, *args)
            finally:
                end[0] = time.perf_counter()
        run_jobs(call, part, timed_job, catch)
        parts.append((start, end[0]))
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=2000, help="batch steps timed (after 200 to warm up)")
    args = parser.parse_args()
    if args.n_envs < 2 or args.steps < 10:
        parser.error("--n-envs must be >= 2 and --steps >= 10")

    parts: list[tuple[float, float]] = []  # appended to by the workers (list.append is atomic)
    untimed = vector.run_jobs
    vector.run_jobs = timed_parts(parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DoomItems-v0 is not the newest version of its id
        venv = gym.make_vec(ENV_ID, num_envs=args.n_envs)
    try:
        rng = np.random.default_rng(0)
        venv.reset(seed=0)
        for _ in range(200):
            venv.step(rng.integers(0, 5, args.n_envs))
        parts.clear()
        steps = []
        start = time.perf_counter()
        for _ in range(args.steps):
            actions = rng.integers(0, 5, args.n_envs)
            begin = time.perf_counter()
            venv.step(actions)
            steps.append((begin, time.perf_counter()))
        wall = time.perf_counter() - start
    finally:
        vector.run_jobs = untimed  # closing runs jobs too: not timed
        venv.close()

    starts = [begin for begin, _ in steps]
    of_step: dict[int, list[tuple[float, float]]] = {}
    for part in sorted(parts):
        of_step.setdefault(bisect.bisect_right(starts, part[0]) - 1, []).append(part)
    rows: dict[str, list[float]] = {name: [] for name in (
        "hand-out (step() called -> first part starts)", "a worker's part (its envs, one after another)",
        "waiting for the slower worker (first -> last part ends)", "return (last part ends -> step() returns)",
        "the caller, between steps")}
    names = list(rows)
    for k, (begin, end) in enumerate(steps):
        mine = of_step.get(k, [])
        if len(mine) < 2:
            continue
        rows[names[0]].append(min(s for s, _ in mine) - begin)
        rows[names[1]].extend(e - s for s, e in mine)
        rows[names[2]].append(max(e for _, e in mine) - min(e for _, e in mine))
        rows[names[3]].append(end - max(e for _, e in mine))
        if k + 1 < len(steps):
            rows[names[4]].append(steps[k + 1][0] - end)
    print(f"{args.n_envs} {ENV_ID} envs, {args.steps} batch steps: {args.steps * args.n_envs / wall:.0f} env steps/s, "
          f"{1e6 * wall / args.steps:.0f} us a batch step")
    for name, values in rows.items():
        if values:
            print(f"  {name:<58} median {1e6 * statistics.median(values):6.0f} us   mean "
                  f"{1e6 * statistics.mean(values):6.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
