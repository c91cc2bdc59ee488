"""Learning-curve PNG: the task's score per episode (items, kills, ...) against env steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def plot_learning_curve(episodes: list[dict[str, Any]], path: Path, title: str = "", bins: int = 30,
                        random_level: float | None = None, score_name: str = "score") -> Path:
    """Every episode as a dot, the mean per bin of env steps as a line, and the random policy's level."""
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on training machines
    import matplotlib.pyplot as plt

    label = f"{score_name} per episode"
    points = [(e["timesteps"], e["score"]) for e in episodes if e.get("score") is not None]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    if points:
        steps, values = (np.asarray(v, dtype=float) for v in zip(*points))
        ax.plot(steps, values, ".", alpha=0.25, markersize=3, color="tab:blue", label="training episode")
        centres, means = binned_means(steps, values, bins)
        ax.plot(centres, means, color="tab:blue", linewidth=2, label="mean per step bin")
    else:
        ax.text(0.5, 0.5, "no finished episodes", ha="center", va="center", transform=ax.transAxes)
    if random_level is not None:
        ax.axhline(random_level, color="tab:red", linestyle="--", label=f"random policy ({random_level:.2f})")
    if points or random_level is not None:
        ax.legend(loc="best")
    ax.set_xlabel("env steps")
    ax.set_ylabel(label)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    from wadgym.agents.runfolder import write_png

    return write_png(path, fig)


def binned_means(steps: np.ndarray, values: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean value in each of `bins` equal ranges of steps (empty ranges skipped), at the range's centre."""
    edges = np.linspace(0, steps.max(), bins + 1)
    which = np.clip(np.digitize(steps, edges[1:-1]), 0, bins - 1)
    filled = [b for b in range(bins) if np.any(which == b)]
    centres = np.array([(edges[b] + edges[b + 1]) / 2 for b in filled])
    return centres, np.array([values[which == b].mean() for b in filled])
