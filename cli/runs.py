"""List training runs as a table: env, steps, score per episode (trained vs random), device, date, status,
backend (sb3 or rllib).

    wadgym runs [DIR]      (default ./runs)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wadgym.agents import runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default="runs", help="folder holding run folders (default ./runs)")


def run(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    if not root.is_dir():
        print(f"wadgym runs: {str(root)!r} is not a folder", file=sys.stderr)
        return 2
    rows = []
    for path in sorted(root.iterdir()):
        if (path / "config.yml").is_file():
            try:
                rows.append(runs.describe(path))
            except (ValueError, OSError, KeyError, TypeError, AttributeError) as exc:  # one broken run, not the list
                print(f"wadgym runs: skipped {path.name}: {exc}", file=sys.stderr)
    if not rows:
        print(f"no runs in {root}")
        return 0
    print(runs.format_table(rows))
    return 0


