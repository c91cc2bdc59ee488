"""What each exploration bonus costs in training speed, all figures from one run: `wadgym train`'s configuration
for an env without a bonus and with each `--explore` setting, in rounds whose order rotates (each ratio is the
median of the rounds' ratios), so that a busy machine slows all alike.

    python bench/explore_speed.py [--env DoomExitHard-v0] [--steps 8192] [--rounds 3]
                                  [--explore counts e3b rnd e3b+rnd] [--buffers automap_seen]

`--buffers B ...` adds a setting without a bonus whose input is the screen with those buffers as more channels
(`env_kwargs: {buffers: [...]}`, e.g. the automap of the ground seen: a map as memory); its cost lies mostly in the
engines, which render the buffer, so only its steps/s show it.

Prints, for each setting and as a ratio to no bonus: env steps per second of training (wall time of the whole
training: collection, the bonus, its networks' training and the update), and the trainer process's CPU time per
1,000 steps (all its threads; the engines are processes of their own and cost the same in every setting), which a
busy machine changes far less than wall time. docs/exploration.md quotes its figures.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="DoomExitHard-v0")
    parser.add_argument("--steps", type=int, default=8192, help="env steps per training (default 8192)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--explore", nargs="*", default=["counts", "e3b", "rnd", "e3b+rnd"],
                        help="bonus settings (`--explore` with none: only the baseline and --buffers)")
    parser.add_argument("--buffers", nargs="+", default=[], help="a setting with these buffers as input channels")
    args = parser.parse_args(argv)

    from wadgym.agents import TrainConfig, train

    # a setting's name -> (its --explore, its env kwargs over the entry's)
    kinds = {"none": ("none", {}), **{name: (name, {}) for name in args.explore}}
    if args.buffers:
        kinds["+".join(args.buffers)] = ("none", {"buffers": list(args.buffers)})
    settings = list(kinds)
    speeds: dict[str, list[float]] = {name: [] for name in settings}
    cpu: dict[str, list[float]] = {name: [] for name in settings}
    with tempfile.TemporaryDirectory(prefix="wadgym-explore-speed-") as folder:
        for round_ in range(args.rounds):
            order = settings[round_ % len(settings):] + settings[:round_ % len(settings)]
            for name in order:
                start = time.process_time()
                explore, env_kwargs = kinds[name]
                result = train(TrainConfig(env=args.env, timesteps=args.steps, explore=explore, env_kwargs=env_kwargs,
                                           eval_episodes=0, progress=False,
                                           run_dir=str(Path(folder) / f"{name}-{round_}")))
                cpu[name].append((time.process_time() - start) / result.timesteps * 1000)
                speeds[name].append(result.steps_per_second)
                print(f"round {round_ + 1}: {name}: {result.steps_per_second:.0f} steps/s, {cpu[name][-1]:.2f} CPU s "
                      f"per 1,000 steps", flush=True)
    print(f"\n{args.env}, {args.steps} steps a training, {args.rounds} rounds (medians; ratios: the median of the "
          f"rounds' ratios to no bonus)")
    print(f"{'setting':>12}  {'steps/s':>8}  {'ratio':>6}  {'CPU s/1k steps':>14}  {'ratio':>6}")
    for name in settings:
        ratios = [speed / base for speed, base in zip(speeds[name], speeds["none"])]
        costs = [used / base for used, base in zip(cpu[name], cpu["none"])]
        print(f"{name:>12}  {statistics.median(speeds[name]):8.0f}  {statistics.median(ratios):5.2f}x  "
              f"{statistics.median(cpu[name]):14.2f}  {statistics.median(costs):5.2f}x")


if __name__ == "__main__":
    main()
