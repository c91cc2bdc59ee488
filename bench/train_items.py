"""Learning is real: train PPO on DoomItems-v0 with wadgym's defaults, then compare items per episode
with a random policy on the same 20 seeded episodes. The bar: trained >= 3x random.

    python bench/train_items.py [--timesteps N] [--device cpu] [--hp KEY=VALUE ...] [--env-kwargs KEY=VALUE ...]
                                [--episodes 20] [--run-dir DIR] [--curve docs/learning_curve.png]

Prints steps, wall time, device, steps per second and items trained vs random; exits 1 below the bar.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

BAR = 3.0


def main() -> int:
    from wadgym.agents import runfolder, train
    from wadgym.cli import train as cli_train

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli_train.add_arguments(parser)
    parser.set_defaults(device="cpu", no_progress=True, save_freq=10**9)
    parser.add_argument("--episodes", type=int, default=20, help="seeded evaluation episodes (default 20)")
    parser.add_argument("--curve", metavar="PNG", help="also copy the learning curve here (e.g. docs/learning_curve.png)")
    args = parser.parse_args()

    if not args.run_dir:
        args.run_dir = str(Path(tempfile.mkdtemp(prefix="wadgym-bench-")) / "run")
    run_dir, result = train.new_run(args)
    config = runfolder.load_config(run_dir)
    metrics = train.evaluate_run(run_dir, args.episodes, args.eval_seed)
    evaluation = metrics["eval"]
    trained, random = evaluation["trained"], evaluation["random"]
    ratio = evaluation["items_ratio"] or 0.0

    print(f"env              {config['env']}")
    print(f"steps            {result['timesteps']}")
    print(f"wall time        {result['wall_time_s']:.1f} s (training only; evaluation took {evaluation['eval_seconds']:.1f} s)")
    print(f"device           {metrics['device']}")
    print(f"steps/s          {result['steps_per_second']:.0f}")
    print(f"items trained    {trained['items_mean']:.2f} ± {trained['items_std']:.2f} per episode "
          f"({evaluation['episodes']} episodes, seeds {evaluation['seeds'][0]}..{evaluation['seeds'][1]})")
    print(f"items random     {random['items_mean']:.2f} ± {random['items_std']:.2f} per episode (same seeds)")
    print(f"ratio            {ratio:.2f}x (bar {BAR:.0f}x): {'PASS' if ratio >= BAR else 'FAIL'}")
    print(f"run folder       {run_dir}")
    if args.curve:
        shutil.copyfile(run_dir / "learning_curve.png", args.curve)
        print(f"learning curve   {args.curve}")
    return 0 if ratio >= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
