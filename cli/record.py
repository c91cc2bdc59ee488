"""Record a policy's episodes of an env id as a Minari dataset (demonstrations for offline RL and imitation).

    wadgym record DoomItems-v1 --policy scripted --episodes 100 --dataset wadgym/items-scripted-v0
    wadgym record DoomItems-v1 --policy runs/my-run --episodes 20 --levels test --dataset wadgym/items-ppo-test-v0

The dataset goes under $MINARI_DATASETS_PATH (default ~/.minari/datasets); `minari show NAME` describes it and
`minari.load_dataset(NAME)` reads it. Episode i is reset with seed SEED+i, so the same command writes the same
data. `--levels train` (the default) plays the id's training levels, `--levels test` the held-out ones, as
`wadgym eval` does. Episodes are written to disk as they end: Ctrl-C keeps those finished as the dataset.
Needs `pip install 'wadgym[demos]'`.
"""

from __future__ import annotations

import argparse
import sys

LEVEL_SPLITS = ("train", "test")  # agents.evaluate.LEVEL_SPLITS, listed here so --help imports no engine code


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered env id, e.g. DoomItems-v1")
    parser.add_argument("--policy", default="scripted",
                        help="'scripted' (the env's scripted reference, default), 'random', or a run folder made "
                             "by `wadgym train` for this id")
    parser.add_argument("--episodes", type=int, default=10, help="number of episodes (default 10)")
    parser.add_argument("--levels", choices=LEVEL_SPLITS, default="train",
                        help="train: the id's training levels (default); test: held-out levels")
    parser.add_argument("--dataset", required=True, metavar="NAME",
                        help="the Minari dataset id, namespace/name-vN, e.g. wadgym/items-scripted-v0")
    parser.add_argument("--seed", type=int, default=0, help="episode i is reset with seed SEED+i (default 0)")
    parser.add_argument("--overwrite", action="store_true", help="replace a dataset of that name")
    parser.add_argument("--deterministic", action="store_true",
                        help="a run's policy: argmax actions instead of sampling (sampling is seeded per episode)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents.datasets.record import record_dataset

    try:
        result = record_dataset(args.env_id, args.policy, episodes=args.episodes, dataset_id=args.dataset,
                                levels=args.levels, seed=args.seed, overwrite=args.overwrite,
                                deterministic=args.deterministic, progress=not args.no_progress)
    except ValueError as error:
        print(f"wadgym record: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # e.g. an unwritable datasets folder
        print(f"wadgym record: error: {error}", file=sys.stderr)
        return 2
    rate = result.steps / result.seconds if result.seconds > 0 else float("inf")
    episodes = f"{result.episodes} episode{'s' if result.episodes != 1 else ''}"
    done = f"interrupted: kept the {episodes} finished" if result.interrupted else episodes
    print(f"wrote {result.dataset_id} ({done}, {result.steps} steps, {result.seconds:.1f} s, {rate:.0f} steps/s) "
          f"in {result.path}")
    return 130 if result.interrupted else 0
