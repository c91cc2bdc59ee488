"""Record a world-model dataset: labelled play of an env id's generated levels, training and held-out, at a
resolution of its own, as WebDataset tar shards (docs/datasets.md).

    wadgym worldmodel DoomItems-v1 --out data/items --episodes 200 --test-episodes 20 --buffers depth,labels
    wadgym worldmodel DoomExit-v1 --out data/exit --policy runs/my-run=0.8 --policy random=0.2 --epsilon 0.05
    wadgym worldmodel DoomItems-v1 --out data/items --episodes 200 --test-episodes 20 --buffers depth,labels --resume

Episode i of a split is reset with seed SEED+i and every random choice of it comes from a generator of its own,
so the same command writes the same bytes, whatever --n-envs. Shards are written whole: Ctrl-C (or a kill)
keeps the finished ones, and the same command with --resume records the rest. A sibling of `wadgym record`,
which writes Minari datasets of the policy's own observations: this one records what a world model learns
from (RGB frames at a chosen resolution, depth, labels, automap, pose, the actions as indices and buttons).
Needs `pip install 'wadgym[data]'`; a run's policy needs the training extras too.
"""

from __future__ import annotations

import argparse
import json
import sys

RESOLUTIONS = ("160x120", "320x240", "640x480")  # agents.datasets.worldmodel.config.RESOLUTIONS, for --help


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered single-agent env id, e.g. DoomItems-v1")
    parser.add_argument("--out", required=True, metavar="DIR", help="the dataset's folder (new, empty, or with "
                                                                    "--resume the unfinished recording there)")
    parser.add_argument("--policy", action="append", default=[], metavar="POLICY[=WEIGHT]",
                        help="'scripted' (default), 'random' or a run folder of `wadgym train`; give it several "
                             "times with weights summing to 1 for a mixture drawn per episode, e.g. "
                             "--policy runs/x=0.8 --policy random=0.2")
    parser.add_argument("--epsilon", type=float, default=0.0,
                        help="the chance that a step's action is a uniform random one (recorded per step; default 0)")
    parser.add_argument("--episodes", type=int, default=10, help="episodes of the training levels (default 10)")
    parser.add_argument("--test-episodes", type=int, default=0,
                        help="episodes of the held-out test levels (default 0)")
    parser.add_argument("--resolution", default="160x120",
                        help=f"the engine's screen, recorded in RGB: {', '.join(RESOLUTIONS)} (default 160x120) or "
                             "another ViZDoom resolution that reaches the policy's observation")
    parser.add_argument("--buffers", default="", metavar="NAMES",
                        help="comma-separated: depth, labels, and automap or automap_seen (default none)")
    parser.add_argument("--variables", default="", metavar="NAMES",
                        help="comma-separated GameVariable names recorded per step, e.g. HEALTH,AMMO2")
    parser.add_argument("--seed", type=int, default=0, help="episode i of a split is reset with SEED+i (default 0)")
    parser.add_argument("--n-envs", type=int, default=2, help="engines stepped at once (default 2; the data is "
                                                              "the same whatever the number)")
    parser.add_argument("--chunk", type=int, default=32, help="steps per stored chunk (default 32)")
    parser.add_argument("--shard-mb", type=float, default=64.0,
                        help="a shard is closed after the episode that takes it past this many MB (default 64)")
    parser.add_argument("--png-level", type=int, default=1,
                        help="the images' deflate level: 1 (default) the fastest that compresses, 0 stores them "
                             "(about 5x the bytes, the least CPU), up to 9")
    parser.add_argument("--image-format", default="png", metavar="png|jpeg[:Q]",
                        help="how rgb and automap are stored: png (lossless, default) or jpeg, jpeg:Q with quality Q "
                             "from 1 to 95 (default 95; about a fifth of PNG's CPU, slightly lossy); depth and "
                             "labels stay PNG")
    parser.add_argument("--deterministic", action="store_true",
                        help="a run's policy: argmax actions instead of sampling (sampling is seeded per episode)")
    parser.add_argument("--env-kwargs", type=json.loads, default=None, metavar="JSON",
                        help="the env's kwargs before the split, as JSON, e.g. '{\"num_levels\": 50}' (default: "
                             "those the policy trains with: the shipped hyperparameters' or the run's)")
    parser.add_argument("--resume", action="store_true", help="continue the unfinished recording in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def run(args: argparse.Namespace) -> int:
    from wadgym.agents.datasets.worldmodel.config import WorldModelConfig, mixture
    from wadgym.agents.datasets.worldmodel.record import record_world_model

    try:
        config = WorldModelConfig(
            env=args.env_id, out=args.out, policies=mixture(args.policy), epsilon=args.epsilon,
            episodes=args.episodes, test_episodes=args.test_episodes, resolution=args.resolution,
            buffers=names(args.buffers), variables=names(args.variables), seed=args.seed, n_envs=args.n_envs,
            chunk=args.chunk, shard_mb=args.shard_mb, png_level=args.png_level,
            image_format=args.image_format, deterministic=args.deterministic,
            resume=args.resume, progress=not args.no_progress, env_kwargs=args.env_kwargs)
        result = record_world_model(config)
    except (ValueError, OSError) as error:
        print(f"wadgym worldmodel: error: {error}", file=sys.stderr)
        return 2
    rate = result.steps / result.seconds if result.seconds > 0 else float("inf")
    state = ("complete" if result.complete else
             "interrupted: the finished shards stay; the same command with --resume records the rest")
    print(f"wrote {result.episodes} episodes ({result.steps} steps, {result.seconds:.1f} s, {rate:.0f} steps/s) to "
          f"{result.out}: {result.shards} shards, {state}")
    return 130 if result.interrupted else 0
