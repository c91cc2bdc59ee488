"""The strips of frames on the environment pages (docs/frames/<id>.png), made with the real engine.

    python docs/make_frames.py [--env ID ...] [--frames 6] [--every 12] [--seed 0]

For each id (default: the first registered id of each family), plays one episode on a held-out level
(start_level=10_000) with the family's scripted reference policy (`env.unwrapped.reference_action()`)
and keeps the full RGB engine frame (render_mode="rgb_array", 320x240) every `--every` steps, side by
side in one PNG. The same seed gives the same strip.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
import numpy as np

import wadgym  # noqa: F401  (registers the ids)
from wadgym.envs.registration import ENVS

OUT = Path(__file__).resolve().parent / "frames"


def family_ids() -> list[str]:
    """The first registered id of each family, in table order."""
    first: dict[str, str] = {}
    for env_id, (entry_point, _, _) in ENVS.items():
        first.setdefault(entry_point, env_id)
    return list(first.values())


def strip(env_id: str, frames: int, every: int, seed: int) -> np.ndarray:
    """`frames` engine frames of one scripted episode, `every` steps apart, with a 4-pixel gap between them."""
    env = gym.make(env_id, render_mode="rgb_array", render_resolution="320x240", start_level=10_000)
    try:
        env.reset(seed=seed)
        shots, step, done = [env.render()], 0, False
        while len(shots) < frames and not done:
            _, _, terminated, truncated, _ = env.step(env.unwrapped.reference_action())
            done, step = terminated or truncated, step + 1
            if step % every == 0 and not done:
                shots.append(env.render())
    finally:
        env.close()
    gap = np.full((shots[0].shape[0], 4, 3), 255, np.uint8)
    return np.concatenate([part for shot in shots for part in (shot, gap)][:-1], axis=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", default=family_ids(), help="ids (default: each family's first)")
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("--every", type=int, default=12, help="steps between frames")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from PIL import Image

    OUT.mkdir(exist_ok=True)
    for env_id in args.env:
        path = OUT / f"{env_id}.png"
        # Doom draws with a 256-colour palette: a palette PNG keeps every pixel and is a third of the size.
        Image.fromarray(strip(env_id, args.frames, args.every, args.seed)).quantize(256).save(path, optimize=True)
        print(f"{path}: {path.stat().st_size / 1000:.0f} kB")


if __name__ == "__main__":
    main()
