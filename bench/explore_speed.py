"""What each exploration bonus costs in training speed, all figures from one run: `wadgym train`'s configuration
for an env without a bonus and with each `--explore` setting, in rounds whose order rotates (each ratio is the
median of the rounds' ratios), so that a busy machine slows all alike.

    python bench/explore_speed.py [--env DoomExitHard-v0] [--steps 8192] [--rounds 3]
                                  [--explore counts e3b rnd e3b+rnd]

Prints env steps per second of training (PPO.learn: collection, the bonus, its networks' training and the update)
for each setting and its ratio to no bonus. docs/exploration.md quotes its figures.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="DoomExitHard-v0")
    parser.add_argument("--steps", type=int, default=8192, help="env steps per training (default 8192)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--explore", nargs="+", default=["counts", "e3b", "rnd", "e3b+rnd"])
    args = parser.parse_args(argv)

    from wadgym.agents import TrainConfig, train

    settings = ["none", *args.explore]
    speeds: dict[str, list[float]] = {name: [] for name in settings}
    with tempfile.TemporaryDirectory(prefix="wadgym-explore-speed-") as folder:
        for round_ in range(args.rounds):
            order = settings[round_ % len(settings):] + settings[:round_ % len(settings)]
            for name in order:
                result = train(TrainConfig(env=args.env, timesteps=args.steps, explore=name, eval_episodes=0,
                                           progress=False, run_dir=str(Path(folder) / f"{name}-{round_}")))
                speeds[name].append(result.steps_per_second)
                print(f"round {round_ + 1}: {name}: {result.steps_per_second:.0f} steps/s", flush=True)
    print(f"\n{args.env}, {args.steps} steps a training, {args.rounds} rounds (median steps/s; ratio: median of the "
          f"rounds' ratios to no bonus)")
    for name in settings:
        ratios = [speed / base for speed, base in zip(speeds[name], speeds["none"])]
        print(f"{name:>12}  {statistics.median(speeds[name]):7.0f} steps/s  {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
