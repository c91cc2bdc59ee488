"""An action-conditioned next-frame predictor trained on a world-model dataset's training levels, measured on
those levels and on held-out ones: does the split matter? (docs/datasets.md)

    python examples/next_frame.py [--data DIR] [--minutes 3] [--strip docs/next_frame.png]

Without --data it first records DoomItems-v1 with `wadgym worldmodel`'s Python API: 24 episodes of 20
training levels and 8 of held-out levels (level seeds from 10,000 on), half scripted, half random, 160x120.
The model is a small CNN: the previous frame (RGB, halved to 60x80) and the action (one plane per action) in,
the change to the next frame out. It trains on pairs of consecutive steps of the train split for --minutes of
CPU, then its mean squared error (pixels in 0..1) is measured on every pair of both splits, beside copying the
previous frame. --strip writes a PNG: an episode of held-out levels, real frames above, predicted below.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from wadgym.agents.datasets.worldmodel import WorldModelClips, WorldModelConfig, read_episodes, record_world_model

ACTIONS = 5  # DoomItems-v1's action set: forward, left, right, forward+left, forward+right


class NextFrame(nn.Module):
    """(previous frame (N, 3, 60, 80) in 0..1, action (N,)) -> predicted frame: the previous one plus a change."""

    def __init__(self, width: int = 32):
        super().__init__()
        self.encode = nn.Sequential(
            nn.Conv2d(3 + ACTIONS, width, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(2 * width, 2 * width, 3, 1, 1), nn.ReLU(),
        )
        self.decode = nn.Sequential(
            nn.ConvTranspose2d(2 * width, width, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(width, 3, 4, 2, 1),
        )

    def forward(self, frame: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        planes = nn.functional.one_hot(action, ACTIONS).float()[:, :, None, None].expand(-1, -1, *frame.shape[2:])
        return (frame + self.decode(self.encode(torch.cat([frame, planes], 1)))).clamp(0, 1)


def halve(frames: torch.Tensor) -> torch.Tensor:
    """(N, 3, 120, 160) uint8 -> (N, 3, 60, 80) float in 0..1 (2 x 2 means)."""
    return nn.functional.avg_pool2d(frames.float() / 255, 2)


def record(out: Path) -> None:
    record_world_model(WorldModelConfig(env="DoomItems-v1", out=out, episodes=24, test_episodes=8,
                                        env_kwargs={"num_levels": 20}, policies=(("scripted", 0.5), ("random", 0.5)),
                                        n_envs=2, shard_mb=8))


def pairs(root: Path, split: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Every (frame t-1, action t, frame t) of the split, t >= 2 (the first step after a reset does nothing)."""
    before, actions, after = [], [], []
    for _, steps in read_episodes(root, split, ["rgb", "action"]):
        frames = halve(torch.from_numpy(np.moveaxis(steps["rgb"], -1, 1)))
        before.append(frames[1:-1])
        after.append(frames[2:])
        actions.append(torch.from_numpy(steps["action"][2:]))
    return torch.cat(before), torch.cat(actions), torch.cat(after)


def train(root: Path, minutes: float, seed: int = 0) -> NextFrame:
    torch.manual_seed(seed)
    model = NextFrame()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    clips = WorldModelClips(root, "train", clip_length=2, fields=("rgb", "action", "step"), stride=1, seed=seed)
    loader = torch.utils.data.DataLoader(clips, batch_size=32, num_workers=1)
    deadline, updates, epoch = time.monotonic() + 60 * minutes, 0, 0
    while time.monotonic() < deadline:
        clips.set_epoch(epoch)
        for batch in loader:
            keep = batch["step"][:, 1] >= 2
            if not keep.any():
                continue
            frames = halve(batch["rgb"][keep].flatten(0, 1)).unflatten(0, (-1, 2))
            loss = nn.functional.mse_loss(model(frames[:, 0], batch["action"][keep][:, 1]), frames[:, 1])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            updates += 1
            if time.monotonic() >= deadline:
                break
        epoch += 1
    print(f"trained {updates} updates ({epoch} epochs) in {minutes:g} minutes")
    return model


@torch.no_grad()
def errors(model: NextFrame, root: Path, split: str) -> tuple[float, float, int]:
    """(model's MSE, copying the previous frame's MSE, pairs) over every pair of the split."""
    before, actions, after = pairs(root, split)
    predicted = torch.cat([model(before[i:i + 256], actions[i:i + 256]) for i in range(0, len(before), 256)])
    return (nn.functional.mse_loss(predicted, after).item(), nn.functional.mse_loss(before, after).item(),
            len(before))


@torch.no_grad()
def write_strip(model: NextFrame, root: Path, path: Path, frames: int = 8) -> None:
    from PIL import Image

    _, steps = next(read_episodes(root, "test", ["rgb", "action"]))
    real = halve(torch.from_numpy(np.moveaxis(steps["rgb"], -1, 1)))
    picked = range(10, 10 + 3 * frames, 3)
    predicted = [model(real[t - 1:t], torch.from_numpy(steps["action"][t:t + 1]))[0] for t in picked]
    rows = [torch.cat([real[t] for t in picked], 2), torch.cat(predicted, 2)]
    image = (torch.cat(rows, 1).permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
    Image.fromarray(image).resize((image.shape[1] * 2, image.shape[0] * 2), Image.NEAREST).save(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("next-frame-data"))
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--strip", type=Path, default=None, help="write the held-out episode's strip here (PNG)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not (args.data / "index.json").is_file():
        record(args.data)
    model = train(args.data, args.minutes)
    model.eval()
    for split in ("train", "test"):
        mse, copy, count = errors(model, args.data, split)
        print(f"{split} levels: next-frame MSE {mse:.5f} (copying the previous frame: {copy:.5f}; {count} pairs)")
    if args.strip:
        write_strip(model, args.data, args.strip)
        print(f"strip: {args.strip}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
