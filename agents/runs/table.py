"""The table `wadgym runs` prints (wired in wadgym.cli.runs): one row per run folder, from its config, meta
and metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def describe(run: Path) -> dict[str, Any]:
    """One table row, from config.yml, meta.json and metrics.json (whichever exist)."""
    from wadgym.agents import runfolder
    from wadgym.agents.config import run_backend

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
        "backend": run_backend(config).name,  # sb3, rllib or selfplay (agents.backends.BACKENDS)
        "date": (meta.get("started") or "").replace("T", " ")[:16],
        "status": status,
    }


SORT_KEYS = ("run", "date", "score", "steps", "env")


def sort_rows(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Rows by `key`: run, env ascending; date, score, steps highest (newest) first; missing values last."""
    if key not in SORT_KEYS:
        raise ValueError(f"--sort {key!r} is not valid; choose one of {', '.join(SORT_KEYS)}")
    present = [r for r in rows if r.get(key) is not None]
    missing = [r for r in rows if r.get(key) is None]
    return sorted(present, key=lambda r: r[key], reverse=key in ("date", "score", "steps")) + missing


def format_table(rows: list[dict[str, Any]]) -> str:
    """The table; an "mlflow id" column last when the rows come from MLflow (they have an id)."""
    def cell(value, fmt="{}"):
        return "-" if value is None else fmt.format(value)

    ids = any("id" in r for r in rows)
    header = ("run", "env", "steps", "score/ep", "random", "score", "device", "date", "status", "backend",
              *(("mlflow id",) if ids else ()))
    body = [
        (r["run"], r["env"], cell(r["steps"]), cell(r["score"], "{:.2f}"), cell(r["random"], "{:.2f}"),
         r["score_name"] or "-", r["device"], r["date"], r["status"], r["backend"],
         *((r.get("id", "-"),) if ids else ()))
        for r in rows
    ]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *body)]
    numeric = {2, 3, 4}
    lines = []
    for row in (header, *body):
        lines.append("  ".join(str(v).rjust(w) if i in numeric else str(v).ljust(w)
                               for i, (v, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(lines)
