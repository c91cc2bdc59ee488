"""The update alone: one hyperparameter entry's `model.train()` (PPO or RecurrentPPO) timed with wadgym's update
settings for the CPU (agents.algos.update_settings) against the same without one of them, in rotating rounds on
one rollout of real experience.

    python bench/update_speed.py [--env DoomItemsMaze-v1] [--budget cpu-long | --conf-file FILE]
                                 [--without segmented_lstm] [--rounds 5]

Collects one rollout with the entry's envs (its first curriculum stage's, as a run starts), then times
--rounds updates with each variant on that buffer, alternating which goes first (the network trains on as it
would; both variants see the same data), and prints each variant's median time per update and the median of
the rounds' ratios. `--without`: the setting the comparison leaves out: segmented_lstm (the LSTM over stretches
without an episode start instead of one step at a time), the one agents.algos.apply_update_settings switches off
again on a live model; the others are refused by name.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time

from harness import BUDGETS, hyperparams_file  # bench/harness.py, beside this script


def main(argv: list[str] | None = None) -> int:
    import torch

    from wadgym.agents.algos import (
        UpdateSettings,
        algo_class,
        algo_of,
        apply_update_settings,
        policy_name,
        update_settings,
    )
    from wadgym.agents.backends.curriculum import env_kwargs_at
    from wadgym.agents.config import ppo_kwargs, resolve
    from wadgym.agents.vec import close_vec_env, make_vec_env

    settings_names = [field.name for field in dataclasses.fields(UpdateSettings)]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="DoomItemsMaze-v1")
    parser.add_argument("--budget", choices=tuple(BUDGETS), default="cpu-long", help="which hyperparameter file")
    parser.add_argument("--conf-file", help="a hyperparameter file instead of the budget's")
    parser.add_argument("--without", choices=settings_names, default="segmented_lstm",
                        help="the setting the comparison leaves out")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")

    try:
        hp = resolve(args.env, args.conf_file or hyperparams_file(args.budget))
    except ValueError as exc:
        parser.error(str(exc))
    algo = algo_of(hp)
    if hp.get("torch_threads", "auto") != "auto":
        torch.set_num_threads(int(hp["torch_threads"]))
    full = update_settings("cpu")
    without = dataclasses.replace(full, **{args.without: False})
    variants = {"wadgym's settings": full, f"without {args.without}": without}
    if full == without:
        print(f"{args.without} is off on this CPU already (agents.algos.update_settings): nothing to compare")
        return 1
    if args.without != "segmented_lstm":
        print(f"{args.without} stays on once applied to a model (agents.algos.apply_update_settings switches only "
              f"segmented_lstm off again): not measured here")
        return 1
    venv, _ = make_vec_env(args.env, env_kwargs_at(hp, 0), hp["n_envs"], seed=0, frame_stack=hp["frame_stack"])
    try:
        model = algo_class(algo)(policy_name(algo, hp["policy"]), venv, device="cpu", seed=0, verbose=0,
                                 **ppo_kwargs(hp))
        apply_update_settings(model, full)
        model.learn(hp["n_steps"] * hp["n_envs"])   # one rollout and its update: the buffer is full
    finally:
        close_vec_env(venv)
    print(f"{args.env} ({args.conf_file or args.budget}: {algo}, {hp['n_steps']} x {hp['n_envs']} samples, "
          f"batch {hp['batch_size']}, {hp['n_epochs']} epochs), torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {torch.backends.cpu.get_cpu_capability()}; settings: {full}", flush=True)
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for r in range(args.rounds):
        for name in names[r % 2:] + names[:r % 2]:
            apply_update_settings(model, variants[name])
            start = time.perf_counter()
            model.train()
            times[name].append(time.perf_counter() - start)
        print(f"round {r + 1}: " + ", ".join(f"{name} {1000 * times[name][-1]:.0f} ms" for name in names), flush=True)
    ratio = statistics.median(b / a for a, b in zip(*times.values()))
    print(", ".join(f"{name}: {1000 * statistics.median(t):.0f} ms an update (median)" for name, t in times.items()))
    print(f"speed ratio wadgym's settings / without {args.without}: {ratio:.2f}x on the update")
    return 0


if __name__ == "__main__":
    sys.exit(main())
