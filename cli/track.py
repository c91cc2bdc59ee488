"""Upload a run folder to MLflow: the run trained while the tracking server was away, or trained without
--track. What the MLflow run already holds is not uploaded again.

    wadgym track-sync RUN [--tracking-uri URI] [--register NAME]

The store is --tracking-uri, else the one the run was tracked in (its tracking.json), else
$MLFLOW_TRACKING_URI, else the local store beside the runs (<runs>/mlflow.db). The run's final policy goes
up as an MLflow Model (once per model); --register NAME puts it in MLflow's Model Registry as well.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="run folder (as made by `wadgym train`)")
    parser.add_argument("--tracking-uri", metavar="URI",
                        help="MLflow store: http://HOST:5000 or sqlite:///PATH (default: the run's own)")
    parser.add_argument("--register", metavar="NAME",
                        help="also put the run's policy (its MLflow Model) in the Model Registry as a version of NAME")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents.runs.tracking.runs import register_model
    from wadgym.agents.runs.tracking.sync import sync

    try:
        sync(args.run, args.tracking_uri)
        if args.register:
            register_model(args.run, args.register, args.tracking_uri)
    except ValueError as exc:
        print(f"wadgym track-sync: {exc}", file=sys.stderr)
        return 2
    return 0
