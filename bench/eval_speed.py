"""What playing an evaluation's players at once buys, all figures from one run: the trained, random and scripted
players of a run on the same seeded episodes of one split, one after another (`workers=1`, as evaluations played
until this was measured) and at once (each on its own engine and thread, the default), in rounds whose order
alternates (the ratio is the median of the rounds' ratios), so that a busy machine slows both alike.

    python bench/eval_speed.py [--run RUN] [--env DoomItems-v1] [--episodes 10] [--rounds 2]

Without `--run` it trains one first (`--timesteps 2048`, no evaluation) in a temporary folder. Checks that both
ways give the same figures, then prints the wall time of each and the ratio (one after another / at once).
`wadgym train`'s final evaluation, `wadgym eval` and bench/learn.py play their players this way.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, help="a finished `wadgym train` run folder (default: train one)")
    parser.add_argument("--env", default="DoomItems-v1", help="the id to train when no --run is given")
    parser.add_argument("--episodes", type=int, default=10, help="seeded episodes per player (default 10)")
    parser.add_argument("--split", default="test", choices=("test", "train"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)

    from wadgym.agents import TrainConfig, train
    from wadgym.agents.evaluate import PLAYERS, has_scripted, play_players, split_kwargs
    from wadgym.agents.policies.policy import SavedPolicy

    with tempfile.TemporaryDirectory(prefix="wadgym-eval-speed-") as folder:
        run = args.run
        if run is None:
            run = Path(folder) / "run"
            train(TrainConfig(env=args.env, timesteps=2048, run_dir=run, eval_episodes=0, progress=False))
        policy = SavedPolicy(run, deterministic=True)   # greedy: sampled actions are not seeded per episode
        players = PLAYERS if has_scripted(policy.env_id, policy.env_kwargs) else PLAYERS[:2]
        kwargs = split_kwargs(policy.env_id, policy.env_kwargs, args.split)
        seeds = list(range(args.episodes))
        seconds: dict[int, list[float]] = {1: [], len(players): []}
        figures = {}
        for round_ in range(args.rounds):
            for workers in ((1, len(players)) if round_ % 2 == 0 else (len(players), 1)):
                start = time.perf_counter()
                figures[workers] = play_players(SavedPolicy(run, deterministic=True), kwargs, seeds, players,
                                                workers=workers)
                seconds[workers].append(time.perf_counter() - start)
        if figures[1] != figures[len(players)]:
            raise SystemExit("the players at once scored differently from one after another: a bug")
    ratios = [one / together for one, together in zip(seconds[1], seconds[len(players)])]
    steps = sum(e["length"] for name in players for e in figures[1][name]["episodes"])
    print(f"{policy.env_id}, {args.split} levels: {', '.join(players)}, {args.episodes} episodes each "
          f"({steps:,} steps in all), {args.rounds} rounds; the same figures both ways")
    for workers, label in ((1, "one after another"), (len(players), "at once")):
        print(f"  {label:<18} {statistics.median(seconds[workers]):7.1f} s (rounds: "
              f"{', '.join(f'{s:.1f}' for s in seconds[workers])})")
    print(f"  ratio              {statistics.median(ratios):7.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
