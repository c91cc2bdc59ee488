"""Evaluate a training run on fixed seeded episodes, beside a random policy on the same seeds.

    wadgym eval RUN [--episodes 20] [--seed 0] [--levels test|train] [--video out.mp4] [--trace paths.png]
                    [--deterministic]
    wadgym eval RUN --wad FILE [--map MAP01] ...      # a hand-made map (or vizdoom:NAME) instead of levels

Episode i of both policies starts with reset(seed=seed+i), so both play the same level and start.
Each episode's score is the env's own measure (info["score"]: items, kills, ...). `--levels test` (the
default) plays held-out levels: level seeds from TEST_START_LEVEL on, which no training range reaches;
`--levels train` plays the levels the run trained on. `--trace` draws where the trained policy went in
each episode over the map's lines (a panel per map), each path labelled with the distance it moved per step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wadgym.agents import evaluate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="run folder (as made by `wadgym train`). Loading it unpickles its files (SB3's "
                        "model.zip, vecnormalize.pkl), which can run code: only evaluate runs you trust; share "
                        "policies as ONNX or MLflow Models (docs/tracking.md)")
    parser.add_argument("--episodes", type=int, default=20, help="number of seeded episodes (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="episode i uses seed SEED+i (default 0)")
    parser.add_argument("--video", metavar="MP4", help="write a video of the trained agent's first episode")
    parser.add_argument("--trace", metavar="PNG", help="draw the trained agent's path in every episode over the "
                        "map's lines (a PNG: one panel per map, each path's score and distance moved per step)")
    parser.add_argument("--levels", choices=evaluate.LEVEL_SPLITS, default="test",
                        help="test: held-out levels (default); train: the run's own training levels")
    parser.add_argument("--deterministic", action="store_true", help="argmax actions instead of sampling")
    parser.add_argument("--wad", metavar="FILE", help="play a hand-made map instead of generated levels: a WAD "
                        "file, or vizdoom:NAME for a scenario shipped with ViZDoom (--levels does not apply)")
    parser.add_argument("--map", default="MAP01", help="the map of --wad to play (default MAP01)")
    parser.add_argument("--device", default="cpu", help="device for the policy (default cpu)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--track", action="store_true",
                        help="log the evaluation to MLflow, nested in the run's MLflow run "
                             "(pip install 'wadgym[track]')")
    parser.add_argument("--tracking-uri", metavar="URI",
                        help="MLflow store (default: the run's own, see train --track)")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents import runfolder
    from wadgym.agents.config import run_backend
    from wadgym.agents.policies.policy import SavedPolicy

    if (Path(args.run) / "config.yml").is_file() and run_backend(runfolder.load_config(Path(args.run))).multi_agent:
        from wadgym.agents.backends import selfplay

        if args.wad:
            print("wadgym eval: --wad plays single-agent runs; this run trained several players", file=sys.stderr)
            return 2

        try:  # head-to-head matches
            print(selfplay.format_evaluation(selfplay.evaluate(Path(args.run), args.episodes, args.seed, args.levels)))
        except ValueError as exc:
            print(f"wadgym eval: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        if args.map != "MAP01" and not args.wad:
            raise ValueError("--map chooses a map of --wad; pass --wad too")
        if args.episodes < 1:
            raise ValueError(f"--episodes must be >= 1, got {args.episodes}")
        if args.trace and Path(args.trace).suffix.lower() != ".png":
            raise ValueError(f"--trace {args.trace}: the drawing is a PNG; name a file ending in .png")
        policy = SavedPolicy(args.run, device=args.device, deterministic=args.deterministic)
        if args.wad:
            result = evaluate.compare_on_map(policy, args.episodes, args.seed, args.wad, args.map, video=args.video,
                                             trace=args.trace)
        else:
            result = evaluate.compare_with_random(policy, args.episodes, args.seed, video=args.video,
                                                  levels=args.levels, trace=args.trace)
    except ValueError as exc:
        print(f"wadgym eval: {exc}", file=sys.stderr)
        return 2
    print(evaluate.format_comparison(result))
    if args.video:
        print(f"video: {args.video}")
    if args.trace:
        print(f"paths: {args.trace}")
    if args.json:
        runfolder.write_json(Path(args.json), result)
    if args.track:
        from wadgym.agents.runs.tracking.runs import log_evaluation

        try:
            run_id = log_evaluation(Path(args.run), result, args.tracking_uri, args.video)
        except ValueError as exc:
            print(f"wadgym eval: {exc}", file=sys.stderr)
            return 2
        print(f"tracked: MLflow run {run_id}, nested in the run's")
    return 0


