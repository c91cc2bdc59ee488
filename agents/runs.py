"""List training runs as a table: env, steps, score per episode (trained vs random), device, date.

    wadgym runs [DIR]      (default ./runs)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


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
                rows.append(describe(path))
            except (ValueError, OSError, KeyError, TypeError, AttributeError) as exc:  # one broken run, not the list
                print(f"wadgym runs: skipped {path.name}: {exc}", file=sys.stderr)
    if not rows:
        print(f"no runs in {root}")
        return 0
    print(format_table(rows))
    return 0


def describe(run: Path) -> dict[str, Any]:
    """One table row, from config.yml, meta.json and metrics.json (whichever exist)."""
    from wadgym.agents import runfolder

    config = runfolder.load_config(run)
    meta = runfolder.read_json(run / "meta.json") if (run / "meta.json").is_file() else {}
    metrics = runfolder.read_json(run / "metrics.json") if (run / "metrics.json").is_file() else {}
    evaluation = metrics.get("eval", {})
    status = {"finished": "done", "interrupted": "stopped", "failed": "failed"}.get(meta.get("status")) or (
        "done" if meta.get("finished") else ("stopped" if meta.get("sessions") else "new"))  # runs before "status"
    return {
        "run": run.name,
        "env": config.get("env", "?"),
        "steps": meta.get("timesteps"),
        "score": (evaluation.get("trained") or {}).get("score_mean"),
        "score_name": evaluation.get("score_name", ""),
        "random": (evaluation.get("random") or {}).get("score_mean"),
        "device": (meta.get("device") or config.get("device", "?")).split(" ")[0],
        "date": (meta.get("started") or "").replace("T", " ")[:16],
        "status": status,
    }


def format_table(rows: list[dict[str, Any]]) -> str:
    def cell(value, fmt="{}"):
        return "-" if value is None else fmt.format(value)

    header = ("run", "env", "steps", "score/ep", "random", "score", "device", "date", "status")
    body = [
        (r["run"], r["env"], cell(r["steps"]), cell(r["score"], "{:.2f}"), cell(r["random"], "{:.2f}"),
         r["score_name"] or "-", r["device"], r["date"], r["status"])
        for r in rows
    ]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *body)]
    numeric = {2, 3, 4}
    lines = []
    for row in (header, *body):
        lines.append("  ".join(str(v).rjust(w) if i in numeric else str(v).ljust(w)
                               for i, (v, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(lines)
