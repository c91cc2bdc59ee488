"""List training runs as a table: env, steps, score per episode (trained vs random), device, date, status,
backend (sb3, rllib or selfplay).

    wadgym runs [DIR]                         (run folders; default ./runs)
    wadgym runs --tracking-uri URI            (the runs of an MLflow store, with their MLflow ids)
    wadgym runs ... [--env ID] [--sort date|score|steps|env|run]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wadgym.agents.runs import table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default="runs", help="folder holding run folders (default ./runs)")
    parser.add_argument("--tracking-uri", metavar="URI",
                        help="list the runs of this MLflow store instead (http://HOST:5000, or "
                             "sqlite:///runs/mlflow.db for the local one)")
    parser.add_argument("--env", metavar="ID", help="only the runs of this env id")
    parser.add_argument("--sort", choices=table.SORT_KEYS, default="run",
                        help="order of the rows: run (name, the default), date, score, steps or env")


def run(args: argparse.Namespace) -> int:
    if args.tracking_uri:
        from wadgym.agents.runs.tracking.store import list_runs

        try:
            rows = list_runs(args.tracking_uri, args.env)
        except ValueError as exc:
            print(f"wadgym runs: {exc}", file=sys.stderr)
            return 2
        if not rows:
            print(f"no runs in {args.tracking_uri}")
            return 0
        print(table.format_table(table.sort_rows(rows, args.sort)))
        return 0
    root = Path(args.dir)
    if not root.is_dir():
        print(f"wadgym runs: {str(root)!r} is not a folder", file=sys.stderr)
        return 2
    rows = []
    for path in sorted(root.iterdir()):
        if (path / "config.yml").is_file():
            try:
                rows.append(table.describe(path))
            except (ValueError, OSError, KeyError, TypeError, AttributeError) as exc:  # one broken run, not the list
                print(f"wadgym runs: skipped {path.name}: {exc}", file=sys.stderr)
    rows = [row for row in rows if args.env is None or row["env"] == args.env]
    if not rows:
        print(f"no runs in {root}" + (f" of {args.env}" if args.env else ""))
        return 0
    print(table.format_table(table.sort_rows(rows, args.sort)))
    return 0
