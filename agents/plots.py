"""Learning-curve PNG: items per episode (or return, for envs without items) against env steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def plot_learning_curve(episodes: list[dict[str, Any]], path: Path, title: str = "", window: int = 50) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on training machines
    import matplotlib.pyplot as plt

    from wadgym.agents.runfolder import write_bytes_atomic

    has_items = any(e.get("items") is not None for e in episodes)
    key, label = ("items", "items per episode") if has_items else ("return", "return per episode")
    points = [(e["timesteps"], e[key]) for e in episodes if e.get(key) is not None]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    if points:
        steps, values = (np.asarray(v, dtype=float) for v in zip(*points))
        ax.plot(steps, values, ".", alpha=0.25, markersize=3, color="tab:blue", label="episode")
        w = max(1, min(window, len(values) // 5 or 1))
        smooth = np.convolve(values, np.ones(w) / w, mode="valid")
        ax.plot(steps[w - 1:], smooth, color="tab:blue", linewidth=2, label=f"mean of last {w}")
        ax.legend(loc="upper left")
    else:
        ax.text(0.5, 0.5, "no finished episodes", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("env steps")
    ax.set_ylabel(label)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_bytes_atomic(Path(path), buf.getvalue())
    return Path(path)
